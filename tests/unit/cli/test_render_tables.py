"""`lakeops tables`: the settings' values and origins from a table's layered config, and the text, on literals."""

from __future__ import annotations

from lakeops.cli.render.tables import explained, render_tables, setting_value, table_row
from lakeops.config import POLICY_SETTINGS, build_table
from lakeops.tables.identifier import TableId

DEFAULTS = {"compaction": {"delete_file_threshold": 5}, "freshness_sla_minutes": 30}
PROPERTIES = {"lakeops.compaction.delete-file-threshold": "1", "write.target-file-size-bytes": "67108864",
              "lakeops.freshness-sla-minutes": "90"}
ENTRY = {"source": "orders", "freshness_sla_minutes": 45, "zonemap": {"columns": ["ts", "account_id"]}}


def _spec():
    return build_table(TableId.parse("lake.sales.orders"), ENTRY, DEFAULTS, PROPERTIES)


def test_each_setting_says_where_its_value_came_from():
    settings = explained(_spec())
    assert list(settings) == list(POLICY_SETTINGS)
    assert settings["compaction.trigger"] == {"value": "watch", "origin": "default"}
    assert settings["compaction.delete_file_threshold"] == {
        "value": 1, "origin": "table property", "property": "lakeops.compaction.delete-file-threshold", "property_value": "1"}
    assert settings["compaction.target_file_size_mb"] == {
        "value": 64, "origin": "table property", "property": "write.target-file-size-bytes", "property_value": "67108864"}
    assert settings["freshness_sla_minutes"] == {"value": 45, "origin": "config entry",
                                                 "key": "tables.lake.sales.orders.freshness_sla_minutes"}
    assert settings["zonemap.columns"]["value"] == ["ts", "account_id"]


def test_without_properties_the_config_defaults_show():
    spec = build_table(TableId.parse("lake.sales.orders"), {}, DEFAULTS)
    settings = explained(spec)
    assert settings["compaction.delete_file_threshold"] == {"value": 5, "origin": "config defaults",
                                                            "key": "defaults.compaction.delete_file_threshold"}
    assert setting_value(spec, "retention.protected_refs") == []


def test_a_row_names_how_the_table_is_maintained_and_ingested():
    assert table_row(_spec(), configured=True, exists=True) == {
        "table": "lake.sales.orders", "maintained_by": "config entry", "exists": True,
        "ingest": {"source": "orders", "format": "events", "mode": "batch", "commit_mode": "direct"}}
    found = build_table(TableId.parse("lake.raw.clicks"), {}, DEFAULTS, discovered=True)
    assert table_row(found, configured=False, exists=True) == {"table": "lake.raw.clicks", "maintained_by": "discovery rule",
                                                               "exists": True}
    topic = {"format": "cdc", "kafka": {"topic": "shop.public.orders", "bootstrap_servers": "broker:9092"}}
    fed = build_table(TableId.parse("lake.sales.orders"), {"key": ["id"], "ingest": topic}, DEFAULTS)
    assert fed.source is None and fed.ingested
    assert table_row(fed, configured=True, exists=False)["ingest"] == {
        "source": "kafka:shop.public.orders", "format": "cdc", "mode": "batch", "commit_mode": "direct"}


DOCUMENT = {"command": "tables", "config": "/etc/lakeops.yaml", "catalog": "lake", "explain": False, "tables": [
    {"table": "lake.raw.clicks", "maintained_by": "discovery rule", "exists": True},
    {"table": "lake.sales.orders", "maintained_by": "config entry", "exists": True,
     "ingest": {"source": "orders", "format": "events", "mode": "batch", "commit_mode": "staged"}},
    {"table": "lake.sales.refunds", "maintained_by": "config entry", "exists": False}]}


def test_the_listing_is_one_line_a_table():
    assert render_tables(DOCUMENT) == "\n".join([
        "3 maintained table(s) in catalog lake (config /etc/lakeops.yaml)",
        "  lake.raw.clicks     discovered, exists",
        "  lake.sales.orders   configured, exists, ingests events from orders (batch, staged)",
        "  lake.sales.refunds  configured, not created yet"])


def test_the_explanation_lists_each_setting_with_its_origin():
    settings = {"compaction.delete_file_threshold": {"value": 1, "origin": "table property",
                                                     "property": "lakeops.compaction.delete-file-threshold",
                                                     "property_value": "1"},
                "compaction.fragment_fraction": {"value": 0.125, "origin": "default"},
                "zonemap.columns": {"value": ["ts", "account_id"], "origin": "config entry",
                                    "key": "tables.lake.sales.orders.zonemap.columns"}}
    document = {**DOCUMENT, "explain": True, "tables": [
        {**DOCUMENT["tables"][2], "settings": {"freshness_sla_minutes": {"value": 30, "origin": "config defaults",
                                                                          "key": "defaults.freshness_sla_minutes"}}},
        {**DOCUMENT["tables"][0], "settings": settings, "error": None}]}
    assert render_tables(document).splitlines()[1:] == [
        "",
        "lake.sales.refunds  (configured, not created yet)",
        "  not created yet: these come from the config only; its own table properties apply once it exists",
        "  freshness_sla_minutes  30  config defaults (defaults.freshness_sla_minutes)",
        "",
        "lake.raw.clicks  (discovered, exists)",
        "  compaction.delete_file_threshold  1                 table property lakeops.compaction.delete-file-threshold = 1",
        "  compaction.fragment_fraction      0.125             default",
        "  zonemap.columns                   [ts, account_id]  config entry (tables.lake.sales.orders.zonemap.columns)",
    ]
