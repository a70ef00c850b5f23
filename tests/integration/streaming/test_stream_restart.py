"""The streaming query stopped between a micro-batch's Iceberg commit and the checkpoint's commit log, or between
writing a micro-batch's data files and committing them, then restarted from the checkpoint: the replayed micro-batch
appends nothing twice, nothing is missing, and the dead attempt's files are deleted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

import lakeops.spark.one_pass_commit
import lakeops.spark.stream_events
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream
from lakeops.spark.stream_events import run_stream
from lakeops.zonemap.micro import micro_zonemap_uri
from tests.conftest import make_test_config, register_catalog
from tests.integration.streaming.conftest import streaming_tables
from tests.integration.streaming.helpers import committed_event_ids, micro_batch_logs, quarantined_rows, stream_commits

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def test_micro_batch_replayed_after_a_crash_between_commit_and_commit_log_appends_nothing(
        stream_spark, stream_config, monkeypatch):
    landed = generate_events(stream_config.landing_root, START, 6, 60, seed=11, users=200, bad_fraction=0.05)
    plan = plan_stream(stream_config, "events", AVAILABLE_NOW)
    real_commit = lakeops.spark.stream_events.commit_events
    calls = []

    def commit_then_crash(*args, **kwargs):
        result = real_commit(*args, **kwargs)
        calls.append(result)
        if len(calls) == 2:
            raise RuntimeError("crash after the Iceberg commit, before the checkpoint's commit log")
        return result

    monkeypatch.setattr(lakeops.spark.stream_events, "commit_events", commit_then_crash)
    with pytest.raises(Exception, match="crash after the Iceberg commit"):
        run_stream(stream_spark, stream_config, plan)
    monkeypatch.undo()

    assert [r.status for r in calls] == ["committed", "committed"]
    assert micro_batch_logs(stream_config) == ({0, 1}, {0}), \
        "micro-batch 1 is committed to Iceberg but not to the checkpoint: the restart must replay it"
    published = stream_commits(stream_config)
    assert len(published) == 2
    table = load_catalog(stream_config.catalog).load_table(stream_config.identifier("events"))
    table.io.delete(micro_zonemap_uri(table, published[1][0]))  # as if the crash came before the zonemap, too

    restarted = run_stream(stream_spark, stream_config, plan)

    assert (restarted.status, restarted.micro_batches, restarted.already_committed, restarted.committed) == ("finished", 2, 1, 1)
    ids = committed_event_ids(stream_config)
    assert len(ids) == landed.good and set(ids) == landed.good_event_ids, "no duplicates, no gaps"
    assert quarantined_rows(stream_config) == landed.bad_total > 0
    commits = stream_commits(stream_config)
    assert [summary["lakeops.batch-id"].rsplit("-", 1)[1] for _, summary in commits] == ["0", "1", "2"]
    assert sum(int(summary["lakeops.files"]) for _, summary in commits) == landed.files == 6

    for snapshot_id, summary in commits:
        assert table.io.new_input(micro_zonemap_uri(table, snapshot_id)).exists(), \
            f"micro-batch commit {summary['lakeops.batch-id']} has no micro zonemap (the replay writes a missing one)"


def test_micro_batch_crashed_after_writing_before_its_commit_is_rewritten_once_and_its_first_files_deleted(
        spark, tmp_path, monkeypatch):
    stream_config = make_test_config(tmp_path, streaming_tables("staged", max_files_per_trigger=2))
    stream_spark = register_catalog(spark, stream_config)
    landed = generate_events(stream_config.landing_root, START, 4, 60, seed=12, users=200, bad_fraction=0.05)
    plan = plan_stream(stream_config, "events", AVAILABLE_NOW)
    written = []

    def crash_before_the_second_commit(name):
        written.append(name)
        if len(written) == 2:
            raise RuntimeError("crash after writing the data files, before their commit")

    monkeypatch.setattr(lakeops.spark.one_pass_commit, "failpoint", crash_before_the_second_commit)
    with pytest.raises(Exception, match="crash after writing the data files"):
        run_stream(stream_spark, stream_config, plan)
    monkeypatch.undo()
    assert len(stream_commits(stream_config)) == 1, "the second micro-batch wrote its files but committed nothing"
    table = load_catalog(stream_config.catalog).load_table(stream_config.identifier("events"))
    staged = Path(table.location().removeprefix("file://")) / "data" / "staged"
    dead = set(staged.rglob("*.parquet"))

    restarted = run_stream(stream_spark, stream_config, plan)

    assert restarted.status == "finished" and restarted.committed == restarted.micro_batches >= 1
    ids = committed_event_ids(stream_config)
    assert len(ids) == landed.good and set(ids) == landed.good_event_ids, "no duplicates, no gaps"
    assert quarantined_rows(stream_config) == landed.bad_total > 0
    table = load_catalog(stream_config.catalog).load_table(stream_config.identifier("events"))
    live = {Path(f.file.file_path.removeprefix("file://")) for f in table.scan().plan_files()}
    assert dead - live and not (dead - live) & set(staged.rglob("*.parquet")), \
        "the dead attempt's files are deleted once the replay commits; the first batch's committed files stay"
    commits = stream_commits(stream_config)
    assert sum(int(summary["lakeops.files"]) for _, summary in commits) == landed.files == 4
    assert {summary["lakeops.commit-mode"] for _, summary in commits} == {"one-pass"}
