"""Snapshot expiry and orphan-file cleanup under an explicit retention policy.

plan.py decides (pure, no I/O): which snapshots go, which stay and why. inputs.py reads what the
plan needs from Iceberg metadata (pyiceberg). files.py and zonemap_gc.py find files; the Spark
runner (lakeops.spark.expire) carries the plan out with Iceberg's procedures.
"""
