"""reconcile_entries against literals: what is kept, what is missing, what is stale."""

from __future__ import annotations

from dataclasses import dataclass

from lakeops.zonemap.consolidate import Drift, reconcile_entries
from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.levels import HOURLY, Scope


@dataclass(frozen=True)
class Live:  # the two attributes reconcile reads from lakeops.zonemap.live.LiveFile
    path: str
    committed_ms: int | None


def entry(path):
    return ZonemapEntry(path, 1, 10, 100)


def test_gone_entries_are_stale_missing_live_files_are_rebuilt_and_out_of_scope_files_left_out():
    scope = Scope(HOURLY, "h", 1000, 2000)
    existing = [entry("a"), entry("b"), entry("gone"), entry("later")]
    live = [Live("a", 1000), Live("b", 1999), Live("new", 1500), Live("later", 2000), Live("old", None)]
    kept, missing, stale = reconcile_entries(existing, live, scope)
    assert [e.file_path for e in kept] == ["a", "b"]
    assert [f.path for f in missing] == ["new"]
    assert stale == 1


def test_drift_coverage_is_the_share_of_live_files_covered_before():
    assert Drift(live_files=4, covered=3, stale_entries=2, added=1).coverage == 0.75
    assert Drift(0, 0, 0, 0).coverage == 1.0


def test_hot_memory_bound_is_validated_with_the_key_and_the_fix(make_config):
    import pytest

    from lakeops.exceptions import ConfigError

    table = {"zonemap": {"columns": ["user_id"], "hot_memory_mb": 0}}
    with pytest.raises(ConfigError, match=r"zonemap.hot_memory_mb: 0 must be a whole number of MiB between 1 and 65536"):
        make_config({"tables": {"events": table}})
    table["zonemap"]["hot_memory_mb"] = 8
    assert make_config({"tables": {"events": table}}).table("events").zonemap.hot_memory_mb == 8
