"""Which snapshots an expiry run removes, which it keeps and why. Pure: literal values in, a plan out.

The model follows Iceberg's own retention (RemoveSnapshots): every ref head stays; each branch keeps
its newest `retain_last` ancestors and every ancestor younger than `older_than`, walking back until
the first ancestor that is both old and beyond the count; a snapshot on no branch stays while it is
younger than `older_than`. On top of that, the guards keep a snapshot that a downstream table's
watermark names or that a live in-flight marker (a running compaction) names.

Iceberg's procedure removes, besides the ids it is given, every snapshot its own age rule drops, so
the plan lowers the `older_than` handed to Iceberg to the oldest guarded snapshot and names every
snapshot to expire explicitly: the guarded ones survive whatever Iceberg decides by age.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from lakeops.config import RetentionPolicy
from lakeops.exceptions import ConfigError
from lakeops.expiry.checkpoints import CheckpointNeeds
from lakeops.inflight import InflightMarker

HOUR_MS = 3600 * 1000
MIN_ORPHAN_WINDOW_HOURS = 24
# Iceberg's own defaults, for the documentation and the report.
ICEBERG_MAX_SNAPSHOT_AGE_HOURS = 120
ICEBERG_MIN_SNAPSHOTS = 1
ICEBERG_ORPHAN_OLDER_THAN_HOURS = 72


@dataclass(frozen=True)
class SnapshotInfo:
    snapshot_id: int
    parent_id: int | None
    timestamp_ms: int


@dataclass(frozen=True)
class RefInfo:
    name: str
    kind: str
    """branch | tag"""
    snapshot_id: int


@dataclass(frozen=True)
class ExpiryRequest:
    """The validated settings of one run: cut-offs in epoch milliseconds."""
    older_than_ms: int
    retain_last: int
    orphan_older_than_ms: int
    dry_run: bool = False


@dataclass(frozen=True)
class Kept:
    snapshot_id: int
    reason: str

    def as_dict(self) -> dict:
        return {"snapshot_id": self.snapshot_id, "reason": self.reason}


@dataclass(frozen=True)
class ExpiryPlan:
    expire: tuple[int, ...]
    """snapshot ids to expire, oldest first"""
    retained: int
    """snapshots the retention rules keep"""
    refs_kept: tuple[Kept, ...]
    guarded: tuple[Kept, ...]
    """snapshots the rules would expire, kept by a watermark or an in-flight marker"""
    stale_markers: tuple[InflightMarker, ...]
    warnings: tuple[str, ...]
    call_older_than_ms: int
    """older_than handed to Iceberg: the request's, lowered to the oldest guarded snapshot"""
    retain_last: int
    extra: dict = field(default_factory=dict)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def resolve_request(policy: RetentionPolicy, now_ms: int, as_of_ms: int | None = None, older_than_ms: int | None = None,
                    retain_last: int | None = None, orphan_min_age_hours: int | None = None,
                    dry_run: bool = False) -> ExpiryRequest:
    """The run's cut-offs: the policy's, measured back from as_of (the run's date, for backfills; never
    later than now), or the explicit overrides. Refuses the settings that could delete what is needed."""
    as_of = min(as_of_ms if as_of_ms is not None else now_ms, now_ms)
    if older_than_ms is None:
        older_than_ms = as_of - policy.max_snapshot_age_hours * HOUR_MS
    elif older_than_ms > now_ms:
        raise ConfigError(f"older_than: {iso(older_than_ms)} is in the future (now is {iso(now_ms)}); every snapshot would "
                          "count as old. Pass a time at or before now, or leave it unset to use retention.max_snapshot_age_hours")
    retain = policy.min_snapshots if retain_last is None else retain_last
    if isinstance(retain, bool) or not isinstance(retain, int) or retain < 1:
        raise ConfigError(f"retain_last: {retain_last!r} must be at least 1; the current snapshot is always kept "
                          "(leave it unset to use retention.min_snapshots)")
    window = policy.orphan_min_age_hours if orphan_min_age_hours is None else orphan_min_age_hours
    if window < MIN_ORPHAN_WINDOW_HOURS:
        raise ConfigError(f"orphan_min_age_hours: {window} is shorter than the safe minimum of {MIN_ORPHAN_WINDOW_HOURS} hours; "
                          "files of writes not committed yet would be deleted. Use 24 or more (Iceberg's default is 72)")
    return ExpiryRequest(older_than_ms, retain, as_of - window * HOUR_MS, dry_run)


def _ancestors(head: int, by_id: Mapping[int, SnapshotInfo]) -> Iterable[SnapshotInfo]:
    current = by_id.get(head)
    while current is not None:
        yield current
        current = by_id.get(current.parent_id) if current.parent_id is not None else None


def retained_by_rules(snapshots: Iterable[SnapshotInfo], refs: Iterable[RefInfo], request: ExpiryRequest) -> set[int]:
    """The snapshots Iceberg's retention keeps with the request's older_than and retain_last."""
    by_id = {s.snapshot_id: s for s in snapshots}
    refs = list(refs)
    keep = {r.snapshot_id for r in refs if r.snapshot_id in by_id}
    on_branch: set[int] = set()
    for ref in refs:
        if ref.kind != "branch":
            continue
        kept_here = 0
        for ancestor in _ancestors(ref.snapshot_id, by_id):
            if kept_here < request.retain_last or ancestor.timestamp_ms >= request.older_than_ms:
                keep.add(ancestor.snapshot_id)
                kept_here += 1
            else:
                break
        # the rest of the branch's ancestry counts as referenced: no age rule keeps it
        on_branch.update(a.snapshot_id for a in _ancestors(ref.snapshot_id, by_id))
    keep.update(s.snapshot_id for s in by_id.values()
                if s.snapshot_id not in on_branch and s.timestamp_ms >= request.older_than_ms)
    return keep


def plan_expiry(snapshots: Iterable[SnapshotInfo], refs: Iterable[RefInfo], request: ExpiryRequest,
                policy: RetentionPolicy, watermarks: Mapping[str, int], markers: Iterable[InflightMarker],
                now_ms: int, checkpoints: Mapping[str, CheckpointNeeds] | None = None) -> ExpiryPlan:
    """watermarks: {downstream table: snapshot id of this table it has processed up to}; checkpoints:
    {streaming checkpoint location: the snapshots the query reading this table still needs}."""
    snapshots = list(snapshots)
    refs = list(refs)
    by_id = {s.snapshot_id: s for s in snapshots}
    keep = retained_by_rules(snapshots, refs, request)
    warnings: list[str] = []

    protected = set(policy.protected_refs)
    refs_kept = tuple(Kept(r.snapshot_id, f"{'protected ' if r.name in protected else ''}{r.kind} {r.name}")
                      for r in sorted(refs, key=lambda r: r.name))
    for name in sorted(protected - {r.name for r in refs}):
        warnings.append(f"protected ref {name!r} does not exist on the table; nothing is kept for it")

    guards: dict[int, list[str]] = {}
    for consumer, snapshot_id in sorted(watermarks.items()):
        if snapshot_id not in by_id:
            warnings.append(f"downstream table {consumer} has processed up to snapshot {snapshot_id}, which is no longer "
                            "in the table: its next incremental run cannot start from it")
            continue
        guards.setdefault(snapshot_id, []).append(f"watermark of downstream table {consumer}")
    main = next((r.snapshot_id for r in refs if r.kind == "branch" and r.name == "main"), None)
    for location, needs in sorted((checkpoints or {}).items()):
        # Iceberg's streaming source walks the ancestry from each of these snapshots to the current one, so each
        # is kept with every later snapshot.
        named = [(s, f"last processed by the streaming query checkpointed at {location}") for s in needs.resume_from]
        named += [(s, f"where the streaming query checkpointed at {location} started (read again at each availableNow "
                      "start)") for s in needs.started_at]
        for snapshot_id, reason in named:
            if snapshot_id not in by_id:
                warnings.append(f"the streaming query checkpointed at {location} needs snapshot {snapshot_id}, which is "
                                "no longer in the table: it cannot restart from its checkpoint")
                continue
            if not any(location in r for r in guards.get(snapshot_id, [])):
                guards.setdefault(snapshot_id, []).append(reason)
            for later in _ancestors(main, by_id) if main is not None else ():
                if later.snapshot_id == snapshot_id:
                    break
                if not any(location in r for r in guards.get(later.snapshot_id, [])):
                    guards.setdefault(later.snapshot_id, []).append(
                        f"not read yet by the streaming query checkpointed at {location}")
    live: list[InflightMarker] = []
    stale: list[InflightMarker] = []
    for marker in markers:
        (live if marker.is_live(now_ms) else stale).append(marker)
    for marker in live:
        if marker.snapshot_id in by_id:
            guards.setdefault(marker.snapshot_id, []).append(f"in-flight {marker.kind} run {marker.run_id}")
    guarded = tuple(Kept(sid, "; ".join(reasons)) for sid, reasons in sorted(guards.items()) if sid not in keep)
    keep.update(guards)

    expire = tuple(s.snapshot_id for s in sorted(snapshots, key=lambda s: (s.timestamp_ms, s.snapshot_id))
                   if s.snapshot_id not in keep)
    oldest_guard = min((by_id[k.snapshot_id].timestamp_ms for k in guarded), default=request.older_than_ms)
    return ExpiryPlan(expire, len(keep), refs_kept, guarded, tuple(stale), tuple(warnings),
                      min(request.older_than_ms, oldest_guard), request.retain_last)
