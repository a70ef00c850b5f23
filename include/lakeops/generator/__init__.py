"""Deterministic generators of landed input: behavioral events and Debezium CDC changes."""

from lakeops.generator.cdc import CdcStats, generate_cdc
from lakeops.generator.events import EventStats, generate_events

__all__ = ["CdcStats", "EventStats", "generate_cdc", "generate_events"]
