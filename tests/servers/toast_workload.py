"""A table with large values stored out of line (TOASTed) and a fixed sequence of changes that make Debezium's
PostgreSQL connector send its unavailable-value placeholder, then drop a column and change a column's type.

Used by the script that records tests/fixtures/debezium/postgres_toast.jsonl. Under the default replica identity
an UPDATE that leaves a TOASTed value alone does not log it: Debezium sends `__debezium_unavailable_value` for a
text column, its bytes for a bytea column and a one-item list for a text array.
"""

from __future__ import annotations

from contextlib import closing

from tests.servers.postgres import PostgresServer

TABLE = "docs"
CREATE_TABLE = """
CREATE TABLE docs (
    id bigint PRIMARY KEY,
    qty integer,
    body text,
    blob bytea,
    tags text[]
)
"""
# Out of line and uncompressed: any value over about 2 KB is TOASTed.
STORAGE = [f"ALTER TABLE docs ALTER COLUMN {column} SET STORAGE EXTERNAL" for column in ("body", "blob", "tags")]
INSERT = "INSERT INTO docs VALUES (%s, %s, %s, %s, %s)"


def body(key: int) -> str:
    """8200 characters that differ from key to key."""
    return "".join(chr(ord("a") + (key * 7 + i * i) % 26) for i in range(8200))


def blob(key: int) -> bytes:
    return bytes((key + i * 31) % 256 for i in range(3000))


def tags(key: int) -> list[str]:
    return [f"tag-{key}-{i:04d}" for i in range(300)]


def create_table(postgres: PostgresServer, database: str) -> None:
    """The table and its snapshot row, before any connector exists."""
    with closing(postgres.connect(database)) as conn, conn.cursor() as cur:
        cur.execute(CREATE_TABLE)
        for statement in STORAGE:
            cur.execute(statement)
        cur.execute(INSERT, (1, 1, body(1), blob(1), tags(1)))


def run_changes(postgres: PostgresServer, database: str) -> None:
    """insert 2; update qty of 1 (body, blob and tags unsent); update body of 2 (blob and tags unsent);
    DROP COLUMN tags, update qty of 1; ALTER COLUMN qty TYPE text, update qty of 2."""
    with closing(postgres.connect(database)) as conn, conn.cursor() as cur:
        cur.execute(INSERT, (2, 2, body(2), blob(2), tags(2)))
        cur.execute("UPDATE docs SET qty = 10 WHERE id = 1")
        cur.execute("UPDATE docs SET body = 'short now' WHERE id = 2")
        cur.execute("ALTER TABLE docs DROP COLUMN tags")
        cur.execute("UPDATE docs SET qty = 11 WHERE id = 1")
        cur.execute("ALTER TABLE docs ALTER COLUMN qty TYPE text")
        cur.execute("UPDATE docs SET qty = 'four' WHERE id = 2")


# snapshot r; streamed c, u, u, u, u
EXPECTED_RECORDS = 6
