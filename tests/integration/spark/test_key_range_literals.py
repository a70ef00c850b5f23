"""The key ranges' SQL literals (lakeops.etl.key_ranges) read back by Spark as the values PySpark collected."""

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from lakeops.etl.key_ranges import range_condition, sql_literal

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("value", [42, Decimal("12.50"), date(2026, 11, 3), "it's a \\ path", "ünïcode"])
def test_spark_reads_each_literal_back_as_the_value(spark, value):
    assert spark.sql(f"SELECT {sql_literal(value)} AS v").first().v == value


def test_a_naive_timestamp_literal_is_the_utc_instant(spark):
    """The ETL's naive time values are UTC; PySpark returns the instant in the process's local time."""
    got = spark.sql(f"SELECT {sql_literal(datetime(2026, 11, 3, 4, 5, 6, 7))} AS v").first().v
    assert got.astimezone(UTC) == datetime(2026, 11, 3, 4, 5, 6, 7, tzinfo=UTC)


def test_a_condition_keeps_exactly_the_rows_in_its_ranges(spark):
    frame = spark.range(30).selectExpr("id", "CAST(id AS DECIMAL(10, 2)) AS amount", "CAST(id AS STRING) AS name")
    assert sorted(r.id for r in frame.where(range_condition("id", [(3, 3), (10, 12)])).collect()) == [3, 10, 11, 12]
    kept = frame.where(range_condition("amount", [(Decimal("5.00"), Decimal("6.00"))]))
    assert sorted(r.id for r in kept.collect()) == [5, 6]
    assert sorted(r.id for r in frame.where(range_condition("name", [("2", "20")])).collect()) == [2, 20]
