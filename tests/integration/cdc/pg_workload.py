"""A random workload on a real PostgreSQL table with numeric(12,2), timestamptz, timestamp(3), date, jsonb, uuid and
text columns and the default replica identity: inserts, updates (often several of one key in a row) and deletes in
transactions of one to three statements, values picked at the edges (negative amounts, instants before 1970, NULLs,
Unicode), a text column often holding 9 to 12 KB of random text stored out of line (TOASTed: an update that leaves
it alone makes Debezium send its unavailable-value placeholder), and truncate-free schema changes (ADD COLUMN, DROP
COLUMN). It counts the Kafka records Debezium will write for it (one per row change, two per delete: the event and
its tombstone)."""

from __future__ import annotations

import json
import random
import string
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
    note text,
    doc text
)
"""
# Out of line and uncompressed: a value over about 2 KB is TOASTed whatever its content.
TOAST = "ALTER TABLE orders ALTER COLUMN doc SET STORAGE EXTERNAL"
BIG = (9_000, 12_000)
"""Length of a large doc: over PostgreSQL's 8 KB page, so TOASTed under any storage setting."""
# The Iceberg columns lakeops creates for it (a `create` block); `channel` arrives later (evolve: add_columns).
ICEBERG_COLUMNS = {"id": "bigint not null", "amount": "decimal(12, 2) not null", "placed_at": "timestamp",
                   "local_time": "timestamp_ntz", "due": "date", "attrs": "string", "ref": "string", "note": "string",
                   "doc": "string"}
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
        self.dropped_notes: dict[int, str | None] | None = None
        """After drop_note: each live row's note when the column was dropped (its Iceberg value until it changes)."""
        self.changed_after_drop: set[int] = set()
        self.statements = {"insert": 0, "update": 0, "delete": 0}

    def create(self, snapshot_rows: int) -> None:
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute(CREATE)
            cur.execute(TOAST)
            for _ in range(snapshot_rows):
                self._insert(cur)

    def add_column(self) -> None:
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute("ALTER TABLE orders ADD COLUMN channel text")
        self.has_channel = True

    def drop_note(self) -> None:
        """ALTER TABLE DROP COLUMN note: lakeops keeps the column, null in the rows changed from then on."""
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute("SELECT id, note FROM orders")
            self.dropped_notes = dict(cur.fetchall())
            cur.execute("ALTER TABLE orders DROP COLUMN note")

    def touch_toasted(self, rows: int) -> int:
        """Update other columns of up to `rows` rows whose doc is TOASTed, twice in one transaction for every other
        one: Debezium sends the placeholder for doc. Returns how many rows."""
        with closing(self.postgres.connect(self.database, autocommit=False)) as conn, conn.cursor() as cur:
            cur.execute("SELECT id FROM orders WHERE length(doc) >= %s ORDER BY id LIMIT %s", (BIG[0], rows))
            keys = [row[0] for row in cur.fetchall()]
            for n, key in enumerate(keys):
                for _ in range(1 + n % 2):
                    self._update(cur, key, ["amount", "due"])
            conn.commit()
        return len(keys)

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
            "doc": self._doc(),
        }
        if self.dropped_notes is None:
            values["note"] = None if rng.random() < 0.2 else rng.choice(NOTES)
        if self.has_channel:
            values["channel"] = rng.choice(["web", "app", None])
        return values

    def _doc(self) -> str | None:
        roll = self.rng.random()
        if roll < 0.4:
            return "".join(self.rng.choices(string.ascii_letters + string.digits, k=self.rng.randint(*BIG)))
        return None if roll < 0.6 else f"short doc {self.rng.randint(0, 999)}"

    def _insert(self, cur) -> None:
        values = {"id": self.next_id, **self._values()}
        self.next_id += 1
        cur.execute(f"INSERT INTO orders ({', '.join(values)}) VALUES ({', '.join(['%s'] * len(values))})", list(values.values()))
        self.live.append(values["id"])
        self._changed(values["id"])
        self.records += 1
        self.statements["insert"] += 1

    def _changed(self, key: int) -> None:
        if self.dropped_notes is not None:
            self.changed_after_drop.add(key)

    def _update(self, cur, key: int, columns: list[str] | None = None) -> None:
        """Set `columns` (default: a random subset, so doc is often left alone) to new values."""
        values = self._values()
        columns = columns or self.rng.sample(sorted(values), self.rng.randint(1, len(values)))
        self._changed(key)
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
        """SELECT * of the table, by id, with the dropped note as lakeops keeps it: the value at the drop for a row
        not changed since, null for the others."""
        with closing(self.postgres.connect(self.database)) as conn, conn.cursor() as cur:
            cur.execute("SELECT * FROM orders")
            names = [d[0] for d in cur.description]
            rows = {row[0]: dict(zip(names, row, strict=True)) for row in cur.fetchall()}
        if self.dropped_notes is not None:
            for key, row in rows.items():
                row["note"] = None if key in self.changed_after_drop else self.dropped_notes[key]
        return rows
