"""Debezium-style change events (JSON envelope, schemas disabled) for the `users` and `orders` tables.

Each line is {"before", "after", "source", "op", "ts_ms"} with op c (create), u (update) or
d (delete); `source.lsn` increases strictly across both tables, so it orders changes of one
key inside a batch. A key can change several times inside one file.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lakeops.generator.events import COUNTRIES
from lakeops.generator.files import arrival_minutes, write_jsonl
from lakeops.landing import CDC_STREAMS, minute_dir

TIERS = ("free", "plus", "pro")
ORDER_STATUSES = ("created", "paid", "shipped", "delivered", "cancelled")


@dataclass
class CdcStats:
    files: int = 0
    changes: dict[str, dict[str, int]] = field(default_factory=lambda: {t: {"c": 0, "u": 0, "d": 0} for t in CDC_STREAMS})
    live: dict[str, dict[int, dict]] = field(default_factory=lambda: {t: {} for t in CDC_STREAMS})
    """The final row of every live key after all changes: what the CDC tables must end up holding."""


def _micros(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


class _CdcSource:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lsn = 10_000_000
        self.tx = 5000
        self.next_id = {"users": 1, "orders": 1}

    def envelope(self, table: str, op: str, before: dict | None, after: dict | None, moment: datetime) -> str:
        self.lsn += self.rng.randint(8, 400)
        self.tx += 1
        ts_ms = int(moment.timestamp() * 1000)
        source = {"version": "2.7.0.Final", "connector": "postgresql", "name": "shop", "ts_ms": ts_ms,
                  "db": "shop", "schema": "public", "table": table, "txId": self.tx, "lsn": self.lsn}
        return json.dumps({"before": before, "after": after, "source": source, "op": op, "ts_ms": ts_ms + 40},
                          separators=(",", ":"))

    def new_user(self, moment: datetime) -> dict:
        user_id = self.next_id["users"]
        self.next_id["users"] += 1
        return {"user_id": user_id, "email": f"user{user_id}@example.com", "name": f"User {user_id}",
                "country": self.rng.choice(COUNTRIES), "tier": "free",
                "created_at": _micros(moment), "updated_at": _micros(moment)}

    def new_order(self, user_id: int, moment: datetime) -> dict:
        order_id = self.next_id["orders"]
        self.next_id["orders"] += 1
        return {"order_id": order_id, "user_id": user_id, "status": "created",
                "amount": f"{self.rng.uniform(3, 400):.2f}", "currency": "USD",
                "created_at": _micros(moment), "updated_at": _micros(moment)}

    def change(self, row: dict, table: str, moment: datetime) -> dict:
        after = dict(row, updated_at=_micros(moment))
        if table == "users":
            after["tier"] = self.rng.choice(TIERS)
            after["country"] = self.rng.choice(COUNTRIES)
        else:
            after["status"] = self.rng.choice(ORDER_STATUSES[1:])
        return after


def generate_cdc(
    root: str,
    start: datetime,
    minutes: int,
    changes_per_minute: int = 200,
    seed: int = 11,
    delete_fraction: float = 0.05,
) -> CdcStats:
    """Land one file per table per minute from `start` (UTC, aware) on."""
    source = _CdcSource(seed)
    stats = CdcStats()
    for arrival in arrival_minutes(start, minutes, changes_per_minute):
        lines: dict[str, list[str]] = {table: [] for table in CDC_STREAMS}
        for i in range(changes_per_minute):
            moment = arrival + timedelta(seconds=60 * i / changes_per_minute)
            table = "users" if source.rng.random() < 0.4 else "orders"
            live = stats.live[table]
            roll = source.rng.random()
            if not live or roll < 0.45 or (table == "orders" and not stats.live["users"]):
                if table == "orders" and not stats.live["users"]:
                    table, live = "users", stats.live["users"]
                row = (source.new_user(moment) if table == "users"
                       else source.new_order(source.rng.choice(list(stats.live["users"])), moment))
                op, before, after = "c", None, row
            else:
                key = source.rng.choice(list(live))
                before = live[key]
                if roll < 0.45 + delete_fraction:
                    op, after = "d", None
                else:
                    op, after = "u", source.change(before, table, moment)
            key = (after or before)["user_id" if table == "users" else "order_id"]
            if after is None:
                del live[key]
            else:
                live[key] = after
            stats.changes[table][op] += 1
            lines[table].append(source.envelope(table, op, before, after, moment))
        for table, stream in CDC_STREAMS.items():
            if lines[table]:
                write_jsonl(minute_dir(root, stream, arrival), f"{table}-{arrival:%Y%m%dT%H%M}.jsonl", lines[table])
                stats.files += 1
    return stats
