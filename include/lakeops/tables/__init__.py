"""The tables lakeops maintains: identifiers, what Iceberg says about each table, where each policy comes from."""
