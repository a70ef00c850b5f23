"""Spark SQL literals, against literal strings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from lakeops.sql_literals import literal, properties, quote, string_map


@pytest.mark.parametrize(("value", "sql"), [
    ("plain", "'plain'"),
    ("it's", "'it\\'s'"),
    ("a\\b", "'a\\\\b'"),
    ("\\'", "'\\\\\\''"),
    ("", "''"),
])
def test_quote_escapes_backslashes_and_single_quotes(value, sql):
    assert quote(value) == sql


@pytest.mark.parametrize(("value", "sql"), [
    (None, "NULL"),
    (True, "true"),
    (False, "false"),
    (0, "0"),
    (-42, "-42"),
    (1.5, "1.5"),
    (float("nan"), "CAST('nan' AS DOUBLE)"),
    (float("-inf"), "CAST('-inf' AS DOUBLE)"),
    ("IT", "'IT'"),
    ("it's", "'it\\'s'"),
    (Decimal("1.50"), "'1.50'"),
    (date(2026, 11, 21), "DATE '2026-11-21'"),
    (datetime(2026, 11, 21, 10, 0, tzinfo=UTC), "TIMESTAMP '2026-11-21T10:00:00+00:00'"),
    (datetime(2026, 11, 21, 10, 0, 0, 123000, tzinfo=UTC), "TIMESTAMP '2026-11-21T10:00:00.123000+00:00'"),
    (datetime(2026, 11, 21, 11, 0, tzinfo=timezone(timedelta(hours=1))), "TIMESTAMP '2026-11-21T11:00:00+01:00'"),
    (datetime(2026, 11, 21, 10, 0), "TIMESTAMP_NTZ '2026-11-21T10:00:00'"),
])
def test_literal(value, sql):
    assert literal(value) == sql


def test_string_map_sorts_keys_and_quotes_both_sides():
    assert string_map({"z": "1", "a": "it's"}) == "map('a', 'it\\'s', 'z', '1')"
    assert string_map({}) == "map()"


def test_properties_keep_their_order():
    assert properties({"write.format.default": "parquet", "format-version": "2"}) == (
        "'write.format.default' = 'parquet', 'format-version' = '2'")
