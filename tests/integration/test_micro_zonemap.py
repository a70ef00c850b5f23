"""Micro zonemaps written after each ingest commit, and pruned reads that return exactly the
rows a full scan returns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyarrow.compute as pc
import pytest
from pyiceberg import expressions as E

from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.ingest_events import run_ingest
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.micro import micro_zonemap_uri
from tests.conftest import make_test_config, register_catalog

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
ONE = timedelta(minutes=1)


@pytest.fixture(scope="module")
def ingested(spark, tmp_path_factory):
    config = make_test_config(tmp_path_factory.mktemp("zonemap"))
    register_catalog(spark, config)
    generate_events(config.landing_root, START, 4, 150, seed=5, users=300)
    results = [run_ingest(spark, config, "events", plan_ingest(config, "events", START + i * ONE, START + (i + 1) * ONE))
               for i in range(4)]
    return load_catalog(config.catalog).load_table("lakeops.events"), results


@pytest.fixture()
def damaged(ingested):
    """Restores every micro zonemap file a test damages."""
    table, _ = ingested
    saved = {}

    def damage(uri, content):
        with table.io.new_input(uri).open() as f:
            saved[uri] = f.read()
        if content is None:
            table.io.delete(uri)
        else:
            with table.io.new_output(uri).create(overwrite=True) as out:
                out.write(content)

    yield damage
    for uri, data in saved.items():
        with table.io.new_output(uri).create(overwrite=True) as out:
            out.write(data)


def _rows_in(table, files, predicate):
    """Rows matching predicate, reading only `files` (pyarrow over the table's FileIO)."""
    import pyarrow.parquet as pq

    ids = []
    for path in files:
        with table.io.new_input(path).open() as stream:
            data = pq.read_table(stream, columns=["event_id", "user_id", "country"])
        column = "user_id" if predicate[0] == "user" else "country"
        ids += data.filter(pc.field(column) == predicate[1]).column("event_id").to_pylist()
    return sorted(ids)


def test_each_commit_writes_a_micro_zonemap_covering_its_files(ingested):
    table, results = ingested
    for result in results:
        assert table.io.new_input(micro_zonemap_uri(table, result.snapshot_id)).exists()
    everything = candidate_files(table, E.AlwaysTrue())
    assert everything.live_files == len(results) == 4
    assert everything.coverage == 1.0 and everything.stale_entries == 0


@pytest.mark.parametrize("column,pick", [("user", "most"), ("user", "least"), ("country", "least")])
def test_pruned_read_returns_exactly_the_full_scan_rows(ingested, column, pick):
    table, _ = ingested
    rows = table.scan(selected_fields=("user_id", "country")).to_arrow()
    values = rows.column("user_id" if column == "user" else "country").to_pylist()
    value = (max if pick == "most" else min)(set(values), key=values.count)
    predicate = E.EqualTo("user_id" if column == "user" else "country", value)
    expected = sorted(table.scan(row_filter=predicate, selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist())
    chosen = candidate_files(table, predicate)
    assert _rows_in(table, chosen.files, (column, value)) == expected
    assert len(expected) > 0


def test_a_rare_user_prunes_most_files(ingested):
    table, _ = ingested
    users = table.scan(selected_fields=("user_id",)).to_arrow().column("user_id").to_pylist()
    rare = min(set(users), key=users.count)
    chosen = candidate_files(table, E.EqualTo("user_id", rare))
    assert len(chosen.files) < chosen.live_files, "the Bloom filter rules out files without the user"


def test_a_file_without_a_zonemap_is_always_a_candidate(ingested, damaged):
    table, results = ingested
    damaged(micro_zonemap_uri(table, results[0].snapshot_id), None)  # as if the job died after its commit
    chosen = candidate_files(table, E.EqualTo("user_id", -1))  # no such user: every indexed file is ruled out
    assert chosen.indexed_live_files == chosen.live_files - 1
    assert len(chosen.files) == 1


def test_a_corrupt_zonemap_is_ignored_and_its_files_read(ingested, damaged):
    table, results = ingested
    damaged(micro_zonemap_uri(table, results[1].snapshot_id), b"PAR1 truncated")
    chosen = candidate_files(table, E.EqualTo("user_id", -1))
    assert len(chosen.unreadable_zonemaps) == 1 and len(chosen.files) == 1
