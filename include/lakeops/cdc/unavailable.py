"""Values the source did not send: Debezium's unavailable-value placeholder. Pure.

PostgreSQL logs an UPDATE's new row without the out-of-line (TOASTed) values it did not change, unless the table's
replica identity is FULL; Debezium's PostgreSQL connector then sends its `unavailable.value.placeholder`
(`__debezium_unavailable_value` by default) in the after image: the text for a text, jsonb or xml column, the
placeholder's bytes for a bytea column (base64 in JSON, or hex, by binary.handling.mode), a one-item list for a
text array and the placeholder's bytes as numbers for an integer array. Such a column keeps the value the table
already holds (the MERGE sets it from the target row), or the value an earlier change of the same batch gave it."""

from __future__ import annotations

import base64
from typing import Any

from lakeops.cdc.sqltype import SqlType


class Placeholder:
    """The JSON forms the connector's placeholder takes, by the kind of column."""

    def __init__(self, raw: bytes) -> None:
        self.text = raw.decode("utf-8", errors="replace")
        self.encoded = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode(), raw.hex(), raw.hex().upper()}
        self.lists: tuple[list[Any], ...] = ([self.text], list(raw), [b - 256 if b > 127 else b for b in raw])

    def matches(self, raw: Any, schema: dict[str, Any] | None, column: SqlType) -> bool:
        """Whether `raw`, a value of the after image, is the placeholder rather than the column's value."""
        if isinstance(raw, str):
            if raw == self.text:
                return True
            binary = column.name == "BINARY" or (schema is not None and schema.get("type") == "bytes"
                                                 and not schema.get("name"))
            return binary and raw in self.encoded
        if isinstance(raw, list):
            return any(raw == form for form in self.lists)
        return False


def orphan_reason(table: str, placeholder: str) -> tuple[str, str]:
    """The quarantine reason of a change whose columns hold the placeholder while the table holds no row of its key
    (an insert cannot keep a value that was never stored): the text before and after the list of those columns."""
    return ("field ", f": the source sent Debezium's unavailable-value placeholder ({placeholder}: an unchanged "
                      f"TOASTed value it did not log) and {table or 'the table'} holds no row of this key to keep the "
                      "value from; give the source table REPLICA IDENTITY FULL, or re-snapshot it")
