"""default_args every lakeops DAG starts from: a real owner and retries with exponential backoff."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

OWNER = "data-platform"


def default_args(**overrides: Any) -> dict[str, Any]:
    """Owner, 2 retries from 30 s doubling up to 5 min; keyword arguments override or add keys."""
    return {
        "owner": OWNER,
        "retries": 2,
        "retry_delay": timedelta(seconds=30),
        "retry_exponential_backoff": True,
        "max_retry_delay": timedelta(minutes=5),
        **overrides,
    }
