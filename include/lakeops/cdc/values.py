"""One value of a Debezium row image, decoded: by the field's Kafka Connect schema (type and logical name) when the
event carries one, else by the target column's type and the connector's settings; then made into what the column
holds. Pure: Python values (Decimal, datetime, date, bytes, ...) that Spark converts to the column's type."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, date, datetime, time, timedelta
from decimal import Context, Decimal, InvalidOperation
from typing import Any

from lakeops.cdc.sqltype import SqlType, parse_sql_type
from lakeops.config.sources import CdcConfig

EPOCH = datetime(1970, 1, 1)
EPOCH_DAY = date(1970, 1, 1)
MIDNIGHT = datetime(1970, 1, 1)
WIDE = Context(prec=100)
"""Decimal arithmetic without rounding: Python's default context keeps 28 digits, Iceberg's decimals hold 38."""
INTEGER_RANGES = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}

DECIMAL = "org.apache.kafka.connect.data.Decimal"
VARIABLE_DECIMAL = "io.debezium.data.VariableScaleDecimal"
DATES = ("org.apache.kafka.connect.data.Date", "io.debezium.time.Date")
MILLI_TIMES = ("org.apache.kafka.connect.data.Time", "io.debezium.time.Time")
MILLI_TIMESTAMPS = ("org.apache.kafka.connect.data.Timestamp", "io.debezium.time.Timestamp")
STRING_LOGICAL = ("io.debezium.data.Json", "io.debezium.data.Uuid", "io.debezium.data.Xml", "io.debezium.data.Enum",
                  "io.debezium.data.EnumSet", "io.debezium.time.Interval", "io.debezium.data.Ltree")


class DecodeError(ValueError):
    """A value that cannot become what its column holds; the message says why (the caller names the field)."""


def shown(value: Any, limit: int = 80) -> str:
    """The value as JSON, cut to `limit` characters, for a reason."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _epoch(amount: int, unit: str) -> datetime:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise DecodeError(f"expected an integer of epoch {unit}")
    micros = {"millis": amount * 1000, "micros": amount, "nanos": amount // 1000, "days": amount * 86_400_000_000}[unit]
    try:
        return EPOCH + timedelta(microseconds=micros)
    except OverflowError as e:
        raise DecodeError(f"epoch {unit} {amount} is outside the years 1 to 9999") from e


def _day(amount: Any) -> date:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise DecodeError("expected an integer of days since 1970-01-01")
    try:
        return EPOCH_DAY + timedelta(days=amount)
    except OverflowError as e:
        raise DecodeError(f"{amount} days is outside the years 1 to 9999") from e


def _time_of_day(amount: Any, unit: str) -> time:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise DecodeError(f"expected an integer of {unit} since midnight")
    moment = _epoch(amount, unit)
    if moment.date() != EPOCH_DAY:
        if moment == datetime(1970, 1, 2):  # PostgreSQL's 24:00:00
            return time(23, 59, 59, 999999)
        raise DecodeError(f"{amount} {unit} is not a time of day")
    return moment.time()


def _unscaled(encoded: Any, scale: int, binary_mode: str = "bytes") -> Decimal:
    """Kafka Connect's Decimal: the unscaled value as big-endian two's complement bytes (base64 in JSON)."""
    raw = _bytes(encoded, binary_mode)
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale, context=WIDE)


def _bytes(encoded: Any, mode: str = "bytes") -> bytes:
    if not isinstance(encoded, str):
        raise DecodeError("expected a string of encoded bytes")
    try:
        if mode == "hex":
            return bytes.fromhex(encoded)
        if mode == "base64-url-safe":
            return base64.urlsafe_b64decode(encoded)
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as e:
        raise DecodeError(f"not {'hex' if mode == 'hex' else 'base64'} bytes ({e})") from e


def _variable_decimal(value: Any) -> Decimal:
    if not isinstance(value, dict) or "scale" not in value or "value" not in value:
        raise DecodeError("expected a VariableScaleDecimal {scale, value}")
    return _unscaled(value["value"], int(value["scale"]))


def _iso_datetime(text: Any) -> datetime:
    if not isinstance(text, str):
        raise DecodeError("expected an ISO-8601 timestamp string")
    try:
        return datetime.fromisoformat(text)
    except ValueError as e:
        raise DecodeError("not an ISO-8601 timestamp") from e


def _iso_time(text: Any) -> time:
    if not isinstance(text, str):
        raise DecodeError("expected an ISO-8601 time string")
    try:
        return time.fromisoformat(text.removesuffix("Z"))
    except ValueError as e:
        raise DecodeError("not an ISO-8601 time") from e


def from_connect(value: Any, schema: dict[str, Any], binary_mode: str = "bytes") -> Any:
    """A JSON value decoded by its Kafka Connect field schema (JsonConverter with schemas.enable=true)."""
    if value is None:
        return None
    name, kind = schema.get("name"), schema.get("type")
    if name == DECIMAL:
        return _unscaled(value, int((schema.get("parameters") or {}).get("scale", 0)))
    if name == VARIABLE_DECIMAL:
        return _variable_decimal(value)
    if name in DATES:
        return _day(value)
    if name in MILLI_TIMESTAMPS:
        return _epoch(value, "millis")
    if name == "io.debezium.time.MicroTimestamp":
        return _epoch(value, "micros")
    if name == "io.debezium.time.NanoTimestamp":
        return _epoch(value, "nanos")
    if name in ("io.debezium.time.ZonedTimestamp", "io.debezium.time.IsoTimestamp"):
        return _iso_datetime(value)
    if name == "io.debezium.time.IsoDate":
        return _iso_datetime(value + "T00:00:00" if isinstance(value, str) and len(value) == 10 else value).date()
    if name in MILLI_TIMES:
        return _time_of_day(value, "millis")
    if name == "io.debezium.time.MicroTime":
        return _time_of_day(value, "micros")
    if name == "io.debezium.time.NanoTime":
        return _time_of_day(value, "nanos")
    if name in ("io.debezium.time.ZonedTime", "io.debezium.time.IsoTime"):
        return _iso_time(value)
    if kind == "bytes":
        return _bytes(value)
    if kind == "array":
        if not isinstance(value, list):
            raise DecodeError("expected a JSON array")
        items = schema.get("items") or {}
        return [from_connect(v, items, binary_mode) for v in value]
    if kind == "map":
        if isinstance(value, list):  # maps with non-string keys: a list of [key, value] pairs
            value = {k: v for k, v in value}
        if not isinstance(value, dict):
            raise DecodeError("expected a JSON object (a map)")
        keys, values = schema.get("keys") or {}, schema.get("values") or {}
        return {from_connect(k, keys, binary_mode): from_connect(v, values, binary_mode) for k, v in value.items()}
    if kind == "struct":
        if not isinstance(value, dict):
            raise DecodeError("expected a JSON object (a struct)")
        fields = {f["field"]: f for f in schema.get("fields") or []}
        return {k: from_connect(v, fields.get(k, {}), binary_mode) for k, v in value.items()}
    return value


def from_json(value: Any, target: SqlType, column: str, settings: CdcConfig) -> Any:
    """A JSON value of an event without schema, read as the target column's type under the connector's settings."""
    if value is None:
        return None
    name = target.name
    if name == "DECIMAL":
        if isinstance(value, dict):
            return _variable_decimal(value)
        if isinstance(value, str) and settings.decimal_handling_mode == "precise":
            return _unscaled(value, target.scale)
        return _decimal(value)
    if name in ("TIMESTAMP", "TIMESTAMP_NTZ"):
        if isinstance(value, str):
            return _iso_datetime(value)
        return _epoch(value, settings.unit_of(column, "micros"))
    if name == "DATE":
        if isinstance(value, str):
            try:
                return date.fromisoformat(value[:10])
            except ValueError as e:
                raise DecodeError("not an ISO-8601 date") from e
        unit = settings.unit_of(column, "days")
        return _day(value) if unit == "days" else _epoch(value, unit).date()
    if name == "BINARY":
        return _bytes(value, settings.binary_handling_mode)
    if name in ("ARRAY", "MAP", "STRUCT"):
        return _nested_json(value, target, column, settings)
    if column in settings.temporal_units and isinstance(value, int) and name in INTEGER_RANGES:
        return _time_of_day(value, settings.temporal_units[column])
    return value


def _nested_json(value: Any, target: SqlType, column: str, settings: CdcConfig) -> Any:
    if target.name == "ARRAY":
        if not isinstance(value, list):
            raise DecodeError("expected a JSON array")
        return [from_json(v, target.children[0][1], column, settings) for v in value]
    if not isinstance(value, dict):
        raise DecodeError("expected a JSON object")
    if target.name == "MAP":
        return {k: from_json(v, target.children[1][1], column, settings) for k, v in value.items()}
    types = dict(target.children)
    return {k: from_json(v, types[k], column, settings) if k in types else v for k, v in value.items()}


def _decimal(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise DecodeError("expected a number")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int | float | str):
        try:
            number = Decimal(repr(value) if isinstance(value, float) else value)
        except InvalidOperation as e:
            raise DecodeError("not a number") from e
        if not number.is_finite():
            raise DecodeError("not a finite number")
        return number
    raise DecodeError("expected a number")


def _micros_of_day(moment: time) -> int:
    return ((moment.hour * 60 + moment.minute) * 60 + moment.second) * 1_000_000 + moment.microsecond


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=_text)
    return str(value)


def coerce(value: Any, target: SqlType, binary_mode: str = "bytes") -> Any:
    """A decoded value as the target column holds it; DecodeError when it does not fit."""
    if value is None:
        return None
    name = target.name
    if name in INTEGER_RANGES:
        if isinstance(value, time):
            value = _micros_of_day(value)
        if isinstance(value, Decimal | float) and value == int(value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise DecodeError("expected an integer")
        bits = INTEGER_RANGES[name] - 1
        if not -(2 ** bits) <= value < 2 ** bits:
            raise DecodeError(f"out of the range of {name}")
        return value
    if name in ("FLOAT", "DOUBLE"):
        if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            raise DecodeError("expected a number")
        return float(value)
    if name == "DECIMAL":
        number = _decimal(value)
        try:
            quantized = number.quantize(Decimal(1).scaleb(-target.scale), context=WIDE)
        except InvalidOperation as e:
            raise DecodeError(f"does not fit {target}") from e
        if quantized != number:
            raise DecodeError(f"has more than {target.scale} decimal places")
        if len(quantized.as_tuple().digits) > target.precision and quantized != 0:
            raise DecodeError(f"has more than {target.precision} digits")
        return quantized
    if name == "BOOLEAN":
        if not isinstance(value, bool):
            raise DecodeError("expected true or false")
        return value
    if name == "STRING":
        return _text(value)
    if name == "BINARY":
        if isinstance(value, bytes):
            return value
        return _bytes(value, binary_mode)
    if name == "DATE":
        if isinstance(value, datetime):
            return value.date()
        if not isinstance(value, date):
            raise DecodeError("expected a date")
        return value
    if name == "TIMESTAMP":
        if not isinstance(value, datetime):
            raise DecodeError("expected a timestamp")
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if name == "TIMESTAMP_NTZ":
        if not isinstance(value, datetime):
            raise DecodeError("expected a timestamp")
        return value if value.tzinfo is None else value.astimezone(UTC).replace(tzinfo=None)
    if name == "ARRAY":
        if not isinstance(value, list):
            raise DecodeError("expected an array")
        return [coerce(v, target.children[0][1], binary_mode) for v in value]
    if name == "MAP":
        if not isinstance(value, dict):
            raise DecodeError("expected a map")
        key, item = target.children[0][1], target.children[1][1]
        return {coerce(k, key, binary_mode): coerce(v, item, binary_mode) for k, v in value.items()}
    if name == "STRUCT":
        if not isinstance(value, dict):
            raise DecodeError("expected a struct")
        return {field: coerce(value.get(field), kind, binary_mode) for field, kind in target.children}
    raise DecodeError(f"lakeops cannot write a {target} column from change events")


def connect_sql_type(schema: dict[str, Any]) -> str | None:
    """The Spark SQL type a new column gets from a field's Kafka Connect schema (evolve: add_columns)."""
    name, kind = schema.get("name"), schema.get("type")
    if name == DECIMAL:
        params = schema.get("parameters") or {}
        scale = int(params.get("scale", 0))
        precision = min(38, int(params.get("connect.decimal.precision", 38)))
        return f"DECIMAL({max(precision, scale)}, {scale})"
    if name in DATES or name == "io.debezium.time.IsoDate":
        return "DATE"
    if name in (*MILLI_TIMESTAMPS, "io.debezium.time.MicroTimestamp", "io.debezium.time.NanoTimestamp"):
        return "TIMESTAMP_NTZ"
    if name in ("io.debezium.time.ZonedTimestamp", "io.debezium.time.IsoTimestamp"):
        return "TIMESTAMP"
    if name in (*MILLI_TIMES, "io.debezium.time.MicroTime", "io.debezium.time.NanoTime", "io.debezium.time.ZonedTime",
                VARIABLE_DECIMAL, *STRING_LOGICAL):
        return "STRING"
    simple = {"int8": "INT", "int16": "INT", "int32": "INT", "int64": "BIGINT", "float32": "FLOAT", "float64": "DOUBLE",
              "boolean": "BOOLEAN", "string": "STRING", "bytes": "BINARY"}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        item = connect_sql_type(schema.get("items") or {})
        return f"ARRAY<{item}>" if item else None
    if kind == "map":
        key, value = connect_sql_type(schema.get("keys") or {}), connect_sql_type(schema.get("values") or {})
        return f"MAP<{key}, {value}>" if key and value else None
    if kind == "struct":
        fields = [(f["field"], connect_sql_type(f)) for f in schema.get("fields") or []]
        return "STRUCT<" + ", ".join(f"{n}: {t}" for n, t in fields) + ">" if fields and all(t for _, t in fields) else None
    return None


def json_sql_type(value: Any) -> str | None:
    """The Spark SQL type a new column gets from a JSON value (no schema): objects and arrays are kept as JSON text."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "BIGINT"
    if isinstance(value, float):
        return "DOUBLE"
    return "STRING"


def widens(current: SqlType, observed: str) -> bool:
    """Whether Iceberg can widen a column of type `current` to `observed` (int to bigint, float to double, a decimal's
    precision at the same scale)."""
    new = parse_sql_type(observed)
    if (current.name, new.name) in (("INT", "BIGINT"), ("FLOAT", "DOUBLE")):
        return True
    return (current.name == new.name == "DECIMAL" and new.scale == current.scale and new.precision > current.precision)
