"""Carry out an expiry plan with Iceberg's Spark procedures. Decisions come from lakeops.expiry.plan.

Order: orphan removal first, so a location mismatch (s3 vs s3a, a changed authority) stops the run
before anything changed; then expire_snapshots; then stale in-flight markers and zonemap garbage.
Files and bytes removed are measured by listing the table's files before and after each step.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.exceptions import MaintenanceError
from lakeops.expiry import zonemap_gc
from lakeops.expiry.checkpoints import read_checkpoint
from lakeops.expiry.files import predicted_removals
from lakeops.expiry.inputs import downstream_watermarks, refs_of, snapshots_of
from lakeops.expiry.plan import ExpiryPlan, ExpiryRequest, iso, plan_expiry
from lakeops.inflight import read_markers
from lakeops.spark.session import jvm
from lakeops.sql_literals import literal, quote, string_map
from lakeops.tables.effective import load_effective
from lakeops.tables.identifier import TableId

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

# Schemes and authorities that name the same storage; anything else that differs stops the run.
EQUAL_SCHEMES = {"s3a,s3n": "s3"}
PREFIX_MISMATCH = "Unable to determine whether certain files are orphan"


@dataclass
class ExpiryResult:
    table: str
    dry_run: bool
    snapshots_before: int
    snapshots_expired: int
    snapshots_after: int
    expire_ids: list[int]
    older_than: str
    retain_last: int
    orphan_older_than: str
    files_removed: int
    bytes_removed: int
    predicted_files: int
    predicted_bytes: int
    orphans_found: int
    orphan_bytes: int
    orphans_removed: int
    zonemap_files_collected: int
    zonemap_bytes: int
    refs_kept: list[dict]
    kept_by_guards: list[dict]
    stale_markers_removed: int
    warnings: list[str]
    procedure: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def list_files(spark: SparkSession, location: str) -> dict[str, int]:
    """path -> bytes of every file under location, through Hadoop's file system (any scheme)."""
    path = jvm(spark).org.apache.hadoop.fs.Path(location)
    fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if not fs.exists(path):
        return {}
    found = {}
    it = fs.listFiles(path, True)
    while it.hasNext():
        status = it.next()
        found[status.getPath().toUri().getPath()] = status.getLen()
    return found


def _key(path: str) -> str:
    """The path part of a location, as the listing keys it (scheme and authority dropped)."""
    from urllib.parse import urlparse

    return urlparse(path).path


def _ts(ms: int) -> str:
    # the zone is in the literal: the cut-off cannot move with spark.sql.session.timeZone
    return literal(datetime.fromtimestamp(ms // 1000, UTC) + timedelta(milliseconds=ms % 1000))


def remove_orphans(spark: SparkSession, qualified: str, request: ExpiryRequest, equal_authorities: dict[str, str],
                   file_list_view: str | None = None) -> list[str]:
    """Iceberg's remove_orphan_files; returns the orphans found (deleted unless dry run)."""
    catalog = TableId.from_qualified(qualified)[0]
    args = [f"table => {quote(qualified)}", f"older_than => {_ts(request.orphan_older_than_ms)}",
            f"dry_run => {literal(request.dry_run)}", f"equal_schemes => {string_map(EQUAL_SCHEMES)}",
            "prefix_mismatch_mode => 'ERROR'"]
    if equal_authorities:
        args.append(f"equal_authorities => {string_map(equal_authorities)}")
    if file_list_view:
        args.append(f"file_list_view => {quote(file_list_view)}")
    spark.sparkContext.setJobDescription(f"lakeops expiry {qualified}: remove orphan files")
    try:
        rows = spark.sql(f"CALL {catalog}.system.remove_orphan_files({', '.join(args)})").collect()
    except Exception as e:  # py4j wraps Iceberg's ValidationException; its message names the conflicts
        message = str(e)
        if PREFIX_MISMATCH not in message:
            raise
        conflicts = message[message.find("Conflicting authorities/schemes"):].splitlines()[0]
        raise MaintenanceError(
            f"orphan removal on {qualified} stopped, nothing was deleted: the table's metadata and its file listing "
            f"name the same files under different schemes or authorities ({conflicts}). If they are the same storage, "
            "declare them equal (s3a/s3n are already equal to s3); otherwise fix the table location") from e
    return [r["orphan_file_location"] for r in rows]


def expire(spark: SparkSession, qualified: str, plan: ExpiryPlan) -> dict[str, int]:
    catalog = TableId.from_qualified(qualified)[0]
    ids = ", ".join(f"{int(i)}L" for i in plan.expire)
    spark.sparkContext.setJobDescription(f"lakeops expiry {qualified}: expire {len(plan.expire)} snapshots")
    row = spark.sql(f"CALL {catalog}.system.expire_snapshots(table => {quote(qualified)}, "
                    f"older_than => {_ts(plan.call_older_than_ms)}, retain_last => {int(plan.retain_last)}, "
                    f"snapshot_ids => array({ids}))").collect()[0]
    return {k: int(v) for k, v in row.asDict().items()}


def run_expiry(spark: SparkSession, config: LakeopsConfig, table_name: str, request: ExpiryRequest,
               now_ms: int | None = None, equal_authorities: dict[str, str] | None = None,
               file_list_view: str | None = None) -> ExpiryResult:
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    catalog = load_catalog(config.catalog)
    spec, table = load_effective(config, catalog, table_name)
    qualified = config.qualified(table_name)
    location = table.location()

    snapshots = snapshots_of(table)
    markers = read_markers(location)
    checkpoints = {location: read_checkpoint(location) for location in spec.retention.streaming_checkpoints}
    plan = plan_expiry(snapshots, refs_of(table), request, spec.retention,
                       downstream_watermarks(catalog, config, table_name), markers, now_ms, checkpoints)
    log.info("expiry %s: %d snapshots, %d to expire (older than %s, retain last %d), %d kept by guards, %d refs, "
             "%d stale markers", qualified, len(snapshots), len(plan.expire), iso(request.older_than_ms), plan.retain_last,
             len(plan.guarded), len(plan.refs_kept), len(plan.stale_markers))
    for kept in plan.guarded:
        log.info("expiry %s: keeping snapshot %s: %s", qualified, kept.snapshot_id, kept.reason)
    for warning in plan.warnings:
        log.warning("expiry %s: %s", qualified, warning)
    predicted = predicted_removals(table, plan.expire)
    garbage = zonemap_gc.collect(table, plan.expire, request.orphan_older_than_ms)
    log.info("expiry %s: would remove %d files (%d bytes) and %d zonemap files", qualified, predicted.count,
             predicted.bytes, len(garbage))

    before = list_files(spark, location)
    orphans = remove_orphans(spark, qualified, request, equal_authorities or {}, file_list_view)
    orphan_bytes = sum(before.get(_key(p), 0) for p in orphans)
    log.info("expiry %s: %d orphan files (%d bytes) older than %s%s", qualified, len(orphans), orphan_bytes,
             iso(request.orphan_older_than_ms), " (dry run: kept)" if request.dry_run else " removed")

    procedure: dict[str, int] = {}
    stale_removed = zonemap_removed = 0
    after_orphans = list_files(spark, location)
    after = after_orphans
    if not request.dry_run:
        if plan.expire:
            procedure = expire(spark, qualified, plan)
        table = catalog.load_table(config.identifier(table_name))
        left = {s.snapshot_id for s in table.snapshots()}
        lost = [k.snapshot_id for k in plan.guarded if k.snapshot_id not in left]
        if lost:
            raise MaintenanceError(f"expiry of {qualified} removed guarded snapshots {lost}; Iceberg's retention "
                                   "disagreed with the plan. Report this with the table's metadata")
        unexpected = sorted({s.snapshot_id for s in snapshots} - left - set(plan.expire))
        if unexpected:
            log.warning("expiry %s: Iceberg also expired %s, which the plan kept", qualified, unexpected)
        stale_removed = _remove_markers(location, plan)
        zonemap_removed = zonemap_gc.delete(garbage)
        after = list_files(spark, location)
    expired = len(snapshots) - len(catalog.load_table(config.identifier(table_name)).snapshots())
    # Iceberg's files only: zonemap files and markers are counted on their own
    removed = {p: s for p, s in after_orphans.items() if p not in after and "/_zonemaps/" not in p and "/_lakeops/" not in p}
    result = ExpiryResult(
        table=table_name, dry_run=request.dry_run, snapshots_before=len(snapshots), snapshots_expired=expired,
        snapshots_after=len(snapshots) - expired, expire_ids=list(plan.expire), older_than=iso(request.older_than_ms),
        retain_last=plan.retain_last, orphan_older_than=iso(request.orphan_older_than_ms),
        files_removed=len(removed), bytes_removed=sum(removed.values()),
        predicted_files=predicted.count, predicted_bytes=predicted.bytes, orphans_found=len(orphans),
        orphan_bytes=orphan_bytes, orphans_removed=0 if request.dry_run else len(orphans),
        zonemap_files_collected=len(garbage) if request.dry_run else zonemap_removed,
        zonemap_bytes=sum(g.size for g in garbage), refs_kept=[k.as_dict() for k in plan.refs_kept],
        kept_by_guards=[k.as_dict() for k in plan.guarded], stale_markers_removed=stale_removed,
        warnings=list(plan.warnings) + [f"stale in-flight marker {m.path} ({m.kind} run {m.run_id}, snapshot {m.snapshot_id})"
                                        for m in plan.stale_markers],
        procedure=procedure)
    log.info("expiry %s%s: %d snapshots expired, %d files (%d bytes) removed, %d orphans found, %d zonemap files "
             "collected, %d refs kept, %d snapshots kept by guards", qualified, " (dry run)" if request.dry_run else "",
             result.snapshots_expired, result.files_removed, result.bytes_removed, result.orphans_found,
             result.zonemap_files_collected, len(result.refs_kept), len(result.kept_by_guards))
    return result


def _remove_markers(location: str, plan: ExpiryPlan) -> int:
    """Stale markers were left by crashed runs; they protect nothing any more."""
    from pyarrow.fs import FileSystem

    fs, _ = FileSystem.from_uri(location)
    removed = 0
    for marker in plan.stale_markers:
        try:
            fs.delete_file(marker.path)
            removed += 1
        except FileNotFoundError:
            continue
    return removed
