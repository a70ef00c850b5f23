"""lakeops: every DAG rendered from the configuration file ($LAKEOPS_CONFIG); nothing else happens at import."""

from lakeops_airflow.dags import render_dags

render_dags(globals())
