"""A zonemap entry: what one live data file holds, by Iceberg field id.

Values are in Iceberg's internal representation (timestamps as microseconds, dates as days,
decimals as Decimal), the same as a bound pyiceberg literal, so predicates compare directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lakeops.zonemap.bloom import BloomFilter


@dataclass(frozen=True)
class ColumnStats:
    lower: Any = None
    """Smallest non-null value; None when unknown or when every value is null."""
    upper: Any = None
    null_count: int | None = None


@dataclass(frozen=True)
class ZonemapEntry:
    file_path: str
    snapshot_id: int
    record_count: int
    file_size: int
    partition: str = ""
    columns: Mapping[int, ColumnStats] = field(default_factory=dict)
    blooms: Mapping[int, BloomFilter] = field(default_factory=dict)
