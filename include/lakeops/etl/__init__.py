"""Incremental ETL: downstream tables maintained from source snapshots, exactly once, backfillable by date."""
