"""Where benchmark results go: benchmarks/results/<name>.md (the table) and <name>*.png (plots)."""

from __future__ import annotations

from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def results_path(name: str, suffix: str) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    return RESULTS_DIR / f"{name}{suffix}"


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    """A Markdown table; numbers are right-aligned as they are given (format them before)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
