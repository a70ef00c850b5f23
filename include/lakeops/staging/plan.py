"""Plan staged writes: pure, no Spark, no I/O.

Which landed files each writer takes, where its files, markers and manifest go, how a partition
value is computed in Spark, and which staging a clean-up may delete.

Layout under a table location L, for the batch whose key is K (the batch id after "<table>@"):

    L/_staging/K/w003-<attempt>.started     written by writer 3 before its first data file
    L/_staging/K/w003.manifest.json         written last by writer 3 (temporary name + rename)
    L/_staging/K/commit.claim               refreshed by the committer before it reads manifests
    L/data/staged/K/w003-<attempt>/<partition path>/<file>.parquet    the data files

Committed files stay where they are (they are table data now); everything else of K is deleted by
the committer after its commit, or by a later committer once K is older than the table's
ingest.staging_max_age_hours.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from lakeops.exceptions import IngestError

STAGING_DIR = "_staging"
STAGED_DATA_DIR = "data/staged"
MANIFEST_SUFFIX = ".manifest.json"
STARTED_SUFFIX = ".started"
CLAIM_NAME = "commit.claim"
_KEY = re.compile(r"[A-Za-z0-9._-]{1,200}")
_TRANSFORM = re.compile(r"^(identity|year|month|day|hour|void|bucket\[(\d+)\]|truncate\[(\d+)\])$")
# Iceberg's Spark functions give the partition value Iceberg stores; days() is a DATE, stored as days since epoch.
_SPARK_FUNCTION = {"year": "years", "month": "months", "day": "days", "hour": "hours"}


@dataclass(frozen=True)
class LandedFile:
    path: str
    size: int


def split_files(files: Sequence[LandedFile], writers: int) -> list[list[str]]:
    """Disjoint shares of one listing, balanced by bytes: the largest file first, each to the writer
    holding the fewest bytes (then the fewest files, then the lowest index). Every file lands in
    exactly one share, and the same listing always gives the same shares, so writers that list the
    interval independently agree on who takes what."""
    if writers < 1:
        raise IngestError(f"writers: {writers} must be at least 1")
    paths = [f.path for f in files]
    if len(set(paths)) != len(paths):
        raise IngestError(f"the listing names a file twice ({len(paths)} entries, {len(set(paths))} files); list each file once")
    shares: list[list[str]] = [[] for _ in range(writers)]
    load = [(0, 0, k) for k in range(writers)]
    for f in sorted(files, key=lambda f: (-f.size, f.path)):
        _, _, k = min(load)
        shares[k].append(f.path)
        load[k] = (load[k][0] + f.size, load[k][1] + 1, k)
    return [sorted(share) for share in shares]


def writer_share(files: Sequence[LandedFile], writer: int, writers: int) -> list[str]:
    if not 0 <= writer < writers:
        raise IngestError(f"writer {writer} is not one of {writers} writers (0 .. {writers - 1})")
    return split_files(files, writers)[writer]


def listing_digest(files: Iterable[LandedFile]) -> str:
    """A fingerprint of a listing: writers that split different listings would overlap or miss files."""
    lines = "".join(f"{f.path}\t{f.size}\n" for f in sorted(files, key=lambda f: f.path))
    return hashlib.sha256(lines.encode()).hexdigest()


def batch_key(table: str, batch_id: str) -> str:
    """The folder name of a batch under _staging/ and data/staged/: its id after "<table>@"."""
    prefix = f"{table}@"
    key = batch_id[len(prefix):] if batch_id.startswith(prefix) else ""
    if not _KEY.fullmatch(key):
        raise IngestError(f"batch id {batch_id!r} is not <table>@<interval> for table {table!r}; staged batches are "
                          "planned by lakeops.ingest.plan.plan_ingest")
    return key


def batch_id_of(table: str, key: str) -> str:
    return f"{table}@{key}"


def _root(location: str) -> str:
    return location.rstrip("/")


def staging_root(location: str) -> str:
    return f"{_root(location)}/{STAGING_DIR}"


def staging_dir(location: str, key: str) -> str:
    return f"{staging_root(location)}/{key}"


def writer_name(writer: int) -> str:
    return f"w{writer:03d}"


def manifest_uri(location: str, key: str, writer: int) -> str:
    return f"{staging_dir(location, key)}/{writer_name(writer)}{MANIFEST_SUFFIX}"


def started_uri(location: str, key: str, writer: int, attempt: str) -> str:
    return f"{staging_dir(location, key)}/{writer_name(writer)}-{attempt}{STARTED_SUFFIX}"


def claim_uri(location: str, key: str) -> str:
    return f"{staging_dir(location, key)}/{CLAIM_NAME}"


def staged_data_root(location: str, key: str) -> str:
    return f"{_root(location)}/{STAGED_DATA_DIR}/{key}"


def attempt_data_dir(location: str, key: str, writer: int, attempt: str) -> str:
    """Where one writer attempt writes its data files (a retried writer never mixes with its dead attempt)."""
    return f"{staged_data_root(location, key)}/{writer_name(writer)}-{attempt}"


def partition_value_sql(transform: str, column: str, catalog: str) -> str:
    """Spark SQL computing the value Iceberg stores for one partition field (pyiceberg's
    str(transform), e.g. "day", "bucket[8]"), with Iceberg's own Spark functions."""
    match = _TRANSFORM.match(transform)
    if not match:
        raise IngestError(f"partition transform {transform!r} of column {column!r} is not supported by staged writes; "
                          "use commit_mode: direct for this table")
    name = match.group(1)
    if name == "identity":
        return f"`{column}`"
    if name == "void":
        return "CAST(NULL AS INT)"
    if name == "day":
        return f"unix_date({catalog}.system.days(`{column}`))"
    if name in _SPARK_FUNCTION:
        return f"{catalog}.system.{_SPARK_FUNCTION[name]}(`{column}`)"
    if match.group(2):
        return f"{catalog}.system.bucket({int(match.group(2))}, `{column}`)"
    return f"{catalog}.system.truncate({int(match.group(3))}, `{column}`)"


def stale_batches(newest_ms: Mapping[str, int], now_ms: int, max_age_hours: float, keep: str | None = None) -> list[str]:
    """Batch keys whose newest staging file is older than max_age_hours: left by dead writers or by
    a committer killed before its clean-up. `keep` (the batch being committed) is never stale."""
    cutoff = now_ms - int(max_age_hours * 3600 * 1000)
    return sorted(k for k, newest in newest_ms.items() if newest < cutoff and k != keep)


def removable(staged: Iterable[str], committed: set[str]) -> list[str]:
    """Staged files that are not table data: everything but the committed files."""
    return sorted(p for p in staged if p not in committed)
