"""lakeops.ingest.ddl: CREATE TABLE statements compared to literal SQL."""

from __future__ import annotations

import pytest

from lakeops.exceptions import ConfigError
from lakeops.ingest.ddl import BASE_PROPERTIES, create_table_sql, spark_transform, table_ddl

PROPERTIES = "TBLPROPERTIES ('format-version' = '2', 'write.wap.enabled' = 'true', 'write.parquet.compression-codec' = 'zstd')"

EVENTS_COLUMNS = """\
  event_id STRING NOT NULL,
  user_id BIGINT NOT NULL,
  session_id STRING NOT NULL,
  event_time TIMESTAMP NOT NULL,
  event_type STRING NOT NULL,
  page STRING,
  device STRING,
  country STRING,
  properties MAP<STRING, STRING>,
  ingested_at TIMESTAMP NOT NULL"""

EVENTS_SQL = f"""\
CREATE TABLE IF NOT EXISTS lakeops.lakeops.events (
{EVENTS_COLUMNS}
) USING iceberg
PARTITIONED BY (days(event_time))
{PROPERTIES}"""

QUARANTINE_SQL = f"""\
CREATE TABLE IF NOT EXISTS lakeops.lakeops.events_quarantine (
  table_name STRING NOT NULL,
  batch_id STRING NOT NULL,
  source_file STRING NOT NULL,
  raw_line STRING,
  reason STRING NOT NULL,
  quarantined_at TIMESTAMP NOT NULL
) USING iceberg
{PROPERTIES}"""


def config_with(make_config, catalog=None, **table):
    data = {"tables": {"events": {"schema": "events", **table}}}
    if catalog:
        data["catalog"] = catalog
    return make_config(data)


def test_base_properties():
    assert BASE_PROPERTIES == {"format-version": "2", "write.wap.enabled": "true", "write.parquet.compression-codec": "zstd"}


def test_create_events_table(make_config):
    config = config_with(make_config, partition_by=["day(event_time)"], sort_by=["event_time"])
    assert create_table_sql(config, config.table("events")) == EVENTS_SQL


def test_table_ddl_creates_table_write_order_and_quarantine(make_config):
    config = config_with(make_config, partition_by=["day(event_time)"], sort_by=["event_time"])
    assert table_ddl(config, config.table("events")) == [
        EVENTS_SQL,
        "ALTER TABLE lakeops.lakeops.events WRITE ORDERED BY event_time",
        QUARANTINE_SQL,
    ]


def test_write_order_with_several_columns(make_config):
    config = config_with(make_config, sort_by=["event_time", "user_id"])
    assert table_ddl(config, config.table("events"))[1] == (
        "ALTER TABLE lakeops.lakeops.events WRITE ORDERED BY event_time, user_id")


def test_without_sort_or_partitions(make_config):
    config = config_with(make_config)
    assert table_ddl(config, config.table("events")) == [
        f"CREATE TABLE IF NOT EXISTS lakeops.lakeops.events (\n{EVENTS_COLUMNS}\n) USING iceberg\n{PROPERTIES}",
        QUARANTINE_SQL,
    ]


@pytest.mark.parametrize(
    ("partition_by", "clause"),
    [
        (["day(event_time)"], "PARTITIONED BY (days(event_time))"),
        (["hour(event_time)"], "PARTITIONED BY (hours(event_time))"),
        (["month(event_time)"], "PARTITIONED BY (months(event_time))"),
        (["year(event_time)"], "PARTITIONED BY (years(event_time))"),
        (["bucket(16, user_id)"], "PARTITIONED BY (bucket(16, user_id))"),
        (["truncate(4, page)"], "PARTITIONED BY (truncate(4, page))"),
        (["country"], "PARTITIONED BY (country)"),
        (["day(event_time)", "bucket(8, user_id)", "country"], "PARTITIONED BY (days(event_time), bucket(8, user_id), country)"),
    ],
)
def test_partition_transforms_use_spark_ddl_names(make_config, partition_by, clause):
    config = config_with(make_config, partition_by=partition_by)
    sql = create_table_sql(config, config.table("events"))
    assert sql == (f"CREATE TABLE IF NOT EXISTS lakeops.lakeops.events (\n{EVENTS_COLUMNS}\n) USING iceberg\n"
                   f"{clause}\n{PROPERTIES}")


def test_quarantine_table_is_never_partitioned(make_config):
    config = config_with(make_config, partition_by=["day(event_time)", "country"])
    assert table_ddl(config, config.table("events"))[-1] == QUARANTINE_SQL


def test_catalog_and_namespace_qualify_every_statement(make_config):
    config = config_with(make_config, catalog={"name": "prod", "namespace": "web"}, sort_by=["event_time"])
    statements = table_ddl(config, config.table("events"))
    assert statements[0].startswith("CREATE TABLE IF NOT EXISTS prod.web.events (\n")
    assert statements[1] == "ALTER TABLE prod.web.events WRITE ORDERED BY event_time"
    assert statements[2].startswith("CREATE TABLE IF NOT EXISTS prod.web.events_quarantine (\n")


def test_orders_table(make_config):
    config = make_config({"tables": {"orders": {"schema": "orders", "partition_by": ["month(created_at)"]}}})
    assert create_table_sql(config, config.table("orders")) == (
        "CREATE TABLE IF NOT EXISTS lakeops.lakeops.orders (\n"
        "  order_id BIGINT NOT NULL,\n"
        "  user_id BIGINT NOT NULL,\n"
        "  status STRING,\n"
        "  amount DECIMAL(12, 2),\n"
        "  currency STRING,\n"
        "  created_at TIMESTAMP,\n"
        "  updated_at TIMESTAMP\n"
        ") USING iceberg\n"
        "PARTITIONED BY (months(created_at))\n" + PROPERTIES
    )


def test_unsafe_name_never_reaches_sql(make_config):
    config = config_with(make_config)
    with pytest.raises(ConfigError, match="is not a valid identifier"):
        config.qualified("events; drop table x")


@pytest.mark.parametrize(("transform", "spark"), [
    ("day(created_at)", "days(created_at)"),
    ("month(created_at)", "months(created_at)"),
    ("hour(event_time)", "hours(event_time)"),
    ("bucket(16, user_id)", "bucket(16, user_id)"),
    ("country", "country"),
])
def test_spark_transform_spells_time_transforms_in_plural_and_leaves_others(transform: str, spark: str) -> None:
    assert spark_transform(transform) == spark
