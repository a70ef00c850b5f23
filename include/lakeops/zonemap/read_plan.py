"""How a pruned Spark read runs, decided from the index alone (pure: no I/O, tested against literals):

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
_EPOCH = date(1970, 1, 1)


@dataclass(frozen=True)
class StagedFile:
    path: str
    size: int
    records: int
    partition: tuple[str, ...]
    """Partition values as Iceberg's partition strings ("null" for null), in spec order."""


@dataclass(frozen=True)
class ReadPlan:
    method: str
    """staged | planned | plain | empty"""
    reason: str
    files: tuple[StagedFile, ...] = ()


def partition_strings(stored: str | None, field_types: list[str]) -> tuple[str, ...] | None:
    """The index's partition ("v1,v2", Python forms of pyiceberg's values) as Iceberg's partition
    strings for a spec whose result types are field_types; None when it cannot be restored exactly."""
    if not field_types:
        return ()
    if stored is None:
        return None
    values = stored.split(",")
    if len(values) != len(field_types):
        return None
    out = []
    for value, kind in zip(values, field_types, strict=True):
        if value == "None":
            out.append("null")
        elif kind == "date":
            try:
                out.append((_EPOCH + timedelta(days=int(value))).isoformat())
            except ValueError:
                return None
        elif kind in ("int", "long", "string", "boolean"):
            out.append(value.lower() if kind == "boolean" else value)
        else:
            return None
    return tuple(out)


def plan_spark_read(files: list[str], minmax_files: int, sizes: dict[str, int], records: dict[str, int],
                    partitions: dict[str, Any], field_types: list[str], has_deletes: bool, specs: int) -> ReadPlan:
    """The read method for the candidates `files` (see the module docstring)."""
    if not files:
        return ReadPlan("empty", "no live file may hold a matching row")
    if len(files) > PLAIN_SHARE * max(minmax_files, 1) or len(files) > MAX_STAGED:
        return ReadPlan("plain", f"the index keeps {len(files):,} of the {minmax_files:,} files min/max statistics keep: "
                                 "it prunes too little beyond Iceberg's own metrics, so a plain Iceberg scan reads them")
    if has_deletes:
        return ReadPlan("planned", "the snapshot has delete files: Iceberg plans the tasks (with their deletes) in the JVM")
    if specs > 1:
        return ReadPlan("planned", "the table has several partition specs: Iceberg plans the tasks in the JVM")
    staged = []
    for path in files:
        values = partition_strings(partitions.get(path), field_types)
        if values is None:
            return ReadPlan("planned", f"the partition of {path} cannot be restored from the index: "
                                       "Iceberg plans the tasks in the JVM")
        staged.append(StagedFile(path, sizes.get(path, 0), records.get(path, 0), values))
    if any(f.size <= 0 for f in staged):
        return ReadPlan("planned", "a candidate's size is unknown to the index: Iceberg plans the tasks in the JVM")
    return ReadPlan("staged", f"{len(staged):,} candidate files staged from the index, no planning in the JVM",
                    tuple(staged))
