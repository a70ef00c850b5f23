"""Table health from Iceberg metadata only (manifests, snapshots): no Spark, no data scan."""
