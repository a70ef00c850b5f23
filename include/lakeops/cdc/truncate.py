"""What a batch's truncate events (op t) do, by the table's `ingest.cdc.truncate` policy: pure."""

from __future__ import annotations

from dataclasses import dataclass

from lakeops.exceptions import IngestError


@dataclass(frozen=True)
class TruncateAction:
    quarantine: bool = False
    """The truncate events go to the quarantine (with why), nothing is deleted."""
    apply: bool = False
    """Every row the table held before the last truncate is deleted, and only the changes after it are merged."""


def plan_truncates(policy: str, truncates: int, table: str, first_source: str = "") -> TruncateAction:
    if truncates == 0:
        return TruncateAction()
    if policy == "apply":
        return TruncateAction(apply=True)
    if policy == "fail":
        raise IngestError(f"the batch of {table} holds {truncates} truncate event(s) (op t, first in {first_source}) and "
                          f"tables.{table}.ingest.cdc.truncate is fail: nothing was applied. Truncate the table yourself "
                          "and set the policy to quarantine to go on, or set it to apply to let lakeops delete every row")
    return TruncateAction(quarantine=True)


def quarantine_reason(policy: str, table: str) -> str:
    """Why a truncate is in the quarantine, beside the decoder's 'op t: truncate of ...'."""
    return (f"; not applied: tables.{table}.ingest.cdc.truncate is {policy} (set apply to delete every row the table "
            "held before it, in the batch's commit)")
