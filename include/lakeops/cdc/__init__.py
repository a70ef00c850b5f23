"""Change-data-capture ingest: Debezium envelopes applied to Iceberg tables with MERGE INTO."""
