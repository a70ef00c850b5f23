"""How a pruned Spark read runs, decided from the index alone (pure: no I/O, tested against literals):

* ``arrow``: few, small candidates (at most ``ARROW_MAX_FILES`` files and ``arrow_max_bytes``) are read
  in the driver by pyiceberg's Arrow reader from tasks built from the index, and handed to Spark as a
  local DataFrame: no Spark scan, no planning anywhere (a selective lookup's rows are few; a Spark
  job's fixed cost is most of its time). Under the same conditions as ``staged``;
* ``staged``: the candidate files' scan tasks are built from the index (path, size, record count,
  partition) and staged for Spark, with no planning of the table in the JVM. Only when the
  snapshot has no delete files (a task must carry its deletes) and one partition spec;
* ``planned``: Iceberg plans the scan in the JVM and only the candidates' tasks are staged (tables
  with delete files, evolved partition specs, partition values the index cannot restore);
* ``plain``: a plain Iceberg scan, because the index prunes little beyond what Iceberg's own
  min/max metrics prune (more than ``PLAIN_SHARE`` of their files stay candidates) or the
  candidates are too many to stage one by one (``MAX_STAGED``): staging would cost more than it saves;
* ``empty``: no candidate, no row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

PLAIN_SHARE = 0.5
"""The read falls back to a plain scan when candidates exceed this share of the min/max survivors."""
MAX_STAGED = 2000
"""At most this many tasks are built file by file; more go through a plain scan."""
ARROW_MAX_FILES = 64
"""At most this many candidate files are read in the driver (the ``arrow`` method)."""
ARROW_MAX_BYTES = 16 * 1024 * 1024
"""Default bound on the candidates' (compressed) bytes read in the driver: their rows are held there, decoded, and
again in the driver's JVM as a local relation."""
_EPOCH = date(1970, 1, 1)


@dataclass(frozen=True)
class StagedFile:
    path: str
    size: int
    records: int
    partition: tuple[str, ...]
    """Partition values as Iceberg's partition strings ("null" for null), in spec order."""
    values: tuple[Any, ...] = ()
    """The same values as pyiceberg holds them in a DataFile's partition (dates as days since the epoch)."""


@dataclass(frozen=True)
class ReadPlan:
    method: str
    """staged | planned | plain | empty"""
    reason: str
    files: tuple[StagedFile, ...] = ()


def partition_values(stored: str | None, field_types: list[str]) -> tuple[Any, ...] | None:
    """The index's partition ("v1,v2", str() of pyiceberg's values) back as pyiceberg's values for a spec
    whose result types are field_types; None when it cannot be restored exactly."""
    if not field_types:
        return ()
    if stored is None:
        return None
    parts = stored.split(",")
    if len(parts) != len(field_types):
        return None
    out: list[Any] = []
    for value, kind in zip(parts, field_types, strict=True):
        if value == "None":
            out.append(None)
        elif kind in ("int", "long", "date"):
            try:
                out.append(int(value))
            except ValueError:
                return None
        elif kind == "string":
            out.append(value)
        elif kind == "boolean" and value in ("True", "False"):
            out.append(value == "True")
        else:
            return None
    return tuple(out)


def java_strings(values: tuple[Any, ...], field_types: list[str]) -> tuple[str, ...]:
    """A partition's values (partition_values) as Iceberg's partition strings (what a Java DataFile builder takes)."""
    out = []
    for value, kind in zip(values, field_types, strict=True):
        if value is None:
            out.append("null")
        elif kind == "date":
            out.append((_EPOCH + timedelta(days=value)).isoformat())
        else:
            out.append(str(value).lower() if kind == "boolean" else str(value))
    return tuple(out)


def index_files(files: list[str], sizes: dict[str, int], records: dict[str, int], partitions: dict[str, Any],
                field_types: list[str], has_deletes: bool, specs: int) -> tuple[StagedFile, ...] | str:
    """The candidates as scan tasks' files built from the index alone, or why they cannot be: a task
    must carry its delete files, a partition spec must be the only one, a partition restorable."""
    if has_deletes:
        return "the snapshot has delete files: Iceberg plans the tasks (with their deletes) in the JVM"
    if specs > 1:
        return "the table has several partition specs: Iceberg plans the tasks in the JVM"
    built = []
    for path in files:
        if not path.lower().endswith(".parquet"):
            return f"{path} may not be a Parquet file (the index does not store formats): Iceberg plans the tasks in the JVM"
        values = partition_values(partitions.get(path), field_types)
        if values is None:
            return f"the partition of {path} cannot be restored from the index: Iceberg plans the tasks in the JVM"
        built.append(StagedFile(path, sizes.get(path, 0), records.get(path, 0), java_strings(values, field_types), values))
    if any(f.size <= 0 for f in built):
        return "a candidate's size is unknown to the index: Iceberg plans the tasks in the JVM"
    return tuple(built)


def plan_spark_read(files: list[str], minmax_files: int, sizes: dict[str, int], records: dict[str, int],
                    partitions: dict[str, Any], field_types: list[str], has_deletes: bool, specs: int,
                    arrow_max_bytes: int = ARROW_MAX_BYTES) -> ReadPlan:
    """The read method for the candidates `files` (see the module docstring); arrow_max_bytes=0 never
    reads in the driver."""
    if not files:
        return ReadPlan("empty", "no live file may hold a matching row")
    if len(files) > PLAIN_SHARE * max(minmax_files, 1) or len(files) > MAX_STAGED:
        return ReadPlan("plain", f"the index keeps {len(files):,} of the {minmax_files:,} files min/max statistics keep: "
                                 "it prunes too little beyond Iceberg's own metrics, so a plain Iceberg scan reads them")
    built = index_files(files, sizes, records, partitions, field_types, has_deletes, specs)
    if isinstance(built, str):
        return ReadPlan("planned", built)
    size = sum(f.size for f in built)
    if len(built) <= ARROW_MAX_FILES and size <= arrow_max_bytes:
        return ReadPlan("arrow", f"{len(built):,} candidate files ({size:,} bytes) read in the driver by pyiceberg's "
                                 "Arrow reader from the index, no planning and no Spark scan", built)
    return ReadPlan("staged", f"{len(built):,} candidate files staged from the index, no planning in the JVM", built)
