"""Fixtures shared by the DAG tests."""

from __future__ import annotations

import pytest

from lakeops.config import load_config
from tests.conftest import register_catalog


@pytest.fixture()
def orders_session(spark):
    """The shipped config's catalog in Spark; orders is dropped afterwards so the next DAG test on
    it (the CDC DAG's, the compaction DAGs') starts clean."""
    config = load_config()
    session = register_catalog(spark, config)
    yield session
    for name in ("orders", "orders_quarantine"):
        session.sql(f"DROP TABLE IF EXISTS {config.qualified(name)} PURGE")
