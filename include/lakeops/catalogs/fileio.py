"""lakeops' own files (zonemaps, in-flight markers, staging) through the FileIO of the table they sit in.

A table's FileIO carries everything its storage needs: the catalog's S3 endpoint and keys, a REST
catalog's per-table vended credentials, GCS tokens, ADLS SAS tokens. Files lakeops keeps beside a
table use that same FileIO. pyiceberg's FileIO cannot list or move, so the pyarrow FileSystem it
builds for a scheme (PyArrowFileIO.fs_by_scheme, from the same properties) is used for that.

Which FileIO serves a location: every table loaded through lakeops.catalogs.load.load_catalog is
remembered by its location (a later load replaces it, with fresh vended credentials), and the
catalog's own FileIO (its storage settings, no table's credentials) serves the rest of the warehouse
and any other location (a streaming query's checkpoint elsewhere). filesystem_for(uri) picks the
longest remembered location holding uri, else the catalog's FileIO; with no catalog loaded, only a
local path can be opened (by the local file system).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from lakeops.exceptions import CatalogError

if TYPE_CHECKING:
    from pyarrow.fs import FileSystem
    from pyiceberg.catalog import Catalog
    from pyiceberg.io import FileIO

log = logging.getLogger(__name__)

_SAME_SCHEME = {"s3a": "s3", "s3n": "s3", "gcs": "gs"}
_IOS: dict[str, FileIO] = {}
_CATALOG_IO: list[FileIO] = []
"""The FileIO of the catalog loaded last: for locations no remembered table or warehouse holds."""
_LOCK = threading.Lock()


def location_key(location: str) -> str:
    """A location as the registry compares it: file:// for local paths, s3a/s3n as s3, no trailing slash."""
    if location.startswith("/"):
        location = f"file://{location}"
    elif location.startswith("file:") and not location.startswith("file://"):
        location = "file://" + location.removeprefix("file:")
    scheme, sep, rest = location.partition("://")
    return f"{_SAME_SCHEME.get(scheme.lower(), scheme.lower())}{sep}{rest}".rstrip("/")


def remember(location: str, io: FileIO) -> None:
    """Files under location are opened through io from now on."""
    with _LOCK:
        _IOS[location_key(location)] = io


def forget(location: str) -> None:
    with _LOCK:
        _IOS.pop(location_key(location), None)


def io_for(uri: str) -> FileIO | None:
    """The FileIO of the longest remembered location holding uri; None when no location holds it."""
    key = location_key(uri)
    with _LOCK:
        found = [loc for loc in _IOS if key == loc or key.startswith(loc + "/")]
        return _IOS[max(found, key=len)] if found else None


def arrow_filesystem(io: FileIO, uri: str) -> tuple[FileSystem, str]:
    """The pyarrow FileSystem io uses for uri's scheme, and uri's path in it (bucket/key on S3, /path locally)."""
    from pyiceberg.io.pyarrow import PyArrowFileIO

    if isinstance(io, PyArrowFileIO):
        scheme, netloc, path = PyArrowFileIO.parse_location(uri, io.properties)
        return io.fs_by_scheme(scheme, netloc), path
    from pyiceberg.io.fsspec import FsspecFileIO

    if isinstance(io, FsspecFileIO):
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        parsed = urlparse(uri)
        scheme = parsed.scheme or "file"
        fs = io.get_fs(scheme, parsed.hostname) if scheme in ("abfs", "abfss", "wasb", "wasbs") else io.get_fs(scheme)
        path = parsed.path if scheme == "file" or not parsed.scheme else f"{parsed.netloc}{parsed.path}"
        return PyFileSystem(FSSpecHandler(fs)), path
    raise CatalogError(f"the table's FileIO {type(io).__name__} (py-io-impl) gives no file system to list {uri!r}; "
                       "use pyiceberg's PyArrowFileIO or FsspecFileIO for tables lakeops maintains")


_LOCAL: list[FileIO] = []


def _local_io() -> FileIO:
    if not _LOCAL:
        from pyiceberg.io.pyarrow import PyArrowFileIO

        _LOCAL.append(PyArrowFileIO({}))
    return _LOCAL[0]


def filesystem_for(uri: str) -> tuple[FileSystem, str]:
    """(file system, path) for a file lakeops keeps beside a table: through that table's FileIO."""
    io = io_for(uri)
    if io is None and _CATALOG_IO:
        io = _CATALOG_IO[0]
    if io is None:
        if location_key(uri).startswith("file://"):
            io = _local_io()
        else:
            raise CatalogError(f"no catalog loaded in this process gives storage settings or credentials to open {uri!r}; "
                               "load the catalog (and the table) through lakeops.catalog.load_catalog first")
    return arrow_filesystem(io, uri)


def remember_tables(catalog: Catalog, warehouse: str | None) -> Catalog:
    """Have catalog remember the FileIO of every table it loads, creates or registers, and its own for warehouse."""
    from pyiceberg.io import load_file_io

    own = load_file_io(dict(catalog.properties), warehouse)
    with _LOCK:
        _CATALOG_IO[:] = [own]
    if warehouse:
        remember(warehouse, own)
    for name in ("load_table", "create_table", "register_table"):
        original = getattr(catalog, name)

        def remembering(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            table = _original(*args, **kwargs)
            remember(table.location(), table.io)
            return table

        setattr(catalog, name, remembering)  # the instance's attribute: pyiceberg's own calls go through it too
    return catalog
