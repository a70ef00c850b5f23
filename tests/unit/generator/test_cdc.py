"""lakeops.generator.cdc: Debezium-style changes whose replay reproduces the final tables."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lakeops.generator import generate_cdc
from lakeops.landing import CDC_STREAMS, minute_dir

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
MINUTES = 10
PER_MINUTE = 200
KEYS = {"users": "user_id", "orders": "order_id"}


def landed(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("cdc")
    stats = generate_cdc(str(root), START, MINUTES, PER_MINUTE, seed=11)
    files = {table: sorted((root / stream).rglob("*.jsonl")) for table, stream in CDC_STREAMS.items()}
    changes = {table: [[json.loads(line) for line in path.read_text().splitlines()] for path in paths]
               for table, paths in files.items()}
    return root, stats, files, changes


def flat(changes: dict[str, list[list[dict]]], table: str) -> list[dict]:
    return [change for file in changes[table] for change in file]


def test_files_follow_the_landing_layout(run):
    root, stats, files, _ = run
    assert stats.files == sum(len(paths) for paths in files.values())
    assert MINUTES <= stats.files <= 2 * MINUTES
    for table, paths in files.items():
        for path in paths:
            minute = datetime.strptime(path.name, f"{table}-%Y%m%dT%H%M.jsonl").replace(tzinfo=UTC)
            assert START <= minute < START + timedelta(minutes=MINUTES)
            assert str(path.parent) == minute_dir(str(root), CDC_STREAMS[table], minute)
    assert [p for p in root.rglob("*") if p.is_file() and p.suffix != ".jsonl"] == []


def test_counts_add_up(run):
    _, stats, _, changes = run
    for table in CDC_STREAMS:
        ops = [c["op"] for c in flat(changes, table)]
        assert {op: ops.count(op) for op in "cud"} == stats.changes[table]
    assert sum(sum(counts.values()) for counts in stats.changes.values()) == MINUTES * PER_MINUTE


def test_all_operations_are_present(run):
    _, stats, _, _ = run
    for table in CDC_STREAMS:
        assert all(stats.changes[table][op] > 0 for op in "cud"), stats.changes


def test_lsn_increases_strictly_in_each_table_file_and_across_files(run):
    _, _, _, changes = run
    for table in CDC_STREAMS:
        for file in changes[table]:
            lsns = [c["source"]["lsn"] for c in file]
            assert all(a < b for a, b in zip(lsns, lsns[1:], strict=False))
        lsns = [c["source"]["lsn"] for c in flat(changes, table)]
        assert all(a < b for a, b in zip(lsns, lsns[1:], strict=False))
    every = [c["source"]["lsn"] for table in CDC_STREAMS for c in flat(changes, table)]
    assert len(every) == len(set(every))


def test_envelopes_have_the_debezium_shape(run, declared_columns):
    _, _, _, changes = run
    for table, key in KEYS.items():
        columns = declared_columns(table)
        for change in flat(changes, table):
            assert set(change) == {"before", "after", "source", "op", "ts_ms"}
            assert change["source"]["table"] == table
            assert change["ts_ms"] >= change["source"]["ts_ms"]
            before, after = change["before"], change["after"]
            if change["op"] == "c":
                assert before is None and set(after) == columns
            elif change["op"] == "u":
                assert set(before) == set(after) == columns
                assert before[key] == after[key]
                assert after["updated_at"] >= before["updated_at"]
            else:
                assert change["op"] == "d"
                assert after is None and set(before) == columns


def test_replaying_changes_reproduces_the_live_rows(run):
    _, stats, _, changes = run
    for table, key in KEYS.items():
        state: dict[int, dict] = {}
        for change in flat(changes, table):
            row = change["after"] or change["before"]
            k = row[key]
            if change["op"] == "c":
                assert k not in state, f"{table} {k} created twice"
                state[k] = change["after"]
            elif change["op"] == "u":
                assert k in state, f"{table} update of unknown key {k}"
                assert state[k] == change["before"]
                state[k] = change["after"]
            else:
                assert k in state, f"{table} delete of unknown key {k}"
                assert state[k] == change["before"]
                del state[k]
        assert state == stats.live[table]
        assert state, f"no live {table} left"


def test_replay_in_global_lsn_order_matches_too(run):
    _, stats, _, changes = run
    merged = sorted(((c["source"]["lsn"], table, c) for table in CDC_STREAMS for c in flat(changes, table)), key=lambda t: t[0])
    state: dict[str, dict[int, dict]] = {table: {} for table in CDC_STREAMS}
    for _, table, change in merged:
        if change["op"] == "c" and table == "orders":
            assert change["after"]["user_id"] in state["users"], "an order is created for a user that does not exist"
        k = (change["after"] or change["before"])[KEYS[table]]
        if change["after"] is None:
            del state[table][k]
        else:
            state[table][k] = change["after"]
    assert state == stats.live


def test_a_key_can_change_several_times_in_one_file(run):
    _, _, _, changes = run
    repeated = 0
    for table, key in KEYS.items():
        for file in changes[table]:
            keys = [(c["after"] or c["before"])[key] for c in file]
            repeated += len(keys) - len(set(keys))
    assert repeated > 0


def test_same_seed_lands_the_same_bytes(tmp_path):
    first = generate_cdc(str(tmp_path / "a"), START, 3, 100, seed=5)
    second = generate_cdc(str(tmp_path / "b"), START, 3, 100, seed=5)
    assert landed(tmp_path / "a") == landed(tmp_path / "b")
    assert first == second


def test_another_seed_lands_other_changes(tmp_path):
    generate_cdc(str(tmp_path / "a"), START, 3, 100, seed=5)
    generate_cdc(str(tmp_path / "b"), START, 3, 100, seed=6)
    a, b = landed(tmp_path / "a"), landed(tmp_path / "b")
    assert a != b
    assert any(a[name] != b.get(name) for name in a)


def test_first_change_creates_a_user(tmp_path):
    stats = generate_cdc(str(tmp_path), START, 1, 1, seed=1)
    assert stats.changes == {"users": {"c": 1, "u": 0, "d": 0}, "orders": {"c": 0, "u": 0, "d": 0}}
    assert list(stats.live["users"]) == [1]
    assert stats.files == 1


@pytest.mark.parametrize(("minutes", "per_minute"), [(0, 10), (1, 0)])
def test_empty_runs_are_rejected(tmp_path, minutes, per_minute):
    with pytest.raises(ValueError, match="must both be at least 1"):
        generate_cdc(str(tmp_path), START, minutes, per_minute)


HISTORY_START = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
DAY_US = 86_400_000_000


@pytest.fixture(scope="module")
def skewed(tmp_path_factory):
    root = tmp_path_factory.mktemp("skewed")
    stats = generate_cdc(str(root), HISTORY_START, 30, 60, seed=3, history_days=20, history_orders_per_day=300,
                         order_age_skew=2.0)
    changes = {table: [json.loads(line) for path in sorted((root / stream).rglob("*.jsonl"))
                       for line in path.read_text().splitlines()] for table, stream in CDC_STREAMS.items()}
    return root, stats, changes


def test_history_is_an_initial_snapshot_landed_the_minute_before_the_stream(skewed):
    root, stats, changes = skewed
    before = HISTORY_START - timedelta(minutes=1)
    snapshot = {table: [c for c in changes[table] if c["op"] == "r"] for table in CDC_STREAMS}
    assert stats.snapshot_rows == {"users": 300, "orders": 20 * 300} == {t: len(rows) for t, rows in snapshot.items()}
    assert (Path(minute_dir(str(root), CDC_STREAMS["orders"], before)) / "orders-20261121T2259.jsonl").exists()
    created = [c["after"]["created_at"] for c in snapshot["orders"]]
    first = int((HISTORY_START - timedelta(days=20)).timestamp() * 1_000_000)
    assert min(created) == first and max(created) < int(HISTORY_START.timestamp() * 1_000_000)
    per_day = {}
    for micros in created:
        per_day[micros // DAY_US] = per_day.get(micros // DAY_US, 0) + 1
    assert len(per_day) == 21 and max(per_day.values()) <= 300  # spread evenly over the 20 days (21 calendar days)
    users = {c["after"]["user_id"] for c in snapshot["users"]}
    assert {c["after"]["user_id"] for c in snapshot["orders"]} <= users
    assert all(c["before"] is None for rows in snapshot.values() for c in rows)


def test_snapshot_and_stream_replay_to_the_live_rows(skewed):
    _, stats, changes = skewed
    for table, key in KEYS.items():
        state: dict[int, dict] = {}
        for change in sorted(changes[table], key=lambda c: c["source"]["lsn"]):
            k = (change["after"] or change["before"])[key]
            if change["op"] in ("r", "c"):
                assert k not in state
                state[k] = change["after"]
            elif change["op"] == "u":
                assert state[k] == change["before"]
                state[k] = change["after"]
            else:
                assert state.pop(k) == change["before"]
        assert state == stats.live[table]


def _age_shares(changes: list[dict]) -> dict[str, float]:
    ages = [c["ts_ms"] // 86_400_000 - c["before"]["created_at"] // DAY_US for c in changes if c["op"] in ("u", "d")]
    return {"today": sum(a == 0 for a in ages) / len(ages), "older than a week": sum(a > 7 for a in ages) / len(ages)}


def test_updates_favour_recent_orders_with_a_skew_and_not_without(skewed, tmp_path):
    _, _, changes = skewed
    skewed_shares = _age_shares(changes["orders"])
    uniform = generate_cdc(str(tmp_path), HISTORY_START, 30, 60, seed=3, history_days=20, history_orders_per_day=300)
    uniform_changes = [json.loads(line) for path in sorted((tmp_path / "cdc/orders").rglob("*.jsonl"))
                       for line in path.read_text().splitlines()]
    uniform_shares = _age_shares(uniform_changes)
    # Zipf 2 over 21 days: weight 1 of about 1.6 for today, under 10% for more than a week.
    assert skewed_shares["today"] > 0.5 and skewed_shares["older than a week"] < 0.15, skewed_shares
    assert uniform_shares["today"] < 0.15 and uniform_shares["older than a week"] > 0.5, uniform_shares
    assert uniform.snapshot_rows["orders"] == 6000


def test_skewed_runs_are_deterministic(tmp_path):
    kwargs = {"history_days": 3, "history_orders_per_day": 50, "order_age_skew": 1.5}
    first = generate_cdc(str(tmp_path / "a"), HISTORY_START, 3, 50, seed=8, **kwargs)
    second = generate_cdc(str(tmp_path / "b"), HISTORY_START, 3, 50, seed=8, **kwargs)
    assert landed(tmp_path / "a") == landed(tmp_path / "b") and first == second


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"order_age_skew": -1.0}, "order_age_skew=-1.0 must be 0"),
    ({"history_days": 2, "history_orders_per_day": 0}, "history_orders_per_day=0 must both be at least 1"),
])
def test_bad_history_or_skew_is_rejected(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate_cdc(str(tmp_path), START, 1, 1, **kwargs)


def test_a_rate_profile_varies_the_changes_a_minute_block_by_block(tmp_path):
    stats = generate_cdc(str(tmp_path), START, 6, 10, seed=3, rate_profile=(2, 0, 0.5), rate_block_minutes=2)
    per_minute: dict[str, int] = {}
    for path in tmp_path.rglob("*.jsonl"):  # users-20261121T1000.jsonl, orders-20261121T1000.jsonl
        minute = path.stem.split("-", 1)[1]
        per_minute[minute] = per_minute.get(minute, 0) + len(path.read_text().splitlines())

    assert sorted(per_minute.values()) == [5, 5, 20, 20]  # minutes 0-1 at 2x, 2-3 at 0x (nothing lands), 4-5 at 0.5x
    assert sum(sum(ops.values()) for ops in stats.changes.values()) == 50


@pytest.mark.parametrize(("profile", "block"), [((1, -0.5), 60), ((1,), 0)])
def test_a_bad_rate_profile_is_refused(tmp_path, profile, block):
    with pytest.raises(ValueError, match=r"rate_profile=.* needs multipliers of 0 or more and rate_block_minutes"):
        generate_cdc(str(tmp_path), START, 3, 10, rate_profile=profile, rate_block_minutes=block)
