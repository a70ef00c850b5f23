"""Landing files are written whole: a reader never sees a half-written file."""

from __future__ import annotations

import os
from pathlib import Path


def write_jsonl(directory: str, name: str, lines: list[str]) -> Path:
    """Write lines to directory/name via a hidden temporary file and a rename (Spark skips '_' and '.' files)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / name
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(line + "\n" for line in lines))
    os.replace(tmp, final)
    return final
