"""lakeops.generator.events: deterministic landed events with skew, late arrivals and bad lines."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from lakeops.generator import generate_events
from lakeops.generator.events import BAD_KINDS
from lakeops.landing import interval_dirs

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
MINUTES = 10
PER_MINUTE = 400
USERS = 5000
REQUIRED = ("event_time", "user_id", "event_type")


def landed(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def parse_time(text: str) -> datetime:
    if not text.endswith("Z"):
        raise ValueError(text)
    return datetime.strptime(text[:-1], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)


def classify(line: str) -> str | None:
    """The bad kind of a line, or None when it is a good event."""
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        return "malformed_json"
    if any(key not in event for key in REQUIRED):
        return "missing_field"
    if isinstance(event["user_id"], bool) or not isinstance(event["user_id"], int):
        return "wrong_type"
    try:
        parse_time(event["event_time"])
    except (TypeError, ValueError):
        return "bad_timestamp"
    return None


def arrival_minute(path: Path, root: Path) -> datetime:
    year, month, day, hour, minute = path.parent.relative_to(root / "events").parts
    return datetime(int(year), int(month), int(day), int(hour), int(minute), tzinfo=UTC)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("events")
    stats = generate_events(str(root), START, MINUTES, PER_MINUTE, seed=7, users=USERS, late_fraction=0.05, bad_fraction=0.05)
    files = sorted(root.rglob("*.jsonl"))
    lines = [(path, line) for path in files for line in path.read_text().splitlines()]
    return root, stats, files, lines


def test_files_are_one_per_minute_in_the_landing_layout(run):
    root, stats, files, _ = run
    assert stats.files == MINUTES == len(files)
    assert [str(p.parent) for p in files] == interval_dirs(str(root), "events", START, START + timedelta(minutes=MINUTES))
    assert [p.name for p in files] == [f"events-20261121T10{m:02d}.jsonl" for m in range(MINUTES)]
    assert [p for p in root.rglob("*") if p.is_file() and p.suffix != ".jsonl"] == []


def test_counts_add_up(run):
    _, stats, files, lines = run
    assert stats.lines == len(lines) == MINUTES * PER_MINUTE
    assert stats.good + stats.bad_total == stats.lines
    assert stats.bad_total == sum(stats.bad.values())
    assert set(stats.bad) == set(BAD_KINDS)
    assert len(stats.good_event_ids) == stats.good
    assert all(len(p.read_text().splitlines()) == PER_MINUTE for p in files)


def test_every_bad_line_is_bad_for_its_kind(run):
    _, stats, _, lines = run
    kinds = Counter(classify(line) for _, line in lines)
    assert kinds[None] == stats.good
    assert {kind: kinds[kind] for kind in BAD_KINDS} == stats.bad
    assert all(stats.bad[kind] > 0 for kind in BAD_KINDS)


def test_good_lines_are_complete_events(run, declared_columns):
    _, stats, _, lines = run
    expected_keys = declared_columns("events") - {"ingested_at"}
    ids = []
    for _, line in lines:
        if classify(line) is not None:
            continue
        event = json.loads(line)
        assert set(event) == expected_keys
        assert 1 <= event["user_id"] <= USERS
        assert event["session_id"].startswith(f"s-{event['user_id']}-")
        assert all(isinstance(event[k], str) for k in ("event_id", "event_type", "page", "device", "country"))
        assert all(isinstance(v, str) for v in event["properties"].values())
        ids.append(event["event_id"])
    assert len(ids) == len(set(ids)) == stats.good
    assert set(ids) == stats.good_event_ids


def test_late_events_exist_and_arrive_after_their_event_time(run):
    root, stats, _, lines = run
    late = 0
    for path, line in lines:
        if classify(line) is not None:
            continue
        arrival = arrival_minute(path, root)
        event_time = parse_time(json.loads(line)["event_time"])
        assert event_time < arrival + timedelta(minutes=1), "no event is stamped after it landed"
        if event_time < arrival - timedelta(minutes=1):
            assert event_time >= arrival - timedelta(minutes=180)
            late += 1
    assert late == stats.late
    assert 0.02 * stats.good < stats.late < 0.10 * stats.good


def test_a_few_users_produce_most_events(run):
    _, _, _, lines = run
    per_user = Counter(json.loads(line)["user_id"] for _, line in lines if classify(line) is None)
    top = sum(count for _, count in per_user.most_common(USERS // 100))
    assert top / sum(per_user.values()) > 0.4
    assert per_user.most_common(1)[0][0] == 1


def test_same_seed_lands_the_same_bytes(tmp_path):
    first = generate_events(str(tmp_path / "a"), START, 3, 200, seed=42)
    second = generate_events(str(tmp_path / "b"), START, 3, 200, seed=42)
    assert landed(tmp_path / "a") == landed(tmp_path / "b")
    assert first == second


def test_another_seed_lands_other_events(tmp_path):
    generate_events(str(tmp_path / "a"), START, 3, 200, seed=42)
    generate_events(str(tmp_path / "b"), START, 3, 200, seed=43)
    a, b = landed(tmp_path / "a"), landed(tmp_path / "b")
    assert a.keys() == b.keys()
    assert all(a[name] != b[name] for name in a)


def test_rerun_into_the_same_root_overwrites_files(tmp_path):
    generate_events(str(tmp_path), START, 2, 50, seed=1)
    before = landed(tmp_path)
    generate_events(str(tmp_path), START, 2, 50, seed=1)
    assert landed(tmp_path) == before


def test_no_bad_or_late_lines_when_fractions_are_zero(tmp_path):
    stats = generate_events(str(tmp_path), START, 2, 100, seed=3, late_fraction=0, bad_fraction=0)
    assert stats.good == stats.lines == 200
    assert stats.late == 0
    assert stats.bad_total == 0


@pytest.mark.parametrize(("minutes", "per_minute"), [(0, 10), (1, 0), (-1, 10)])
def test_empty_runs_are_rejected(tmp_path, minutes, per_minute):
    with pytest.raises(ValueError, match="must both be at least 1"):
        generate_events(str(tmp_path), START, minutes, per_minute)


def test_naive_start_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="has no time zone"):
        generate_events(str(tmp_path), datetime(2026, 11, 21, 10, 0), 1, 10)


def test_start_in_another_zone_stamps_utc_event_times(tmp_path):
    start = datetime(2026, 11, 21, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    generate_events(str(tmp_path), start, 1, 20, seed=5, late_fraction=0, bad_fraction=0)
    (path,) = tmp_path.rglob("*.jsonl")
    assert str(path.parent).endswith("events/2026/11/21/10/00")
    for line in path.read_text().splitlines():
        event_time = parse_time(json.loads(line)["event_time"])
        assert start - timedelta(minutes=1) <= event_time <= start + timedelta(minutes=1)
