"""lakeops.catalogs.urls: one database address in the form each client wants."""

from __future__ import annotations

import pytest

from lakeops.catalogs.urls import DatabaseUrl, jdbc_url, parse_database_url, sqlalchemy_url
from lakeops.exceptions import ConfigError


@pytest.mark.parametrize(("uri", "parsed"), [
    ("postgresql://db.internal:5432/iceberg", DatabaseUrl("postgresql", "db.internal", 5432, "iceberg")),
    ("postgres://db/iceberg", DatabaseUrl("postgresql", "db", None, "iceberg")),
    ("postgresql+pg8000://db/iceberg", DatabaseUrl("postgresql", "db", None, "iceberg", driver="pg8000")),
    ("jdbc:postgresql://db:6432/ice?sslmode=verify-full&ApplicationName=lakeops",
     DatabaseUrl("postgresql", "db", 6432, "ice", query=(("sslmode", "verify-full"), ("ApplicationName", "lakeops")))),
    ("jdbc:postgresql://reader@db/iceberg", DatabaseUrl("postgresql", "db", None, "iceberg", user="reader")),
    ("sqlite:////srv/lake/catalog.db", DatabaseUrl("sqlite", database="/srv/lake/catalog.db")),
    ("sqlite:///relative.db", DatabaseUrl("sqlite", database="relative.db")),
    ("jdbc:sqlite:/srv/lake/catalog.db", DatabaseUrl("sqlite", database="/srv/lake/catalog.db")),
])
def test_parse(uri, parsed):
    assert parse_database_url(uri) == parsed


def test_both_forms():
    db = parse_database_url("jdbc:postgresql://db:6432/ice?sslmode=require")
    assert sqlalchemy_url(db) == "postgresql+psycopg2://db:6432/ice?sslmode=require"
    assert sqlalchemy_url(db, "iceberg", "p@ss word/:") == "postgresql+psycopg2://iceberg:p%40ss%20word%2F%3A@db:6432/ice?sslmode=require"
    assert jdbc_url(db) == "jdbc:postgresql://db:6432/ice?sslmode=require"
    sqlite = parse_database_url("sqlite:////srv/c.db")
    assert (sqlalchemy_url(sqlite, "u", "p"), jdbc_url(sqlite)) == ("sqlite:////srv/c.db", "jdbc:sqlite:/srv/c.db")


def test_ipv6_host():
    db = parse_database_url("postgresql://[::1]:5432/ice")
    assert (sqlalchemy_url(db), jdbc_url(db)) == ("postgresql+psycopg2://[::1]:5432/ice", "jdbc:postgresql://[::1]:5432/ice")


@pytest.mark.parametrize(("uri", "message"), [
    ("db.internal:5432/iceberg", "is not a database URL"),
    ("postgresql://db.internal", "names no host or no database"),
    ("postgresql://db:port/x", "has a port that is not a number"),
    ("mysql://db/iceberg", "is a 'mysql' database"),
    ("sqlite:///", "names no SQLite file"),
    ("jdbc:sqlite:", "names no SQLite file"),
])
def test_bad_urls_name_the_value_and_the_forms(uri, message):
    with pytest.raises(ConfigError, match=rf"catalog.uri: .*{message}.*write the catalog database as postgresql://host:5432/db"):
        parse_database_url(uri)
