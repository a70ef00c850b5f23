"""Policy columns resolved against a table's live schema, by field id: a renamed column keeps its id, a
missing one fails naming the column and the table's actual columns."""

from __future__ import annotations

import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType

from lakeops.exceptions import ConfigError
from lakeops.tables.live import resolve_columns

SCHEMA = Schema(NestedField(1, "account_id", LongType(), required=True), NestedField(2, "ts", TimestamptzType()),
                NestedField(7, "page", StringType()))


def test_named_columns_resolve_to_their_field_ids():
    assert resolve_columns(SCHEMA, ["ts", "page"], "zonemap.columns", "analytics.clicks") == {"ts": 2, "page": 7}


def test_a_renamed_column_is_found_under_its_new_name_with_the_same_id():
    renamed = Schema(NestedField(1, "account_id", LongType(), required=True), NestedField(2, "event_time", TimestamptzType()),
                     NestedField(7, "page", StringType()))
    assert resolve_columns(renamed, ["event_time"], "zonemap.columns", "analytics.clicks") == {"event_time": 2}


def test_a_column_the_table_lacks_fails_with_the_tables_columns():
    with pytest.raises(ConfigError) as info:
        resolve_columns(SCHEMA, ["ts", "user_id"], "zonemap.columns", "analytics.clicks")
    assert str(info.value).startswith("zonemap.columns of table analytics.clicks names column 'user_id', which the table "
                                      "does not have; its columns are: account_id, ts, page.")
    with pytest.raises(ConfigError, match="names column 'TS'"):  # names are case-sensitive, as in Iceberg
        resolve_columns(SCHEMA, ["TS"], "zonemap.columns", "analytics.clicks")
