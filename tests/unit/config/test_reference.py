"""docs/configuration.md's reference is generated from the config classes: the page and the code agree, and
every setting a user can write is documented."""

from __future__ import annotations

from pathlib import Path

from lakeops.config import (
    AlertsConfig,
    CompactionPolicy,
    HealthConfig,
    HealthThresholds,
    IngestConfig,
    RetentionPolicy,
    SparkConfig,
    StreamingConfig,
    TableConfig,
    ZonemapConfig,
)
from lakeops.config.build import settable_fields
from lakeops.config.reference import attribute_docs, generated_block, render
from lakeops.tables.discovery import DiscoveryRule

PAGE = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
SET_BY_LAKEOPS = {"name", "create", "discovered", "origins", "entry", "defaults"}


def test_the_page_shows_the_reference_the_code_generates():
    assert generated_block(PAGE.read_text()) == render(), (
        "docs/configuration.md is out of date: run python -m lakeops.config.reference --write docs/configuration.md")


def test_every_setting_says_what_it_does():
    for cls in (SparkConfig, DiscoveryRule, TableConfig, CompactionPolicy, RetentionPolicy, HealthThresholds, ZonemapConfig,
                IngestConfig, StreamingConfig, AlertsConfig, HealthConfig):
        undocumented = set(settable_fields(cls)) - set(attribute_docs(cls)) - SET_BY_LAKEOPS
        assert not undocumented, f"{cls.__name__}: {sorted(undocumented)} have no docstring"


def test_policy_settings_name_their_table_properties():
    text = render()
    assert "| `compaction.target_file_size_mb` | integer | `128` | `lakeops.compaction.target-file-size-mb`, " \
           "`write.target-file-size-bytes` |" in text
    assert "`lakeops.retention.min-snapshots`, `history.expire.min-snapshots-to-keep`" in text
