"""Debezium-style change events (JSON envelope, schemas disabled) for the `users` and `orders` tables.

Each line is {"before", "after", "source", "op", "ts_ms"} with op c (create), u (update) or
d (delete), and r (a row of the connector's initial snapshot) when a history is asked for;
`source.lsn` increases strictly across both tables, so it orders changes of one key inside a
batch. A key can change several times inside one file.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lakeops.generator.events import COUNTRIES
from lakeops.generator.files import arrival_minutes, write_jsonl
from lakeops.generator.recency import KeysByDay, day_of
from lakeops.landing import CDC_STREAMS, minute_dir

TIERS = ("free", "plus", "pro")
ORDER_STATUSES = ("created", "paid", "shipped", "delivered", "cancelled")


@dataclass
class CdcStats:
    files: int = 0
    changes: dict[str, dict[str, int]] = field(default_factory=lambda: {t: {"c": 0, "u": 0, "d": 0} for t in CDC_STREAMS})
    live: dict[str, dict[int, dict]] = field(default_factory=lambda: {t: {} for t in CDC_STREAMS})
    """The final row of every live key after all changes: what the CDC tables must end up holding."""
    snapshot_rows: dict[str, int] = field(default_factory=lambda: {t: 0 for t in CDC_STREAMS})
    """Rows of the initial snapshot (op r), landed before the stream when a history is asked for."""


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

    def new_order(self, user_id: int, moment: datetime, status: str = "created") -> dict:
        order_id = self.next_id["orders"]
        self.next_id["orders"] += 1
        return {"order_id": order_id, "user_id": user_id, "status": status,
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


def _land_history(root: str, source: _CdcSource, stats: CdcStats, start: datetime, days: int, orders_per_day: int,
                  by_day: KeysByDay) -> None:
    """The connector's initial snapshot, landed in the minute before `start`: orders_per_day users
    (created before the window) and orders_per_day orders a day, created evenly over the `days`
    days before `start`, each in a status of its lifecycle."""
    if days < 1 or orders_per_day < 1:
        raise ValueError(f"history_days={days} and history_orders_per_day={orders_per_day} must both be at least 1 "
                         "for a history (history_days=0 lands none)")
    landed_at = start - timedelta(minutes=1)
    first = start - timedelta(days=days)
    lines: dict[str, list[str]] = {table: [] for table in CDC_STREAMS}
    for _ in range(orders_per_day):
        user = source.new_user(first - timedelta(days=1))
        stats.live["users"][user["user_id"]] = user
        lines["users"].append(source.envelope("users", "r", None, user, landed_at))
    users = list(stats.live["users"])
    total = days * orders_per_day
    step = timedelta(days=days) / total
    for i in range(total):
        order = source.new_order(source.rng.choice(users), first + i * step, source.rng.choice(ORDER_STATUSES))
        stats.live["orders"][order["order_id"]] = order
        by_day.add(order["order_id"], day_of(order["created_at"]))
        lines["orders"].append(source.envelope("orders", "r", None, order, landed_at))
    for table, stream in CDC_STREAMS.items():
        write_jsonl(minute_dir(root, stream, landed_at), f"{table}-{landed_at:%Y%m%dT%H%M}.jsonl", lines[table])
        stats.files += 1
        stats.snapshot_rows[table] = len(lines[table])


def generate_cdc(
    root: str,
    start: datetime,
    minutes: int,
    changes_per_minute: int = 200,
    seed: int = 11,
    delete_fraction: float = 0.05,
    *,
    history_days: int = 0,
    history_orders_per_day: int = 0,
    order_age_skew: float = 0.0,
    rate_profile: Sequence[float] = (),
    rate_block_minutes: int = 60,
) -> CdcStats:
    """Land one file per table per minute from `start` (UTC, aware) on.

    history_days > 0 first lands an initial snapshot (op r) in the minute before `start`: the
    orders of the history_days days before it (history_orders_per_day a day) and their users.
    order_age_skew > 0 makes order updates and deletes favour recent orders: the order's day is
    drawn with weight (age in days + 1) ** -order_age_skew (lakeops.generator.recency), so new
    and recent orders change most, as in a shop; 0 picks any live order alike.

    rate_profile makes the rate vary: consecutive blocks of rate_block_minutes minutes get
    changes_per_minute x rate_profile[0], [1], ... in turn (cycling), e.g. (0.25, 3, 1) for a quiet
    hour, a busy one and an average one; empty keeps changes_per_minute throughout."""
    if order_age_skew < 0:
        raise ValueError(f"order_age_skew={order_age_skew} must be 0 (uniform) or positive, e.g. 1.5")
    if any(not m >= 0 for m in rate_profile) or rate_block_minutes < 1:
        raise ValueError(f"rate_profile={tuple(rate_profile)} needs multipliers of 0 or more and rate_block_minutes="
                         f"{rate_block_minutes} at least 1, e.g. (0.25, 3, 1) in blocks of 60 minutes")
    source = _CdcSource(seed)
    stats = CdcStats()
    orders_by_day = KeysByDay()
    if history_days:
        _land_history(root, source, stats, start, history_days, history_orders_per_day, orders_by_day)
    for minute, arrival in enumerate(arrival_minutes(start, minutes, changes_per_minute)):
        lines: dict[str, list[str]] = {table: [] for table in CDC_STREAMS}
        rate = (round(changes_per_minute * rate_profile[minute // rate_block_minutes % len(rate_profile)])
                if rate_profile else changes_per_minute)
        for i in range(rate):
            moment = arrival + timedelta(seconds=60 * i / rate)
            table = "users" if source.rng.random() < 0.4 else "orders"
            live = stats.live[table]
            roll = source.rng.random()
            if not live or roll < 0.45 or (table == "orders" and not stats.live["users"]):
                if table == "orders" and not stats.live["users"]:
                    table, live = "users", stats.live["users"]
                row = (source.new_user(moment) if table == "users"
                       else source.new_order(source.rng.choice(list(stats.live["users"])), moment))
                op, before, after = "c", None, row
                key = row["user_id" if table == "users" else "order_id"]
            else:
                if table == "orders" and order_age_skew:
                    key = orders_by_day.pick(source.rng, day_of(_micros(moment)), order_age_skew)
                else:
                    key = source.rng.choice(list(live))
                before = live[key]
                if roll < 0.45 + delete_fraction:
                    op, after = "d", None
                else:
                    op, after = "u", source.change(before, table, moment)
            if after is None:
                del live[key]
                if table == "orders":
                    orders_by_day.remove(key)
            else:
                if table == "orders" and op == "c":
                    orders_by_day.add(key, day_of(after["created_at"]))
                live[key] = after
            stats.changes[table][op] += 1
            lines[table].append(source.envelope(table, op, before, after, moment))
        for table, stream in CDC_STREAMS.items():
            if lines[table]:
                write_jsonl(minute_dir(root, stream, arrival), f"{table}-{arrival:%Y%m%dT%H%M}.jsonl", lines[table])
                stats.files += 1
    return stats
