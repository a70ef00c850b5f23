"""The key a CDC table's changes are merged on: the config's `key`, else the table's identifier fields."""

from __future__ import annotations

import pytest

from lakeops.cdc.sql import cdc_key
from lakeops.exceptions import ConfigError


def test_the_configured_key_wins_over_the_identifier_fields():
    assert cdc_key(("order_id", "line"), ("id",), "shop.lines") == ("order_id", "line")


def test_without_a_configured_key_the_identifier_fields_are_the_key():
    assert cdc_key((), ("tenant", "id"), "shop.docs") == ("tenant", "id")


def test_neither_is_refused_with_both_ways_to_give_one():
    with pytest.raises(ConfigError, match=r"table shop.docs has no key to merge changes on: set `key: \[column, \.\.\.\]`"
                                          r".*ALTER TABLE shop.docs SET IDENTIFIER FIELDS column"):
        cdc_key((), (), "shop.docs")
