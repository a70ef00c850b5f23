"""Debezium's unavailable-value placeholder (an unchanged TOASTed PostgreSQL value under the default replica identity)
is recognised in every form the connector sends it, per column kind, and marked instead of written."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from lakeops.cdc.decode import ChangeDecoder, TargetColumn
from lakeops.cdc.sql import merge_sql
from lakeops.config.sources import CdcConfig
from lakeops.exceptions import ConfigError

PLACEHOLDER = "__debezium_unavailable_value"
COLUMNS = tuple(TargetColumn.of(*c) for c in [
    ("id", "BIGINT", True), ("body", "STRING", True), ("doc", "STRING", False), ("blob", "BINARY", False),
    ("tags", "ARRAY<STRING>", False), ("scores", "ARRAY<INT>", False), ("note", "STRING", False)])
SOURCE = {"connector": "postgresql", "lsn": 24023128, "sequence": '["24023064","24023128"]', "schema": "public",
          "table": "docs"}


def _field(name: str, kind: str, logical: str | None = None, **extra) -> dict:
    return {"field": name, "type": kind, "optional": name != "id", **({"name": logical} if logical else {}), **extra}


FIELDS = [_field("id", "int64"), _field("body", "string"), _field("doc", "string", "io.debezium.data.Json"),
          _field("blob", "bytes"), _field("tags", "array", items={"type": "string", "optional": True}),
          _field("scores", "array", items={"type": "int32", "optional": True}), _field("note", "string")]


def _event(after: dict, op: str = "u", before: dict | None = None, schema: bool = True) -> str:
    payload = {"before": before, "after": after, "source": SOURCE, "op": op, "ts_ms": 1764000000000}
    if not schema:
        return json.dumps(payload)
    image = {"type": "struct", "fields": FIELDS, "optional": True, "name": "pg.public.docs.Value"}
    envelope = {"type": "struct", "name": "pg.public.docs.Envelope",
                "fields": [{**image, "field": "before"}, {**image, "field": "after"},
                           {"type": "struct", "field": "source", "fields": []}]}
    return json.dumps({"schema": envelope, "payload": payload})


# What Debezium 3's PostgreSQL connector sends for each kind of unchanged TOASTed column (UnchangedToastedPlaceholder).
UNSENT = {"body": PLACEHOLDER, "doc": PLACEHOLDER, "blob": base64.b64encode(PLACEHOLDER.encode()).decode(),
          "tags": [PLACEHOLDER], "scores": list(PLACEHOLDER.encode())}


@pytest.mark.parametrize("schema", [True, False], ids=["schema+payload", "schemaless"])
def test_an_update_that_left_toasted_columns_alone_marks_them_unavailable(schema):
    decoded = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(_event({"id": 7, **UNSENT, "note": "changed"},
                                                                        schema=schema))

    assert decoded.kind == "change" and decoded.reason is None
    assert decoded.unavailable == ("body", "doc", "blob", "tags", "scores")
    assert decoded.values == {"id": 7, "body": None, "doc": None, "blob": None, "tags": None, "scores": None,
                              "note": "changed"}, "the placeholder is never a value (the required body included)"


def test_real_values_and_lookalikes_are_values():
    after = {"id": 7, "body": PLACEHOLDER + " ", "doc": '{"a": 1}', "blob": base64.b64encode(b"\x00\x01").decode(),
             "tags": [PLACEHOLDER, "x"], "scores": [1, 2], "note": base64.b64encode(PLACEHOLDER.encode()).decode()}
    decoded = ChangeDecoder(COLUMNS, ("id",), CdcConfig()).decode(_event(after))

    assert decoded.unavailable == ()
    assert decoded.values["blob"] == b"\x00\x01" and decoded.values["tags"] == [PLACEHOLDER, "x"]
    assert decoded.values["note"] == after["note"], "base64 of the placeholder in a text column is text"


def test_the_connectors_own_placeholder_and_binary_mode():
    settings = CdcConfig(unavailable_value_placeholder="hex:00ff", binary_handling_mode="hex")
    after = {"id": 1, "body": "x", "doc": "\x00\ufffd", "blob": "00ff", "tags": None, "scores": [0, -1], "note": None}
    decoded = ChangeDecoder(COLUMNS, ("id",), settings).decode(_event(after, schema=False))

    assert decoded.unavailable == ("doc", "blob", "scores")
    assert ChangeDecoder(COLUMNS, ("id",), settings).decode(
        _event({**after, "body": PLACEHOLDER}, schema=False)).values["body"] == PLACEHOLDER


def test_deletes_and_keys_never_carry_the_mark():
    decoder = ChangeDecoder(COLUMNS, ("id",), CdcConfig())
    delete = decoder.decode(_event(None, "d", before={"id": 7, "body": PLACEHOLDER}))
    assert delete.kind == "change" and delete.unavailable == () and delete.values == {"id": 7}
    keyless = decoder.decode(_event({"id": PLACEHOLDER, "body": "x"}, schema=False))
    assert keyless.kind == "invalid" and keyless.reason.startswith('field after.id: cannot read "__debezium_unavailable')


@pytest.mark.parametrize("value", ["", "hex:0", "hex:zz"])
def test_a_placeholder_setting_that_cannot_be_the_connectors_is_refused(value):
    with pytest.raises(ConfigError, match=r"ingest.cdc.unavailable_value_placeholder: .* e\.g\. "):
        CdcConfig(unavailable_value_placeholder=value)


def test_the_merge_keeps_the_stored_value_of_an_unavailable_column():
    sql = merge_sql("c.s.docs", "v", ("id", "body", "note"), ("id",), keep_unavailable=True)

    assert ("WHEN MATCHED THEN UPDATE SET t.`body` = CASE WHEN array_contains(s._unavailable, 'body') THEN t.`body` "
            "ELSE s.`body` END, t.`note` = CASE WHEN array_contains(s._unavailable, 'note') THEN t.`note` ELSE s.`note` END"
            ) in sql
    assert "VALUES (s.`id`, s.`body`, s.`note`)" in sql
    assert "array_contains" not in merge_sql("c.s.docs", "v", ("id", "body"), ("id",))


FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "debezium" / "postgres_toast.jsonl"
DOCS = tuple(TargetColumn.of(*c) for c in [("id", "BIGINT", True), ("qty", "INT", False), ("body", "STRING", False),
                                           ("blob", "BINARY", False), ("tags", "ARRAY<STRING>", False)])


def test_a_real_capture_of_toasted_columns_a_dropped_column_and_a_type_change():
    """tests/servers/toast_workload.py through Debezium 3.6 with its default converter: the snapshot row and the
    insert carry every value; the updates that left TOASTed values alone carry the placeholder (text, bytea and a
    text array); after DROP COLUMN tags the field is gone (null, not unsent); after ALTER COLUMN qty TYPE text the
    schema part says string and the change is quarantined."""
    from tests.servers import toast_workload as workload

    decoded = [ChangeDecoder(DOCS, ("id",), CdcConfig(), "ignore").decode(line)
               for line in FIXTURE.read_text().splitlines()]

    assert [(d.kind, d.op) for d in decoded] == [("change", "r"), ("change", "c")] + [("change", "u")] * 3 + [
        ("invalid", None)]
    snapshot, insert, first, second, dropped, _ = decoded
    assert snapshot.values == {"id": 1, "qty": 1, "body": workload.body(1), "blob": workload.blob(1),
                               "tags": workload.tags(1)} and snapshot.unavailable == ()
    assert insert.values["body"] == workload.body(2) and insert.unavailable == ()
    assert (first.values["qty"], first.unavailable) == (10, ("body", "blob", "tags"))
    assert (second.values["body"], second.unavailable) == ("short now", ("blob", "tags"))
    assert (dropped.values["qty"], dropped.values["tags"], dropped.unavailable) == (11, None, ("body", "blob"))
    assert decoded[-1].reason.startswith('field after.qty: the source sends string (value "four") where column qty is '
                                         "INT, a type change Iceberg cannot widen the column to")
