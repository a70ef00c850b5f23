"""Staged writers and one committer: writers write data files and publish manifests, one committer
commits them all in one Iceberg commit per table."""
