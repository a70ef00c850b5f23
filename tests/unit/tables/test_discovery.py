"""Discovery rules: which tables they bring in, on literals and against a real SQLite-backed catalog."""

from __future__ import annotations

import pyarrow as pa
import pytest

from lakeops.catalog import load_catalog
from lakeops.exceptions import ConfigError
from lakeops.tables.discovery import DiscoveryRule, discover
from lakeops.tables.identifier import TableId


def test_a_rule_matches_its_namespaces_includes_and_excludes():
    rule = DiscoveryRule(namespaces=("analytics", "lake.raw"), include=("*",), exclude=("tmp_*",))
    assert rule.matches(TableId(("analytics",), "clicks"))
    assert rule.matches(TableId(("lake", "raw"), "orders"))
    assert not rule.matches(TableId(("analytics",), "tmp_backfill"))
    assert not rule.matches(TableId(("sales",), "clicks"))
    assert not rule.matches(TableId(("lake",), "raw"))


def test_a_rule_needs_namespaces_and_includes():
    with pytest.raises(ConfigError, match="a rule needs namespaces"):
        DiscoveryRule(namespaces=())
    with pytest.raises(ConfigError, match="include is empty"):
        DiscoveryRule(namespaces=("a",), include=())


def test_the_config_resolves_discovered_tables_from_the_defaults(make_config):
    config = make_config({"defaults": {"freshness_sla_minutes": 90}, "discover": [{"namespaces": ["analytics"]}],
                          "tables": {"analytics.clicks": {"freshness_sla_minutes": 10}}})
    found = config.table("analytics.sessions")
    assert found.discovered and found.freshness_sla_minutes == 90
    assert config.table("analytics.clicks").freshness_sla_minutes == 10 and not config.table("analytics.clicks").discovered
    with pytest.raises(ConfigError, match=r"discovery rules: namespaces \['analytics'\] include \['\*'\]"):
        config.table("sales.orders")


def test_discovery_lists_the_catalog_at_run_time(make_config):
    config = make_config({"discover": [{"namespaces": ["analytics", "missing"], "exclude": ["tmp_*"]}],
                          "tables": {"lakeops.events": {}}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("analytics")
    schema = pa.schema([("id", pa.int64())])
    for name in ("clicks", "tmp_x", "sessions"):
        catalog.create_table(f"analytics.{name}", schema=schema)
    assert discover(catalog, config.discover) == [TableId(("analytics",), "clicks"), TableId(("analytics",), "sessions")]
    assert [str(t) for t in config.maintained(catalog)] == ["analytics.clicks", "analytics.sessions", "lakeops.events"]
    catalog.create_table("analytics.views", schema=schema)  # created later: found by the next listing
    assert "analytics.views" in [str(t) for t in config.maintained(catalog)]
