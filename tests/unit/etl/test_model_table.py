"""A model's table created from its SELECT's columns: the definition for literal columns, and the refusals."""

from __future__ import annotations

import pytest

from lakeops.config.models import ModelConfig, ModelSourceConfig
from lakeops.config.table import build_table
from lakeops.etl.model_table import model_table_definition
from lakeops.exceptions import ConfigError
from lakeops.ingest.ddl import create_table_sql
from lakeops.tables.identifier import TableId
from tests.conftest import make_test_config

MODEL = ModelConfig(name="daily", python="analytics.models:daily", table="analytics.daily", key=("user_id", "day"),
                    partition_column="day", sources={"events": ModelSourceConfig()})
COLUMNS = [("user_id", "bigint", True), ("day", "timestamp", True), ("n", "bigint", False),
           ("by_type", "map<string,bigint>", True), ("amount", "decimal(12,2)", True), ("rank", "smallint", True),
           ("code", "varchar(8)", True), ("top", "struct<id:bigint,name:string>", True)]


def test_the_selects_columns_become_the_tables_partitioned_by_the_day_of_the_partition_column():
    definition = model_table_definition(MODEL, COLUMNS)
    assert [c.ddl() for c in definition.columns] == [
        "`user_id` BIGINT", "`day` TIMESTAMP", "`n` BIGINT NOT NULL", "`by_type` MAP<STRING, BIGINT>",
        "`amount` DECIMAL(12, 2)", "`rank` INT", "`code` STRING", "`top` STRUCT<id: BIGINT, name: STRING>"]
    assert [p.spark_ddl() for p in definition.partition_by] == ["days(`day`)"]


def test_the_create_statement_uses_the_derived_definition_when_the_entry_declares_none(tmp_path):
    config = make_test_config(tmp_path, tables={})
    spec = build_table(TableId.parse("analytics.daily", "lakeops"), {}, {})
    sql = create_table_sql(config, spec, model_table_definition(MODEL, COLUMNS[:3]))
    assert sql.startswith(f"CREATE TABLE IF NOT EXISTS {config.qualified('analytics.daily')} (\n  `user_id` BIGINT,")
    assert "PARTITIONED BY (days(`day`))" in sql and "'write.wap.enabled' = 'true'" in sql
    with pytest.raises(ConfigError, match="does not exist and its config entry has no `create` block"):
        create_table_sql(config, spec)


@pytest.mark.parametrize(("columns", "message"), [
    ([("user_id", "bigint", True), ("day", "timestamp", True), ("count(1)", "bigint", False)],
     r"'count\(1\)' is not a valid name.*name every column of the SELECT with AS"),
    ([("user_id", "bigint", True), ("day", "timestamp", True), ("x", "void", True)],
     r"'void' is not a column type.*created from its SELECT"),
    ([("user_id", "bigint", True), ("n", "bigint", True)],
     r"partition_by day\(day\) names column 'day', which is not declared.*must yield the model's key and partition_column"),
])
def test_columns_a_table_cannot_hold_are_refused_naming_the_fix(columns, message):
    with pytest.raises(ConfigError, match=message):
        model_table_definition(MODEL, columns)
