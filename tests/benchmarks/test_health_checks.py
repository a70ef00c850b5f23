"""The health-checks benchmark's core on a tiny table (real pyiceberg catalog, no Spark): the figures
count every registered file, each timing is taken, and the cached figures after one more commit
read the new manifest. Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

from benchmarks.health_checks import LABELS, PER_COMMIT, Sizes, report, run


def test_a_tiny_run_times_every_step_on_a_table_of_the_files_it_registered(tmp_path):
    result = run(tmp_path, Sizes(files=2 * PER_COMMIT, runs=1))

    assert (result["data_files"], result["partitions"], result["manifests"], result["snapshots"]) == (200, 10, 2, 2)
    assert result["cached_files"] == 200, "the cache held every live file of the two manifests"
    assert set(result["timings"]) == set(LABELS)
    assert all(t["median_s"] > 0 and t["min_s"] <= t["median_s"] for t in result["timings"].values())
    text = report(result)
    assert text.startswith("Table of 200 data files in 10 partitions, 2 manifests, 2 snapshots; 1 runs each.")
    assert all(f"| {label} |" in text for label in LABELS.values())
