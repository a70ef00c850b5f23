"""What Debezium 3.6's PostgreSQL connector really emits through Kafka Connect with its default converter settings.

The workload (tests/servers/cdc_workload.py) runs against the shared PostgreSQL, and these tests assert
on the records read back from Kafka: the envelope, the ops, each logical type's encoding, the
key-only `before` of a delete, the tombstone, and positions. Values that surprise are explained.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from tests.servers.capture import capture_workload
from tests.servers.connect import KafkaConnect
from tests.servers.postgres import PostgresServer

OPS = ["r", "r", "c", "u", "u", "u", "d", None, "u", "u"]  # None: the tombstone
KEYS = [1, 2, 3, 1, 2, 2, 3, 3, 2, 1]
VALUE_COLUMNS = ["id", "amount", "placed_at", "local_time", "created_local", "due", "attrs", "ref", "note"]


def decimal_of(encoded: str, scale: int) -> Decimal:
    """Kafka Connect's Decimal: the unscaled value as big-endian two's complement bytes, base64 in JSON."""
    return Decimal(int.from_bytes(base64.b64decode(encoded), "big", signed=True)).scaleb(-scale)


def epoch_millis(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def field_schemas(value_schema: dict[str, Any], envelope_field: str) -> dict[str, dict[str, Any]]:
    struct = next(f for f in value_schema["fields"] if f["field"] == envelope_field)
    return {f["field"]: f for f in struct["fields"]}


def sequence_of(source: dict[str, Any]) -> tuple[int, int]:
    """source.sequence is a JSON string: [last commit LSN or null, this change's LSN], both as strings."""
    previous, current = json.loads(source["sequence"])
    return (-1 if previous is None else int(previous), int(current))


def test_default_converter_shape_and_values(kafka_connect: KafkaConnect, postgres_server: PostgresServer,
                                            postgres_database: str) -> None:
    records = capture_workload(kafka_connect, postgres_server, postgres_database)

    assert len(records) == 10
    assert [r["offset"] for r in records] == list(range(10)) and {r["partition"] for r in records} == {0}
    # Keys are JsonConverter envelopes too: schema + payload, the payload holding the primary key.
    assert all(set(r["key"]) == {"schema", "payload"} for r in records)
    assert [r["key"]["payload"]["id"] for r in records] == KEYS
    assert records[0]["key"]["schema"]["fields"] == [{"type": "int64", "optional": False, "field": "id"}]

    tombstone = records[7]
    assert tombstone["value"] is None  # after each delete: same key, null value (tombstones.on.delete defaults to true)
    events = [r for r in records if r["value"] is not None]
    assert all(set(r["value"]) == {"schema", "payload"} for r in events)
    payloads = [r["value"]["payload"] for r in events]
    assert [p["op"] for p in payloads] == [op for op in OPS if op is not None]

    # The schema part names each column's logical type; decimals carry their scale only here.
    schema = events[0]["value"]["schema"]
    assert schema["name"].endswith(".public.orders.Envelope")
    after = field_schemas(schema, "after")
    assert list(after) == VALUE_COLUMNS
    assert after["amount"] == {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                               "parameters": {"scale": "2", "connect.decimal.precision": "12"}, "field": "amount"}
    logical = {name: (f["type"], f.get("name")) for name, f in after.items()}
    assert logical == {
        "id": ("int64", None),
        "amount": ("bytes", "org.apache.kafka.connect.data.Decimal"),
        "placed_at": ("string", "io.debezium.time.ZonedTimestamp"),
        # time.precision.mode=adaptive (the default): timestamp(3) is millis, timestamp(6) micros.
        "local_time": ("int64", "io.debezium.time.Timestamp"),
        "created_local": ("int64", "io.debezium.time.MicroTimestamp"),
        "due": ("int32", "io.debezium.time.Date"),
        "attrs": ("string", "io.debezium.data.Json"),
        "ref": ("string", "io.debezium.data.Uuid"),
        "note": ("string", None),
    }

    snapshot_1, snapshot_2, insert_3 = (p["after"] for p in payloads[:3])
    assert decimal_of(snapshot_1["amount"], 2) == Decimal("19.99")
    assert snapshot_2["amount"] == "+x4=" and decimal_of(snapshot_2["amount"], 2) == Decimal("-12.50")  # two's complement
    assert decimal_of(insert_3["amount"], 2) == Decimal("1234567890.12")
    # timestamptz: an ISO string always normalized to UTC ("Z") with six fraction digits, whatever offset was written.
    assert snapshot_1["placed_at"] == "2026-03-01T12:00:00.123456Z"
    assert snapshot_2["placed_at"] == "2026-03-01T18:00:00.000000Z"  # written as 23:30:00+05:30
    # timestamp without time zone: the wall-clock reading as if it were UTC, in epoch millis (3) or micros (6).
    assert snapshot_1["local_time"] == epoch_millis("2026-03-01 14:00:00.123") == 1772373600123
    assert snapshot_1["created_local"] == 1772373600123456
    assert snapshot_2["created_local"] is None
    assert insert_3["local_time"] == -1 and insert_3["created_local"] == -1  # 1969-12-31 23:59:59.999(999): negative
    assert snapshot_1["due"] == (date(2026, 3, 1) - date(1970, 1, 1)).days == 20513 and insert_3["due"] == -1
    # jsonb arrives as text in jsonb's own normal form: keys reordered (shorter first) and spaced, not as inserted.
    assert snapshot_1["attrs"] == '{"qty": 2, "sku": "A-1"}'
    assert snapshot_2["attrs"] == "[]" and insert_3["attrs"] is None
    assert snapshot_1["ref"] == "6f1c2b8e-3c55-4c1a-9a57-0e0c7f3e9a01"
    assert insert_3["note"] == "ünïcode ✓"

    sources = [p["source"] for p in payloads]
    assert all(s["connector"] == "postgresql" and s["version"] == "3.6.1.Final" and s["db"] == postgres_database
               and s["schema"] == "public" and s["table"] == "orders" and isinstance(s["lsn"], int) for s in sources)
    # source.snapshot is a string enum, not a boolean: "first"/"last" (or "true" between) in the snapshot, "false" after.
    assert [s["snapshot"] for s in sources] == ["first", "last"] + ["false"] * 7
    # Every snapshot record carries the snapshot's one position (same LSN and transaction), before any streamed change.
    assert sources[0]["lsn"] == sources[1]["lsn"] < sources[2]["lsn"] and sources[0]["txId"] == sources[1]["txId"]
    assert all(p["transaction"] is None for p in payloads)  # provide.transaction.metadata is off by default

    # REPLICA IDENTITY DEFAULT: updates carry no before image at all.
    assert all(p["before"] is None for p in payloads if p["op"] in ("r", "c", "u"))
    update_1, update_2a, update_2b = payloads[3:6]
    assert decimal_of(update_1["after"]["amount"], 2) == Decimal("21.00")
    assert (update_2a["after"]["note"], update_2b["after"]["note"]) == ("changed once", "changed twice")
    assert update_2a["source"]["txId"] == update_2b["source"]["txId"] and update_2a["source"]["lsn"] < update_2b["source"]["lsn"]

    delete = payloads[6]
    assert delete["after"] is None
    # A delete's before holds the key's real value only. The NOT NULL decimal gets a filler 0 ("AA=="), the nullable
    # columns null: neither is the deleted row's data.
    assert delete["before"] == {"id": 3, "amount": "AA==", "placed_at": None, "local_time": None, "created_local": None,
                                "due": None, "attrs": None, "ref": None, "note": None}

    # Interleaved transactions: B wrote after A but committed first, and is emitted first. So source.lsn goes
    # backwards in topic order; the first element of source.sequence does not.
    committed_first, committed_last = payloads[7], payloads[8]
    assert committed_first["after"]["note"] == "written last, committed first"
    assert committed_last["after"]["note"] == "written first, committed last"
    assert committed_last["source"]["lsn"] < committed_first["source"]["lsn"]
    streamed = [sequence_of(s) for s in sources[2:]]
    assert [current for _, current in streamed] == [s["lsn"] for s in sources[2:]]
    assert [previous for previous, _ in streamed] == sorted(previous for previous, _ in streamed)
    # Per key the LSNs still increase: a second writer of a row waits for the first one's commit.
    for key in (1, 2, 3):
        lsns = [p["source"]["lsn"] for p, k in zip(payloads, [k for k, op in zip(KEYS, OPS, strict=True) if op], strict=True)
                if k == key]
        assert lsns == sorted(lsns)


def test_schemaless_converter_shape(kafka_connect: KafkaConnect, postgres_server: PostgresServer,
                                    postgres_database: str) -> None:
    records = capture_workload(kafka_connect, postgres_server, postgres_database, schemas_enable=False)

    assert [r["key"] for r in records] == [{"id": k} for k in KEYS]  # the bare key, no envelope
    assert records[7]["value"] is None  # the tombstone
    payloads = [r["value"] for r in records if r["value"] is not None]
    assert all(set(p) == {"before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"} for p in payloads)
    assert [p["op"] for p in payloads] == [op for op in OPS if op is not None]
    # Same encodings, but nothing in the record says that "B88=" is a decimal of scale 2, or that 1772373600123 is
    # in millis: a reader needs the target column's type (and the connector's decimal and time modes) to decode them.
    first = payloads[0]["after"]
    assert first["amount"] == "B88=" and decimal_of(first["amount"], 2) == Decimal("19.99")
    assert first["local_time"] == 1772373600123 and first["created_local"] == 1772373600123456
    assert payloads[6]["before"]["amount"] == "AA=="
