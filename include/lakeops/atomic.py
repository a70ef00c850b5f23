"""Files written whole or not at all, through pyarrow's file systems (local paths and URIs)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyarrow import NativeFile
    from pyarrow.fs import FileSystem


@contextmanager
def atomic_output(fs: FileSystem, path: str) -> Iterator[NativeFile]:
    """A stream to a hidden temporary file beside `path`, moved onto `path` when the block ends
    without an error: a reader finds the old file or the whole new one."""
    folder, name = path.rsplit("/", 1)
    fs.create_dir(folder, recursive=True)
    tmp = f"{folder}/.{name}.{uuid.uuid4().hex}.tmp"
    with fs.open_output_stream(tmp) as out:
        yield out
    fs.move(tmp, path)
