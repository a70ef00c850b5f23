"""Which tables a missed deadline concerns, from the alert's arguments and the run's params."""

from __future__ import annotations

from lakeops_airflow.airflow_records import tables_named


def test_the_alert_and_the_run_name_a_table_each():
    assert tables_named({"table": "events"}, {"table": "lakeops.orders"}) == ["events", "lakeops.orders"]


def test_a_maintenance_run_narrowed_to_tables_names_each_of_them():
    assert tables_named({}, {"tables": ["lake.sales.orders", "lake.raw.clicks"]}) == ["lake.sales.orders", "lake.raw.clicks"]


def test_values_that_are_no_names_are_ignored():
    assert tables_named({"table": None}, {"tables": "lake.sales.orders", "table": 3}) == []
    assert tables_named({}, {"tables": ["events", 7, None]}) == ["events"]
