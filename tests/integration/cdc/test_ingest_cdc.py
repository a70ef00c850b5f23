"""CDC ingest on real local Spark and a fresh embedded catalog per test: the tables end up equal to
the generator's replay of every change, deletes are position delete files, a re-run merges nothing
and malformed envelopes are quarantined with a reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from lakeops.generator import generate_cdc
from lakeops.generator.files import write_jsonl
from lakeops.ingest.plan import plan_ingest
from lakeops.landing import CDC_STREAMS, minute_dir
from lakeops.spark.ingest_cdc import run_cdc_ingest

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
FIVE = timedelta(minutes=5)
KEYS = {"users": "user_id", "orders": "order_id"}


def _expected(row: dict) -> dict:
    out = dict(row)
    for column in ("created_at", "updated_at"):
        out[column] = datetime.fromtimestamp(row[column] / 1_000_000, tz=UTC).replace(tzinfo=None)
    if "amount" in out:
        out["amount"] = Decimal(row["amount"])
    return out


def _table_rows(spark, config, table: str) -> dict[int, dict]:
    rows = spark.table(config.qualified(table)).collect()
    return {r[KEYS[table]]: r.asDict() for r in rows}


def _delete_files(spark, config, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {config.qualified(table)}.delete_files").first()[0]


def _ingest(spark, config, table, start):
    return run_cdc_ingest(spark, config, table, plan_ingest(config, table, start, start + FIVE))


BAD_LINES = {
    "not json {": "malformed JSON",
    json.dumps({"op": "x", "source": {"lsn": 1}, "after": {"user_id": 1}}): "field op: expected one of",
    json.dumps({"op": "u", "after": {"user_id": 2}}): "field source: expected the event's source block",
    json.dumps({"op": "d", "source": {"lsn": 3}, "before": None}): "op d without a before image",
    json.dumps({"op": "c", "source": {"lsn": 4}, "after": {"email": "a@b"}}): "missing key field after.user_id",
    json.dumps({"op": "c", "source": {"lsn": 5}, "after": {"user_id": "seven"}}):
        "field after.user_id: cannot read \"seven\" as BIGINT",
}


def test_replaying_ten_minutes_of_changes_reproduces_the_source_tables(catalog_spark, lakeops_config):
    stats = generate_cdc(lakeops_config.landing_root, START, 10, 120, seed=5, delete_fraction=0.15)
    write_jsonl(minute_dir(lakeops_config.landing_root, CDC_STREAMS["users"], START + timedelta(minutes=2)),
                "bad.jsonl", list(BAD_LINES))
    results = {t: [_ingest(catalog_spark, lakeops_config, t, s) for s in (START, START + FIVE)] for t in KEYS}

    for table in KEYS:
        assert [r.status for r in results[table]] == ["committed", "committed"]
        assert sum(r.changes for r in results[table]) == sum(stats.changes[table].values())
        # several changes to one key inside a batch reduce to its last one
        assert sum(r.keys for r in results[table]) < sum(r.changes for r in results[table])
        got = _table_rows(catalog_spark, lakeops_config, table)
        assert set(got) == set(stats.live[table]), f"{table}: deleted keys must be gone, live keys present"
        assert got == {k: _expected(v) for k, v in stats.live[table].items()}
        assert _delete_files(catalog_spark, lakeops_config, table) > 0, "merge-on-read writes position deletes"
        kinds = {r[0] for r in catalog_spark.sql(
            f"SELECT content FROM {lakeops_config.qualified(table)}.delete_files").collect()}
        assert kinds == {1}, "format v2 position deletes only"

    reasons = [r.reason for r in catalog_spark.table(lakeops_config.qualified("users_quarantine")).collect()]
    assert len(reasons) == len(BAD_LINES) == results["users"][0].quarantined
    assert sorted(next(p for p in BAD_LINES.values() if r.startswith(p)) for r in reasons) == sorted(BAD_LINES.values())


def test_a_rerun_of_a_merged_interval_changes_nothing(catalog_spark, lakeops_config):
    generate_cdc(lakeops_config.landing_root, START, 5, 80, seed=9)
    first = _ingest(catalog_spark, lakeops_config, "orders", START)
    before = _table_rows(catalog_spark, lakeops_config, "orders")
    snapshots = catalog_spark.sql(f"SELECT count(*) FROM {lakeops_config.qualified('orders')}.history").first()[0]

    again = _ingest(catalog_spark, lakeops_config, "orders", START)

    assert first.status == "committed" and first.snapshot_id is not None
    assert again.status == "already_committed"
    assert _table_rows(catalog_spark, lakeops_config, "orders") == before
    assert catalog_spark.sql(f"SELECT count(*) FROM {lakeops_config.qualified('orders')}.history").first()[0] == snapshots
    summary = catalog_spark.sql(
        f"SELECT summary FROM {lakeops_config.qualified('orders')}.snapshots WHERE snapshot_id = {first.snapshot_id}").first()[0]
    assert summary["lakeops.batch-id"] == first.batch_id and summary["lakeops.keys"] == str(first.keys)


def test_two_runs_staging_one_interval_publish_it_once(catalog_spark, lakeops_config):
    """Two runs of one interval racing: both stage their MERGE, the first publishes, Iceberg refuses
    the second's publish inside the commit, and merge_once then reports the batch as published."""
    from lakeops.catalog import load_catalog
    from lakeops.spark.ingest_cdc import ensure_merge_on_read
    from lakeops.spark.merge_commit import _stage_merge, merge_once

    generate_cdc(lakeops_config.landing_root, START, 5, 80, seed=13)
    catalog = load_catalog(lakeops_config.catalog)
    plan = plan_ingest(lakeops_config, "users", START, START + FIVE)
    ensure_merge_on_read(catalog_spark, catalog, lakeops_config, "users")
    catalog_spark.sql(f"INSERT INTO {plan.table} (user_id, email) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    first = _stage_merge(catalog_spark, catalog, plan.table, f"DELETE FROM {plan.table} WHERE user_id = 1", plan.batch_id, {})
    second = _stage_merge(catalog_spark, catalog, plan.table, f"DELETE FROM {plan.table} WHERE user_id = 2", plan.batch_id, {})
    assert first != second
    procedure = f"{lakeops_config.catalog.name}.system.cherrypick_snapshot"
    catalog_spark.sql(f"CALL {procedure}(table => '{plan.table}', snapshot_id => {first})")

    with pytest.raises(Exception, match="fast-forward|DuplicateWAPCommit"):
        catalog_spark.sql(f"CALL {procedure}(table => '{plan.table}', snapshot_id => {second})")
    snapshot, attempts = merge_once(catalog_spark, catalog, plan.table, f"DELETE FROM {plan.table}", plan.batch_id, {})

    assert snapshot is None and attempts == 0
    assert sorted(_table_rows(catalog_spark, lakeops_config, "users")) == [2, 3]


def test_an_interval_older_than_a_merged_one_is_refused_and_changes_nothing(catalog_spark, lakeops_config):
    """Intervals 1 and 3 merged, then interval 2 (say, a failed run cleared later): applying its
    changes after interval 3's would overwrite newer values, so the job refuses it and says how to
    apply it in order; the table stays as it was."""
    from lakeops.exceptions import IngestError

    generate_cdc(lakeops_config.landing_root, START, 15, 60, seed=21, delete_fraction=0.2)
    _ingest(catalog_spark, lakeops_config, "users", START)
    third = _ingest(catalog_spark, lakeops_config, "users", START + 2 * FIVE)
    before = _table_rows(catalog_spark, lakeops_config, "users")

    refusal = r"older than batch lakeops.users@20261121T101000Z-20261121T101500Z.*rollback_to_snapshot"
    with pytest.raises(IngestError, match=refusal) as refused:
        _ingest(catalog_spark, lakeops_config, "users", START + FIVE)

    assert f"(snapshot {third.snapshot_id})" in str(refused.value)
    catalog_spark.catalog.refreshTable(lakeops_config.qualified("users"))
    assert _table_rows(catalog_spark, lakeops_config, "users") == before
    assert _ingest(catalog_spark, lakeops_config, "users", START + 2 * FIVE).status == "already_committed"


def _change(op: str, lsn: int, row: dict | None) -> str:
    source = {"connector": "postgresql", "lsn": lsn, "schema": "public", "table": "items"}
    image = {"before": row, "after": None} if op == "d" else {"before": None, "after": row}
    return json.dumps({**image, "source": source, "op": op, "ts_ms": lsn})


def test_a_truncate_follows_the_tables_policy(catalog_spark, tmp_path):
    """apply: rows held before the truncate go, the changes after it stay, in one commit; quarantine: nothing is
    deleted and the truncate is in the quarantine with the reason; fail: the batch changes nothing."""
    from lakeops.exceptions import IngestError
    from tests.conftest import make_test_config, register_catalog

    columns = {"id": "bigint not null", "name": "string"}
    tables = {f"shop.items_{policy}": {"source": f"items_{policy}", "key": ["id"], "create": {"columns": columns},
                                       "ingest": {"format": "cdc", "cdc": {"truncate": policy}}}
              for policy in ("apply", "quarantine", "fail")}
    config = make_test_config(tmp_path, tables)
    register_catalog(catalog_spark, config)
    first = [_change("c", 1, {"id": 1, "name": "a"}), _change("c", 2, {"id": 2, "name": "b"})]
    second = [_change("u", 3, {"id": 2, "name": "b2"}), _change("t", 4, None), _change("c", 5, {"id": 3, "name": "c"}),
              _change("u", 6, {"id": 3, "name": "c2"})]
    for policy in ("apply", "quarantine", "fail"):
        write_jsonl(minute_dir(config.landing_root, f"items_{policy}", START), "a.jsonl", first)
        write_jsonl(minute_dir(config.landing_root, f"items_{policy}", START + FIVE), "b.jsonl", second)
        run_cdc_ingest(catalog_spark, config, f"shop.items_{policy}", plan_ingest(config, f"shop.items_{policy}", START,
                                                                                  START + FIVE))

    def rows(table: str) -> dict:
        return {r["id"]: r["name"] for r in catalog_spark.table(config.qualified(table)).collect()}

    applied = _ingest(catalog_spark, config, "shop.items_apply", START + FIVE)
    assert (applied.truncates, applied.quarantined) == (1, 0) and rows("shop.items_apply") == {3: "c2"}
    kept = _ingest(catalog_spark, config, "shop.items_quarantine", START + FIVE)
    assert (kept.truncates, kept.quarantined) == (1, 1) and rows("shop.items_quarantine") == {1: "a", 2: "b2", 3: "c2"}
    reason = catalog_spark.table(config.qualified("shop.items_quarantine_quarantine")).first()["reason"]
    assert reason.startswith("op t: truncate of public.items; not applied: tables.shop.items_quarantine.ingest.cdc.truncate")
    refusal = r"holds 1 truncate event\(s\) .* and tables\.shop\.items_fail\.ingest\.cdc\.truncate is fail: nothing was applied"
    with pytest.raises(IngestError, match=refusal):
        _ingest(catalog_spark, config, "shop.items_fail", START + FIVE)
    assert rows("shop.items_fail") == {1: "a", 2: "b"}


PLACEHOLDER = "__debezium_unavailable_value"
DOC_FIELDS = {"id": {"type": "int64", "optional": False}, "body": {"type": "string"}, "qty": {"type": "int32"},
              "note": {"type": "string"}}


def _debezium(op: str, lsn: int, row: dict, fields: dict | None = None) -> str:
    """A change event as Debezium's PostgreSQL connector writes it with its default converter (schema + payload)."""
    image = {"type": "struct", "optional": True, "name": "pg.public.docs.Value", "fields": [
        {"field": name, "optional": True, **schema} for name, schema in (fields or DOC_FIELDS).items()]}
    schema = {"type": "struct", "name": "pg.public.docs.Envelope", "fields": [
        {**image, "field": "before"}, {**image, "field": "after"}, {"type": "struct", "field": "source", "fields": []}]}
    source = {"connector": "postgresql", "lsn": lsn, "schema": "public", "table": "docs"}
    image_of = {"before": {"id": row["id"]}, "after": None} if op == "d" else {"before": None, "after": row}
    return json.dumps({"schema": schema, "payload": {**image_of, "source": source, "op": op, "ts_ms": lsn}})


def test_toasted_values_dropped_columns_and_type_changes_on_a_table_keyed_by_its_identifier_fields(catalog_spark, tmp_path):
    """A table lakeops did not create, keyed by its identifier fields (no `key:` in the config). An update that left
    a TOASTed column alone (Debezium's placeholder) keeps the stored value, or the value an earlier change of the batch
    gave; with no stored row it is quarantined naming the column. A column the source dropped is null in the rows
    changed afterwards; a type change the column cannot hold is quarantined naming the field and both types."""
    from tests.conftest import make_test_config, register_catalog

    config = make_test_config(tmp_path, {"shop.docs": {"source": "docs", "ingest": {"format": "cdc"}}})
    register_catalog(catalog_spark, config)
    table = config.qualified("shop.docs")
    catalog_spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {table.rsplit('.', 1)[0]}")
    catalog_spark.sql(f"CREATE TABLE {table} (id bigint NOT NULL, body string, qty int, note string) USING iceberg")
    catalog_spark.sql(f"ALTER TABLE {table} SET IDENTIFIER FIELDS id")
    big = {k: f"{k}-" + "x" * 9000 for k in (1, 2, 3)}
    first = [_debezium("c", 1, {"id": 1, "body": big[1], "qty": 1, "note": "a"}),
             _debezium("c", 2, {"id": 2, "body": big[2], "qty": 2, "note": "b"}),
             _debezium("c", 3, {"id": 3, "body": big[3], "qty": 3, "note": "c"}),
             _debezium("u", 4, {"id": 3, "body": PLACEHOLDER, "qty": 33, "note": "c"}),  # filled from lsn 3
             _debezium("u", 5, {"id": 9, "body": PLACEHOLDER, "qty": 9, "note": None})]  # no stored row
    dropped = {k: v for k, v in DOC_FIELDS.items() if k != "note"}  # ALTER TABLE docs DROP COLUMN note
    second = [_debezium("u", 10, {"id": 1, "body": PLACEHOLDER, "qty": 1, "note": "a2"}),
              _debezium("u", 11, {"id": 2, "body": PLACEHOLDER, "qty": 2, "note": "b2"}),
              _debezium("u", 12, {"id": 2, "body": "short now", "qty": 2, "note": "b3"}),
              _debezium("u", 13, {"id": 1, "body": PLACEHOLDER, "qty": 11}, dropped),
              _debezium("u", 14, {"id": 3, "body": PLACEHOLDER, "qty": "34"}, {**dropped, "qty": {"type": "string"}})]
    write_jsonl(minute_dir(config.landing_root, "docs", START), "a.jsonl", first)
    write_jsonl(minute_dir(config.landing_root, "docs", START + FIVE), "b.jsonl", second)

    one = _ingest(catalog_spark, config, "shop.docs", START)
    two = _ingest(catalog_spark, config, "shop.docs", START + FIVE)

    rows = {r["id"]: r.asDict() for r in catalog_spark.table(table).collect()}
    assert rows == {1: {"id": 1, "body": big[1], "qty": 11, "note": None},
                    2: {"id": 2, "body": "short now", "qty": 2, "note": "b3"},
                    3: {"id": 3, "body": big[3], "qty": 33, "note": "c"}}
    assert (one.quarantined, two.quarantined) == (1, 1) and (one.keys, two.keys) == (3, 2)
    reasons = sorted(r["reason"] for r in catalog_spark.table(config.qualified("shop.docs_quarantine")).collect())
    assert reasons[0].startswith('field after.body: the source sent Debezium\'s unavailable-value placeholder '
                                 '(__debezium_unavailable_value: an unchanged TOASTed value it did not log) and shop.docs '
                                 'holds no row of this key')
    assert reasons[1].startswith('field after.qty: the source sends string (value "34") where column qty is INT, a type '
                                 'change Iceberg cannot widen')
