"""Partition predicates for rewrite_data_files' `where`, against literal values."""

from __future__ import annotations

from datetime import date

import pytest

from lakeops.compaction.where import partition_field_name, partition_where, transform_predicate
from lakeops.exceptions import ConfigError


@pytest.mark.parametrize(("transform", "name"), [
    ("day(created_at)", "created_at_day"), ("hour(event_time)", "event_time_hour"),
    ("bucket(8, user_id)", "user_id_bucket"), ("truncate(10, name)", "name_trunc"), ("country", "country"),
])
def test_default_partition_field_names(transform, name):
    assert partition_field_name(transform) == name


@pytest.mark.parametrize(("transform", "value", "sql"), [
    ("day(created_at)", 20413,
     "created_at >= TIMESTAMP '2025-11-21T00:00:00+00:00' AND created_at < TIMESTAMP '2025-11-22T00:00:00+00:00'"),
    ("day(created_at)", date(2026, 11, 21),
     "created_at >= TIMESTAMP '2026-11-21T00:00:00+00:00' AND created_at < TIMESTAMP '2026-11-22T00:00:00+00:00'"),
    ("hour(t)", 1, "t >= TIMESTAMP '1970-01-01T01:00:00+00:00' AND t < TIMESTAMP '1970-01-01T02:00:00+00:00'"),
    ("month(t)", 671, "t >= TIMESTAMP '2025-12-01T00:00:00+00:00' AND t < TIMESTAMP '2026-01-01T00:00:00+00:00'"),
    ("year(t)", 56, "t >= TIMESTAMP '2026-01-01T00:00:00+00:00' AND t < TIMESTAMP '2027-01-01T00:00:00+00:00'"),
    ("bucket(8, user_id)", 3, "system.bucket(8, user_id) = 3"),
    ("truncate(100, amount)", 200, "amount >= 200 AND amount < 300"),
    ("country", "it's", "country = 'it\\'s'"),
    ("country", None, "country IS NULL"),
    ("day(created_at)", None, "created_at IS NULL"),
])
def test_transform_predicates(transform, value, sql):
    assert transform_predicate(transform, value) == sql


def test_partition_where_joins_fields_and_is_none_unpartitioned():
    assert partition_where(("day(t)", "country"), (("t_day", 0), ("country", "IT"))) == (
        "(t >= TIMESTAMP '1970-01-01T00:00:00+00:00' AND t < TIMESTAMP '1970-01-02T00:00:00+00:00') AND (country = 'IT')")
    assert partition_where((), ()) is None


def test_a_field_the_config_does_not_produce_is_refused():
    with pytest.raises(ConfigError, match="partition field 'x_bucket' is not produced by partition_by"):
        partition_where(("day(t)",), (("x_bucket", 1),))
