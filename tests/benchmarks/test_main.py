"""The one entry point: python -m benchmarks NAME runs that benchmark; anything else lists the names."""

from __future__ import annotations

import importlib

import pytest

from benchmarks.__main__ import BENCHMARKS, main


def test_every_listed_benchmark_is_a_module_with_a_main():
    assert set(BENCHMARKS) == {"ingest_and_commits", "zonemaps", "health_checks", "compaction", "expiry",
                               "incremental_etl", "ingest_throughput", "streaming_freshness", "many_tables",
                               "zonemap_planning", "write_impact"}
    for name in BENCHMARKS:
        assert callable(importlib.import_module(f"benchmarks.{name}").main), name


@pytest.mark.parametrize("argv", [[], ["zonemap"], ["--quick"]])
def test_a_missing_or_unknown_name_lists_the_benchmarks_and_fails(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert all(f"  {name}" in err for name in BENCHMARKS)
    assert ("unknown benchmark" in err) == bool(argv)


def test_help_lists_the_benchmarks_and_succeeds(capsys):
    assert main(["--help"]) == 0
    assert "streaming_freshness" in capsys.readouterr().out


def test_a_name_runs_that_benchmarks_main_with_the_rest_of_the_arguments(monkeypatch):
    import benchmarks.health_checks

    seen = []
    monkeypatch.setattr(benchmarks.health_checks, "main", lambda argv: seen.append(argv) or 7)
    assert main(["health_checks", "--quick"]) == 7
    assert seen == [["--quick"]]
