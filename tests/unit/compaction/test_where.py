"""Partition predicates for rewrite_data_files' `where`, from the transforms pyiceberg names, against literal values."""

from __future__ import annotations

from datetime import date

import pytest

from lakeops.compaction.where import partition_where, transform_predicate
from lakeops.exceptions import ConfigError


@pytest.mark.parametrize(("column", "transform", "value", "sql"), [
    ("created_at", "day", 20413,
     "`created_at` >= TIMESTAMP '2025-11-21T00:00:00+00:00' AND `created_at` < TIMESTAMP '2025-11-22T00:00:00+00:00'"),
    ("created_at", "day", date(2026, 11, 21),
     "`created_at` >= TIMESTAMP '2026-11-21T00:00:00+00:00' AND `created_at` < TIMESTAMP '2026-11-22T00:00:00+00:00'"),
    ("t", "hour", 1, "`t` >= TIMESTAMP '1970-01-01T01:00:00+00:00' AND `t` < TIMESTAMP '1970-01-01T02:00:00+00:00'"),
    ("t", "month", 671, "`t` >= TIMESTAMP '2025-12-01T00:00:00+00:00' AND `t` < TIMESTAMP '2026-01-01T00:00:00+00:00'"),
    ("t", "year", 56, "`t` >= TIMESTAMP '2026-01-01T00:00:00+00:00' AND `t` < TIMESTAMP '2027-01-01T00:00:00+00:00'"),
    ("user_id", "bucket[8]", 3, "system.bucket(8, `user_id`) = 3"),
    ("amount", "truncate[100]", 200, "`amount` >= 200 AND `amount` < 300"),
    ("name", "truncate[4]", "abcd", "system.truncate(4, `name`) = 'abcd'"),
    ("country", "identity", "it's", "`country` = 'it\\'s'"),
    ("country", "identity", None, "`country` IS NULL"),
    ("created_at", "day", None, "`created_at` IS NULL"),
    ("Account_ID", "bucket[16]", 15, "system.bucket(16, `Account_ID`) = 15"),
])
def test_transform_predicates(column, transform, value, sql):
    assert transform_predicate(column, transform, value) == sql


def test_a_void_field_selects_nothing_and_is_left_out():
    assert transform_predicate("t", "void", None) is None
    assert partition_where((("t_day", 0), ("old", None)), (("t", "day"), ("x", "void"))) == (
        "(`t` >= TIMESTAMP '1970-01-01T00:00:00+00:00' AND `t` < TIMESTAMP '1970-01-02T00:00:00+00:00')")


def test_partition_where_joins_fields_and_is_none_unpartitioned():
    assert partition_where((("t_day", 0), ("country", "IT")), (("t", "day"), ("country", "identity"))) == (
        "(`t` >= TIMESTAMP '1970-01-01T00:00:00+00:00' AND `t` < TIMESTAMP '1970-01-02T00:00:00+00:00') AND (`country` = 'IT')")
    assert partition_where((), ()) is None


def test_a_field_whose_source_column_is_gone_is_refused():
    with pytest.raises(ConfigError, match="partition field 'x_bucket' reads a column the table's schema no longer has"):
        partition_where((("x_bucket", 1),), (("", "bucket[8]"),))


def test_partition_values_without_their_sources_are_refused():
    with pytest.raises(ConfigError, match="has no source columns"):
        partition_where((("t_day", 1),), ())
