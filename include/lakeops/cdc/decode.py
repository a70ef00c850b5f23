"""One Debezium record (a landed JSON line or a Kafka record's value) -> what it means for the target table: a
change (op, position in the source's log, the row's values in the table's column types), a record to count and
skip (tombstone, key record, transaction marker, heartbeat, schema change), a truncate, or a reason it cannot be
applied that names the field and the value. Pure: Spark runs it in a UDF (lakeops.spark.cdc_parse).

Both JsonConverter shapes are read: `{"schema": ..., "payload": ...}` (each field's logical type from the schema
part) and the schemaless payload (types from the target column and the connector's settings, CdcConfig). A line
`{"key": ..., "value": ...}` (a Kafka record dumped with its key, as kcat -J and lakeops' recorded fixtures
write them) is unwrapped to its value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lakeops.cdc.fits import fits, misfit_hint
from lakeops.cdc.fits import source_type as connect_type
from lakeops.cdc.position import position_key, source_position
from lakeops.cdc.sqltype import SqlType, parse_sql_type
from lakeops.cdc.unavailable import Placeholder
from lakeops.cdc.values import DecodeError, coerce, connect_sql_type, from_connect, from_json, json_sql_type, shown, widens
from lakeops.config.sources import CdcConfig

OPS = ("c", "u", "d", "r", "t")
CHANGE, TRUNCATE = "change", "truncate"
SKIPPED = ("tombstone", "key", "transaction", "heartbeat", "schema_change", "message")
"""Records that change no row: counted and skipped, never quarantined."""
INVALID = "invalid"


@dataclass(frozen=True)
class TargetColumn:
    name: str
    type: SqlType
    required: bool

    @staticmethod
    def of(name: str, sql_type: str, required: bool) -> TargetColumn:
        return TargetColumn(name, parse_sql_type(sql_type), required)


@dataclass(frozen=True)
class Decoded:
    kind: str
    """change | truncate | invalid | one of SKIPPED"""
    op: str | None = None
    position: str | None = None
    ts_ms: int | None = None
    values: dict[str, Any] | None = None
    reason: str | None = None
    new_fields: tuple[tuple[str, str], ...] = ()
    """(field, Spark SQL type) of fields the table has no column for, or could widen to (evolve: add_columns)."""
    unavailable: tuple[str, ...] = ()
    """Columns the after image holds Debezium's unavailable-value placeholder for (an unchanged TOASTed value): their
    value is None here, and the apply keeps what the table (or an earlier change of the batch) holds."""


def _invalid(reason: str) -> Decoded:
    return Decoded(INVALID, reason=reason)


class ChangeDecoder:
    """Decodes records for one table: its columns, its key, the connector's settings and the unknown-field policy
    (ignore, quarantine or add_columns)."""

    def __init__(self, columns: tuple[TargetColumn, ...], key: tuple[str, ...], settings: CdcConfig,
                 unknown_fields: str = "quarantine", table: str = "") -> None:
        self.columns = columns
        self.by_name = {c.name: c for c in columns}
        self.key = key
        self.settings = settings
        self.unknown_fields = unknown_fields
        self.table = table
        self.placeholder = Placeholder(settings.placeholder_bytes)

    def decode(self, text: str | bytes | None) -> Decoded:
        if text is None:
            return Decoded("tombstone")
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        if not text.strip() or text.strip() == "null":
            return Decoded("tombstone")
        try:
            record = json.loads(text)
        except ValueError:
            return _invalid("malformed JSON: not a parseable JSON document")
        return self.decode_record(record)

    def decode_record(self, record: Any, record_key: Any = None) -> Decoded:
        if record is None:
            return Decoded("tombstone")
        if not isinstance(record, dict):
            return _invalid(f"not a change event: expected a JSON object, got {shown(record)}")
        if "op" not in record and "payload" not in record and "value" in record and ({"key", "topic"} & set(record)):
            return self.decode_record(record["value"], _payload(record.get("key")))
        schema = None
        if "payload" in record and "schema" in record and "op" not in record:
            schema, record = record["schema"], record["payload"]
            if record is None:
                return Decoded("tombstone")
            if not isinstance(record, dict):
                return _invalid(f"field payload: expected a JSON object, got {shown(record)}")
            name = (schema or {}).get("name") or ""
            if name.endswith(".Key"):
                return Decoded("key")
        kind = _kind_without_op(record, self.key)
        if kind is not None:
            return kind
        return self._change(record, schema, record_key)

    def _change(self, record: dict[str, Any], schema: dict[str, Any] | None, record_key: Any) -> Decoded:
        op = record.get("op")
        if op == "m":
            return Decoded("message")
        if op not in OPS:
            return _invalid(f"field op: expected one of {', '.join(OPS)}, got {shown(op, 20)}")
        try:
            position = position_key(source_position(record.get("source")))
        except DecodeError as e:
            return _invalid(str(e))
        ts_ms = record.get("ts_ms")
        ts_ms = ts_ms if isinstance(ts_ms, int) and not isinstance(ts_ms, bool) else None
        if op == "t":
            source = record.get("source") or {}
            return Decoded(TRUNCATE, op, position, ts_ms,
                           reason=f"op t: truncate of {source.get('schema') or source.get('db')}.{source.get('table')}")
        side = "before" if op == "d" else "after"
        image = record.get(side)
        if op == "d" and not isinstance(image, dict) and isinstance(record_key, dict):
            image = record_key  # REPLICA IDENTITY NOTHING and the like: the record's key names the row
        if not isinstance(image, dict):
            if op == "d":
                return _invalid("op d without a before image (and no record key): the deleted row's key is unknown; give "
                                "the source table a replica identity that includes its key")
            return _invalid(f"op {op} without an after image")
        fields = _image_fields(schema, side)
        values: dict[str, Any] = {}
        new_fields: list[tuple[str, str]] = []
        wanted = [self.by_name[k] for k in self.key if k in self.by_name] if op == "d" else list(self.columns)
        unavailable: list[str] = []
        for column in wanted:
            raw = image.get(column.name)
            field_schema = fields.get(column.name)
            if field_schema is not None and not fits(field_schema, column.type, self.settings):
                return _invalid(f"field {side}.{column.name}: the source sends {connect_type(field_schema)} (value "
                                f"{shown(raw)}) where column {column.name} is {column.type}, a type change Iceberg cannot "
                                f"widen the column to; {misfit_hint(field_schema, column.type)}")
            if op != "d" and column.name not in self.key and self.placeholder.matches(raw, field_schema, column.type):
                unavailable.append(column.name)
                values[column.name] = None
                continue
            try:
                if field_schema is not None:
                    value = coerce(from_connect(raw, field_schema, self.settings.binary_handling_mode), column.type,
                                   self.settings.binary_handling_mode)
                else:
                    value = coerce(from_json(raw, column.type, column.name, self.settings), column.type,
                                   self.settings.binary_handling_mode)
            except DecodeError as e:
                source_type = _source_type(field_schema)
                return _invalid(f"field {side}.{column.name}: cannot read {shown(raw)}{source_type} as {column.type}: {e}")
            if value is None and (column.required or column.name in self.key):
                what = "key field" if column.name in self.key else "required field"
                return _invalid(f"missing {what} {side}.{column.name} (got {shown(raw)})")
            values[column.name] = value
            if field_schema is not None and self.unknown_fields == "add_columns":
                observed = connect_sql_type(field_schema)
                if observed and widens(column.type, observed):
                    new_fields.append((column.name, observed))
        if op != "d":
            for name, raw in image.items():
                if name in self.by_name:
                    continue
                if self.unknown_fields == "quarantine":
                    table = f"table {self.table}" if self.table else "table"
                    return _invalid(f"field {side}.{name}: the {table} has no column {name} (value {shown(raw)}); add the "
                                    "column, or set ingest.evolve: add_columns (or ingest.unknown_fields: ignore)")
                if self.unknown_fields == "add_columns":
                    observed = connect_sql_type(fields[name]) if name in fields else json_sql_type(raw)
                    if observed:
                        new_fields.append((name, observed))
        return Decoded(CHANGE, op, position, ts_ms, values, None, tuple(new_fields), tuple(unavailable))


def _payload(key: Any) -> Any:
    """A record key in either converter shape -> its fields."""
    if isinstance(key, dict) and "payload" in key and "schema" in key:
        return key["payload"]
    return key


def _kind_without_op(record: dict[str, Any], key: tuple[str, ...]) -> Decoded | None:
    """Records that are not change events: transaction markers, heartbeats, schema changes, key records."""
    if "op" in record:
        return None
    if record.get("status") in ("BEGIN", "END") and "id" in record:
        return Decoded("transaction")
    if "ddl" in record or "tableChanges" in record:
        return Decoded("schema_change")
    if set(record) == {"ts_ms"}:
        return Decoded("heartbeat")
    if record and key and set(record) <= set(key):
        return Decoded("key")
    return _invalid("missing required field op (not a Debezium change event, tombstone, key or transaction record)")


def _image_fields(schema: dict[str, Any] | None, side: str) -> dict[str, dict[str, Any]]:
    """The Connect schemas of the before/after image's fields, from the event's schema part."""
    if not isinstance(schema, dict):
        return {}
    for field in schema.get("fields") or []:
        if field.get("field") == side:
            return {f["field"]: f for f in field.get("fields") or [] if isinstance(f, dict) and "field" in f}
    return {}


def _source_type(schema: dict[str, Any] | None) -> str:
    if not schema:
        return ""
    return f" ({schema.get('name') or schema.get('type')})"
