"""Zonemaps: per-file column statistics kept outside Iceberg's metadata, used to skip files."""
