"""Where the command line writes: the summary (or one JSON document with --json) on stdout, progress lines
on stdout too for a person, and on stderr with --json so stdout stays one parseable document."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The format of the Spark jobs' own progress lines (lakeops.spark.job), so both read alike."""


def to_json(document: Any) -> str:
    """One JSON document: times and other non-JSON values as strings."""
    return json.dumps(document, indent=2, default=str)


class _ProgressHandler(logging.Handler):
    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console
        self.setFormatter(logging.Formatter(LOG_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        self.console.progress(self.format(record))


@dataclass
class Console:
    json: bool = False
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)

    def progress(self, line: str) -> None:
        print(line, file=self.stderr if self.json else self.stdout, flush=True)

    def result(self, document: dict[str, Any], text: str) -> None:
        print(to_json(document) if self.json else text, file=self.stdout, flush=True)

    def error(self, message: str, status: int) -> None:
        """The message on stderr; with --json also {"error", "exit_status"} on stdout for the script."""
        print(f"lakeops: {message}", file=self.stderr, flush=True)
        if self.json:
            print(to_json({"error": message, "exit_status": status}), file=self.stdout, flush=True)

    @contextlib.contextmanager
    def library_log(self, level: int = logging.WARNING) -> Iterator[None]:
        """The library's log lines at `level` and above, as progress, while the block runs."""
        logger = logging.getLogger("lakeops")
        handler = _ProgressHandler(self)
        handler.setLevel(level)
        previous, propagate = logger.level, logger.propagate
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
        try:
            yield
        finally:
            logger.removeHandler(handler)
            logger.setLevel(previous)
            logger.propagate = propagate
