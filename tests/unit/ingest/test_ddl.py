"""lakeops.ingest.ddl: CREATE TABLE statements from a table's `create` block, compared to literal SQL."""

from __future__ import annotations

import pytest

from lakeops.exceptions import ConfigError
from lakeops.ingest.ddl import BASE_PROPERTIES, create_table_sql, table_ddl

PROPERTIES = "TBLPROPERTIES ('format-version' = '2', 'write.wap.enabled' = 'true', 'write.parquet.compression-codec' = 'zstd')"
COLUMNS = {"event_id": "string not null", "user_id": "bigint not null", "event_time": "timestamp not null",
           "country": "string", "page": "string", "properties": "map<string, string>"}
COLUMNS_SQL = """\
  `event_id` STRING NOT NULL,
  `user_id` BIGINT NOT NULL,
  `event_time` TIMESTAMP NOT NULL,
  `country` STRING,
  `page` STRING,
  `properties` MAP<STRING, STRING>"""
EVENTS_SQL = f"""\
CREATE TABLE IF NOT EXISTS `lakeops`.`lakeops`.`events` (
{COLUMNS_SQL}
) USING iceberg
PARTITIONED BY (days(`event_time`))
{PROPERTIES}"""
QUARANTINE_SQL = f"""\
CREATE TABLE IF NOT EXISTS `lakeops`.`lakeops`.`events_quarantine` (
  `table_name` STRING NOT NULL,
  `batch_id` STRING NOT NULL,
  `source_file` STRING NOT NULL,
  `raw_line` STRING,
  `reason` STRING NOT NULL,
  `quarantined_at` TIMESTAMP NOT NULL
) USING iceberg
{PROPERTIES}"""
NAMESPACE_SQL = "CREATE NAMESPACE IF NOT EXISTS `lakeops`.`lakeops`"


def config_with(make_config, catalog=None, key=None, **create):
    entry = {"create": {"columns": COLUMNS, **create}}
    if key:
        entry["key"] = key
    data = {"tables": {"events": entry}}
    if catalog:
        data["catalog"] = catalog
    return make_config(data)


def test_base_properties():
    assert BASE_PROPERTIES == {"format-version": "2", "write.wap.enabled": "true", "write.parquet.compression-codec": "zstd"}


def test_create_events_table(make_config):
    config = config_with(make_config, partition_by=["day(event_time)"], sort_by=["event_time"])
    assert create_table_sql(config, config.table("events")) == EVENTS_SQL


def test_table_ddl_creates_namespace_table_write_order_and_quarantine(make_config):
    config = config_with(make_config, partition_by=["day(event_time)"], sort_by=["event_time"])
    assert table_ddl(config, config.table("events")) == [
        NAMESPACE_SQL,
        EVENTS_SQL,
        "ALTER TABLE `lakeops`.`lakeops`.`events` WRITE ORDERED BY `event_time`",
        QUARANTINE_SQL,
    ]


def test_write_order_with_several_columns_and_a_key(make_config):
    config = config_with(make_config, key=["event_id"], sort_by=["event_time", "user_id"])
    assert table_ddl(config, config.table("events"))[2:4] == [
        "ALTER TABLE `lakeops`.`lakeops`.`events` SET IDENTIFIER FIELDS `event_id`",
        "ALTER TABLE `lakeops`.`lakeops`.`events` WRITE ORDERED BY `event_time`, `user_id`"]


def test_without_sort_or_partitions(make_config):
    config = config_with(make_config)
    assert table_ddl(config, config.table("events")) == [
        NAMESPACE_SQL,
        f"CREATE TABLE IF NOT EXISTS `lakeops`.`lakeops`.`events` (\n{COLUMNS_SQL}\n) USING iceberg\n{PROPERTIES}",
        QUARANTINE_SQL,
    ]


@pytest.mark.parametrize(
    ("partition_by", "clause"),
    [
        (["day(event_time)"], "PARTITIONED BY (days(`event_time`))"),
        (["hour(event_time)"], "PARTITIONED BY (hours(`event_time`))"),
        (["month(event_time)"], "PARTITIONED BY (months(`event_time`))"),
        (["year(event_time)"], "PARTITIONED BY (years(`event_time`))"),
        (["bucket(16, user_id)"], "PARTITIONED BY (bucket(16, `user_id`))"),
        (["truncate(4, page)"], "PARTITIONED BY (truncate(4, `page`))"),
        (["country"], "PARTITIONED BY (`country`)"),
        (["day(event_time)", "bucket(8, user_id)", "country"],
         "PARTITIONED BY (days(`event_time`), bucket(8, `user_id`), `country`)"),
    ],
)
def test_partition_transforms_use_spark_ddl_names(make_config, partition_by, clause):
    config = config_with(make_config, partition_by=partition_by)
    sql = create_table_sql(config, config.table("events"))
    assert sql == (f"CREATE TABLE IF NOT EXISTS `lakeops`.`lakeops`.`events` (\n{COLUMNS_SQL}\n) USING iceberg\n"
                   f"{clause}\n{PROPERTIES}")


def test_extra_properties_of_the_create_block_are_added(make_config):
    config = config_with(make_config, properties={"write.target-file-size-bytes": "67108864"})
    assert create_table_sql(config, config.table("events")).endswith(
        PROPERTIES[:-1] + ", 'write.target-file-size-bytes' = '67108864')")


def test_quarantine_table_is_never_partitioned(make_config):
    config = config_with(make_config, partition_by=["day(event_time)", "country"])
    assert table_ddl(config, config.table("events"))[-1] == QUARANTINE_SQL


def test_catalog_and_namespaces_qualify_every_statement(make_config):
    config = make_config({"catalog": {"name": "prod"}, "tables": {"lake.raw.events": {
        "create": {"columns": COLUMNS, "sort_by": ["event_time"]}}}})
    statements = table_ddl(config, config.table("lake.raw.events"))
    assert statements[0] == "CREATE NAMESPACE IF NOT EXISTS `prod`.`lake`.`raw`"
    assert statements[1].startswith("CREATE TABLE IF NOT EXISTS `prod`.`lake`.`raw`.`events` (\n")
    assert statements[2] == "ALTER TABLE `prod`.`lake`.`raw`.`events` WRITE ORDERED BY `event_time`"
    assert statements[3].startswith("CREATE TABLE IF NOT EXISTS `prod`.`lake`.`raw`.`events_quarantine` (\n")


def test_a_table_without_a_create_block_is_not_created(make_config):
    config = make_config({"tables": {"sales.orders": {}}})
    with pytest.raises(ConfigError, match=r"table sales.orders does not exist and its config entry has no `create` block"):
        create_table_sql(config, config.table("sales.orders"))


def test_unsafe_name_never_reaches_sql(make_config):
    config = config_with(make_config)
    with pytest.raises(ConfigError, match="is not a valid name"):
        config.qualified("events; drop table x")
