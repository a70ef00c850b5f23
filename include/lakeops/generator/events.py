"""Behavioral events as JSON lines, with skewed users, late events and a share of bad lines."""

from __future__ import annotations

import itertools
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from lakeops.generator.files import arrival_minutes, write_jsonl
from lakeops.landing import EVENTS_STREAM, minute_dir

EVENT_TYPES = ("page_view", "click", "search", "add_to_cart", "purchase")
EVENT_WEIGHTS = (60, 22, 8, 7, 3)
DEVICES = ("mobile", "desktop", "tablet")
DEVICE_WEIGHTS = (60, 33, 7)
COUNTRIES = ("US", "DE", "GB", "FR", "IN", "BR", "JP", "CA", "ES", "NL", "SE", "PL")
COUNTRY_WEIGHTS = (30, 12, 10, 8, 9, 7, 6, 5, 4, 3, 3, 3)
BAD_KINDS = ("malformed_json", "wrong_type", "missing_field", "bad_timestamp")


@dataclass
class EventStats:
    files: int = 0
    lines: int = 0
    good: int = 0
    late: int = 0
    bad: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BAD_KINDS, 0))
    good_event_ids: set[str] = field(default_factory=set)

    @property
    def bad_total(self) -> int:
        return sum(self.bad.values())


def _iso(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class _EventSource:
    def __init__(self, seed: int, users: int) -> None:
        self.rng = random.Random(seed)
        # Zipf-like skew: a few users produce most events.
        self.user_cum_weights = list(itertools.accumulate(1.0 / (rank**1.1) for rank in range(1, users + 1)))
        self.sessions: dict[int, int] = {}

    def event(self, arrival: datetime, late_fraction: float) -> tuple[dict, bool]:
        rng = self.rng
        user_id = 1 + rng.choices(range(len(self.user_cum_weights)), cum_weights=self.user_cum_weights)[0]
        if user_id not in self.sessions or rng.random() < 0.08:
            self.sessions[user_id] = self.sessions.get(user_id, 0) + 1
        late = rng.random() < late_fraction
        lag = timedelta(minutes=rng.uniform(5, 180)) if late else timedelta(seconds=rng.uniform(0, 30))
        event_type = rng.choices(EVENT_TYPES, weights=EVENT_WEIGHTS)[0]
        product = rng.randint(1, 2000)
        page = {"search": "/search", "add_to_cart": "/cart", "purchase": "/checkout"}.get(event_type, f"/product/{product}")
        event = {
            "event_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "user_id": user_id,
            "session_id": f"s-{user_id}-{self.sessions[user_id]}",
            "event_time": _iso(arrival - lag),
            "event_type": event_type,
            "page": page,
            "device": rng.choices(DEVICES, weights=DEVICE_WEIGHTS)[0],
            "country": rng.choices(COUNTRIES, weights=COUNTRY_WEIGHTS)[0],
            "properties": {"product_id": str(product), "referrer": rng.choice(("direct", "search", "ads", "email"))},
        }
        return event, late

    def spoil(self, event: dict) -> tuple[str, str]:
        kind = self.rng.choice(BAD_KINDS)
        if kind == "malformed_json":
            text = json.dumps(event)
            return kind, text[: self.rng.randint(5, len(text) - 5)]
        bad = dict(event)
        if kind == "wrong_type":
            bad["user_id"] = "user-" + str(bad["user_id"])
        elif kind == "missing_field":
            del bad[self.rng.choice(("event_time", "user_id", "event_type"))]
        else:
            bad["event_time"] = "yesterday at noon"
        return kind, json.dumps(bad)


def generate_events(
    root: str,
    start: datetime,
    minutes: int,
    events_per_minute: int = 500,
    seed: int = 7,
    users: int = 5000,
    late_fraction: float = 0.03,
    bad_fraction: float = 0.005,
) -> EventStats:
    """Land `minutes` one-minute files of events arriving from `start` (UTC, aware) on."""
    source = _EventSource(seed, users)
    stats = EventStats()
    for arrival in arrival_minutes(start, minutes, events_per_minute):
        lines = []
        for i in range(events_per_minute):
            event, late = source.event(arrival + timedelta(seconds=60 * i / events_per_minute), late_fraction)
            if source.rng.random() < bad_fraction:
                kind, line = source.spoil(event)
                stats.bad[kind] += 1
            else:
                line = json.dumps(event, separators=(",", ":"))
                stats.good += 1
                stats.late += late
                stats.good_event_ids.add(event["event_id"])
            lines.append(line)
        write_jsonl(minute_dir(root, EVENTS_STREAM, arrival), f"events-{arrival:%Y%m%dT%H%M}.jsonl", lines)
        stats.files += 1
        stats.lines += len(lines)
    return stats
