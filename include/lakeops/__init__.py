"""lakeops: keeps streaming-fed Apache Iceberg tables fast, fresh and correct."""

__version__ = "0.1.0"
