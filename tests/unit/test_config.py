"""lakeops.config: defaults, environment references, path resolution and validation."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from lakeops.config import (
    CatalogConfig,
    CompactionPolicy,
    IngestConfig,
    RetentionPolicy,
    TableConfig,
    ZonemapConfig,
    default_config_path,
    load_config,
    validate_identifier,
)
from lakeops.exceptions import ConfigError, LakeopsError
from lakeops.tables.definition import PartitionField

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SHIPPED_CONFIG = PROJECT_ROOT / "include" / "lakeops.yaml"


EVENTS_CREATE = {"columns": {"event_id": "string not null", "user_id": "bigint not null", "event_time": "timestamp not null",
                             "event_type": "string", "country": "string"}}


def events_table(**settings):
    return {"tables": {"events": settings}}


# --- defaults -------------------------------------------------------------------------------


def test_empty_config_gets_defaults(tmp_path, make_config):
    config = make_config({})
    assert config.catalog == CatalogConfig(
        kind="embedded",
        name="lakeops",
        namespace="lakeops",
        data_dir=str(tmp_path.resolve() / ".lakeops"),
        uri=None,
        warehouse=None,
        s3_endpoint=None,
        s3_region="us-east-1",
        s3_path_style_access=True,
    )
    assert config.spark.conn_id == "lakeops_spark"
    assert config.spark.conf == {}
    assert config.tables == {}
    assert config.landing_dir is None
    assert config.landing_root == str(tmp_path.resolve() / ".lakeops" / "landing")


def test_table_defaults(make_config):
    table = make_config(events_table()).table("events")
    assert table.name == "lakeops.events"
    assert table.source is None and table.source_dir == "events"
    assert table.create is None and table.key == () and not table.discovered
    assert table.ingest_interval_minutes == 5
    assert table.freshness_sla_minutes == 30
    assert table.zonemap == ZonemapConfig(columns=(), bloom_columns=())
    assert dataclasses.asdict(table.compaction) == {
        "trigger": "watch",
        "target_file_size_mb": 128,
        "small_file_fraction": 0.75,
        "min_small_files": 100,
        "delete_file_threshold": 10,
        "delete_ratio_threshold": 0.3,
        "max_bytes_per_run_mb": 10240,
        "fragment_fraction": 0.125,
        "min_fragment_files": 12,
        "manifest_rewrite_threshold": 100,
        "max_concurrent_file_group_rewrites": 2,
        "max_commits_per_call": 3,
        "partial_progress": "on_conflict",
        "max_file_amplification": 1.5,
        "max_dangling_delete_files": 100,
    }
    assert dataclasses.asdict(table.retention) == {
        "max_snapshot_age_hours": 120,
        "min_snapshots": 1,
        "orphan_min_age_hours": 72,
        "protected_refs": (),
        "streaming_checkpoints": (),
    }
    assert table.quarantine_name == "lakeops.events_quarantine"
    assert table.ingest == IngestConfig(format="events", mode="batch", commit_mode="direct", writers=4,
                                        staging_max_age_hours=24.0)


def test_full_table_is_converted_to_typed_values(make_config):
    config = make_config(
        events_table(
            source="clicks",
            create={**EVENTS_CREATE, "partition_by": ["day(event_time)", "bucket(16, user_id)"],
                    "sort_by": ["event_time", "user_id"]},
            ingest_interval_minutes=15,
            freshness_sla_minutes=45,
            zonemap={"columns": ["event_time", "user_id"], "bloom_columns": ["user_id"]},
            compaction={"target_file_size_mb": 64, "small_file_fraction": 1},
            retention={"orphan_min_age_hours": 24, "protected_refs": ["audit"]},
        )
    )
    table = config.table("events")
    assert table.source == "clicks"
    assert table.create is not None
    assert [(p.transform, p.column) for p in table.create.partition_by] == [("day", "event_time"), ("bucket[16]", "user_id")]
    assert table.create.sort_by == ("event_time", "user_id")
    assert table.ingest_interval_minutes == 15
    assert table.freshness_sla_minutes == 45
    assert table.zonemap == ZonemapConfig(columns=("event_time", "user_id"), bloom_columns=("user_id",))
    assert table.compaction.target_file_size_mb == 64
    assert table.compaction.small_file_fraction == 1.0
    assert isinstance(table.compaction.small_file_fraction, float)
    assert table.retention.orphan_min_age_hours == 24
    assert table.retention.protected_refs == ("audit",)


def test_config_is_frozen(make_config):
    config = make_config(events_table())
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.catalog.kind = "rest"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.table("events").source = "users"  # type: ignore[misc]


def test_qualified_names_use_catalog_and_namespace(make_config):
    config = make_config({"catalog": {"name": "prod", "namespace": "web"}})
    assert config.qualified("events") == "`prod`.`web`.`events`"
    assert config.qualified("lake.raw.clicks") == "`prod`.`lake`.`raw`.`clicks`"
    assert config.identifier("events") == "web.events"


def test_unknown_table_lookup_names_the_table_and_the_configured_ones(make_config):
    config = make_config(events_table())
    with pytest.raises(ConfigError, match=r"table 'clicks' is not in the config file and no discovery rule brings it in; "
                                          r"configured tables: lakeops.events"):
        config.table("clicks")


def test_config_error_is_a_lakeops_error():
    assert issubclass(ConfigError, LakeopsError)


# --- environment references -----------------------------------------------------------------


def test_env_reference_reads_the_variable(monkeypatch, make_config):
    monkeypatch.setenv("LAKEOPS_TEST_NS", "analytics")
    assert make_config({"catalog": {"namespace": "${LAKEOPS_TEST_NS}"}}).catalog.namespace == "analytics"


def test_env_default_is_used_when_variable_is_unset(monkeypatch, make_config):
    monkeypatch.delenv("LAKEOPS_TEST_NS", raising=False)
    assert make_config({"catalog": {"namespace": "${LAKEOPS_TEST_NS:-fallback_ns}"}}).catalog.namespace == "fallback_ns"


def test_env_variable_wins_over_default(monkeypatch, make_config):
    monkeypatch.setenv("LAKEOPS_TEST_NS", "from_env")
    assert make_config({"catalog": {"namespace": "${LAKEOPS_TEST_NS:-fallback_ns}"}}).catalog.namespace == "from_env"


def test_env_empty_default(monkeypatch, make_config):
    monkeypatch.delenv("LAKEOPS_TEST_REGION", raising=False)
    assert make_config({"catalog": {"s3_region": "${LAKEOPS_TEST_REGION:-}"}}).catalog.s3_region == ""


def test_several_env_references_in_one_value(monkeypatch, make_config):
    monkeypatch.setenv("LAKEOPS_TEST_HOST", "rest.internal")
    monkeypatch.delenv("LAKEOPS_TEST_PORT", raising=False)
    config = make_config(
        {"catalog": {"kind": "rest", "uri": "http://${LAKEOPS_TEST_HOST}:${LAKEOPS_TEST_PORT:-8181}/api", "warehouse": "s3://w/"}}
    )
    assert config.catalog.uri == "http://rest.internal:8181/api"


def test_env_references_in_lists_and_spark_conf(monkeypatch, make_config):
    monkeypatch.setenv("LAKEOPS_TEST_COL", "user_id")
    monkeypatch.setenv("LAKEOPS_TEST_PARTS", "8")
    config = make_config(
        {
            "spark": {"conf": {"spark.sql.shuffle.partitions": "${LAKEOPS_TEST_PARTS}"}},
            **events_table(zonemap={"columns": ["${LAKEOPS_TEST_COL}"]}),
        }
    )
    assert config.spark.conf == {"spark.sql.shuffle.partitions": "8"}
    assert config.table("events").zonemap.columns == ("user_id",)


def test_missing_env_variable_without_default_names_variable_and_key(monkeypatch, make_config):
    monkeypatch.delenv("LAKEOPS_TEST_MISSING", raising=False)
    with pytest.raises(ConfigError) as info:
        make_config({"catalog": {"kind": "rest", "uri": "${LAKEOPS_TEST_MISSING}", "warehouse": "s3://w/"}})
    message = str(info.value)
    assert "catalog.uri" in message
    assert "LAKEOPS_TEST_MISSING is not set" in message


def test_env_default_is_used_when_variable_is_empty(monkeypatch, make_config):
    monkeypatch.setenv("LAKEOPS_CATALOG_KIND", "")
    config = make_config({"catalog": {"kind": "${LAKEOPS_CATALOG_KIND:-embedded}"}})
    assert config.catalog.kind == "embedded"


# --- paths ----------------------------------------------------------------------------------


def test_relative_data_dir_resolves_against_config_dir_not_cwd(tmp_path, monkeypatch, make_config):
    config_dir = tmp_path / "conf"
    elsewhere = tmp_path / "elsewhere"
    config_dir.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = make_config({"catalog": {"data_dir": "../lake"}}, base_dir=config_dir)
    assert config.catalog.data_dir == str(tmp_path.resolve() / "lake")
    assert config.catalog.sqlite_path == tmp_path.resolve() / "lake" / "catalog.db"
    assert config.catalog.warehouse_location == (tmp_path.resolve() / "lake" / "warehouse").as_uri()
    assert config.landing_root == str(tmp_path.resolve() / "lake" / "landing")


def test_absolute_data_dir_is_kept(tmp_path, make_config):
    absolute = tmp_path / "abs" / "lake"
    config = make_config({"catalog": {"data_dir": str(absolute)}}, base_dir=tmp_path / "other")
    assert config.catalog.data_dir == str(absolute.resolve())


def test_relative_landing_dir_resolves_against_config_dir(tmp_path, make_config):
    config = make_config({"landing_dir": "incoming"})
    assert config.landing_dir == str(tmp_path.resolve() / "incoming")
    assert config.landing_root == str(tmp_path.resolve() / "incoming")


def test_url_landing_dir_is_kept_verbatim(make_config):
    config = make_config({"landing_dir": "s3a://landing/"})
    assert config.landing_dir == "s3a://landing/"
    assert config.landing_root == "s3a://landing/"


def test_rest_catalog_default_landing_root_resolves_against_config_dir(tmp_path, monkeypatch, make_config):
    monkeypatch.chdir(tmp_path)
    config = make_config(
        {"catalog": {"kind": "rest", "uri": "http://rest:8181", "warehouse": "s3://w/", "data_dir": "../lake"}},
        base_dir=tmp_path / "conf",
    )
    assert config.landing_root == str(tmp_path.resolve() / "lake" / "landing")


# --- load_config ----------------------------------------------------------------------------


def test_load_config_reads_yaml_and_resolves_against_the_file(tmp_path, monkeypatch):
    config_dir = tmp_path / "etc"
    config_dir.mkdir()
    path = config_dir / "lakeops.yaml"
    path.write_text(
        "catalog:\n"
        "  data_dir: data\n"
        "spark:\n"
        "  conf:\n"
        "    spark.sql.shuffle.partitions: '2'\n"
        "tables:\n"
        "  web.events:\n"
        "    create:\n"
        "      columns: {ts: timestamp}\n"
        "      partition_by: [day(ts)]\n"
    )
    monkeypatch.chdir(tmp_path)
    config = load_config(path)
    assert config.catalog.data_dir == str(config_dir.resolve() / "data")
    assert config.spark.conf == {"spark.sql.shuffle.partitions": "2"}
    assert config.table("web.events").create.partition_by[0].transform == "day"


def test_load_config_uses_lakeops_config_env(tmp_path, monkeypatch):
    path = tmp_path / "custom.yaml"
    path.write_text("catalog:\n  namespace: from_env_file\n")
    monkeypatch.setenv("LAKEOPS_CONFIG", str(path))
    assert default_config_path() == path
    assert load_config().catalog.namespace == "from_env_file"


def test_default_config_path_is_the_shipped_file():
    assert default_config_path() == SHIPPED_CONFIG


def test_load_config_missing_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(missing)
    assert str(missing) in str(info.value)
    assert "LAKEOPS_CONFIG" in str(info.value)
    assert isinstance(info.value.__cause__, OSError)


def test_load_config_invalid_yaml(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("catalog: [unclosed\n")
    with pytest.raises(ConfigError, match="is not valid YAML"):
        load_config(path)


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", "42\n"])
def test_load_config_rejects_a_file_that_is_not_a_mapping(tmp_path, text):
    path = tmp_path / "list.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="the file must hold a mapping"):
        load_config(path)


def test_empty_file_is_rejected(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("")
    with pytest.raises(ConfigError):
        load_config(path)


def test_shipped_config_loads():
    config = load_config(SHIPPED_CONFIG)
    assert config.catalog.kind == "embedded"
    assert config.catalog.name == "lakeops"
    assert config.catalog.namespace == "lakeops"
    assert config.catalog.data_dir == str(PROJECT_ROOT / ".lakeops")
    assert config.landing_root == str(PROJECT_ROOT / ".lakeops" / "landing")
    assert config.spark.conn_id == "lakeops_spark"
    assert config.spark.conf == {"spark.sql.shuffle.partitions": "4"}
    assert list(config.tables) == ["lakeops.events", "lakeops.users", "lakeops.orders", "lakeops.user_activity_hourly",
                                   "lakeops.orders_current"]
    assert config.table("users").create.partition_by[0].spark_ddl() == "bucket(8, `user_id`)"
    assert config.table("users").key == ("user_id",) and config.table("users").ingest.format == "cdc"
    events = config.table("events")
    assert events.source == "events"
    assert events.create.partition_by[0].spark_ddl() == "days(`event_time`)"
    assert events.create.sort_by == ("event_time",)
    assert events.ingest_interval_minutes == 5
    assert events.freshness_sla_minutes == 20
    assert events.zonemap == ZonemapConfig(columns=("event_time", "user_id", "country", "event_type"), bloom_columns=("user_id",),
                                           bloom_hour_column="event_time")
    assert events.retention == RetentionPolicy(max_snapshot_age_hours=120, min_snapshots=1, orphan_min_age_hours=72)
    assert events.compaction == CompactionPolicy()
    assert events.ingest == IngestConfig(format="events", mode="batch", commit_mode="direct", writers=4,
                                         staging_max_age_hours=24.0)


def test_shipped_config_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEOPS_DATA_DIR", str(tmp_path / "lake"))
    assert load_config(SHIPPED_CONFIG).catalog.data_dir == str(tmp_path.resolve() / "lake")
    monkeypatch.setenv("LAKEOPS_CATALOG_KIND", "rest")
    with pytest.raises(ConfigError, match="catalog.uri: required when catalog.kind is 'rest'"):
        load_config(SHIPPED_CONFIG)


# --- unknown keys ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "where", "key"),
    [
        ({"tabels": {}}, "config", "tabels"),
        ({"catalog": {"kindd": "embedded"}}, "catalog", "kindd"),
        ({"spark": {"master": "local[2]"}}, "spark", "master"),
        (events_table(partition=["day(event_time)"]), "tables.lakeops.events", "partition"),
        (events_table(name="other"), "tables.lakeops.events", "name"),
        (events_table(create={"columns": {"a": "int"}, "sort": ["a"]}), "tables.lakeops.events.create", "sort"),
        ({"defaults": {"ingest": {}}}, "defaults", "ingest"),
        ({"defaults": {"compaction": {"target_size": 1}}}, "defaults.compaction", "target_size"),
        ({"discover": [{"namespace": ["a"]}]}, "discover[0]", "namespace"),
        (events_table(zonemap={"colums": ["user_id"]}), "tables.lakeops.events.zonemap", "colums"),
        (events_table(compaction={"target_size": 1}), "tables.lakeops.events.compaction", "target_size"),
        (events_table(retention={"keep_days": 3}), "tables.lakeops.events.retention", "keep_days"),
    ],
)
def test_unknown_keys_are_rejected_with_the_key_named(make_config, data, where, key):
    with pytest.raises(ConfigError) as info:
        make_config(data)
    message = str(info.value)
    assert f"unknown key {key!r}" in message
    assert message.startswith(f"{where}: ")
    assert "allowed keys are" in message


# --- bad values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"catalog": {"s3_path_style_access": "yes"}}, "catalog.s3_path_style_access: 'yes' must be true or false"),
        ({"catalog": {"name": 5}}, "catalog.name: 5 must be a string"),
        ({"catalog": ["embedded"]}, "catalog: expected a mapping of settings"),
        ({"spark": {"conf": ["spark.a=b"]}}, "spark.conf: ['spark.a=b'] must be a mapping"),
        ({"tables": ["events"]}, "tables: ['events'] must be a mapping"),
        (events_table(ingest_interval_minutes="5"), "tables.lakeops.events.ingest_interval_minutes: '5' must be a whole number"),
        (events_table(ingest_interval_minutes=True),
         "tables.lakeops.events.ingest_interval_minutes: True must be a whole number"),
        (events_table(ingest_interval_minutes=2.5), "tables.lakeops.events.ingest_interval_minutes: 2.5 must be a whole number"),
        (events_table(compaction={"small_file_fraction": "half"}),
         "tables.lakeops.events.compaction.small_file_fraction: 'half' must be a number"),
        (events_table(create={**EVENTS_CREATE, "partition_by": "day(event_time)"}),
         "tables.lakeops.events.create: partition_by and sort_by must be lists"),
        (events_table(create={**EVENTS_CREATE, "sort_by": [1]}), "tables.lakeops.events.create.sort_by: 1 is not a valid name"),
        (events_table(key="id"), "tables.lakeops.events.key: 'id' must be a list"),
        (events_table(zonemap=["user_id"]), "tables.lakeops.events.zonemap: expected a mapping of settings"),
    ],
)
def test_wrong_types_are_rejected(make_config, data, expected):
    with pytest.raises(ConfigError) as info:
        make_config(data)
    assert expected in str(info.value)


def test_bad_catalog_kind(make_config):
    with pytest.raises(ConfigError, match=r"catalog.kind: 'hiv' is not supported; use one of embedded, sql, rest, glue, hive"):
        make_config({"catalog": {"kind": "hiv"}})


@pytest.mark.parametrize("missing", ["uri", "warehouse"])
def test_rest_catalog_requires_uri_and_warehouse(make_config, missing):
    catalog = {"kind": "rest", "uri": "http://rest:8181", "warehouse": "s3://lake/wh"}
    del catalog[missing]
    with pytest.raises(ConfigError, match=rf"catalog.{missing}: required when catalog.kind is 'rest'"):
        make_config({"catalog": catalog})


def test_rest_catalog_with_uri_and_warehouse_is_valid(make_config):
    catalog = make_config({"catalog": {"kind": "rest", "uri": "http://rest:8181", "warehouse": "s3://lake/wh"}}).catalog
    assert catalog.kind == "rest"
    assert catalog.warehouse_location == "s3://lake/wh"


@pytest.mark.parametrize(
    ("create", "column"),
    [
        ({"partition_by": ["day(created_at)"]}, "created_at"),
        ({"partition_by": ["bucket(16, order_id)"]}, "order_id"),
        ({"partition_by": ["status"]}, "status"),
        ({"sort_by": ["event_time", "amount"]}, "amount"),
    ],
)
def test_a_create_block_names_only_declared_columns(make_config, create, column):
    with pytest.raises(ConfigError) as info:
        make_config(events_table(create={**EVENTS_CREATE, **create}))
    message = str(info.value)
    assert message.startswith("tables.lakeops.events.create: ")
    assert f"names column {column!r}, which is not declared" in message


def test_policy_columns_of_a_created_table_must_be_declared(make_config):
    with pytest.raises(ConfigError, match=r"tables.lakeops.events: column 'tier' is not declared in create.columns"):
        make_config(events_table(create=EVENTS_CREATE, zonemap={"columns": ["tier"]}))
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.create: key names column 'order_id', which is not declared"):
        make_config(events_table(create=EVENTS_CREATE, key=["order_id"]))


def test_policy_columns_of_an_existing_table_are_checked_at_run_time_not_at_load(make_config):
    table = make_config(events_table(zonemap={"columns": ["anything"]})).table("events")
    assert table.zonemap.columns == ("anything",)


def test_bloom_column_must_be_a_zonemap_column(make_config):
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.zonemap.bloom_columns: \['user_id'\] must also be "
                                          r"listed in zonemap.columns"):
        make_config(events_table(zonemap={"columns": ["event_time"], "bloom_columns": ["user_id"]}))


@pytest.mark.parametrize(("declaration", "message"), [
    ("strin", "'strin' is not a column type"),
    ("decimal(40, 2)", "needs 1 <= precision <= 38"),
    ("map<string>", "needs 2 type(s) inside map"),
    (5, "must be a type such as"),
])
def test_column_types_are_checked(make_config, declaration, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        make_config(events_table(create={"columns": {"a": declaration}}))


def test_column_types_are_normalized(make_config):
    create = make_config(events_table(create={"columns": {"a": "Long NOT NULL", "b": "map<string, struct<x: int>>",
                                                          "c": "Decimal(12,2)"}})).table("events").create
    assert [(c.name, c.sql_type, c.required) for c in create.columns] == [
        ("a", "BIGINT", True), ("b", "MAP<STRING, STRUCT<x: INT>>", False), ("c", "DECIMAL(12, 2)", False)]


def test_tables_may_live_in_namespaces_of_several_levels(make_config):
    config = make_config({"tables": {"lake.raw.clicks": {}, "events": {}}})
    assert list(config.tables) == ["lake.raw.clicks", "lakeops.events"]
    assert config.table("lake.raw.clicks").id.namespace == ("lake", "raw")
    assert config.table("lake.raw.clicks").quarantine_name == "lake.raw.clicks_quarantine"


def test_a_table_configured_twice_is_refused(make_config):
    with pytest.raises(ConfigError, match="names lakeops.events, which is configured twice"):
        make_config({"tables": {"events": {}, "lakeops.events": {}}})


@pytest.mark.parametrize("minutes", [0, -5, 7, 25, 45, 90])
def test_ingest_interval_must_divide_an_hour(make_config, minutes):
    with pytest.raises(ConfigError, match=rf"tables.lakeops.events.ingest_interval_minutes: {minutes} must divide an hour"):
        make_config(events_table(ingest_interval_minutes=minutes))


@pytest.mark.parametrize("minutes", [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60])
def test_ingest_intervals_dividing_an_hour_are_accepted(make_config, minutes):
    assert make_config(events_table(ingest_interval_minutes=minutes)).table("events").ingest_interval_minutes == minutes


@pytest.mark.parametrize("hours", [0, 1, 23])
def test_orphan_min_age_below_24_hours_is_rejected(make_config, hours):
    with pytest.raises(ConfigError,
                       match=rf"retention.orphan_min_age_hours: {hours} is shorter than the safe minimum of 24 hours"):
        make_config(events_table(retention={"orphan_min_age_hours": hours}))


def test_orphan_min_age_of_24_hours_is_accepted(make_config):
    assert make_config(events_table(retention={"orphan_min_age_hours": 24})).table("events").retention.orphan_min_age_hours == 24


@pytest.mark.parametrize("count", [0, -1])
def test_min_snapshots_below_one_is_rejected(make_config, count):
    with pytest.raises(ConfigError, match=rf"retention.min_snapshots: {count} must be at least 1"):
        make_config(events_table(retention={"min_snapshots": count}))


def test_max_snapshot_age_below_one_hour_is_rejected(make_config):
    with pytest.raises(ConfigError, match=r"retention.max_snapshot_age_hours: 0 must be at least 1"):
        make_config(events_table(retention={"max_snapshot_age_hours": 0}))


@pytest.mark.parametrize(
    ("compaction", "expected"),
    [
        ({"target_file_size_mb": 0}, "compaction.target_file_size_mb: 0 must be positive"),
        ({"small_file_fraction": 0}, r"compaction.small_file_fraction: 0.0 must be in \(0, 1\]"),
        ({"small_file_fraction": 1.5}, r"compaction.small_file_fraction: 1.5 must be in \(0, 1\]"),
        ({"delete_ratio_threshold": -0.1}, r"compaction.delete_ratio_threshold: -0.1 must be in \(0, 1\]"),
        ({"min_small_files": 0}, "compaction.min_small_files: 0 must be at least 1"),
        ({"max_bytes_per_run_mb": 0}, "compaction.max_bytes_per_run_mb: 0 must be at least 1"),
        ({"max_commits_per_call": 0}, "compaction.max_commits_per_call: 0 must be at least 1"),
        ({"partial_progress": "never"}, "compaction.partial_progress: 'never' is not one of on_conflict, always; "),
        ({"max_file_amplification": 1.0}, r"compaction.max_file_amplification: 1.0 must be above 1.0 \(1.0 is a freshly"),
    ],
)
def test_bad_compaction_policy(make_config, compaction, expected):
    with pytest.raises(ConfigError, match=expected):
        make_config(events_table(compaction=compaction))


def test_the_table_wide_trigger_can_be_turned_off(make_config):
    def amplification(value):
        config = make_config(events_table(compaction={"max_file_amplification": value}))
        return config.table("events").compaction.max_file_amplification

    assert amplification(None) is None
    assert amplification(2) == 2.0


@pytest.mark.parametrize("key", ["sql.shuffle.partitions", "executor.memory", "SPARK.sql.x", "park.x"])
def test_spark_conf_keys_must_start_with_spark(make_config, key):
    with pytest.raises(ConfigError, match=rf"spark.conf: key {key!r} is not a Spark setting"):
        make_config({"spark": {"conf": {key: "1"}}})


def test_spark_conf_values_must_be_strings(make_config):
    with pytest.raises(ConfigError, match=r"spark.conf.spark.sql.shuffle.partitions: 4 must be a string; quote it"):
        make_config({"spark": {"conf": {"spark.sql.shuffle.partitions": 4}}})


@pytest.mark.parametrize("spec", [None, {}])
def test_an_existing_table_needs_no_settings(make_config, spec):
    assert make_config({"tables": {"events": spec}}).table("events").create is None


# --- identifiers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["events; drop table x", "events;drop table x", "events--", "events /* x */", "x.y", "ev-ents", "ev ents", "`events`",
     "'events'", "1events", "", "a" * 129, "évents", None, 5],
)
def test_validate_identifier_rejects_unsafe_names(name):
    with pytest.raises(ConfigError) as info:
        validate_identifier(name, "tables: table name")  # type: ignore[arg-type]
    assert str(info.value).startswith(f"tables: table name: {name!r} is not a valid name")


@pytest.mark.parametrize("name", ["events", "_tmp", "t1", "events_quarantine", "a" * 128, "_", "Events", "EVENTS"])
def test_validate_identifier_accepts_plain_names(name):
    assert validate_identifier(name, "table") == name


def test_validate_identifier_rejects_trailing_newline():
    with pytest.raises(ConfigError):
        validate_identifier("events\n", "table")


@pytest.mark.parametrize(
    "data",
    [
        {"tables": {"events; drop table x": {}}},
        {"tables": {"lakeops.ev`ents": {}}},
        {"catalog": {"name": "lakeops; drop table x"}},
        {"catalog": {"namespace": "lakeops.ev il"}},
    ],
)
def test_config_rejects_unsafe_identifiers(make_config, data):
    with pytest.raises(ConfigError, match="is not a valid name"):
        make_config(data)


def test_qualified_rejects_unsafe_table(make_config):
    with pytest.raises(ConfigError, match="is not a valid name"):
        make_config({}).qualified("events; drop table x")


# --- partition transforms -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "transform", "column", "ddl"),
    [
        ("day(event_time)", "day", "event_time", "days(`event_time`)"),
        ("hour(event_time)", "hour", "event_time", "hours(`event_time`)"),
        ("month(created_at)", "month", "created_at", "months(`created_at`)"),
        ("year(created_at)", "year", "created_at", "years(`created_at`)"),
        ("bucket(16, user_id)", "bucket[16]", "user_id", "bucket(16, `user_id`)"),
        ("bucket(16,user_id)", "bucket[16]", "user_id", "bucket(16, `user_id`)"),
        ("truncate(4, page)", "truncate[4]", "page", "truncate(4, `page`)"),
        ("country", "identity", "country", "`country`"),
        ("  day(event_time)  ", "day", "event_time", "days(`event_time`)"),
    ],
)
def test_partition_transforms_are_parsed_by_pyiceberg(text, transform, column, ddl):
    field = PartitionField.parse(text, "partition_by")
    assert (field.transform, field.column, field.spark_ddl()) == (transform, column, ddl)


@pytest.mark.parametrize(
    "transform",
    ["day(event_time", "days(event_time)", "bucket(user_id)", "bucket(n, user_id)", "truncate(page)", "day(a, b)", "", "a b"],
)
def test_unknown_partition_transforms_are_refused(transform):
    with pytest.raises(ConfigError, match=r"partition_by: .* is not a partition transform"):
        PartitionField.parse(transform, "partition_by")


def test_table_config_validates_when_built_directly():
    with pytest.raises(ConfigError, match="bloom_columns"):
        TableConfig(name="lakeops.events", zonemap=ZonemapConfig(columns=("a",), bloom_columns=("b",)))


# --- ingest: commit mode, writers, staging age -----------------------------------------------


def test_staged_ingest_settings_are_read(make_config):
    config = make_config(events_table(ingest={"commit_mode": "staged", "writers": 16, "staging_max_age_hours": 6}))
    ingest = config.table("events").ingest
    assert ingest == IngestConfig(commit_mode="staged", writers=16, staging_max_age_hours=6.0)
    assert isinstance(ingest.staging_max_age_hours, float)


def test_unknown_commit_mode_names_the_modes(make_config):
    with pytest.raises(ConfigError, match=r"ingest.commit_mode: 'stagd' is not a commit mode; use direct \(each run commits "
                                          r"its own batch\) or staged \(parallel writers, one committer\)"):
        make_config(events_table(ingest={"commit_mode": "stagd"}))


def test_ingest_mode_is_batch_or_streaming(make_config):
    assert make_config(events_table(ingest={"mode": "streaming"})).table("events").ingest.mode == "streaming"
    with pytest.raises(ConfigError, match=r"ingest.mode: 'stream' is not an ingest mode; use batch \(the ingest_events "
                                          r"DAG, one batch per data interval\) or streaming \(the stream_events DAGs\)"):
        make_config(events_table(ingest={"mode": "stream"}))


def test_streaming_takes_either_commit_mode_and_stages_kafka_micro_batches_too(make_config):
    kafka = {"bootstrap_servers": "broker:9092", "topic": "events"}
    for settings in ({"mode": "streaming", "commit_mode": "staged"},
                     {"mode": "streaming", "commit_mode": "staged", "kafka": kafka}):
        assert make_config(events_table(ingest=settings)).table("events").ingest.commit_mode == "staged"
    with pytest.raises(ConfigError, match=r"ingest.commit_mode: staged splits landed files among writers; .* \(or mode: "
                                          r"streaming"):
        make_config(events_table(ingest={"commit_mode": "staged", "kafka": kafka}))


def test_cdc_tables_stream_but_never_stage(make_config):
    streamed = make_config({"tables": {"users": {"ingest": {"format": "cdc", "mode": "streaming"}}}})
    assert streamed.table("users").ingest.mode == "streaming"
    with pytest.raises(ConfigError, match=r"ingest.format: cdc is merged by one job per batch \(or micro-batch\); use "
                                          r"commit_mode: direct"):
        make_config({"tables": {"users": {"ingest": {"format": "cdc", "commit_mode": "staged"}}}})


def test_kafka_cdc_and_events_settings_are_checked(make_config):
    kafka = {"topic": "shop.public.orders", "bootstrap_servers": "broker:9092"}
    table = make_config({"tables": {"orders": {"ingest": {"format": "cdc", "kafka": kafka, "evolve": "add_columns",
                                                          "cdc": {"temporal_units": {"at": "millis"}, "truncate": "apply"}}}}})
    ingest = table.table("orders").ingest
    assert ingest.kafka.topic == "shop.public.orders" and ingest.cdc.unit_of("at", "micros") == "millis"
    assert ingest.unknown_field_policy == "add_columns"
    assert make_config({"tables": {"orders": {"ingest": {"format": "cdc"}}}}).table("orders").ingest.unknown_field_policy \
        == "quarantine"
    assert make_config(events_table()).table("events").ingest.unknown_field_policy == "ignore"
    bad = [({"format": "cdc", "kafka": {**kafka, "topic": "a b"}}, r"ingest.kafka.topic: 'a b' is not a Kafka topic name"),
           ({"kafka": {**kafka, "bootstrap_servers": "broker"}}, r"ingest.kafka.bootstrap_servers: 'broker' must be host:port"),
           ({"kafka": {**kafka, "options": {"subscribe": "x"}}}, r"ingest.kafka.options: 'subscribe' is set by lakeops"),
           ({"kafka": kafka, "commit_mode": "staged"}, r"ingest.commit_mode: staged splits landed files"),
           ({"format": "cdc", "cdc": {"truncate": "drop"}}, r"ingest.cdc.truncate: 'drop' is not one of quarantine, apply, fail"),
           ({"format": "cdc", "cdc": {"temporal_units": {"at": "secs"}}}, r"ingest.cdc.temporal_units.at: 'secs' is not a unit"),
           ({"evolve": "yes"}, r"ingest.evolve: 'yes' is not a policy"),
           ({"unknown_fields": "drop"}, r"ingest.unknown_fields: 'drop' is not a policy"),
           ({"format": "cdc", "fields": {"a": "$.a"}}, r"ingest.fields maps JSON paths of events to columns"),
           ({"fields": {"a": "user.id"}}, r"ingest.fields.a: 'user.id' is not a JSON path")]
    for settings, message in bad:
        with pytest.raises(ConfigError, match=message):
            make_config({"tables": {"orders": {"ingest": settings}}})


@pytest.mark.parametrize("writers", [0, -1, 65])
def test_writers_out_of_range(make_config, writers):
    with pytest.raises(ConfigError, match=rf"ingest.writers: {writers} must be a whole number of writer tasks between 1 and 64"):
        make_config(events_table(ingest={"commit_mode": "staged", "writers": writers}))


@pytest.mark.parametrize("writers", ["4", 2.5, True])
def test_writers_must_be_a_whole_number(make_config, writers):
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.ingest.writers: .* must be a whole number"):
        make_config(events_table(ingest={"writers": writers}))


@pytest.mark.parametrize("hours", [0, 0.5, 721])
def test_staging_max_age_out_of_range(make_config, hours):
    with pytest.raises(ConfigError, match=rf"ingest.staging_max_age_hours: {float(hours)} must be between 1 and 720 hours"):
        make_config(events_table(ingest={"staging_max_age_hours": hours}))


def test_unknown_ingest_key_is_named(make_config):
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.ingest: unknown key 'writer'; "
                                          r"allowed keys are format, mode, commit_mode, writers, "
                                          r"staging_max_age_hours, kafka, cdc, fields, evolve, unknown_fields"):
        make_config(events_table(ingest={"writer": 4}))


def test_an_unknown_ingest_format_is_named(make_config):
    with pytest.raises(ConfigError, match=r"ingest.format: 'avro' is not an ingest format; use events"):
        make_config({"tables": {"users": {"ingest": {"format": "avro"}}}})


def test_staging_must_expire_before_orphan_removal_in_staged_mode(make_config):
    settings = {"ingest": {"commit_mode": "staged", "staging_max_age_hours": 24}, "retention": {"orphan_min_age_hours": 24}}
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.ingest.staging_max_age_hours: 24 is not below "
                                          r"retention.orphan_min_age_hours 24; orphan removal could delete staged files"):
        make_config(events_table(**settings))
    direct = {**settings, "ingest": {"commit_mode": "direct", "staging_max_age_hours": 24}}
    assert make_config(events_table(**direct)).table("events").ingest.commit_mode == "direct", "no staging in direct mode"
