"""Catalog configuration and both clients' settings: one catalog block feeds pyiceberg and Spark.

config.py    the catalog block (CatalogConfig), validated
urls.py      catalog database URLs in SQLAlchemy and JDBC form
secrets.py   secrets from the environment or an Airflow connection, at run time
mapping.py   pure: pyiceberg load_catalog properties and Spark spark.sql.catalog.<name>.* settings
masking.py   secrets kept out of logs and error messages
fileio.py    lakeops' own files through the FileIO of the table they belong to
load.py      the catalog at run time (secrets resolved, pyiceberg catalog loaded)
"""
