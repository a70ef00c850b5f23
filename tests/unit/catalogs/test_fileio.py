"""lakeops.catalogs.fileio: lakeops' own files go through the FileIO of the table they sit in."""

from __future__ import annotations

import uuid
from collections import Counter
from types import SimpleNamespace

import pyarrow as pa
import pytest
from pyiceberg.io.fsspec import FsspecFileIO
from pyiceberg.io.pyarrow import PyArrowFileIO, PyArrowLocalFileSystem

from lakeops.catalogs import fileio
from lakeops.catalogs.fileio import filesystem_for, forget, io_for, location_key, remember
from lakeops.exceptions import CatalogError


class CountingFileSystem(PyArrowLocalFileSystem):
    """The local file system, counting the calls made on it."""

    calls: Counter

    def _count(self, name: str) -> None:
        type(self).calls[name] += 1

    def open_output_stream(self, path, *args, **kwargs):
        self._count("open_output_stream")
        return super().open_output_stream(path, *args, **kwargs)

    def open_input_stream(self, path, *args, **kwargs):
        self._count("open_input_stream")
        return super().open_input_stream(path, *args, **kwargs)

    def open_input_file(self, path):
        self._count("open_input_file")
        return super().open_input_file(path)

    def get_file_info(self, paths_or_selector):
        self._count("get_file_info")
        return super().get_file_info(paths_or_selector)

    def delete_file(self, path):
        self._count("delete_file")
        return super().delete_file(path)

    def move(self, src, dest):
        self._count("move")
        return super().move(src, dest)


class TableIO(PyArrowFileIO):
    """A table's FileIO whose local file system counts its calls: proof that a file went through it."""

    def __init__(self) -> None:
        super().__init__({"vended": "yes"})
        CountingFileSystem.calls = Counter()
        self.fs_by_scheme = lambda scheme, netloc: CountingFileSystem()


@pytest.fixture
def table_location(tmp_path):
    location = (tmp_path / "warehouse" / "ns" / f"t{uuid.uuid4().hex[:8]}").as_uri()
    remember(location, TableIO())
    yield location
    forget(location)


def test_location_keys():
    assert location_key("/srv/lake/t/") == "file:///srv/lake/t"
    assert location_key("file:/srv/lake/t") == "file:///srv/lake/t"
    assert location_key("s3a://bucket/wh/t") == location_key("s3://bucket/wh/t/") == "s3://bucket/wh/t"


def test_longest_remembered_location_wins():
    warehouse, table = PyArrowFileIO({"who": "warehouse"}), PyArrowFileIO({"who": "table"})
    remember("s3://b-longest/wh", warehouse)
    remember("s3://b-longest/wh/ns/t", table)
    try:
        assert io_for("s3a://b-longest/wh/ns/t/_zonemaps/micro/1.parquet") is table
        assert io_for("s3://b-longest/wh/ns/t2/_zonemaps/x") is warehouse
        assert io_for("s3://b-longest/wh/ns/t") is table
        assert io_for("s3://b-longest/whx/ns/t/x") is None
        assert io_for("s3://other/wh/ns/t/x") is None
    finally:
        forget("s3://b-longest/wh")
        forget("s3://b-longest/wh/ns/t")


def test_an_s3_file_gets_the_tables_own_file_system_and_credentials():
    io = PyArrowFileIO({"s3.endpoint": "http://127.0.0.1:9", "s3.region": "eu-west-1", "s3.access-key-id": "VENDED",
                        "s3.secret-access-key": "vended-secret", "s3.session-token": "vended-session"})
    remember("s3://b-vended/wh/ns/t", io)
    try:
        fs, path = filesystem_for("s3://b-vended/wh/ns/t/_zonemaps/micro/1.parquet")
        assert fs is io.fs_by_scheme("s3", "b-vended")
        assert path == "b-vended/wh/ns/t/_zonemaps/micro/1.parquet"
        assert fs.region == "eu-west-1"
    finally:
        forget("s3://b-vended/wh/ns/t")


def test_a_file_outside_any_table_goes_through_the_catalogs_file_io(monkeypatch):
    """A streaming checkpoint in another bucket: the catalog's storage settings, no table's credentials."""
    catalog_io = PyArrowFileIO({"s3.endpoint": "http://127.0.0.1:9", "s3.region": "eu-west-1"})
    monkeypatch.setattr(fileio, "_CATALOG_IO", [catalog_io])
    fs, path = filesystem_for("s3://checkpoints/q1/offsets")
    assert fs is catalog_io.fs_by_scheme("s3", "checkpoints") and path == "checkpoints/q1/offsets"


def test_with_no_catalog_loaded_only_local_files_open(tmp_path, monkeypatch):
    monkeypatch.setattr(fileio, "_CATALOG_IO", [])
    with pytest.raises(CatalogError, match=r"no catalog loaded in this process gives storage settings or credentials "
                                           r"to open 's3://nowhere/x'"):
        filesystem_for("s3://nowhere/x")
    fs, path = filesystem_for((tmp_path / "x").as_uri())
    assert path == str(tmp_path / "x")
    assert fs.get_file_info(str(tmp_path)).type.name == "Directory"


def test_fsspec_file_io_is_listed_through_pyarrow(tmp_path):
    location = (tmp_path / "t").as_uri()
    remember(location, FsspecFileIO({}))
    try:
        fs, path = filesystem_for(f"{location}/_lakeops/x.json")
        fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
        with fs.open_output_stream(path) as out:
            out.write(b"{}")
        assert (tmp_path / "t" / "_lakeops" / "x.json").read_bytes() == b"{}"
    finally:
        forget(location)


def test_inflight_markers_go_through_the_tables_file_io(table_location):
    from lakeops.inflight import inflight, read_markers

    with inflight(table_location, "compaction", "run-1", 7) as marker:
        assert [m.snapshot_id for m in read_markers(table_location)] == [7]
    assert read_markers(table_location) == []
    calls = CountingFileSystem.calls
    assert calls["open_output_stream"] == 1 and calls["open_input_stream"] == 1 and calls["delete_file"] == 1
    assert marker.kind == "compaction"


def test_zonemap_files_go_through_the_tables_file_io(table_location):
    from lakeops.zonemap.snapmap import list_files, read_map, write_map
    from lakeops.zonemap.store import SCHEMA, publish, read_file, zonemap_root

    root = zonemap_root(table_location)
    publish(f"{root}/micro/1.parquet", pa.Table.from_pylist([], schema=SCHEMA))
    assert read_file(f"{root}/micro/1.parquet").num_rows == 0
    write_map(root, "hourly", [])
    assert read_map(root, "hourly") == []
    assert list_files(root, "micro") == [f"{root}/micro/1.parquet"]
    calls = CountingFileSystem.calls
    assert calls["move"] == 2 and calls["open_input_file"] == 1 and calls["open_input_stream"] == 1
    assert calls["get_file_info"] >= 1


def test_staging_files_go_through_the_tables_file_io(table_location):
    from lakeops.staging import store

    uri = f"{table_location}/_staging/k/w000.manifest.json"
    store.publish_text(uri, "{}")
    assert store.read_text(uri) == "{}"
    tree = store.list_tree(f"{table_location}/_staging")
    assert store.delete_files(f"{table_location}/_staging", list(tree)) == 1
    calls = CountingFileSystem.calls
    assert calls["move"] == 1 and calls["open_input_stream"] == 1 and calls["delete_file"] == 1


def test_zonemap_gc_and_stale_markers_go_through_the_tables_file_io(table_location):
    from lakeops.expiry.zonemap_gc import ZonemapFile, delete
    from lakeops.inflight import InflightMarker
    from lakeops.spark.expire import _remove_markers
    from lakeops.staging import store

    store.write_text(f"{table_location}/_zonemaps/hourly/v1.parquet", "x")
    store.write_text(f"{table_location}/_lakeops/inflight/m.json", "{}")
    before = CountingFileSystem.calls["delete_file"]
    assert delete([ZonemapFile(f"{table_location}/_zonemaps/hourly/v1.parquet", 1, 0)]) == 1
    marker_path = filesystem_for(f"{table_location}/_lakeops/inflight/m.json")[1]
    plan = SimpleNamespace(stale_markers=[InflightMarker("compaction", "r", 1, 0, marker_path)])
    assert _remove_markers(table_location, plan) == 1  # type: ignore[arg-type]
    assert CountingFileSystem.calls["delete_file"] == before + 2


def test_remembered_io_is_replaced_by_a_later_load():
    first, second = PyArrowFileIO({"n": "1"}), PyArrowFileIO({"n": "2"})
    remember("gs://b-replace/t", first)
    remember("gs://b-replace/t/", second)
    try:
        assert io_for("gs://b-replace/t/x") is second
        assert len([k for k in fileio._IOS if k.startswith("gs://b-replace")]) == 1
    finally:
        forget("gs://b-replace/t")
