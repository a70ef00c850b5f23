"""Where a change event stands in its source's log, per Debezium connector, as one string that sorts in source
order (for the reduction to the last change of every key): pure.

* PostgreSQL: `source.sequence` ([last commit LSN, this change's LSN]) when present, else `source.lsn`. The LSN
  alone can go backwards across transactions in topic order (a transaction written first and committed last);
  the last commit LSN never does, and within a transaction the LSN increases.
* MySQL and MariaDB: binlog file (its number), `pos`, `row`.
* SQL Server (and Db2, Informix): `commit_lsn`, then `change_lsn`, then `event_serial_no`.
* Oracle: `commit_scn` (when present), then `scn`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lakeops.cdc.values import DecodeError, shown

WIDTH = 40
CONNECTORS = ("postgresql", "mysql", "mariadb", "sqlserver", "db2", "informix", "oracle")


def _integer(source: dict[str, Any], field: str, required: bool = True) -> int:
    value = source.get(field)
    if value is None and not required:
        return 0
    if isinstance(value, bool):
        raise DecodeError(f"field source.{field}: expected an integer position, got {shown(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if value is None:
        raise DecodeError(f"missing field source.{field} (the change's position in the source's log)")
    raise DecodeError(f"field source.{field}: expected an integer position, got {shown(value)}")


def _hex_lsn(source: dict[str, Any], field: str, required: bool) -> int:
    """SQL Server's LSN '00000025:00000d98:0002' (hex parts) as one integer."""
    value = source.get(field)
    if value is None:
        if required:
            raise DecodeError(f"missing field source.{field} (the change's position in the source's log)")
        return 0
    text = str(value).replace(":", "")
    if not text or not re.fullmatch(r"[0-9A-Fa-f]+", text):
        raise DecodeError(f"field source.{field}: expected an LSN such as 00000025:00000d98:0002, got {shown(value)}")
    return int(text, 16)


def _binlog_number(source: dict[str, Any]) -> int:
    value = source.get("file")
    match = re.search(r"(\d+)$", str(value)) if isinstance(value, str) else None
    if match is None:
        raise DecodeError(f"field source.file: expected a binlog file name such as mysql-bin.000003, got {shown(value)}")
    return int(match.group(1))


def _postgres(source: dict[str, Any]) -> tuple[int, ...]:
    lsn = _integer(source, "lsn")
    sequence = source.get("sequence")
    if sequence is None:
        return (lsn,)
    try:
        last_commit, current = json.loads(sequence) if isinstance(sequence, str) else sequence
        return (0 if last_commit is None else int(last_commit), int(current))
    except (ValueError, TypeError) as e:
        raise DecodeError(f"field source.sequence: expected [last commit LSN, LSN], got {shown(sequence)}") from e


def source_position(source: Any) -> tuple[int, ...]:
    """The change's position in its source's log, as a tuple that sorts in source order."""
    if not isinstance(source, dict):
        raise DecodeError(f"field source: expected the event's source block, got {shown(source)}")
    connector = source.get("connector")
    if connector is None and "lsn" in source:
        connector = "postgresql"
    if connector == "postgresql":
        return _postgres(source)
    if connector in ("mysql", "mariadb"):
        return (_binlog_number(source), _integer(source, "pos"), _integer(source, "row", required=False))
    if connector in ("sqlserver", "db2", "informix"):
        return (_hex_lsn(source, "commit_lsn", True), _hex_lsn(source, "change_lsn", False),
                _integer(source, "event_serial_no", required=False))
    if connector == "oracle":
        scn = _integer(source, "scn")
        commit = source.get("commit_scn")
        return (scn if commit is None else _integer(source, "commit_scn"), scn)
    if connector is None:
        raise DecodeError("missing field source.connector (and no source.lsn): the change's position in its source's log "
                          "is unknown")
    raise DecodeError(f"field source.connector: {shown(connector)} has no position lakeops can order changes by; "
                      f"supported: {', '.join(CONNECTORS)}")


def position_key(position: tuple[int, ...]) -> str:
    """The position as a string that sorts like the tuple (fixed-width decimal parts)."""
    if any(part < 0 for part in position):
        raise DecodeError(f"negative position {position}")
    return ".".join(f"{part:0{WIDTH}d}" for part in position)
