"""Catalog database URLs: one address, written once, in the form each client wants.

pyiceberg's SqlCatalog takes a SQLAlchemy URL with the user and password in it
(postgresql+psycopg2://user:pw@host:5432/db); Iceberg's JdbcCatalog in Spark takes a JDBC URL
(jdbc:postgresql://host:5432/db) and the user and password as jdbc.user / jdbc.password. The config
may name the database in any of the three forms; a password in it is refused (it is a secret).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from lakeops.exceptions import ConfigError

POSTGRES_DRIVER = "psycopg2"
"""SQLAlchemy's driver for PostgreSQL: pyiceberg[sql-postgres] installs it (psycopg2-binary)."""


@dataclass(frozen=True)
class DatabaseUrl:
    dialect: str
    """postgresql or sqlite."""
    host: str = ""
    port: int | None = None
    database: str = ""
    """PostgreSQL: the database name; SQLite: the file's path."""
    user: str | None = None
    query: tuple[tuple[str, str], ...] = ()
    driver: str | None = None
    """The SQLAlchemy driver named in the config (postgresql+pg8000://...), else the default."""


def _fail(uri: str, why: str) -> ConfigError:
    return ConfigError(f"catalog.uri: {uri!r} {why}; write the catalog database as postgresql://host:5432/db "
                       "(or its jdbc:postgresql:// or postgresql+psycopg2:// form) or sqlite:////absolute/path.db")


def parse_database_url(uri: str) -> DatabaseUrl:
    """Parse any accepted form of a catalog database URL; raises ConfigError naming the value and the fix."""
    text = uri.strip()
    if text.startswith("jdbc:sqlite:"):
        path = text.removeprefix("jdbc:sqlite:").removeprefix("//")
        if not path:
            raise _fail(uri, "names no SQLite file")
        return DatabaseUrl("sqlite", database=path)
    if text.startswith("jdbc:"):
        text = text.removeprefix("jdbc:")
    scheme, _, rest = text.partition("://")
    if not rest:
        raise _fail(uri, "is not a database URL")
    dialect, _, driver = scheme.lower().partition("+")
    dialect = "postgresql" if dialect == "postgres" else dialect
    if dialect == "sqlite":
        # SQLAlchemy: sqlite:///relative.db, sqlite:////absolute.db (the part after :/// is the path)
        if not rest.startswith("/") or rest == "/":
            raise _fail(uri, "names no SQLite file")
        return DatabaseUrl("sqlite", database=rest[1:], driver=driver or None)
    if dialect != "postgresql":
        raise _fail(uri, f"is a {dialect!r} database, which lakeops cannot give both clients a driver for")
    parts = urlsplit(f"postgresql://{rest}")
    if parts.password is not None:
        from lakeops.catalogs.masking import redact

        raise ConfigError(f"catalog.uri: {redact(uri)!r} holds a password; a secret does not go in the config file. Remove it "
                          "from the URL and put it in the Airflow connection named by catalog.conn_id (password) or in "
                          "LAKEOPS_CATALOG_PASSWORD (docs/catalogs.md, Secrets)")
    database = unquote(parts.path.lstrip("/"))
    if not parts.hostname or not database:
        raise _fail(uri, "names no host or no database")
    try:
        port = parts.port
    except ValueError as e:
        raise _fail(uri, "has a port that is not a number") from e
    return DatabaseUrl("postgresql", host=parts.hostname, port=port, database=database,
                       user=unquote(parts.username) if parts.username else None,
                       query=tuple(parse_qsl(parts.query)), driver=driver or None)


def _host_port(db: DatabaseUrl) -> str:
    host = f"[{db.host}]" if ":" in db.host else db.host
    return f"{host}:{db.port}" if db.port else host


def _query(db: DatabaseUrl) -> str:
    return f"?{urlencode(db.query)}" if db.query else ""


def sqlalchemy_url(db: DatabaseUrl, user: str | None = None, password: str | None = None) -> str:
    """pyiceberg's form, with the user and password in it (quoted): the value is a secret when a password is."""
    if db.dialect == "sqlite":
        return f"sqlite:///{db.database}"
    user = user or db.user
    auth = ""
    if user:
        auth = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "") + "@"
    return f"postgresql+{db.driver or POSTGRES_DRIVER}://{auth}{_host_port(db)}/{quote(db.database, safe='')}{_query(db)}"


def jdbc_url(db: DatabaseUrl) -> str:
    """Spark's form: no user or password in it (they go in jdbc.user / jdbc.password)."""
    if db.dialect == "sqlite":
        return f"jdbc:sqlite:{db.database}"
    return f"jdbc:postgresql://{_host_port(db)}/{quote(db.database, safe='')}{_query(db)}"
