"""A random workload on a real PostgreSQL table with numeric(12,2), timestamptz, timestamp(3), date, jsonb, uuid and
text columns and the default replica identity: inserts, updates (often several of one key in a row) and deletes in
transactions of one to three statements, values picked at the edges (negative amounts, instants before 1970, NULLs,
Unicode), and a truncate-free schema change (ADD COLUMN). It counts the Kafka records Debezium will write for it
(one per row change, two per delete: the event and its tombstone)."""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from contextlib import closing
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

from tests.servers.postgres import PostgresServer

CREATE = """
CREATE TABLE orders (
    id bigint PRIMARY KEY,
    amount numeric(12, 2) NOT NULL,
    placed_at timestamptz,
    local_time timestamp(3),
    due date,
    attrs jsonb,
    ref uuid,
    note text
)
"""
# The Iceberg columns lakeops creates for it (a `create` block); `channel` arrives later (evolve: add_columns).
ICEBERG_COLUMNS = {"id": "bigint not null", "amount": "decimal(12, 2) not null", "placed_at": "timestamp",
                   "local_time": "timestamp_ntz", "due": "date", "attrs": "string", "ref": "string", "note": "string"}
NOTES = ["plain", "ünïcode ✓", "quote ' and \" both", "", "a longer note " * 5]


class RandomWorkload:
    def __init__(self, postgres: PostgresServer, database: str, seed: int) -> None:
        self.postgres = postgres
        self.database = database
        self.rng = random.Random(seed)
        self.live: list[int] = []
        self.next_id = 1
        self.records = 0
        """Kafka records Debezium writes for what ran so far (snapshot rows included)."""
        self.has_channel = False
        self.statements = {"insert": 0, "update": 0, "delete": 0}

    def create(self, snapshot_rows: int) -> None:
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute(CREATE)
            for _ in range(snapshot_rows):
                self._insert(cur)

    def add_column(self) -> None:
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute("ALTER TABLE orders ADD COLUMN channel text")
        self.has_channel = True

    def _values(self) -> dict:
        rng = self.rng
        moment = datetime(1950, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randint(0, 90 * 365 * 86400),
                                                                      microseconds=rng.randint(0, 999_999))
        values = {
            "amount": Decimal(rng.randint(-10 ** 11, 10 ** 11)) / 100,
            "placed_at": None if rng.random() < 0.1 else moment.astimezone(timezone(timedelta(hours=rng.randint(-11, 12)))),
            "local_time": None if rng.random() < 0.1 else moment.replace(tzinfo=None, microsecond=rng.randint(0, 999) * 1000),
            "due": None if rng.random() < 0.1 else date(1900, 1, 1) + timedelta(days=rng.randint(0, 200 * 365)),
            "attrs": None if rng.random() < 0.1 else json.dumps(rng.choice(
                [{"sku": f"S-{rng.randint(1, 99)}", "qty": rng.randint(1, 9)}, [1, "two", None], {}, {"n": {"x": 1.5}}])),
            "ref": None if rng.random() < 0.1 else str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "note": None if rng.random() < 0.2 else rng.choice(NOTES),
        }
        if self.has_channel:
            values["channel"] = rng.choice(["web", "app", None])
        return values

    def _insert(self, cur) -> None:
        values = {"id": self.next_id, **self._values()}
        self.next_id += 1
        cur.execute(f"INSERT INTO orders ({', '.join(values)}) VALUES ({', '.join(['%s'] * len(values))})", list(values.values()))
        self.live.append(values["id"])
        self.records += 1
        self.statements["insert"] += 1

    def _update(self, cur, key: int) -> None:
        values = self._values()
        columns = self.rng.sample(sorted(values), self.rng.randint(1, len(values)))
        cur.execute(f"UPDATE orders SET {', '.join(f'{c} = %s' for c in columns)} WHERE id = %s",
                    [values[c] for c in columns] + [key])
        self.records += 1
        self.statements["update"] += 1

    def _delete(self, cur, key: int) -> None:
        cur.execute("DELETE FROM orders WHERE id = %s", (key,))
        self.live.remove(key)
        self.records += 2  # the delete event and its tombstone
        self.statements["delete"] += 1

    def run(self, transactions: int, pause: float = 0.2) -> None:
        """Transactions of one to three statements, `pause` seconds apart (so they keep coming while lakeops ingests);
        an update is often followed by more updates of the same key."""
        with closing(self.postgres.connect(self.database, autocommit=False)) as conn:
            for _ in range(transactions):
                with conn.cursor() as cur:
                    for _ in range(self.rng.randint(1, 3)):
                        roll = self.rng.random()
                        if roll < 0.35 or len(self.live) < 5:
                            self._insert(cur)
                        elif roll < 0.85:
                            key = self.rng.choice(self.live)
                            for _ in range(self.rng.choice([1, 1, 2, 3])):
                                self._update(cur, key)
                        else:
                            self._delete(cur, self.rng.choice(self.live))
                conn.commit()
                time.sleep(pause)

    def finish(self) -> None:
        """End on an insert, so the topic's last record is a change (not a tombstone) that a batch commits."""
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            self._insert(cur)

    def in_background(self, transactions: int) -> threading.Thread:
        thread = threading.Thread(target=self.run, args=(transactions,), name="pg-workload")
        thread.start()
        return thread

    def rows(self) -> dict[int, dict]:
        """SELECT * of the table, by id."""
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute("SELECT * FROM orders")
            names = [d[0] for d in cur.description]
            return {row[0]: dict(zip(names, row, strict=True)) for row in cur.fetchall()}
