"""lakeops.staging.store on the local file system: whole-or-nothing manifests, listings, deletes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from lakeops.failpoints import FAILPOINT_ENV, READY_ENV, failpoint
from lakeops.staging import store


def test_published_text_is_read_back_and_leaves_no_temporary_file(tmp_path):
    uri = (tmp_path / "_staging" / "k" / "w000.manifest.json").as_uri()
    store.publish_text(uri, '{"a": 1}')
    store.publish_text(uri, '{"a": 2}')  # a rerun replaces it whole
    assert store.read_text(uri) == '{"a": 2}'
    assert os.listdir(tmp_path / "_staging" / "k") == ["w000.manifest.json"]
    assert store.read_text((tmp_path / "missing.json").as_uri()) is None


def test_listings_deletes_and_missing_files(tmp_path):
    root = tmp_path / "data" / "staged" / "k"
    for name in ("w000-a/day=1/x.parquet", "w000-a/day=2/y.parquet", "w001-b/z.parquet"):
        store.write_text(str(root / name), "x")
    tree = store.list_tree(root.as_uri())
    assert sorted(tree) == sorted(str(root / n) for n in ("w000-a/day=1/x.parquet", "w000-a/day=2/y.parquet", "w001-b/z.parquet"))
    assert all(abs(ms / 1000 - time.time()) < 600 for ms in tree.values())
    assert store.list_dirs(root.as_uri()) == ["w000-a", "w001-b"]
    assert store.list_tree((tmp_path / "nothing").as_uri()) == {} and store.list_dirs(str(tmp_path / "nothing")) == []

    assert store.delete_files(root.as_uri(), [str(root / "w001-b/z.parquet"), str(root / "w001-b/gone.parquet")]) == 2
    # Iceberg names files by plain file:// locations ('=' unescaped), as pyiceberg wrote them
    assert store.missing_files([f"file://{root}/w000-a/day=1/x.parquet", f"file://{root}/w001-b/z.parquet"]) == \
        [f"file://{root}/w001-b/z.parquet"]
    store.delete_tree(root.as_uri())
    store.delete_tree(root.as_uri())  # gone already: nothing to do
    assert not root.exists()


def test_fs_path_is_what_listings_name():
    assert store.fs_path("file:///tmp/t/data/x.parquet") == "/tmp/t/data/x.parquet"
    assert store.fs_path("/tmp/t/data/x.parquet") == "/tmp/t/data/x.parquet"
    assert store.fs_path("s3://lake/warehouse/t/x.parquet") == "lake/warehouse/t/x.parquet"


def test_failpoint_is_off_unless_named(monkeypatch):
    monkeypatch.delenv(FAILPOINT_ENV, raising=False)
    failpoint("writer_before_manifest")  # returns at once
    monkeypatch.setenv(FAILPOINT_ENV, "committer_after_commit")
    failpoint("writer_before_manifest")


def test_a_named_failpoint_signals_and_blocks_until_killed(tmp_path):
    ready = tmp_path / "ready"
    env = {**os.environ, FAILPOINT_ENV: "here", READY_ENV: str(ready)}
    code = "from lakeops.failpoints import failpoint; failpoint('here'); print('passed')"
    process = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.read_text() == f"here {process.pid}\n"
        time.sleep(0.5)
        assert process.poll() is None, "it blocks at the failpoint"
    finally:
        process.kill()
    assert process.communicate()[0] == ""
