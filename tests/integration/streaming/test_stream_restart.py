"""The streaming query stopped between a micro-batch's Iceberg commit and the checkpoint's commit log,
then restarted from the checkpoint: the replayed micro-batch appends nothing, nothing is missing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import lakeops.spark.stream_events
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream
from lakeops.spark.stream_events import run_stream
from lakeops.zonemap.micro import micro_zonemap_uri
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

