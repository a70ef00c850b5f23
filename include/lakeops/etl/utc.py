"""The ETL's time values are naive UTC datetimes, whatever the time zone of the process planning a run: Iceberg's day
and hour partitions of a timestamp are UTC ones, and the Spark session compares in UTC. These convert them to and
from epoch microseconds, exactly (integer arithmetic)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1)
"""naive UTC"""
_MICROSECOND = timedelta(microseconds=1)


def from_micros(micros: int) -> datetime:
    """The naive UTC datetime of microseconds since the epoch (a TIMESTAMP_NTZ's: its wall-clock time)."""
    return EPOCH + micros * _MICROSECOND


def epoch_micros(moment: datetime) -> int:
    """Microseconds since the epoch of a naive UTC datetime (or an aware one, in its own zone)."""
    naive = moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
    return (naive - EPOCH) // _MICROSECOND
