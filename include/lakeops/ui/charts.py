"""Inline SVG charts on a real time axis: one series each, round time ticks, the y range labelled at its top and
bottom (a flat series gets a band around its value, so the two labels differ), an optional reference line
(an SLA, a threshold) and markers for maintenance runs, each a link to its run. Pure: values in, SVG text out."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from lakeops.ui.timeaxis import ticks

DOTS_UP_TO = 120
"""Each point also gets a dot with its time and value as tooltip up to this many points."""


@dataclass(frozen=True)
class Marker:
    ms: int
    label: str
    href: str | None = None
    state: str = ""
    """Used as a CSS class: success, failed, running, queued..."""
    key: str = ""
    """Identifies the run (data-run attribute)."""


def _fmt(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def y_range(values: list[float], floor: float | None = None, reference: float | None = None) -> tuple[float, float]:
    """(low, high) of the y axis: the values and the reference; a flat series gets a band of ±10% (at least ±1)
    around its value, so the two labels differ; never below `floor`."""
    known = list(values) + ([reference] if reference is not None else [])
    low, high = (min(known), max(known)) if known else (0.0, 1.0)
    if high == low:
        band = max(1.0, abs(high) * 0.1)
        low, high = low - band, high + band
    if floor is not None:
        low = max(low, floor)
    return low, high


def time_chart(title: str, points: list[tuple[int, float]], start_ms: int, end_ms: int, *,
               markers: tuple[Marker, ...] = (), floor: float | None = None, fixed: tuple[float, float] | None = None,
               reference: tuple[float, str] | None = None, unit: str = "", width: int = 560, height: int = 160) -> str:
    left, right, top, bottom = 52, 10, 10, 24
    inner_w, inner_h = width - left - right, height - top - bottom
    shown = [(ms, v) for ms, v in sorted(points) if start_ms <= ms <= end_ms]
    low, high = fixed or y_range([v for _, v in shown], floor, reference[0] if reference else None)
    span_ms = max(1, end_ms - start_ms)

    def x(ms: int) -> float:
        return left + (ms - start_ms) / span_ms * inner_w

    def y(value: float) -> float:
        return top + inner_h - (value - low) / (high - low) * inner_h

    parts = [f"<rect x='{left}' y='{top}' width='{inner_w}' height='{inner_h}' class='frame'/>"]
    for ms, label in ticks(start_ms, end_ms):
        parts.append(f"<line x1='{x(ms):.1f}' x2='{x(ms):.1f}' y1='{top}' y2='{top + inner_h}' class='grid'/>"
                     f"<text x='{x(ms):.1f}' y='{height - 6}' class='tick' data-ms='{ms}' text-anchor='middle'>"
                     f"{escape(label)}</text>")
    parts.append(f"<text x='{left - 4}' y='{top + 10}' class='ylabel' text-anchor='end'>{_fmt(high)}{escape(unit)}</text>"
                 f"<text x='{left - 4}' y='{top + inner_h}' class='ylabel' text-anchor='end'>{_fmt(low)}{escape(unit)}</text>")
    if reference is not None and low <= reference[0] <= high:
        ry = y(reference[0])
        parts.append(f"<line x1='{left}' x2='{left + inner_w}' y1='{ry:.1f}' y2='{ry:.1f}' class='reference'/>"
                     f"<text x='{left + inner_w - 2}' y='{ry - 3:.1f}' class='ylabel' text-anchor='end'>"
                     f"{escape(reference[1])}</text>")
    for marker in markers:
        if not start_ms <= marker.ms <= end_ms:
            continue
        mx = x(marker.ms)
        css = f"marker {escape(marker.state)}"
        line = (f"<line x1='{mx:.1f}' x2='{mx:.1f}' y1='{top}' y2='{top + inner_h}' class='{css}'/>"
                f"<polygon points='{mx - 4:.1f},{top} {mx + 4:.1f},{top} {mx:.1f},{top + 7}' class='{css}'/>"
                f"<title>{escape(marker.label)}</title>")
        if marker.href:
            line = (f"<a class='run-marker' data-run='{escape(marker.key)}' href='{escape(marker.href)}' target='_top'>"
                    f"{line}</a>")
        else:
            line = f"<g class='run-marker' data-run='{escape(marker.key)}'>{line}</g>"
        parts.append(line)
    if shown:
        coords = " ".join(f"{x(ms):.1f},{y(v):.1f}" for ms, v in shown)
        if len(shown) > 1:
            parts.append(f"<polyline points='{coords}' class='series'/>")
        if len(shown) <= DOTS_UP_TO:
            for ms, v in shown:
                parts.append(f"<circle cx='{x(ms):.1f}' cy='{y(v):.1f}' r='2.5' class='point'><title>{_fmt(v)}{escape(unit)}"
                             f"</title></circle>")
    else:
        parts.append(f"<text x='{left + inner_w / 2:.0f}' y='{top + inner_h / 2:.0f}' text-anchor='middle' class='ylabel'>"
                     "no evaluation in this window</text>")
    return (f"<div class='chart' data-series='{escape(title)}'><div class='t'>{escape(title)}</div>"
            f"<svg width='{width}' height='{height}' data-start='{start_ms}' data-end='{end_ms}'>{''.join(parts)}</svg></div>")
