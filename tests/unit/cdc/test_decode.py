"""lakeops.cdc.decode on real PostgreSQL captures (tests/fixtures/debezium, both converter shapes) and on MySQL and
SQL Server events shaped as Debezium's connector documentation shows them: values, skipped records, source order,
and reasons that name the field and the value."""

from __future__ import annotations

import base64
import json
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from lakeops.cdc.decode import ChangeDecoder, TargetColumn
from lakeops.config.sources import CdcConfig

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "debezium"
ORDERS = tuple(TargetColumn.of(*c) for c in [
    ("id", "BIGINT", True), ("amount", "DECIMAL(12, 2)", True), ("placed_at", "TIMESTAMP", False),
    ("local_time", "TIMESTAMP_NTZ", False), ("created_local", "TIMESTAMP_NTZ", False), ("due", "DATE", False),
    ("attrs", "STRING", False), ("ref", "STRING", False), ("note", "STRING", False)])
# What PostgreSQL holds after the recorded workload (tests/servers/cdc_workload.py), key by key.
FINAL = {
    1: {"amount": Decimal("21.00"), "note": "written first, committed last"},
    2: {"amount": Decimal("0.01"), "note": "written last, committed first"},
}


def _replay(decoded, key: str = "id") -> dict[int, dict]:
    """Apply changes per key in source order (the reduction the Spark job does): the table they leave."""
    table: dict[int, dict] = {}
    for change in sorted((d for d in decoded if d.kind == "change"), key=lambda d: d.position):
        if change.op == "d":
            table.pop(change.values[key], None)
        else:
            table[change.values[key]] = change.values
    return table


@pytest.mark.parametrize("fixture, settings", [
    ("postgres_default.jsonl", CdcConfig()),
    # Without a schema part the timestamp(3) column's millis must be named; everything else has a default.
    ("postgres_schemaless.jsonl", CdcConfig(temporal_units={"local_time": "millis"})),
])
def test_real_postgres_captures_replay_to_the_source_table(fixture, settings):
    decoder = ChangeDecoder(ORDERS, ("id",), settings)
    decoded = [decoder.decode(line) for line in (FIXTURES / fixture).read_text().splitlines()]

    assert [d.kind for d in decoded] == ["change"] * 7 + ["tombstone"] + ["change"] * 2
    assert [d.op for d in decoded if d.kind == "change"] == ["r", "r", "c", "u", "u", "u", "d", "u", "u"]
    assert all(d.reason is None for d in decoded)
    first = decoded[0].values
    assert first == {"id": 1, "amount": Decimal("19.99"), "placed_at": datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC),
                     "local_time": datetime(2026, 3, 1, 14, 0, 0, 123000),
                     "created_local": datetime(2026, 3, 1, 14, 0, 0, 123456),
                     "due": date(2026, 3, 1), "attrs": '{"qty": 2, "sku": "A-1"}',
                     "ref": "6f1c2b8e-3c55-4c1a-9a57-0e0c7f3e9a01", "note": "first order"}
    assert decoded[1].values["amount"] == Decimal("-12.50")  # two's complement
    assert decoded[1].values["placed_at"] == datetime(2026, 3, 1, 18, 0, tzinfo=UTC)  # written 23:30+05:30
    pre_1970 = decoded[2].values
    assert pre_1970["local_time"] == datetime(1969, 12, 31, 23, 59, 59, 999000)
    assert pre_1970["created_local"] == datetime(1969, 12, 31, 23, 59, 59, 999999) and pre_1970["due"] == date(1969, 12, 31)
    assert decoded[6].values == {"id": 3}, "a delete's key only: the filler zero of the NOT NULL amount is not read"
    # The last two are interleaved transactions: LSNs go backwards in topic order, source order does not.
    assert decoded[9].position > decoded[8].position
    table = _replay(decoded)
    assert sorted(table) == [1, 2]
    assert {k: {c: table[k][c] for c in ("amount", "note")} for k in table} == FINAL


def _envelope(op: str, after: dict | None, before: dict | None, source: dict, ts_ms: int = 1465491411815) -> str:
    return json.dumps({"before": before, "after": after, "source": source, "op": op, "ts_ms": ts_ms})


CUSTOMERS = tuple(TargetColumn.of(*c) for c in [("id", "INT", True), ("first_name", "STRING", False),
                                                ("last_name", "STRING", False), ("email", "STRING", False)])
ANNE = {"id": 1004, "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"}


def _mysql(file: str, pos: int, row: int = 0) -> dict:
    return {"version": "3.0.0.Final", "connector": "mysql", "name": "mysql-server-1", "ts_ms": 1465491411000,
            "snapshot": "false", "db": "inventory", "table": "customers", "server_id": 223344, "gtid": None,
            "file": file, "pos": pos, "row": row, "thread": 7, "query": None}


def test_mysql_binlog_positions_order_changes_across_binlog_files():
    """Debezium's MySQL documentation: create, update and delete of customers 1004; the delete lands in the next
    binlog file at a smaller position, and still comes last."""
    decoder = ChangeDecoder(CUSTOMERS, ("id",), CdcConfig())
    create = decoder.decode(_envelope("c", ANNE, None, _mysql("mysql-bin.000003", 154)))
    update = decoder.decode(_envelope("u", {**ANNE, "first_name": "Anne Marie"}, ANNE, _mysql("mysql-bin.000003", 484)))
    delete = decoder.decode(_envelope("d", None, {**ANNE, "first_name": "Anne Marie"}, _mysql("mysql-bin.000004", 4)))
    same_event = decoder.decode(_envelope("u", {**ANNE, "email": "b@x"}, ANNE, _mysql("mysql-bin.000003", 484, row=1)))

    assert create.values == ANNE and update.values["first_name"] == "Anne Marie" and delete.values == {"id": 1004}
    assert create.position < update.position < same_event.position < delete.position
    bad = decoder.decode(_envelope("c", ANNE, None, {**_mysql("mysql-bin.000003", 154), "file": None}))
    assert bad.kind == "invalid" and bad.reason.startswith("field source.file: expected a binlog file name")


def _sqlserver(change_lsn: str | None, commit_lsn: str, serial: str | None = "1") -> dict:
    return {"version": "3.0.0.Final", "connector": "sqlserver", "name": "server1", "ts_ms": 1559729468470,
            "snapshot": "false", "db": "testDB", "schema": "dbo", "table": "customers", "change_lsn": change_lsn,
            "commit_lsn": commit_lsn, "event_serial_no": serial}


def test_sql_server_lsns_order_by_commit_then_change_then_serial():
    """Debezium's SQL Server documentation: LSNs are hex strings; snapshot records have no change_lsn."""
    decoder = ChangeDecoder(CUSTOMERS, ("id",), CdcConfig())
    snapshot = decoder.decode(_envelope("r", ANNE, None, _sqlserver(None, "00000021:00000358:0001", None)))
    create = decoder.decode(_envelope("c", ANNE, None, _sqlserver("00000027:00000758:0003", "00000027:00000758:0005")))
    # An update is two events of one change LSN (event_serial_no 1 and 2) in Debezium's SQL Server connector.
    update = decoder.decode(_envelope("u", {**ANNE, "email": "n@x"}, ANNE,
                                      _sqlserver("00000028:00000f10:0002", "00000028:00000f10:0003", "2")))
    delete = decoder.decode(_envelope("d", None, ANNE, _sqlserver("00000028:00000f90:0002", "00000028:00000f90:0005")))
    # Written first, committed later: a smaller change LSN but a larger commit LSN than the delete.
    late = decoder.decode(_envelope("u", ANNE, None, _sqlserver("00000028:00000a00:0002", "00000029:00000010:0001")))

    assert [d.kind for d in (snapshot, create, update, delete, late)] == ["change"] * 5
    assert snapshot.position < create.position < update.position < delete.position < late.position
    bad = decoder.decode(_envelope("c", ANNE, None, _sqlserver("00000027:00000758:0003", "0000zz27:1")))
    assert bad.reason == 'field source.commit_lsn: expected an LSN such as 00000025:00000d98:0002, got "0000zz27:1"'


def _field(name: str, kind: str, logical: str | None = None, **parameters) -> dict:
    field = {"field": name, "type": kind, "optional": True}
    if logical:
        field["name"] = logical
    if parameters:
        field["parameters"] = {k: str(v) for k, v in parameters.items()}
    return field


def _with_schema(fields: list[dict], payload: dict) -> str:
    image = {"type": "struct", "fields": fields, "optional": True, "name": "x.Value"}
    schema = {"type": "struct", "name": "x.Envelope", "fields": [{**image, "field": "before"}, {**image, "field": "after"},
                                                                 {"type": "struct", "field": "source", "fields": []}]}
    return json.dumps({"schema": schema, "payload": payload})


def _unscaled(value: int, width: int = 4) -> str:
    return base64.b64encode(value.to_bytes(width, "big", signed=True)).decode()


def test_every_logical_type_a_column_can_hold():
    columns = tuple(TargetColumn.of(*c) for c in [
        ("id", "BIGINT", True), ("price", "DECIMAL(10, 2)", False), ("ratio", "DECIMAL(20, 5)", False),
        ("born", "DATE", False), ("at_millis", "TIMESTAMP_NTZ", False), ("at_nanos", "TIMESTAMP_NTZ", False),
        ("zoned", "TIMESTAMP", False), ("t_millis", "BIGINT", False), ("t_micros", "BIGINT", False),
        ("t_nanos", "STRING", False), ("doc", "STRING", False), ("uid", "STRING", False), ("flag", "BOOLEAN", False),
        ("blob", "BINARY", False), ("tags", "ARRAY<STRING>", False), ("money", "DECIMAL(19, 4)", False)])
    fields = [
        _field("id", "int64"), _field("price", "bytes", "org.apache.kafka.connect.data.Decimal", scale=2),
        _field("ratio", "struct", "io.debezium.data.VariableScaleDecimal"), _field("born", "int32", "io.debezium.time.Date"),
        _field("at_millis", "int64", "io.debezium.time.Timestamp"), _field("at_nanos", "int64", "io.debezium.time.NanoTimestamp"),
        _field("zoned", "string", "io.debezium.time.ZonedTimestamp"), _field("t_millis", "int32", "io.debezium.time.Time"),
        _field("t_micros", "int64", "io.debezium.time.MicroTime"), _field("t_nanos", "int64", "io.debezium.time.NanoTime"),
        _field("doc", "string", "io.debezium.data.Json"), _field("uid", "string", "io.debezium.data.Uuid"),
        _field("flag", "boolean"), _field("blob", "bytes"), {"field": "tags", "type": "array", "items": {"type": "string"}},
        _field("money", "bytes", "org.apache.kafka.connect.data.Decimal", scale=4)]
    after = {"id": 7, "price": _unscaled(-1999), "ratio": {"scale": 3, "value": _unscaled(12345)}, "born": -365,
             "at_millis": 1772373600123, "at_nanos": 1772373600123456789,
             "zoned": "2026-03-01T12:00:00.1234567+02:00", "t_millis": 3_600_000, "t_micros": 45_296_000_001,
             "t_nanos": 45_296_000_001_000, "doc": '{"a": [1, 2]}', "uid": "0b8e9f4a-7d2c-4e61-8f3b-5a9c1d2e3f40",
             "flag": True, "blob": base64.b64encode(b"\x00\xff").decode(), "tags": ["a", "b"],
             "money": _unscaled(123_4567, 8)}
    source = {"connector": "sqlserver", "change_lsn": "00000027:00000758:0003", "commit_lsn": "00000027:00000758:0005"}
    decoded = ChangeDecoder(columns, ("id",), CdcConfig()).decode(
        _with_schema(fields, {"op": "c", "before": None, "after": after, "source": source, "ts_ms": 1}))

    assert decoded.reason is None
    assert decoded.values == {
        "id": 7, "price": Decimal("-19.99"), "ratio": Decimal("12.34500"), "born": date(1969, 1, 1),
        "at_millis": datetime(2026, 3, 1, 14, 0, 0, 123000), "at_nanos": datetime(2026, 3, 1, 14, 0, 0, 123456),
        "zoned": datetime(2026, 3, 1, 10, 0, 0, 123456, tzinfo=UTC), "t_millis": 3_600_000_000, "t_micros": 45_296_000_001,
        "t_nanos": "12:34:56.000001", "doc": '{"a": [1, 2]}', "uid": "0b8e9f4a-7d2c-4e61-8f3b-5a9c1d2e3f40", "flag": True,
        "blob": b"\x00\xff", "tags": ["a", "b"], "money": Decimal("123.4567")}


@pytest.mark.parametrize("mode, encoded, expected", [
    ("precise", "B88=", Decimal("19.99")), ("string", "19.99", Decimal("19.99")), ("double", 19.99, Decimal("19.99")),
    ("string", "-0.50", Decimal("-0.50"))])
def test_schemaless_decimals_follow_the_connectors_decimal_handling_mode(mode, encoded, expected):
    columns = (TargetColumn.of("id", "BIGINT", True), TargetColumn.of("amount", "DECIMAL(12, 2)", False))
    line = _envelope("c", {"id": 1, "amount": encoded}, None, {"connector": "postgresql", "lsn": 5})
    assert ChangeDecoder(columns, ("id",), CdcConfig(decimal_handling_mode=mode)).decode(line).values["amount"] == expected


def test_schemaless_timestamps_take_the_mode_or_the_columns_unit():
    columns = (TargetColumn.of("id", "BIGINT", True), TargetColumn.of("at", "TIMESTAMP_NTZ", False))
    line = _envelope("c", {"id": 1, "at": 1772373600123}, None, {"connector": "postgresql", "lsn": 5})
    as_millis = datetime(2026, 3, 1, 14, 0, 0, 123000)
    assert ChangeDecoder(columns, ("id",), CdcConfig(time_precision_mode="connect")).decode(line).values["at"] == as_millis
    assert ChangeDecoder(columns, ("id",), CdcConfig(temporal_units={"at": "millis"})).decode(line).values["at"] == as_millis
    assert ChangeDecoder(columns, ("id",), CdcConfig()).decode(line).values["at"].year == 1970  # micros: what it says


@pytest.mark.parametrize("line, kind", [
    (None, "tombstone"), ("null", "tombstone"), ("", "tombstone"),
    ('{"schema": {"type": "struct", "name": "shop.public.orders.Key", "fields": []}, "payload": {"id": 3}}', "key"),
    ('{"id": 3}', "key"),
    ('{"status": "BEGIN", "id": "571:53195829", "event_count": null, "data_collections": null, "ts_ms": 1}', "transaction"),
    ('{"status": "END", "id": "571:53195829", "event_count": 2, "data_collections": [], "ts_ms": 1}', "transaction"),
    ('{"ts_ms": 1588252618953}', "heartbeat"),
    ('{"key": {"id": 3}, "value": null, "topic": "shop.public.orders", "partition": 0, "offset": 7}', "tombstone"),
])
def test_records_that_change_no_row_are_counted_and_skipped(line, kind):
    decoded = ChangeDecoder(ORDERS, ("id",), CdcConfig()).decode(line)
    assert decoded.kind == kind and decoded.reason is None


@pytest.mark.parametrize("line, reason", [
    ("not json", "malformed JSON: not a parseable JSON document"),
    ("[1, 2]", "not a change event: expected a JSON object, got [1, 2]"),
    ('{"after": {"id": 1}}', "missing required field op"),
    (_envelope("x", {"id": 1}, None, {"lsn": 1}), 'field op: expected one of c, u, d, r, t, got "x"'),
    (_envelope("c", {"id": 1, "amount": "12.5"}, None, {"connector": "postgresql", "lsn": 1}),
     'field after.amount: cannot read "12.5" as DECIMAL(12, 2): not base64 bytes'),
    (_envelope("c", {"id": None, "amount": "AA=="}, None, {"lsn": 1}), "missing key field after.id (got null)"),
    (_envelope("c", {"id": 1, "amount": "AA==", "due": "tomorrow"}, None, {"lsn": 1}),
     'field after.due: cannot read "tomorrow" as DATE: not an ISO-8601 date'),
    (_envelope("c", {"id": 1, "amount": "AA==", "channel": "web"}, None, {"lsn": 1}),
     'field after.channel: the table has no column channel (value "web")'),
    (_envelope("d", None, None, {"lsn": 1}), "op d without a before image"),
    (_envelope("u", {"id": 1}, None, {"connector": "mongodb", "ord": 1}), 'field source.connector: "mongodb" has no position'),
    (_envelope("u", {"id": 1}, None, {"connector": "postgresql", "lsn": "x1"}),
     'field source.lsn: expected an integer position, got "x1"'),
])
def test_what_cannot_be_applied_names_the_field_and_the_value(line, reason):
    decoded = ChangeDecoder(ORDERS, ("id",), CdcConfig()).decode(line)
    assert decoded.kind == "invalid" and decoded.reason.startswith(reason), decoded.reason


def test_unknown_fields_by_policy_and_truncates():
    line = _envelope("c", {"id": 1, "amount": "AA==", "channel": "web", "qty": 3}, None, {"lsn": 1})
    assert ChangeDecoder(ORDERS, ("id",), CdcConfig(), "ignore").decode(line).kind == "change"
    evolving = ChangeDecoder(ORDERS, ("id",), CdcConfig(), "add_columns").decode(line)
    assert evolving.kind == "change" and evolving.new_fields == (("channel", "STRING"), ("qty", "BIGINT"))
    truncate = ChangeDecoder(ORDERS, ("id",), CdcConfig()).decode(_envelope(
        "t", None, None, {"connector": "postgresql", "lsn": 9, "schema": "public", "table": "orders"}))
    assert (truncate.kind, truncate.op, truncate.reason) == ("truncate", "t", "op t: truncate of public.orders")


def _oracle(scn: str, commit_scn: str | None, snapshot: str = "false", tx: str | None = "6.28.807") -> dict:
    """The source block of Debezium's Oracle connector (LogMiner) as its documentation shows it: SCNs as strings."""
    return {"version": "3.0.0.Final", "connector": "oracle", "name": "server1", "ts_ms": 1520085154000,
            "snapshot": snapshot, "db": "ORCLPDB1", "sequence": None, "schema": "INVENTORY", "table": "CUSTOMERS",
            "txId": tx, "scn": scn, "commit_scn": commit_scn, "lcr_position": None, "rs_id": "001234.00012345.0124",
            "ssn": 0, "redo_thread": 1, "user_name": "DEBEZIUM", "row_id": "AAASgjAAMAAAACnAAA"}


ORACLE_CUSTOMERS = tuple(TargetColumn.of(*c) for c in [("ID", "INT", True), ("FIRST_NAME", "STRING", False),
                                                       ("LAST_NAME", "STRING", False), ("EMAIL", "STRING", False)])
ORACLE_ANNE = {"ID": 1004, "FIRST_NAME": "Anne", "LAST_NAME": "Kretchmar", "EMAIL": "annek@noanswer.org"}


def test_oracle_scns_order_by_commit_scn_then_scn():
    """A snapshot row (no commit SCN), then transaction A changes the row first (smaller SCN) but commits after
    transaction B (larger commit SCN): A's change is the later one. Two changes in one transaction share the commit
    SCN and go by their own SCN; SCNs past 2^53 stay exact (strings, never floats)."""
    decoder = ChangeDecoder(ORACLE_CUSTOMERS, ("ID",), CdcConfig())

    def change(op: str, after: dict | None, source: dict) -> object:
        return decoder.decode(_envelope(op, after, None if op != "d" else ORACLE_ANNE, source))

    snapshot = change("r", ORACLE_ANNE, _oracle("2122184", None, snapshot="true", tx=None))
    a = change("u", {**ORACLE_ANNE, "EMAIL": "a@x"}, _oracle("2122200", "2122300"))
    b = change("u", {**ORACLE_ANNE, "EMAIL": "b@x"}, _oracle("2122250", "2122260"))
    first = change("u", {**ORACLE_ANNE, "LAST_NAME": "K1"}, _oracle("9007199254740992", "9007199254740995"))
    second = change("d", None, _oracle("9007199254740993", "9007199254740995"))

    assert [d.kind for d in (snapshot, a, b, first, second)] == ["change"] * 5
    in_order = sorted([second, a, first, snapshot, b], key=lambda d: d.position)
    assert in_order == [snapshot, b, a, first, second]
    assert _replay([b, second, snapshot, a, first], "ID") == {}, "the delete, last by SCN, wins"
    assert _replay([b, snapshot, a], "ID") == {1004: {**ORACLE_ANNE, "EMAIL": "a@x"}}
    bad = change("u", ORACLE_ANNE, _oracle("0x1f", None))
    assert bad.reason == 'field source.scn: expected an integer position, got "0x1f"'
