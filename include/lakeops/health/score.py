"""A table's health score, 0 to 100: a pure function of the figures lakeops computes, each part beside the total.

score = ceil(100 − Σ weight × penalty), each penalty in [0, 1]. Small files (24), equality deletes (24) and
position deletes (12) are Amoro's score (40, 40, 20) in its proportions, with its small-table softening;
read amplification (10), freshness against the SLA (20), zonemap coverage (5) and pruning (5) are ours.
The penalties and why: docs/health.md#health-score.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lakeops.config import TableConfig
    from lakeops.health.model import TableHealth
    from lakeops.health.zonemap_figures import ZonemapFigures

WEIGHTS: dict[str, int] = {
    "small_files": 24,
    "equality_deletes": 24,
    "position_deletes": 12,
    "read_amplification": 10,
    "freshness": 20,
    "zonemap_coverage": 5,
    "zonemap_pruning": 5,
}
"""Points each part can lose; they add up to 100."""
LABELS: dict[str, str] = {
    "small_files": "small files",
    "equality_deletes": "equality deletes",
    "position_deletes": "position deletes",
    "read_amplification": "read amplification",
    "freshness": "freshness",
    "zonemap_coverage": "zonemap coverage",
    "zonemap_pruning": "zonemap pruning",
}
SOFTENED = frozenset(WEIGHTS) - {"freshness"}
"""Parts scaled by the small-table factor: layout costs a small table hardly pays. A stale table is stale whatever its size."""
MIB = 1024 * 1024


@dataclass(frozen=True)
class ScoreInputs:
    """The figures a score is computed from: plain values, stored with each evaluation."""

    data_files: int
    data_bytes: int
    data_records: int
    avg_file_size_bytes: float
    small_file_threshold_bytes: int
    target_file_size_bytes: int
    equality_delete_records: int
    position_delete_records: int
    """Rows marked deleted by the position delete files and deletion vectors readers apply."""
    read_amp_files: float
    delete_ratio_threshold: float = 0.3
    max_read_amp_files: float = 1.5
    min_fragment_files: int = 12
    freshness_sla_minutes: int | None = None
    """None: no SLA, the freshness part does not apply."""
    last_data_commit_ms: int | None = None
    """When the rows last changed; None: never (in breach of any SLA)."""
    zonemap_coverage: float | None = None
    """None: the table has no zonemap columns."""
    zonemap_pruning: float | None = None
    zonemap_column: str | None = None
    small_files: int | None = None
    """Shown beside the score (the index, the gauges), not scored: the average file size is."""
    delete_files: int | None = None
    """Delete files readers apply; shown beside the score, not scored: the deleted rows and read amplification are."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreInputs:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class ScorePart:
    name: str
    weight: int
    penalty: float
    """In [0, 1], before softening."""
    lost: float
    """Points lost: weight × penalty × (the small-table factor when softened)."""
    figure: str
    """The figure the penalty comes from, as a person reads it."""
    applies: bool = True

    @property
    def label(self) -> str:
        return LABELS.get(self.name, self.name)


@dataclass(frozen=True)
class HealthScore:
    score: int
    parts: tuple[ScorePart, ...]
    small_table_factor: float
    evaluated_at_ms: int

    @property
    def worst(self) -> ScorePart | None:
        """The part that lost the most points; None when none lost any."""
        losing = [p for p in self.parts if p.lost > 0]
        return max(losing, key=lambda p: (p.lost, p.weight)) if losing else None

    def part(self, name: str) -> ScorePart:
        return next(p for p in self.parts if p.name == name)

    def as_dict(self) -> dict[str, Any]:
        worst = self.worst
        return {"score": self.score, "small_table_factor": round(self.small_table_factor, 4),
                "worst": worst.name if worst else None, "evaluated_at_ms": self.evaluated_at_ms,
                "parts": [{"name": p.name, "label": p.label, "weight": p.weight, "penalty": round(p.penalty, 4),
                           "lost": round(p.lost, 2), "figure": p.figure, "applies": p.applies} for p in self.parts]}


def _ratio(numerator: float, denominator: float) -> float:
    """min(numerator, denominator) / denominator, 0 when the denominator is not positive (Amoro's normalised ratio)."""
    if denominator <= 0:
        return 0.0
    return max(0.0, min(numerator, denominator)) / denominator


def small_table_factor(data_files: int, data_bytes: int, target_bytes: int, min_fragment_files: int) -> float:
    """Amoro's softening: 0 for at most one data file, else (files up to F) / F × (bytes up to target) / target."""
    if data_files <= 1:
        return 0.0
    return _ratio(data_files, min_fragment_files) * _ratio(data_bytes, target_bytes)


def _size(value: float) -> str:
    if value >= MIB:
        return f"{value / MIB:.1f} MiB"
    if value >= 1024:
        return f"{value / 1024:.1f} KiB"
    return f"{value:.0f} B"


def duration_text(seconds: float) -> str:
    """A duration as people read it on a page: seconds, minutes, hours or days, one unit."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def freshness_lag_s(inputs: ScoreInputs, now_ms: int) -> float | None:
    """Seconds since the rows last changed; None when they never did."""
    if inputs.last_data_commit_ms is None:
        return None
    return max(0.0, (now_ms - inputs.last_data_commit_ms) / 1000)


def _penalties(i: ScoreInputs, now_ms: int) -> dict[str, tuple[float, str, bool]]:
    """name -> (penalty, figure, applies)."""
    rows = max(i.data_records, 0)
    r = i.delete_ratio_threshold
    eq_share = i.equality_delete_records / rows if rows else 0.0
    pos_share = i.position_delete_records / rows if rows else 0.0
    small = i.small_file_threshold_bytes
    out: dict[str, tuple[float, str, bool]] = {
        "small_files": (1 - _ratio(i.avg_file_size_bytes, small) if i.data_files else 0.0,
                        f"average data file {_size(i.avg_file_size_bytes)} against {_size(small)}", True),
        "equality_deletes": (_ratio(eq_share, r), f"{eq_share:.1%} of rows equality-deleted (full penalty at {r:.0%})", True),
        "position_deletes": (_ratio(pos_share, 2 * r),
                             f"{pos_share:.1%} of rows position-deleted (full penalty at {2 * r:.0%})", True),
    }
    excess = max(0.0, i.read_amp_files - 1.0)
    span = 2 * (i.max_read_amp_files - 1.0)
    out["read_amplification"] = (min(1.0, excess / span) if span > 0 else float(excess > 0),
                                 f"{i.read_amp_files:.2f} files opened per data file (threshold {i.max_read_amp_files:g})",
                                 True)
    if i.freshness_sla_minutes is None:
        out["freshness"] = (0.0, "no freshness SLA", False)
    else:
        sla_s = i.freshness_sla_minutes * 60
        lag = freshness_lag_s(i, now_ms)
        if lag is None:
            out["freshness"] = (1.0, f"rows never changed (SLA {i.freshness_sla_minutes} min)", True)
        else:
            out["freshness"] = (min(1.0, max(0.0, lag - sla_s) / sla_s),
                                f"rows changed {duration_text(lag)} ago (SLA {i.freshness_sla_minutes} min)", True)
    if i.zonemap_coverage is None:
        out["zonemap_coverage"] = (0.0, "no zonemap columns", False)
        out["zonemap_pruning"] = (0.0, "no zonemap columns", False)
    else:
        out["zonemap_coverage"] = (1 - min(1.0, max(0.0, i.zonemap_coverage)),
                                   f"{i.zonemap_coverage:.0%} of live files indexed", True)
        pruning = i.zonemap_pruning or 0.0
        column = f" on {i.zonemap_column}" if i.zonemap_column else ""
        out["zonemap_pruning"] = (1 - min(1.0, max(0.0, pruning)), f"a point lookup{column} skips {pruning:.0%} of indexed files",
                                  True)
    return out


def score(inputs: ScoreInputs, now_ms: int) -> HealthScore:
    """The score of `inputs` at `now_ms` (freshness ages with time; every other part is fixed by the figures)."""
    factor = small_table_factor(inputs.data_files, inputs.data_bytes, inputs.target_file_size_bytes,
                                inputs.min_fragment_files)
    parts = []
    for name, (penalty, figure, applies) in _penalties(inputs, now_ms).items():
        weight = WEIGHTS[name]
        lost = weight * penalty * (factor if name in SOFTENED else 1.0) if applies else 0.0
        parts.append(ScorePart(name, weight, penalty, lost, figure, applies))
    total = math.ceil(round(100 - sum(p.lost for p in parts), 9))
    return HealthScore(max(0, min(100, total)), tuple(parts), factor, now_ms)


def inputs_from(health: TableHealth, spec: TableConfig, last_data_commit_ms: int | None,
                zonemap: ZonemapFigures | None) -> ScoreInputs:
    """The score's inputs from one evaluation of a table and its effective settings."""
    return ScoreInputs(
        data_files=health.data_files, data_bytes=health.data_bytes, data_records=health.data_records,
        avg_file_size_bytes=health.avg_file_size_bytes, small_file_threshold_bytes=health.small_file_threshold_bytes,
        target_file_size_bytes=health.target_file_size_bytes,
        equality_delete_records=health.equality_delete_records or 0,
        position_delete_records=max(0, health.applied_position_delete_records),
        read_amp_files=health.read_amp_files, delete_ratio_threshold=spec.compaction.delete_ratio_threshold,
        max_read_amp_files=spec.health.max_read_amp_files, min_fragment_files=spec.compaction.min_fragment_files,
        freshness_sla_minutes=spec.freshness_sla_minutes, last_data_commit_ms=last_data_commit_ms,
        zonemap_coverage=zonemap.coverage if zonemap else None, zonemap_pruning=zonemap.pruning if zonemap else None,
        zonemap_column=zonemap.column if zonemap else None, small_files=health.small_files,
        delete_files=health.applied_delete_files)
