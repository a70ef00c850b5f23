"""The table entries the README and docs/ingest.md show parse with the real config classes: every key they use
exists and every value is accepted, so a reader can copy them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lakeops.config import parse_config

ROOT = Path(__file__).resolve().parents[3]
PAGES = ("README.md", "docs/ingest.md")


def _table_blocks() -> list[tuple[str, dict]]:
    blocks = []
    for page in PAGES:
        for n, text in enumerate(re.findall(r"```yaml\n(.*?)```", (ROOT / page).read_text(), re.S)):
            document = yaml.safe_load(text)
            if isinstance(document, dict) and "tables" in document:
                blocks.append((f"{page}#{n}", document["tables"]))
    return blocks


@pytest.mark.parametrize("where, tables", _table_blocks(), ids=[w for w, _ in _table_blocks()])
def test_a_shown_table_entry_parses(where, tables, tmp_path, monkeypatch):
    for name in ("KAFKA_BOOTSTRAP", "KAFKA_JAAS"):
        monkeypatch.setenv(name, "broker-1:9092" if name == "KAFKA_BOOTSTRAP" else "jaas")
    config = parse_config({"catalog": {"name": "docs", "namespace": "lakeops", "data_dir": str(tmp_path)},
                           "tables": tables}, tmp_path)
    assert len(config.tables) == len(tables)


def test_the_readme_shows_a_debezium_topic_and_a_json_source():
    tables = {name: entry for where, block in _table_blocks() if where.startswith("README")
              for name, entry in block.items()}
    kinds = {(entry.get("ingest") or {}).get("format", "events"): entry for entry in tables.values()}
    assert "kafka" in kinds["cdc"]["ingest"] and "fields" in kinds["events"]["ingest"]
