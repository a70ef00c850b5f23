"""Where benchmark results go: benchmarks/results/<name>.md (the table) and <name>*.png (plots)."""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def results_path(name: str, suffix: str) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    return RESULTS_DIR / f"{name}{suffix}"


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    """A Markdown table; numbers are right-aligned as they are given (format them before)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def save(name: str, text: str, result: dict[str, Any]) -> None:
    """Print a benchmark's report and keep it with its figures: <name>.md and <name>.json."""
    print(text)
    results_path(name, ".md").write_text(text)
    results_path(name, ".json").write_text(json.dumps(result, indent=1))


def configure_logging() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def run_and_save(parser: argparse.ArgumentParser, run: Callable[[argparse.Namespace], dict[str, Any]],
                 report: Callable[[dict[str, Any]], str]) -> None:
    """A benchmark's command: parse its arguments (one of them --name), run it, save its report."""
    args = parser.parse_args()
    configure_logging()
    result = run(args)
    save(args.name, report(result), result)
