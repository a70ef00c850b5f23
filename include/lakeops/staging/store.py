"""Files of the staging area, through pyarrow's file systems (local paths, file:// and s3:// URIs,
as the table locations name them). Manifests are written under a hidden temporary name and moved
into place, so a reader finds a whole manifest or none."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlparse

from lakeops.atomic import atomic_output

if TYPE_CHECKING:
    from pyarrow.fs import FileSystem


def _fs(uri: str) -> tuple[FileSystem, str]:
    from pyarrow.fs import FileSystem

    return FileSystem.from_uri(uri if "://" in uri else f"file://{uri}")


def fs_path(uri: str) -> str:
    """The path pyarrow's listings use for a URI: /abs/path locally, bucket/key on S3."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return parsed.path
    return f"{parsed.netloc}{parsed.path}"


def write_text(uri: str, text: str) -> None:
    fs, path = _fs(uri)
    fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
    with fs.open_output_stream(path) as out:
        out.write(text.encode())


def publish_text(uri: str, text: str) -> None:
    """Write text to uri whole or not at all: a hidden temporary file in the same folder, then a move."""
    with atomic_output(*_fs(uri)) as out:
        out.write(text.encode())


def read_text(uri: str) -> str | None:
    """The file's text; None when there is no such file."""
    fs, path = _fs(uri)
    try:
        with fs.open_input_stream(path) as stream:
            return bytes(stream.read()).decode()
    except FileNotFoundError:
        return None


def list_tree(uri: str) -> dict[str, int]:
    """Every file under uri (recursively) -> modification time in ms; {} when uri does not exist."""
    from pyarrow.fs import FileSelector, FileType

    fs, path = _fs(uri)
    infos = fs.get_file_info(FileSelector(path, recursive=True, allow_not_found=True))
    return {i.path: int(i.mtime_ns // 1_000_000) if i.mtime_ns is not None else 0 for i in infos if i.type == FileType.File}


def list_dirs(uri: str) -> list[str]:
    """Names of the folders directly under uri."""
    from pyarrow.fs import FileSelector, FileType

    fs, path = _fs(uri)
    infos = fs.get_file_info(FileSelector(path, allow_not_found=True))
    return sorted(i.base_name for i in infos if i.type == FileType.Directory)


def missing_files(uris: list[str]) -> list[str]:
    from pyarrow.fs import FileType

    if not uris:
        return []
    fs, _ = _fs(uris[0])
    infos = fs.get_file_info([fs_path(u) for u in uris])
    return [u for u, i in zip(uris, infos, strict=False) if i.type != FileType.File]


def delete_files(root_uri: str, paths: list[str]) -> int:
    """Delete files given as paths of root_uri's file system (as list_tree returns them)."""
    fs, _ = _fs(root_uri)
    for path in paths:
        try:
            fs.delete_file(path)
        except FileNotFoundError:
            pass
    return len(paths)


def delete_tree(uri: str) -> None:
    from pyarrow.fs import FileType

    fs, path = _fs(uri)
    if fs.get_file_info(path).type == FileType.Directory:
        fs.delete_dir(path)
