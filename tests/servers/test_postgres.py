"""The shared PostgreSQL is real: password logins over TCP, logical WAL, a database per test, reachable through SQLAlchemy."""

from __future__ import annotations

from contextlib import closing

import psycopg2
import pytest

from tests.servers.postgres import PostgresServer


def test_password_login_over_tcp_with_logical_wal(postgres_server: PostgresServer, postgres_database: str) -> None:
    with closing(psycopg2.connect(host=postgres_server.host, port=postgres_server.port, user=postgres_server.superuser,
                                  password=postgres_server.password, dbname=postgres_database)) as conn, conn.cursor() as cur:
        cur.execute("SHOW wal_level")
        assert cur.fetchone() == ("logical",)
        cur.execute("SELECT current_setting('max_replication_slots')::int, current_setting('max_wal_senders')::int")
        slots, senders = cur.fetchone()
        assert slots >= 10 and senders >= 10
        cur.execute("SELECT current_database(), inet_server_addr()::text, version()")
        database, address, version = cur.fetchone()
    assert database == postgres_database
    assert address.startswith("127.0.0.1")  # a TCP connection, not the Unix socket
    assert version.startswith("PostgreSQL 15.")


def test_wrong_password_is_refused(postgres_server: PostgresServer) -> None:
    # Host connections use scram-sha-256, not trust: clients must really send the password.
    with pytest.raises(psycopg2.OperationalError, match="password authentication failed"):
        psycopg2.connect(host=postgres_server.host, port=postgres_server.port, user=postgres_server.superuser,
                         password="wrong", dbname="postgres", connect_timeout=5)


def test_each_database_is_new_and_empty(postgres_server: PostgresServer) -> None:
    first, second = postgres_server.create_database(), postgres_server.create_database()
    assert first != second
    with closing(postgres_server.connect(first)) as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
        assert cur.fetchone() == (0,)


def test_sqlalchemy_url_as_pyiceberg_sql_catalog_uses_it(postgres_server: PostgresServer, postgres_database: str) -> None:
    # The form pyiceberg's SqlCatalog takes as `uri` (postgresql+psycopg2://user:password@host:port/db).
    import sqlalchemy

    engine = sqlalchemy.create_engine(postgres_server.sqlalchemy_url(postgres_database))
    try:
        with engine.connect() as conn:
            assert conn.execute(sqlalchemy.text("SELECT 1")).scalar() == 1
    finally:
        engine.dispose()
    assert postgres_server.jdbc_url(postgres_database) == (
        f"jdbc:postgresql://127.0.0.1:{postgres_server.port}/{postgres_database}")
