"""lakeops.ingest.evolve and lakeops.cdc.sql: the columns a drifting batch adds or widens, and the MERGE of a batch
with an applied truncate."""

from __future__ import annotations

from lakeops.cdc.sql import merge_sql
from lakeops.ingest.evolve import ColumnChange, plan_column_changes, variant_sql_type
from lakeops.tables.live import LiveColumn

COLUMNS = (LiveColumn(1, "id", "BIGINT", True), LiveColumn(2, "qty", "INT", False),
           LiveColumn(3, "amount", "DECIMAL(12, 2)", False), LiveColumn(4, "note", "STRING", False))


def test_new_fields_are_added_and_widenable_types_widened():
    observed = [("channel", "STRING"), ("qty", "BIGINT"), ("amount", "DECIMAL(14, 2)"), ("amount", "DECIMAL(12, 4)"),
                ("note", "BIGINT"), ("score", "BIGINT"), ("score", "DOUBLE"), ("bad name!", "STRING"), ("id", "BIGINT")]
    assert plan_column_changes(COLUMNS, observed) == [
        ColumnChange("amount", "DECIMAL(14, 2)", "widen"), ColumnChange("channel", "STRING", "add"),
        ColumnChange("qty", "BIGINT", "widen"), ColumnChange("score", "DOUBLE", "add")]
    assert ColumnChange("channel", "STRING", "add").sql("c.s.t") == "ALTER TABLE c.s.t ADD COLUMN `channel` STRING"
    assert ColumnChange("qty", "BIGINT", "widen").sql("c.s.t") == "ALTER TABLE c.s.t ALTER COLUMN `qty` TYPE BIGINT"


def test_json_value_types_become_column_types():
    assert [variant_sql_type(t) for t in ("BIGINT", "DECIMAL(3,2)", "BOOLEAN", "STRING", "OBJECT<a: BIGINT>", "VOID", None)] \
        == ["BIGINT", "DOUBLE", "BOOLEAN", "STRING", "STRING", None, None]


def test_a_batch_with_an_applied_truncate_deletes_every_row_it_does_not_name():
    sql = merge_sql("c.s.t", "v", ("id", "note"), ("id",), truncate=True)
    assert sql.endswith("WHEN NOT MATCHED BY SOURCE THEN DELETE")
    assert "NOT MATCHED BY SOURCE" not in merge_sql("c.s.t", "v", ("id", "note"), ("id",))


def test_json_paths_name_the_top_level_field_they_read():
    from lakeops.config import IngestConfig
    from lakeops.spark.events_parse import column_path, known_roots, path_root

    ingest = IngestConfig(fields={"user_id": "$.user.id", "city": "$['geo data'].city", "first": "$.items[0]"})
    assert [path_root(p) for p in ("$.user.id", "$['geo data'].city", "$.items[0]", "$['plain']")] == \
        ["user", "geo data", "items", "plain"]
    assert column_path("user_id", ingest) == "$.user.id" and column_path("other", ingest) == "$['other']"
    columns = (LiveColumn(1, "user_id", "BIGINT", True), LiveColumn(2, "city", "STRING", False),
               LiveColumn(3, "first", "STRING", False), LiveColumn(4, "other", "STRING", False))
    assert known_roots(columns, ingest) == ["geo data", "items", "other", "user"]
