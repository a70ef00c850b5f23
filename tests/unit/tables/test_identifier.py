"""lakeops.tables.identifier: identifiers as users write them, rendered for pyiceberg and Spark SQL."""

from __future__ import annotations

import pytest

from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import TableId


def test_a_dotted_identifier_has_a_namespace_of_one_or_more_levels():
    assert TableId.parse("analytics.clickstream") == TableId(("analytics",), "clickstream")
    assert TableId.parse("lake.raw.Clicks") == TableId(("lake", "raw"), "Clicks")
    assert TableId.parse("lake.raw.clicks").as_tuple() == ("lake", "raw", "clicks")
    assert str(TableId.parse("lake.raw.clicks")) == "lake.raw.clicks"


def test_a_bare_name_takes_the_default_namespace_or_is_refused():
    assert TableId.parse("orders", "sales") == TableId(("sales",), "orders")
    assert TableId.parse("orders", "lake.sales") == TableId(("lake", "sales"), "orders")
    with pytest.raises(ConfigError, match=r"table: 'orders' has no namespace; write namespace.table, e.g. analytics.orders"):
        TableId.parse("orders")


@pytest.mark.parametrize("value", ["a..b", "a.b c", "a.`b`", "a.b;drop", ".b", "a.", "", None, 7])
def test_unsafe_or_malformed_identifiers_are_refused(value):
    with pytest.raises(ConfigError):
        TableId.parse(value, "ns")


def test_spark_names_quote_every_part_and_read_back():
    table = TableId.parse("lake.raw.order")
    assert table.spark("prod") == "`prod`.`lake`.`raw`.`order`"
    assert table.spark_namespace("prod") == "`prod`.`lake`.`raw`"
    assert TableId.from_qualified(table.spark("prod")) == ("prod", table)
    assert TableId.from_qualified("prod.sales.orders") == ("prod", TableId(("sales",), "orders"))


def test_siblings_slugs_and_patterns():
    table = TableId.parse("lake.raw.clicks")
    assert str(table.sibling("clicks_quarantine")) == "lake.raw.clicks_quarantine"
    assert table.slug == "lake__raw__clicks"
    assert table.matches("click*") and not table.matches("tmp_*")
    assert table.matches("lake.raw.*") and not table.matches("lake.other.*")
