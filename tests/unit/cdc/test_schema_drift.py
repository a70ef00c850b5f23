"""Schema drift read from the event's schema part: a type change Iceberg cannot widen the column to is quarantined
with the field, the source type and the column type, whatever the value; a decimal sent as a string or a double
is read as one when the table says the connector sends them so; a dropped source column is null."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from lakeops.cdc.decode import ChangeDecoder, TargetColumn
from lakeops.config.sources import CdcConfig

COLUMNS = tuple(TargetColumn.of(*c) for c in [
    ("id", "BIGINT", True), ("qty", "INT", False), ("amount", "DECIMAL(12, 2)", False), ("due", "DATE", False),
    ("note", "STRING", False)])
SOURCE = {"connector": "postgresql", "lsn": 5, "schema": "public", "table": "orders"}


def _event(fields: list[dict], after: dict) -> str:
    image = {"type": "struct", "fields": fields, "optional": True, "name": "pg.public.orders.Value"}
    schema = {"type": "struct", "name": "pg.public.orders.Envelope", "fields": [
        {**image, "field": "before"}, {**image, "field": "after"}, {"type": "struct", "field": "source", "fields": []}]}
    return json.dumps({"schema": schema, "payload": {"before": None, "after": after, "source": SOURCE, "op": "u",
                                                     "ts_ms": 1}})


def _fields(**changed: dict) -> list[dict]:
    fields = {"id": {"type": "int64"}, "qty": {"type": "int32"},
              "amount": {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
                         "parameters": {"scale": "2", "connect.decimal.precision": "12"}},
              "due": {"type": "int32", "name": "io.debezium.time.Date"}, "note": {"type": "string"}}
    fields.update(changed)
    return [{"field": name, "optional": name != "id", **schema} for name, schema in fields.items()]


ROW = {"id": 1, "qty": 3, "amount": "AZA=", "due": 20000, "note": "n"}  # amount 4.00


@pytest.mark.parametrize("field, schema, value, reason", [
    ("qty", {"type": "string"}, "3",
     'field after.qty: the source sends string (value "3") where column qty is INT, a type change Iceberg cannot widen'),
    ("amount", {"type": "string"}, "4.00",
     'field after.amount: the source sends string (value "4.00") where column amount is DECIMAL(12, 2)'),
    ("amount", {"type": "float64"}, 4.0, "field after.amount: the source sends float64 (value 4.0) where column amount is"),
    ("qty", {"type": "int64", "name": "io.debezium.time.MicroTimestamp"}, 10,
     "field after.qty: the source sends int64 (io.debezium.time.MicroTimestamp) (value 10) where column qty is INT"),
    ("due", {"type": "string"}, None, "field after.due: the source sends string (value null) where column due is DATE"),
])
def test_a_type_change_iceberg_cannot_widen_is_quarantined_from_the_schema(field, schema, value, reason):
    decoded = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(_event(_fields(**{field: schema}), {**ROW, field: value}))

    assert decoded.kind == "invalid" and decoded.reason.startswith(reason), decoded.reason


def test_the_reason_says_how_to_fix_it():
    as_string = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(
        _event(_fields(amount={"type": "string"}), {**ROW, "amount": "4.00"}))
    assert as_string.reason.endswith("if the connector sends decimals as strings (decimal.handling.mode=string), set "
                                     "ingest.cdc.decimal_handling_mode: string; else change the column's type to one that "
                                     "holds the source's")
    as_text = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(_event(_fields(qty={"type": "string"}), {**ROW, "qty": "3"}))
    assert as_text.reason.endswith("(Iceberg widens only int to bigint, float to double and a decimal's precision), or "
                                   "replay the table")


@pytest.mark.parametrize("mode, schema, value", [
    ("string", {"type": "string"}, "-1234567890.12"),
    ("double", {"type": "float64"}, -1234567890.12),
    ("precise", {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}},
     "40Fm5ew="),  # -123456789012, two's complement
])
def test_decimals_as_strings_or_doubles_with_a_schema_part_follow_the_tables_mode(mode, schema, value):
    line = _event(_fields(amount=schema), {**ROW, "amount": value})
    decoded = ChangeDecoder(COLUMNS, ("id",), CdcConfig(decimal_handling_mode=mode)).decode(line)

    assert decoded.reason is None and decoded.values["amount"] == Decimal("-1234567890.12")


def test_widenable_changes_and_any_type_into_a_string_column_are_values():
    fields = _fields(qty={"type": "int64"}, note={"type": "int32"},
                     amount={"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
                             "parameters": {"scale": "2", "connect.decimal.precision": "20"}})
    decoded = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(_event(fields, {**ROW, "qty": 7, "note": 12}))

    assert decoded.reason is None and (decoded.values["qty"], decoded.values["note"]) == (7, "12")
    evolving = ChangeDecoder(COLUMNS, ("id",), CdcConfig(), "add_columns").decode(_event(fields, {**ROW, "qty": 7}))
    assert evolving.new_fields == (("qty", "BIGINT"), ("amount", "DECIMAL(20, 2)"))


def test_a_dropped_source_column_is_null_from_then_on():
    """After ALTER TABLE orders DROP COLUMN note, Debezium's events have neither the field nor its schema."""
    fields = [f for f in _fields() if f["field"] != "note"]
    after = {k: v for k, v in ROW.items() if k != "note"}
    decoded = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(_event(fields, after))

    assert decoded.kind == "change" and decoded.values["note"] is None and decoded.values["qty"] == 3
    required = COLUMNS[:4] + (TargetColumn.of("note", "STRING", True),)
    assert ChangeDecoder(required, ("id",), CdcConfig()).decode(_event(fields, after)).reason == (
        "missing required field after.note (got null)")


@pytest.mark.parametrize("schema, column, mode, expected", [
    ({"type": "int64", "name": "io.debezium.time.MicroDuration"}, "BIGINT", "precise", True),
    ({"type": "int32", "name": "io.debezium.time.Year"}, "INT", "precise", True),
    ({"type": "int64", "name": "io.debezium.time.MicroTime"}, "BIGINT", "precise", True),
    ({"type": "int32", "name": "io.debezium.time.Date"}, "INT", "precise", False),
    ({"type": "int64", "name": "io.debezium.time.MicroTime"}, "DECIMAL(10, 0)", "precise", False),
    ({"type": "int16"}, "DECIMAL(10, 0)", "precise", True),
    ({"type": "float64"}, "DOUBLE", "precise", True),
    ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal"}, "DOUBLE", "precise", True),
    ({"type": "string"}, "DOUBLE", "string", False),
    ({"type": "string"}, "DECIMAL(12, 2)", "string", True),
    ({"type": "float32"}, "DECIMAL(12, 2)", "double", True),
    ({"type": "string"}, "DECIMAL(12, 2)", "double", False),
    ({"type": "bytes", "name": "io.debezium.data.Bits"}, "BINARY", "precise", True),
    ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal"}, "BINARY", "precise", False),
    ({"type": "string"}, "BINARY", "precise", True),  # binary.handling.mode base64 or hex
    ({"type": "int64", "name": "io.debezium.time.MicroTimestamp"}, "DATE", "precise", True),
    ({"type": "string", "name": "io.debezium.time.ZonedTimestamp"}, "TIMESTAMP_NTZ", "precise", True),
    ({"type": "int64"}, "TIMESTAMP", "precise", False),
    ({"type": "boolean"}, "BOOLEAN", "precise", True),
    ({"type": "int16"}, "BOOLEAN", "precise", False),
    ({"type": "struct", "name": "io.debezium.data.geometry.Point"}, "STRING", "precise", True),
    ({"type": "array", "items": {"type": "string"}}, "ARRAY<STRING>", "precise", True),
    ({"type": "string"}, "ARRAY<STRING>", "precise", False),
])
def test_which_connect_types_a_column_holds(schema, column, mode, expected):
    from lakeops.cdc.fits import fits
    from lakeops.cdc.sqltype import parse_sql_type

    assert fits(schema, parse_sql_type(column), CdcConfig(decimal_handling_mode=mode)) is expected
