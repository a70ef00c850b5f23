"""One table and one fixed sequence of changes that exercise what Debezium's PostgreSQL connector emits.

Used by the end-to-end Debezium test and by the script that records tests/fixtures/debezium/: rows
inserted before the connector exists come from its snapshot (op r); then an insert, updates (one key
twice in one transaction), a delete (a key-only `before`, then a tombstone), and two interleaved
transactions whose changes are emitted in commit order, not in the order they were written.
Values are fixed and pick edge cases: a negative decimal, instants before 1970, a NOT NULL column in a delete.
"""

from __future__ import annotations

from contextlib import closing

from tests.servers.postgres import PostgresServer

TABLE = "orders"
# Default replica identity: a delete's old row carries the key columns only.
CREATE_TABLE = """
CREATE TABLE orders (
    id bigint PRIMARY KEY,
    amount numeric(12, 2) NOT NULL,
    placed_at timestamptz,
    local_time timestamp(3),
    created_local timestamp,
    due date,
    attrs jsonb,
    ref uuid,
    note text
)
"""
INSERT = "INSERT INTO orders VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
SNAPSHOT_ROWS = [
    (1, "19.99", "2026-03-01 12:00:00.123456+00", "2026-03-01 14:00:00.123", "2026-03-01 14:00:00.123456", "2026-03-01",
     '{"sku": "A-1", "qty": 2}', "6f1c2b8e-3c55-4c1a-9a57-0e0c7f3e9a01", "first order"),
    (2, "-12.50", "2026-03-01 23:30:00+05:30", "2026-03-01 23:30:00", None, "2026-03-02", "[]",
     "0b8e9f4a-7d2c-4e61-8f3b-5a9c1d2e3f40", None),
]
STREAMED_INSERT = (3, "1234567890.12", "2026-03-02 00:00:00+00", "1969-12-31 23:59:59.999", "1969-12-31 23:59:59.999999",
                   "1969-12-31", None, "c3d4e5f6-0718-4293-a4b5-c6d7e8f90a1b", "ünïcode ✓")


def create_table(postgres: PostgresServer, database: str) -> None:
    """The table and its snapshot rows, before any connector exists."""
    with closing(postgres.connect(database)) as conn, conn.cursor() as cur:
        cur.execute(CREATE_TABLE)
        for row in SNAPSHOT_ROWS:
            cur.execute(INSERT, row)


def run_changes(postgres: PostgresServer, database: str) -> None:
    """The streamed changes, in this order:
    insert 3; update 1; update 2 twice in one transaction; delete 3;
    then transaction A updates 1 and, before A commits, transaction B updates 2 and commits; then A commits."""
    with closing(postgres.connect(database)) as conn, conn.cursor() as cur:
        cur.execute(INSERT, STREAMED_INSERT)
        cur.execute("UPDATE orders SET amount = 21.00 WHERE id = 1")
    with closing(postgres.connect(database, autocommit=False)) as conn:
        with conn.cursor() as cur:
            cur.execute("UPDATE orders SET note = 'changed once' WHERE id = 2")
            cur.execute("UPDATE orders SET note = 'changed twice', amount = 0.01 WHERE id = 2")
        conn.commit()
    with closing(postgres.connect(database)) as conn, conn.cursor() as cur:
        cur.execute("DELETE FROM orders WHERE id = 3")
    with closing(postgres.connect(database, autocommit=False)) as a, closing(postgres.connect(database, autocommit=False)) as b:
        with a.cursor() as cur:
            cur.execute("UPDATE orders SET note = 'written first, committed last' WHERE id = 1")
        with b.cursor() as cur:
            cur.execute("UPDATE orders SET note = 'written last, committed first' WHERE id = 2")
        b.commit()
        a.commit()


# snapshot r, r; streamed c, u, u, u, d, the delete's tombstone, then B's u and A's u
EXPECTED_RECORDS = 10
