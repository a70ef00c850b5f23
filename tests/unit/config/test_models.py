"""The config's `models` section: typed, validated, errors naming the value and the fix."""

from __future__ import annotations

import pytest

from lakeops.config import load_config, parse_config
from lakeops.exceptions import ConfigError
from tests.conftest import PROJECT_ROOT

TABLES = {"lakeops.events": {}, "lakeops.daily": {}}


def _config(tmp_path, **model):
    (tmp_path / "daily.sql").write_text("SELECT user_id, date_trunc('day', event_time) AS day, count(1) AS n FROM events "
                                        "GROUP BY 1, 2;\n")
    entry = {"sql": "daily.sql", "table": "lakeops.daily", "key": ["user_id", "day"], "partition_column": "day",
             "sources": {"events": {"kind": "append", "time_column": "event_time",
                                    "keys": {"day": "date_trunc('day', event_time)"}}}}
    entry.update(model)
    return parse_config({"catalog": {"namespace": "lakeops", "data_dir": "d"}, "tables": TABLES,
                         "models": {"daily": entry}}, tmp_path)


def test_a_model_is_typed_with_its_defaults(tmp_path):
    model = _config(tmp_path).model("daily")
    assert model.sql_path == tmp_path / "daily.sql" and model.table_name == "lakeops.daily"
    assert model.recompute_columns == ("user_id", "day") and model.span_pruning
    assert model.key_expressions("events") == {"user_id": "user_id", "day": "date_trunc('day', event_time)"}
    assert model.source_table("events") == "events" and model.partition_grain == "day" and model.schedule is None
    assert model.full_recompute_share == 0.5


def test_a_models_table_without_an_entry_is_configured_with_the_defaults(tmp_path):
    config = _config(tmp_path, table="analytics.other")
    assert config.model("daily").table_name == "analytics.other"
    other = config.table("analytics.other")
    assert other.create is None and not other.ingested and other.name == "analytics.other"
    assert "lakeops.daily" in config.tables  # the entry given stays as written


@pytest.mark.parametrize(("change", "message"), [
    ({"sql": "nope.sql"}, r"models.daily.sql: file .*nope.sql' does not exist; the path is relative to the config file"),
    ({"python": "pkg.mod:fn"}, "give exactly one of sql .* or python"),
    ({"key": []}, "models.daily.key: a model needs its key columns"),
    ({"partition_grain": "week"}, "partition_grain: 'week'; use one of day, hour"),
    ({"schedule": "hourly"}, "schedule: 'hourly' is not a cron expression"),
    ({"sources": {"events": {"kind": "cdc"}}}, r"sources.events.kind: 'cdc'; use one of append, changelog"),
    ({"sources": {"events": {"keys": {"hour": "x"}}}}, "keys: 'hour' is not a recompute_by column of the model"),
    ({"sources": {"events": {"mode": "append"}}}, "sources.events: unknown key 'mode'; allowed keys are table, kind"),
    ({"sources": {"ev-ents": {}}}, "'ev-ents' is not a valid name"),
    ({"sources": []}, "sources: \\[\\] must be a mapping of source name to settings"),
    ({"owner": "x"}, "models.daily: unknown key 'owner'"),
    ({"lag_sla_minutes": 0}, "models.daily.lag_sla_minutes: 0 must be a whole number of minutes, at least 1"),
    ({"lag_sla_minutes": True}, "lag_sla_minutes: True must be"),
    ({"full_recompute_share": -0.1}, "models.daily.full_recompute_share: -0.1 must be a number of 0 or more"),
    ({"full_recompute_share": True}, "models.daily.full_recompute_share: True must be a number"),
])
def test_bad_values_are_named_with_the_fix(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        _config(tmp_path, **change)


def test_an_unknown_model_names_the_configured_ones(tmp_path):
    with pytest.raises(ConfigError, match="model 'x' is not in the config's models; configured models: daily"):
        _config(tmp_path).model("x")


def test_the_shipped_models_are_the_two_demo_pipelines():
    config = load_config(PROJECT_ROOT / "include" / "lakeops.yaml")
    assert list(config.models) == ["user_activity_hourly", "orders_current"]
    orders = config.model("orders_current")
    assert orders.recompute_columns == ("user_id",) and not orders.span_pruning
    assert [s.kind for s in orders.sources.values()] == ["changelog", "changelog"]
    assert config.model("user_activity_hourly").partition_grain == "hour"


def test_the_docs_model_example_parses(tmp_path):
    import re

    import yaml

    page = (PROJECT_ROOT / "docs" / "incremental-etl.md").read_text()
    document = yaml.safe_load(re.findall(r"```yaml\n(.*?)```", page, re.S)[0])
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "ad_day.sql").write_text(re.findall(r"```sql\n(.*?)```", page, re.S)[0])
    config = parse_config({"catalog": {"namespace": "lakeops", "data_dir": "d"},
                           "tables": {**document["tables"], "web.impressions": {}, "web.clicks": {}},
                           "models": document["models"]}, tmp_path)
    model = config.model("ad_day")
    assert [model.source_table(s) for s in model.sources] == ["web.impressions", "web.clicks"]
    assert model.span_pruning


def _models(tmp_path, models: dict, tables=("events", "daily", "weekly")):
    (tmp_path / "m.sql").write_text("SELECT 1 AS k, current_date() AS day;\n")
    entries = {name: {"sql": "m.sql", "table": f"lakeops.{table}", "key": ["k"], "partition_column": "day",
                      "sources": {source: {"kind": "changelog"} for source in sources}}
               for name, (table, sources) in models.items()}
    return parse_config({"catalog": {"namespace": "lakeops", "data_dir": "d"},
                         "tables": {f"lakeops.{t}": {} for t in tables}, "models": entries}, tmp_path)


def test_a_model_over_another_models_table_is_accepted(tmp_path):
    config = _models(tmp_path, {"daily": ("daily", ["events"]), "weekly": ("weekly", ["daily"])})
    assert config.model("weekly").source_table("daily") == "daily"


@pytest.mark.parametrize(("models", "message"), [
    ({"daily": ("daily", ["events", "daily"])}, r"models: daily -> daily read each other's tables"),
    ({"daily": ("daily", ["weekly"]), "weekly": ("weekly", ["events", "daily"])},
     r"models: daily -> weekly -> daily read each other's tables .* forever; a model must not read its own table"),
    ({"daily": ("daily", ["events"]), "again": ("daily", ["events"])},
     r"models.again: its table lakeops.daily is the table of models.daily too; .* give one of them its own table"),
])
def test_models_that_would_trigger_each_other_forever_or_share_a_table_are_refused(tmp_path, models, message):
    with pytest.raises(ConfigError, match=message):
        _models(tmp_path, models)
