"""Airflow-side pieces of lakeops: operators, sensors, triggers, callbacks. Thin: they call the library."""
