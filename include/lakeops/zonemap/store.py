"""Zonemap files: Parquet under <table location>/_zonemaps/<level>/, one file per version.

Micro zonemaps are named by the snapshot they cover (micro/<snapshot_id>.parquet). A file is
written under a hidden temporary name and moved into place, so readers never see half a file;
a file that cannot be read (truncated, corrupt) is logged and ignored: its files are then read
in full, never skipped.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.conversions import from_bytes, to_bytes
from pyiceberg.types import (
    BooleanType,
    DateType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    PrimitiveType,
    StringType,
    TimestampType,
    TimestamptzType,
)

from lakeops.atomic import atomic_output
from lakeops.zonemap.bloom import BloomFilter
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry

if TYPE_CHECKING:
    from pyarrow.fs import FileSystem
    from pyiceberg.schema import Schema

log = logging.getLogger(__name__)

ZONEMAP_DIR = "_zonemaps"
# Types whose bounds are kept; the stored name decodes the bytes as they were written, so a
# later int -> long or float -> double widening reads the old bounds correctly.
TYPES: dict[str, PrimitiveType] = {str(t): t for t in (BooleanType(), IntegerType(), LongType(), FloatType(), DoubleType(),
                                                        StringType(), DateType(), TimestampType(), TimestamptzType())}

SCHEMA = pa.schema([
    ("file_path", pa.string()), ("snapshot_id", pa.int64()), ("record_count", pa.int64()),
    ("file_size", pa.int64()), ("partition", pa.string()),
    ("columns", pa.list_(pa.struct([("field_id", pa.int32()), ("type", pa.string()), ("lower", pa.binary()),
                                    ("upper", pa.binary()), ("null_count", pa.int64())]))),
    ("blooms", pa.list_(pa.struct([("field_id", pa.int32()), ("bits", pa.binary()), ("hashes", pa.int32())]))),
])


def zonemap_root(table_location: str) -> str:
    return f"{table_location.rstrip('/')}/{ZONEMAP_DIR}"


def _filesystem(uri: str) -> tuple[FileSystem, str]:
    """Through the table's FileIO (its storage settings and credentials)."""
    from lakeops.catalogs.fileio import filesystem_for

    return filesystem_for(uri)


def to_arrow(entries: list[ZonemapEntry], types: dict[int, PrimitiveType]) -> pa.Table:
    rows = []
    for e in entries:
        columns = []
        for field_id, s in e.columns.items():
            t = types.get(field_id)
            if t is None or str(t) not in TYPES:
                continue
            columns.append({"field_id": field_id, "type": str(t), "null_count": s.null_count,
                            "lower": to_bytes(t, s.lower) if s.lower is not None else None,
                            "upper": to_bytes(t, s.upper) if s.upper is not None else None})
        blooms = [{"field_id": f, "bits": b.bits, "hashes": b.hashes} for f, b in e.blooms.items()]
        rows.append({"file_path": e.file_path, "snapshot_id": e.snapshot_id, "record_count": e.record_count,
                     "file_size": e.file_size, "partition": e.partition, "columns": columns, "blooms": blooms})
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def from_arrow(table: pa.Table) -> list[ZonemapEntry]:
    entries = []
    for row in table.to_pylist():
        columns = {}
        for c in row["columns"]:
            t = TYPES[c["type"]]
            columns[c["field_id"]] = ColumnStats(
                from_bytes(t, c["lower"]) if c["lower"] is not None else None,
                from_bytes(t, c["upper"]) if c["upper"] is not None else None,
                c["null_count"])
        blooms = {b["field_id"]: BloomFilter(b["bits"], b["hashes"]) for b in row.get("blooms") or []}
        entries.append(ZonemapEntry(row["file_path"], row.get("snapshot_id", 0), row["record_count"], row.get("file_size", 0),
                                    row.get("partition", ""), columns, blooms))
    return entries


def publish(uri: str, data: pa.Table, row_group_size: int | None = None) -> str:
    """Write data to uri atomically: a hidden temporary file, then a move into place."""
    with atomic_output(*_filesystem(uri)) as out:
        pq.write_table(data, out, row_group_size=row_group_size)
    return uri


def types_for(schema: Schema) -> dict[int, PrimitiveType]:
    """Field id -> current type of every top-level primitive column (bounds are written in the current type)."""
    return {f.field_id: f.field_type for f in schema.columns if isinstance(f.field_type, PrimitiveType)}


def read_file(uri: str, columns: list[str] | None = None) -> pa.Table:
    """One zonemap file, or the given columns of it: those it has, as an older layout may lack some, but a file
    without file_path or record_count is not one (KeyError). Read as one Parquet file, not as a dataset
    (pq.read_table), which costs more a file: a cold lookup reads every micro file since the last consolidation."""
    fs, path = _filesystem(uri)
    with fs.open_input_file(path) as stream:
        parquet = pq.ParquetFile(stream)
        missing = _REQUIRED.difference(parquet.schema_arrow.names).intersection(columns or _REQUIRED)
        if missing:
            raise KeyError(f"not a zonemap file: no column {', '.join(sorted(missing))}")
        return parquet.read(columns=columns)


_REQUIRED = frozenset({"file_path", "record_count"})


def read_files(uris: list[str]) -> tuple[list[ZonemapEntry], list[str]]:
    """Entries of the given zonemap files, and those that could not be read (logged, then ignored:
    their data files are then read in full until a consolidation rebuilds their entries)."""
    entries, unreadable = [], []
    for uri in uris:
        try:
            entries.extend(from_arrow(read_file(uri)))
        except FileNotFoundError:
            log.info("zonemap file %s is gone (removed by a consolidation after it was listed)", uri)
        except (OSError, pa.ArrowInvalid, KeyError, ValueError) as e:
            log.warning("zonemap file %s is unreadable (%s); its files will be read in full until it is rebuilt", uri, e)
            unreadable.append(uri)
    return entries, unreadable
