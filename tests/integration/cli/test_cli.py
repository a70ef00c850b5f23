"""Every `lakeops` command as a real subprocess on a table lakeops did not create (conftest.lake), in the
order an engineer would use them; each step's outcome read back from the table itself, and the rows
compared before and after every step that rewrites or expires files."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

from tests.integration.cli.conftest import DISCOVERED, NOT_CREATED, START, TABLE

pytestmark = pytest.mark.spark


def _files(lake) -> set[str]:
    """Every file under the table's location (data, deletes, metadata, zonemaps)."""
    root = Path(urlparse(lake.table().location()).path)
    return {str(p) for p in root.rglob("*") if p.is_file()}


def _index_covers_live_files(lake) -> bool:
    """Whether the newest daily master holds an entry for every live data file, and none other."""
    from lakeops.zonemap.levels import DAILY, newest
    from lakeops.zonemap.live import live_files
    from lakeops.zonemap.snapmap import read_map
    from lakeops.zonemap.store import read_files, zonemap_root

    table = lake.table()
    master = newest(read_map(zonemap_root(table.location()), DAILY))
    entries, unreadable = read_files([master.path])
    return not unreadable and {e.file_path for e in entries} == {f.path for f in live_files(table)}


def test_tables_explain_reports_each_setting_and_its_origin(lake):
    listed = lake.json("tables")
    assert {(t["table"], t["maintained_by"], t["exists"]) for t in listed["tables"]} == {
        (TABLE, "config entry", True), (NOT_CREATED, "config entry", False), (DISCOVERED, "discovery rule", True)}

    explained = {t["table"]: t for t in lake.json("tables", "--explain")["tables"]}
    orders = explained[TABLE]["settings"]
    assert orders["compaction.delete_file_threshold"] == {
        "value": 1, "origin": "table property", "property": "lakeops.compaction.delete-file-threshold", "property_value": "1"}
    assert orders["retention.min_snapshots"]["value"] == 2
    assert orders["retention.min_snapshots"]["property"] == "history.expire.min-snapshots-to-keep"
    assert orders["freshness_sla_minutes"] == {"value": 45, "origin": "config entry",
                                               "key": f"tables.{TABLE}.freshness_sla_minutes"}
    assert orders["zonemap.columns"]["value"] == ["ts", "account_id"]
    assert orders["compaction.delete_ratio_threshold"]["origin"] == "config entry"
    assert orders["compaction.target_file_size_mb"] == {"value": 128, "origin": "default"}
    # the discovered table takes the config defaults; the one not created yet has no properties to read
    assert explained[DISCOVERED]["settings"]["compaction.delete_file_threshold"]["origin"] == "config defaults"
    assert explained[NOT_CREATED]["settings"]["freshness_sla_minutes"]["origin"] == "config defaults"

    text = lake.run("tables", "--explain").stdout
    assert "lakeops.compaction.delete-file-threshold = 1" in text and "not created yet" in text


def test_health_reports_the_delete_files_spark_wrote(lake):
    health = lake.json("health", TABLE)
    assert health["table"] == TABLE and health["snapshot_id"] == lake.table().current_snapshot().snapshot_id
    assert health["files"]["data_records"] == 800 + 80  # the UPDATE rewrote 80 rows as new ones
    assert health["deletes"]["position_delete_files"] > 0 and health["deletes"]["equality_delete_files"] == 0
    assert health["read_amplification"]["files"] > 1.0
    assert health["freshness"]["last_data_commit"] is not None and not health["freshness"]["breached"]
    assert health["freshness"]["sla_minutes"] == 45
    assert health["checks"]["read_amplification"]["over"] > 0
    assert "delete files" in lake.run("health", TABLE).stdout


def test_zonemap_build_indexes_every_live_file_once(lake):
    built = lake.json("zonemap", "build", TABLE)["result"]
    assert built["status"] == "published" and built["drift"]["covered"] == 0
    assert built["entries"] == built["drift"]["live_files"] == built["drift"]["added"]
    assert _index_covers_live_files(lake)
    again = lake.json("zonemap", "build", TABLE)["result"]
    assert (again["status"], again["path"]) == ("exists", built["path"])


def test_query_explains_its_plan_and_reads_the_matching_rows(lake):
    explained = lake.json("query", TABLE, "--where", "account_id = 7", "--explain")
    assert explained["live_files"] > explained["candidate_files"] > 0
    assert explained["pruned_by_index"] == explained["live_files"] - explained["candidate_files"]
    # Never staged from the index: the table has delete files (a plain scan when the index prunes no more than min/max).
    assert explained["spark_read"]["method"] in ("plain", "planned"), explained["spark_read"]
    assert "rows" not in explained and explained["planning_ms"] >= 0
    read = lake.json("query", TABLE, "--where", "account_id = 7", "--limit", "2")
    assert read["rows"] == sum(1 for r in lake.rows() if r[1] == 7) and len(read["shown"]) == min(2, read["rows"])
    text = lake.run("query", TABLE, "--where", "account_id = 7", "--explain").stdout
    assert "pruned by the index" in text and "live file(s)" in text
    assert "does not fit the table" in lake.run("query", TABLE, "--where", "acount_id = 7", expect=2).stderr


def test_compact_dry_run_plans_and_changes_nothing(lake):
    snapshot = lake.table().current_snapshot().snapshot_id
    planned = lake.json("compact", TABLE, "--dry-run")
    assert planned["status"] == "dry_run" and planned["result"] is None
    assert [a["kind"] for a in planned["plan"]["actions"]][:1] == ["rewrite_data_files"]
    assert all("delete_ratio_threshold 1%" in s["reason"] for s in planned["plan"]["selected"])
    assert lake.table().current_snapshot().snapshot_id == snapshot


def test_compact_folds_the_delete_files_and_keeps_the_rows(lake):
    rows = lake.rows()
    done = lake.run("--json", "compact", TABLE)
    assert "starting Spark" in done.stderr  # progress on stderr, one document on stdout
    result = json.loads(done.stdout)["result"]
    assert result["status"] == "done"
    assert result["before"]["applied_delete_files"] > 0 and result["after"]["applied_delete_files"] == 0
    assert result["after"]["read_amp_files"] == 1.0
    assert lake.rows() == rows
    assert result["zonemap"]["status"] == "published" and _index_covers_live_files(lake)


def test_zonemap_consolidate_hour_and_day(lake):
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    hourly = lake.json("zonemap", "consolidate", TABLE, "--hour", hour.isoformat())
    assert (hourly["level"], hourly["result"]["status"]) == ("hourly", "published")
    daily = lake.json("zonemap", "consolidate", TABLE, "--day", hour.date().isoformat())
    assert (daily["level"], daily["result"]["status"]) == ("daily", "published")
    assert daily["result"]["drift"]["coverage"] == 1.0 and _index_covers_live_files(lake)


def test_expire_dry_run_lists_snapshots_and_deletes_nothing(lake):
    table = lake.table()
    snapshots, files = len(table.snapshots()), _files(lake)
    older_than = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    listed = lake.json("expire", TABLE, "--dry-run", "--older-than", older_than)
    result = listed["result"]
    assert result["dry_run"] and result["retain_last"] == 2  # history.expire.min-snapshots-to-keep
    assert len(result["expire_ids"]) == snapshots - 2
    assert [s["fate"] for s in listed["snapshots"]].count("expire") == snapshots - 2
    assert listed["snapshots"][-1]["fate"] == "keep" and listed["snapshots"][-1]["current"]
    assert len(lake.table().snapshots()) == snapshots and _files(lake) == files


def test_expire_applies_the_table_property_retention(lake):
    rows = lake.rows()
    snapshots = len(lake.table().snapshots())
    older_than = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    result = lake.json("expire", TABLE, "--older-than", older_than)["result"]
    assert result["snapshots_expired"] == snapshots - 2 and result["files_removed"] > 0
    assert len(lake.table().snapshots()) == 2
    assert lake.rows() == rows


def test_ingest_commits_the_interval_once(lake):
    folder = lake.landing / "orders" / START.strftime("%Y/%m/%d/%H/%M")
    folder.mkdir(parents=True)
    lines = [json.dumps({"order_id": 10_000 + i, "account_id": i, "ts": (START + timedelta(seconds=i)).isoformat(),
                         "amount": 9.5, "status": "new"}) for i in range(5)]
    (folder / "part-0.jsonl").write_text("\n".join([*lines, "{not json"]) + "\n")
    before = lake.rows()
    done = lake.json("ingest", TABLE, "--start", START.isoformat(), "--end", (START + timedelta(minutes=5)).isoformat())
    result = done["result"]
    assert (done["mode"], result["status"], result["rows"], result["quarantined"]) == ("direct", "committed", 5, 1)
    after = lake.rows()
    assert len(after) == len(before) + 5 and set(before) <= set(after)


def _land(lake, start: datetime, first: int, count: int) -> None:
    folder = lake.landing / "orders" / start.strftime("%Y/%m/%d/%H/%M")
    folder.mkdir(parents=True)
    lines = [json.dumps({"order_id": first + i, "account_id": i, "ts": (start + timedelta(seconds=i)).isoformat(),
                         "amount": 9.5, "status": "new"}) for i in range(count)]
    (folder / "part-0.jsonl").write_text("\n".join(lines) + "\n")


def test_ingest_staged_writes_then_commits_once(lake):
    """The same table with ingest.commit_mode staged: a writer job per share, then one commit in the command."""
    staged = lake.config_path.with_name("staged.yaml")
    data = yaml.safe_load(lake.config_path.read_text())
    data["tables"][TABLE]["ingest"] = {"commit_mode": "staged", "writers": 1}
    staged.write_text(yaml.safe_dump(data))
    start = START + timedelta(minutes=10)
    _land(lake, start, 20_000, 3)
    before = lake.rows()
    done = dataclasses.replace(lake, config_path=staged).json(
        "ingest", TABLE, "--start", start.isoformat(), "--end", (start + timedelta(minutes=5)).isoformat())
    assert (done["mode"], done["result"]["status"], done["result"]["rows"]) == ("staged", "committed", 3)
    assert [w["status"] for w in done["writers"]] == ["staged"]
    assert len(lake.rows()) == len(before) + 3


@pytest.mark.parametrize(("args", "message"), [
    (["health", "lake.sales.nope"], "'lake.sales.nope' is not in the config file"),
    (["health", "lake..orders"], "'lake..orders'"),
    (["ingest", TABLE, "--start", "yesterday", "--end", "2026-11-21T11:00:00Z"], "--start 'yesterday' is not an ISO-8601 time"),
    (["ingest", TABLE, "--start", "2026-11-21T10:00:00", "--end", "2026-11-21T11:00:00Z"], "has no time zone"),
    (["zonemap", "consolidate", TABLE, "--hour", "2026-11-21T10:00:00Z", "--day", "2026-11-21"], "pass one"),
    (["zonemap", "consolidate", TABLE, "--hour", "2026-11-21T10:30:00Z"], "is not on the hour"),
    (["zonemap", "build", DISCOVERED], f"table {DISCOVERED} has no zonemap columns"),
    (["health", NOT_CREATED], "does not exist in catalog"),
    (["ingest", DISCOVERED, "--start", "2026-11-21T10:00:00Z", "--end", "2026-11-21T10:05:00Z"], "has no source"),
    (["expire", TABLE, "--older-than", "2999-01-01T00:00:00Z"], "is in the future"),
    (["etl", "run", "nope"], "model 'nope' is not in the config's models"),
])
def test_bad_input_exits_2_naming_the_value_and_the_fix(lake, args, message):
    done = lake.run(*args, expect=2)
    assert message in done.stderr and done.stdout == ""


def test_with_json_bad_input_is_a_document_too(lake):
    done = lake.run("--json", "zonemap", "build", DISCOVERED, expect=2)
    assert json.loads(done.stdout) == {"error": done.stderr.removeprefix("lakeops: ").strip(), "exit_status": 2}


def test_a_failing_job_exits_non_zero_with_its_message(lake):
    done = lake.run("zonemap", "consolidate", TABLE, "--day", "2026-11-21", "--master", "nonsense://nowhere", expect=None)
    assert done.returncode != 0 and "the zonemap_daily job failed" in done.stderr


MODEL = "account_days"
MODEL_TABLE = "lake.sales.account_days"
ACCOUNT_DAYS_SQL = ("SELECT account_id, date_trunc('day', ts) AS day, count(1) AS n, sum(amount) AS total\n"
                    "FROM orders GROUP BY account_id, date_trunc('day', ts)\n")


def _with_model(lake):
    """The lake's config with a model the user wrote over lake.sales.orders (a changelog source: Spark's
    merge-on-read UPDATE and DELETE change it). Its table has no entry under tables: the first run creates it
    from the SELECT."""
    path = lake.config_path.with_name("etl.yaml")
    data = yaml.safe_load(lake.config_path.read_text())
    (path.parent / "account_days.sql").write_text(ACCOUNT_DAYS_SQL)
    data["models"] = {MODEL: {"sql": "account_days.sql", "table": MODEL_TABLE, "key": ["account_id", "day"],
                              "partition_column": "day", "full_recompute_share": 0,
                              "sources": {"orders": {"table": TABLE, "kind": "changelog", "time_column": "ts",
                                                     "keys": {"day": "date_trunc('day', ts)"}}}}}
    path.write_text(yaml.safe_dump(data))
    return dataclasses.replace(lake, config_path=path)


def _recomputed(lake) -> list[tuple]:
    """The model's rows computed in Python from the source's rows as pyiceberg reads them."""
    days: dict[tuple, list[float]] = {}
    for _id, account_id, ts, amount, _status in lake.rows():
        days.setdefault((account_id, ts.replace(hour=0, minute=0, second=0, microsecond=0)), []).append(amount)
    return sorted((account, day, len(amounts), sum(amounts)) for (account, day), amounts in days.items())


def _model_rows(lake) -> list[tuple]:
    data = lake.catalog.load_table(MODEL_TABLE).scan().to_arrow()
    return sorted(tuple(r.values()) for r in data.select(["account_id", "day", "n", "total"]).to_pylist())


def test_etl_run_keeps_a_users_model_equal_to_its_recompute_and_skips_spark_when_nothing_changed(lake, spark):
    from lakeops.config import load_config
    from lakeops.watermark import current_watermarks

    etl = _with_model(lake)
    first = etl.json("etl", "run", MODEL)
    assert first["spark_job"] and [(r["mode"], r["status"]) for r in first["result"]["models"]] == [("full", "committed")]
    assert _model_rows(etl) == _recomputed(etl) and len(_model_rows(etl)) >= 13  # 13 accounts a day
    created = lake.catalog.load_table(MODEL_TABLE)
    assert [(f.name, str(f.field_type), f.required) for f in created.schema().fields] == [
        ("account_id", "long", False), ("day", "timestamptz", False), ("n", "long", True), ("total", "double", False)]
    assert [(f.name, str(f.transform)) for f in created.spec().fields] == [("day_day", "day")]

    qualified = load_config(etl.config_path).qualified(TABLE)
    spark.sql(f"REFRESH TABLE {qualified}")
    spark.sql(f"UPDATE {qualified} SET amount = amount + 100 WHERE order_id % 50 = 1")
    spark.sql(f"DELETE FROM {qualified} WHERE order_id % 50 = 3")
    behind = etl.json("etl", "status", MODEL)["models"][0]
    updated = lake.table().snapshots()[-2]  # the UPDATE: the older of the two commits not read yet
    assert [(s["source"], s["unread_commits"], s["oldest_unread_ms"]) for s in behind["sources"]] == [
        (TABLE, 2, updated.timestamp_ms)]
    assert behind["next_run"]["mode"] == "incremental"
    second = etl.json("etl", "run", MODEL)["result"]["models"]
    assert [(r["mode"], r["status"]) for r in second] == [("incremental", "committed")] and second[0]["keys"] > 0
    assert _model_rows(etl) == _recomputed(etl)
    assert "orders (lake.sales.orders, changelog): up to date\n  next run: noop" in etl.run("etl", "status").stdout

    # Nothing changed since: answered from the metadata. A spark-submit to this master would fail.
    snapshot = lake.catalog.load_table(MODEL_TABLE).current_snapshot().snapshot_id
    idle = etl.run("etl", "run", MODEL, "--master", "nonsense://nowhere")
    assert "nothing to do (every source is at its watermark); no Spark job started" in idle.stdout
    assert lake.catalog.load_table(MODEL_TABLE).current_snapshot().snapshot_id == snapshot

    day = _recomputed(etl)[0][1].date().isoformat()
    marks = current_watermarks(lake.catalog.load_table(MODEL_TABLE))
    backfill = etl.json("etl", "run", MODEL, "--from", day, "--to", day)["result"]["models"]
    assert [(r["mode"], r["status"]) for r in backfill] == [("backfill", "committed")]
    assert _model_rows(etl) == _recomputed(etl)
    assert current_watermarks(lake.catalog.load_table(MODEL_TABLE)) == marks
    assert etl.json("etl", "run", MODEL, "--master", "nonsense://nowhere")["spark_job"] is False
