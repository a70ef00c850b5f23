"""A user's own events table (declared in the config, nested JSON mapped to its columns by JSON paths) ingests
through batch, streaming and staged commits alike; each kind of bad line lands in its quarantine with a reason
that names the field; with evolve: add_columns an unknown field becomes a column."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from lakeops.catalog import load_catalog
from lakeops.generator.files import write_jsonl
from lakeops.ingest.plan import plan_ingest
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream
from lakeops.landing import minute_dir
from lakeops.spark.ingest_events import run_ingest
from lakeops.spark.stage_events import run_stage
from lakeops.spark.stream_events import run_stream
from lakeops.staging.commit import commit_staged
from tests.conftest import make_test_config, register_catalog

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
END = START + timedelta(minutes=5)
COLUMNS = {"click_id": "string not null", "user_id": "bigint not null", "country": "string", "clicked_at": "timestamp not null",
           "price": "decimal(10, 2)", "tags": "array<string>", "device": "struct<os: string, version: int>",
           "ingested_at": "timestamp"}
FIELDS = {"user_id": "$.user.id", "country": "$.user.geo.country", "clicked_at": "$.ts", "price": "$.cart.total",
          "device": "$.ctx.device"}


def _click(n: int, **changes) -> dict:
    line = {"click_id": f"c{n}", "user": {"id": n, "geo": {"country": "DE"}}, "ts": f"2026-11-24T10:00:{n % 60:02d}Z",
            "cart": {"total": 12.5 + n}, "tags": ["a", str(n)], "ctx": {"device": {"os": "ios", "version": 17}}}
    line.update(changes)
    return line


GOOD = [json.dumps(_click(n)) for n in range(1, 41)]
BAD = {
    '{"click_id": "c99", ': "malformed JSON: not a parseable JSON document",
    "[1, 2]": "not a JSON object: got [1,2]",
    json.dumps(_click(101, user={"geo": {"country": "FR"}})): "missing required field user_id ($.user.id)",
    json.dumps(_click(102, user={"id": "seven"})): 'field user_id ($.user.id): expected BIGINT, got "seven"',
    json.dumps(_click(103, ts="yesterday")): 'field clicked_at ($.ts): expected TIMESTAMP, got "yesterday"',
    json.dumps(_click(104, referrer="news")): 'unknown field referrer (value news): the table has no column for it',
}
MODES = {"web.clicks_batch": {}, "web.clicks_stream": {"mode": "streaming"},
         "web.clicks_staged": {"commit_mode": "staged", "writers": 2}}


@pytest.fixture()
def clicks(spark, tmp_path):
    tables = {name: {"source": name.split(".")[1], "create": {"columns": COLUMNS},
                     "ingest": {"fields": FIELDS, "unknown_fields": "quarantine", **mode}}
              for name, mode in MODES.items()}
    config = make_test_config(tmp_path, tables)
    register_catalog(spark, config)
    for name in MODES:
        folder = minute_dir(config.landing_root, name.split(".")[1], START + timedelta(minutes=1))
        write_jsonl(folder, "a.jsonl", GOOD[:20] + list(BAD)[:3])
        write_jsonl(minute_dir(config.landing_root, name.split(".")[1], START + timedelta(minutes=2)), "b.jsonl",
                    GOOD[20:] + list(BAD)[3:])
    return config


def _rows(config, table: str) -> list[dict]:
    return load_catalog(config.catalog).load_table(table).scan().to_arrow().to_pylist()


def test_a_user_declared_table_ingests_nested_json_in_every_mode_and_quarantines_each_bad_row(spark, clicks):
    config = clicks
    plan = plan_ingest(config, "web.clicks_batch", START, END)
    assert run_ingest(spark, config, "web.clicks_batch", plan).status == "committed"
    streamed = run_stream(spark, config, plan_stream(config, "web.clicks_stream", AVAILABLE_NOW))
    assert streamed.rows == len(GOOD) and streamed.quarantined == len(BAD)
    staged_plan = plan_ingest(config, "web.clicks_staged", START, END)
    stages = [run_stage(spark, config, "web.clicks_staged", staged_plan, k, 2) for k in range(2)]
    assert sum(s.rows for s in stages) == len(GOOD)
    commit_staged(config, "web.clicks_staged", staged_plan, 2)

    for table in MODES:
        rows = sorted(_rows(config, table), key=lambda r: r["user_id"])
        assert [r["click_id"] for r in rows] == [f"c{n}" for n in range(1, 41)], table
        first = rows[0]
        assert (first["user_id"], first["country"], first["price"], first["tags"], first["device"]) == \
            (1, "DE", Decimal("13.50"), ["a", "1"], {"os": "ios", "version": 17})
        assert first["clicked_at"] == datetime(2026, 11, 24, 10, 0, 1, tzinfo=UTC) and first["ingested_at"] is not None
        quarantined = {r["raw_line"]: r["reason"] for r in _rows(config, table + "_quarantine")}
        assert sorted(quarantined) == sorted(BAD), table
        for line, reason in BAD.items():
            assert quarantined[line].startswith(reason), (table, quarantined[line])


def test_unknown_fields_become_columns_under_add_columns(spark, tmp_path):
    config = make_test_config(tmp_path, {"web.visits": {"source": "visits", "create": {"columns": {
        "visit_id": "string not null", "ingested_at": "timestamp"}}, "ingest": {"evolve": "add_columns"}}})
    register_catalog(spark, config)
    lines = [json.dumps({"visit_id": "v1", "pages": 3, "ratio": 0.5, "ref": {"src": "ad"}}),
             json.dumps({"visit_id": "v2", "pages": 4, "member": True, "ratio": 1})]
    write_jsonl(minute_dir(config.landing_root, "visits", START), "a.jsonl", lines)

    result = run_ingest(spark, config, "web.visits", plan_ingest(config, "web.visits", START, END))

    assert result.rows == 2 and result.quarantined == 0
    rows = {r["visit_id"]: r for r in _rows(config, "web.visits")}
    assert (rows["v1"]["pages"], rows["v1"]["ratio"], json.loads(rows["v1"]["ref"]), rows["v1"]["member"]) == \
        (3, 0.5, {"src": "ad"}, None)
    assert (rows["v2"]["pages"], rows["v2"]["ratio"], rows["v2"]["member"]) == (4, 1.0, True)


def test_unknown_fields_are_ignored_by_default(spark, tmp_path):
    """No unknown_fields and no evolve in the config: fields no column reads (top-level, nested, beside a mapped
    path) are dropped, the rows land, nothing is quarantined and the table keeps its columns."""
    columns = {"visit_id": "string not null", "pages": "int", "src": "string"}
    config = make_test_config(tmp_path, {"web.visits": {"source": "visits", "create": {"columns": columns},
                                                        "ingest": {"fields": {"src": "$.ref.src"}}}})
    assert config.table("web.visits").ingest.unknown_field_policy == "ignore"
    register_catalog(spark, config)
    lines = [json.dumps({"visit_id": "v1", "pages": 3, "ratio": 0.5, "ref": {"src": "ad", "campaign": "x"}}),
             json.dumps({"visit_id": "v2", "member": True, "tags": ["a"], "ctx": {"os": "ios"}})]
    write_jsonl(minute_dir(config.landing_root, "visits", START), "a.jsonl", lines)

    result = run_ingest(spark, config, "web.visits", plan_ingest(config, "web.visits", START, END))

    assert (result.rows, result.quarantined) == (2, 0)
    assert sorted((r["visit_id"], r["pages"], r["src"]) for r in _rows(config, "web.visits")) == [
        ("v1", 3, "ad"), ("v2", None, None)]
    schema = load_catalog(config.catalog).load_table(config.identifier("web.visits")).schema()
    assert sorted(f.name for f in schema.fields) == ["pages", "src", "visit_id"]
