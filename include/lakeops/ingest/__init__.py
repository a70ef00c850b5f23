"""Micro-batch ingest: which files a batch reads and under which identity it commits."""
