"""No maintenance vs fixed-schedule compaction vs threshold-triggered compaction, side by side,
under one continuous CDC stream.

The same Debezium change batches (lakeops.generator.generate_cdc, `users` changes, one batch per
5 simulated minutes) are applied with MERGE INTO in merge-on-read mode to three copies of a
`users` table partitioned by country (format v2, file-scoped position deletes):

* none:      never compacted;
* fixed:     every partition rewritten every `--fixed-every` simulated minutes;
* threshold: after each batch the health figures are computed from metadata and the sensors'
             threshold functions pick the partitions over threshold (read amplification or small
             files); only those partitions are rewritten.

Rewrites use Iceberg's rewrite_data_files procedure (binpack, delete-file-threshold 1,
remove-dangling-deletes). Every `--measure-every` simulated minutes the benchmark records each
table's health (files, delete files, read amplification) and times one full-scan query (median
of 3), next to the same query on a freshly compacted copy of the `none` table (CTAS). Compaction
compute is the wall time of the rewrite calls.

    make bench-compaction                 # 4 simulated hours
    python -m benchmarks.compaction --quick   # 2 simulated hours, lighter stream
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.results import markdown_table, results_path

START = datetime(2026, 11, 21, 8, 0, tzinfo=timezone.utc)
BATCH_MINUTES = 5
SCENARIOS = ("none", "fixed", "threshold")
QUERY = "SELECT tier, count(*), count(DISTINCT user_id), max(updated_at) FROM {t} GROUP BY tier"
MOR = ("'format-version'='2', 'write.merge.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
       "'write.delete.mode'='merge-on-read', 'write.delete.granularity'='file'")


def _changes(landing: str, start: datetime, end: datetime) -> list[dict]:
    """The users changes landed in [start, end), latest per key (by LSN), as MERGE source rows."""
    from lakeops.landing import CDC_STREAMS, interval_dirs

    latest: dict[int, dict] = {}
    for folder in interval_dirs(landing, CDC_STREAMS["users"], start, end):
        for path in sorted(Path(folder).glob("*.jsonl")) if Path(folder).exists() else []:
            for line in path.read_text().splitlines():
                change = json.loads(line)
                row = change["after"] or change["before"]
                key = row["user_id"]
                if key not in latest or latest[key]["lsn"] < change["source"]["lsn"]:
                    latest[key] = {**row, "op": change["op"], "lsn": change["source"]["lsn"]}
    return list(latest.values())


def _apply(spark, table: str, rows: list[dict]) -> None:
    """MERGE one batch (a stand-in for the project's CDC ingest job, same semantics: latest change per key)."""
    from pyspark.sql import functions as F

    if not rows:
        return
    src = spark.createDataFrame(rows).select(
        F.col("user_id").cast("bigint"), "email", "name", "country", "tier",
        F.timestamp_micros("created_at").alias("created_at"), F.timestamp_micros("updated_at").alias("updated_at"), "op")
    src.createOrReplaceTempView("cdc_batch")
    spark.sql(f"""MERGE INTO {table} t USING cdc_batch s ON t.user_id = s.user_id
        WHEN MATCHED AND s.op = 'd' THEN DELETE
        WHEN MATCHED THEN UPDATE SET email = s.email, name = s.name, country = s.country, tier = s.tier,
                                     created_at = s.created_at, updated_at = s.updated_at
        WHEN NOT MATCHED AND s.op != 'd' THEN INSERT (user_id, email, name, country, tier, created_at, updated_at)
             VALUES (s.user_id, s.email, s.name, s.country, s.tier, s.created_at, s.updated_at)""")


def _rewrite(spark, catalog: str, table: str, countries: list[str] | None) -> float:
    """rewrite_data_files on the given partitions (all when None); returns wall seconds."""
    where = "" if countries is None else ", where => \"country IN ({})\"".format(", ".join(f"'{c}'" for c in countries))
    started = time.perf_counter()
    spark.sql(f"""CALL {catalog}.system.rewrite_data_files(table => '{table}'{where}, options => map(
        'min-input-files', '2', 'delete-file-threshold', '1', 'remove-dangling-deletes', 'true',
        'partial-progress.enabled', 'true'))""").collect()
    return time.perf_counter() - started


def _query_s(spark, table: str) -> float:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        spark.sql(QUERY.format(t=table)).collect()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(hours: float, changes_per_minute: int, fixed_every: int, measure_every: int, min_small_files: int,
        max_read_amp_files: float | None, min_files: int = 1) -> dict:
    from lakeops.catalog import load_catalog
    from lakeops.config import CompactionPolicy, HealthThresholds, parse_config
    from lakeops.generator import generate_cdc
    from lakeops.health.compute import compute_health
    from lakeops.health.thresholds import bytes_threshold, over_read_amplification, over_small_files
    from lakeops.spark.session import build_session

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-compaction-"))
    minutes = int(hours * 60)
    config = parse_config({"catalog": {"name": "bench", "namespace": "lakeops", "data_dir": str(work / "data")}}, work)
    spark = build_session(config, "lakeops compaction benchmark", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    ns = f"{config.catalog.name}.{config.catalog.namespace}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ns}")
    for name in SCENARIOS:
        spark.sql(f"""CREATE TABLE {ns}.users_{name} (user_id BIGINT NOT NULL, email STRING, name STRING,
            country STRING, tier STRING, created_at TIMESTAMP, updated_at TIMESTAMP)
            USING iceberg PARTITIONED BY (country) TBLPROPERTIES ({MOR})""")
    print(f"landing {minutes} minutes of CDC ({changes_per_minute} changes a minute) ...", flush=True)
    generate_cdc(config.landing_root, START, minutes, changes_per_minute, seed=17)
    catalog = load_catalog(config.catalog)
    # Small files: under target/8 (Amoro's fragment size) of a 32 MB target = 4 MB; the file size
    # is not the point here, the count of files per partition is.
    policy = CompactionPolicy(target_file_size_mb=32, small_file_fraction=0.125, min_small_files=min_small_files)
    thresholds = HealthThresholds()
    compaction_s = {name: 0.0 for name in SCENARIOS}
    compaction_runs = {name: 0 for name in SCENARIOS}
    series: list[dict] = []
    apply_s = 0.0
    for step in range(minutes // BATCH_MINUTES):
        start = START + timedelta(minutes=step * BATCH_MINUTES)
        end = start + timedelta(minutes=BATCH_MINUTES)
        sim_minute = (step + 1) * BATCH_MINUTES
        rows = _changes(config.landing_root, start, end)
        began = time.perf_counter()
        for name in SCENARIOS:
            _apply(spark, f"{ns}.users_{name}", rows)
        apply_s += time.perf_counter() - began
        if sim_minute % fixed_every == 0:
            compaction_s["fixed"] += _rewrite(spark, config.catalog.name, f"lakeops.users_fixed", None)
            compaction_runs["fixed"] += 1
        health = compute_health(catalog.load_table(config.identifier("users_threshold")), policy)
        over = over_read_amplification(health.partitions, max_read_amp_files, bytes_threshold(thresholds, policy))
        over += over_small_files(health.partitions, policy.min_small_files)
        # A floor on what a rewrite must gain: partitions with fewer data files are left alone.
        big_enough = {p.partition for p in health.partitions if p.data_files >= min_files}
        over = [b for b in over if b["partition"] in big_enough]
        countries = sorted({dict((k, v) for k, v in b["partition_values"])["country"] for b in over})
        if countries:
            compaction_s["threshold"] += _rewrite(spark, config.catalog.name, "lakeops.users_threshold", countries)
            compaction_runs["threshold"] += 1
        if sim_minute % measure_every == 0:
            spark.sql(f"CREATE OR REPLACE TABLE {ns}.users_fresh USING iceberg PARTITIONED BY (country) "
                      f"AS SELECT * FROM {ns}.users_none")
            point = {"minute": sim_minute, "fresh_query_s": _query_s(spark, f"{ns}.users_fresh")}
            for name in SCENARIOS:
                h = compute_health(catalog.load_table(config.identifier(f"users_{name}")), policy)
                point[name] = {"data_files": h.data_files, "delete_files": h.delete_files,
                               "read_amp_files": h.read_amp_files, "read_amp_bytes": h.read_amp_bytes,
                               "query_s": _query_s(spark, f"{ns}.users_{name}")}
            point["compaction_s"] = dict(compaction_s)
            series.append(point)
            print(f"  minute {sim_minute:4d}: " + "; ".join(
                f"{n} {point[n]['data_files']} files, amp {point[n]['read_amp_files']:.2f}, {point[n]['query_s']:.2f} s"
                for n in SCENARIOS) + f"; fresh {point['fresh_query_s']:.2f} s; compaction s {compaction_s}", flush=True)
    rows_live = spark.sql(f"SELECT count(*) FROM {ns}.users_none").first()[0]
    same = all(spark.sql(f"SELECT count(*) FROM (SELECT * FROM {ns}.users_none EXCEPT SELECT * FROM {ns}.users_{n})").first()[0] == 0
               for n in ("fixed", "threshold"))
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    return {"series": series, "compaction_s": compaction_s, "compaction_runs": compaction_runs, "rows": rows_live,
            "same_rows": same, "apply_s": apply_s, "hours": hours, "changes_per_minute": changes_per_minute,
            "fixed_every": fixed_every, "min_small_files": min_small_files, "max_read_amp_files": max_read_amp_files,
            "max_read_amp_bytes": bytes_threshold(thresholds, policy), "min_files": min_files}


def report(result: dict) -> str:
    series = result["series"]
    late = [p for p in series if p["minute"] > series[-1]["minute"] / 2] or series
    fresh = statistics.median(p["fresh_query_s"] for p in late)
    rows = []
    for name in SCENARIOS:
        q = statistics.median(p[name]["query_s"] for p in late)
        last = series[-1][name]
        rows.append([name, f"{last['data_files']:,}", f"{last['delete_files']:,}", f"{last['read_amp_files']:.2f}",
                     f"{last['read_amp_bytes']:.2f}", f"{q:.3f}", f"{q / fresh:.2f}",
                     str(result["compaction_runs"][name]), f"{result['compaction_s'][name]:.1f}"])
    table = markdown_table(["maintenance", "data files (end)", "delete files (end)", "read amp files (end)",
                            "read amp bytes (end)", "query s (median, 2nd half)", "vs fresh", "compaction runs",
                            "compaction wall s"], rows)
    return (f"{result['hours']:g} simulated hours, {result['changes_per_minute']} CDC changes a minute "
            f"(users ≈ 40%), one MERGE per 5 minutes; {result['rows']:,} live rows at the end; all three tables hold "
            f"the same rows: {'yes' if result['same_rows'] else 'NO'}. Fixed schedule: every {result['fixed_every']} "
            f"simulated minutes. Threshold: a partition with >= {result['min_small_files']} small files or "
            f">= {result['max_read_amp_bytes']:.2f} bytes read per live byte"
            + (f" or >= {result['max_read_amp_files']} files per data file" if result['max_read_amp_files'] else "")
            + (f", and at least {result['min_files']} data files in the partition" if result.get("min_files", 1) > 1 else "")
            + f". Fresh-copy query median (2nd half): {fresh:.3f} s.\n\n{table}\n")


def plot(result: dict, name: str = "compaction") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = result["series"]
    minutes = [p["minute"] for p in series]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for name in SCENARIOS:
        axes[0][0].plot(minutes, [p[name]["read_amp_files"] for p in series], label=name)
        axes[0][1].plot(minutes, [p[name]["data_files"] + p[name]["delete_files"] for p in series], label=name)
        axes[1][0].plot(minutes, [p[name]["query_s"] for p in series], label=name)
        axes[1][1].plot(minutes, [p["compaction_s"][name] for p in series], label=name)
    axes[1][0].plot(minutes, [p["fresh_query_s"] for p in series], label="fresh copy", linestyle="--", color="grey")
    for ax, title in zip([a for row in axes for a in row], ["read amplification (files per data file)",
                         "data + delete files", "full-scan query (s, median of 3)", "compaction wall time (s, cumulative)"]):
        ax.set_title(title)
        ax.set_xlabel("simulated minutes")
        ax.legend()
    fig.tight_layout()
    fig.savefig(results_path(name, ".png"), dpi=90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 simulated hours, 150 changes a minute")
    parser.add_argument("--hours", type=float, default=4.0)
    parser.add_argument("--changes-per-minute", type=int, default=300)
    parser.add_argument("--fixed-every", type=int, default=30, help="simulated minutes between fixed compactions")
    parser.add_argument("--measure-every", type=int, default=15, help="simulated minutes between measurements")
    parser.add_argument("--min-small-files", type=int, default=12, help="small files per partition that trigger")
    # Off by default: with uniform updates nearly every data file carries a delete after each batch,
    # so a files-per-data-file trigger fires every batch; rows deleted (bytes per live byte) and the
    # count of small files say when a rewrite pays.
    parser.add_argument("--max-read-amp-files", type=float, default=None)
    parser.add_argument("--min-files", type=int, default=1, help="data files a partition needs before it is rewritten")
    parser.add_argument("--name", default="compaction", help="results file name under benchmarks/results/")
    args = parser.parse_args()
    hours, rate = (2.0, 150) if args.quick else (args.hours, args.changes_per_minute)
    result = run(hours, rate, args.fixed_every, args.measure_every, args.min_small_files, args.max_read_amp_files,
                 args.min_files)
    text = report(result)
    print(text)
    results_path(args.name, ".md").write_text(text)
    results_path(args.name, ".json").write_text(json.dumps(result, indent=1))
    plot(result, args.name)


if __name__ == "__main__":
    main()
