"""lakeops.ingest.plan: the batch an interval reads and the id it commits under."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone

import pytest

from lakeops.exceptions import ConfigError
from lakeops.ingest.plan import IngestPlan, RunPlan, batch_id, plan_ingest, plan_run

UTC = UTC
PLUS_2 = timezone(timedelta(hours=2))


def at(hour: int, minute: int, second: int = 0, tz: timezone = UTC) -> datetime:
    return datetime(2026, 11, 21, hour, minute, second, tzinfo=tz)


@pytest.fixture
def config(make_config):
    return make_config(
        {
            "landing_dir": "/land",
            "tables": {
                "events": {"source": "events"},
                "users": {"ingest": {"format": "cdc"}, "key": ["user_id"], "source": "cdc/users"},
                "clicks": {},
            },
        }
    )


def test_plan_for_a_five_minute_interval(config):
    assert plan_ingest(config, "events", at(10, 0), at(10, 5)) == IngestPlan(
        table="`lakeops`.`lakeops`.`events`",
        quarantine_table="`lakeops`.`lakeops`.`events_quarantine`",
        batch_id="lakeops.events@20261121T100000Z-20261121T100500Z",
        source_dirs=(
            "/land/events/2026/11/21/10/00",
            "/land/events/2026/11/21/10/01",
            "/land/events/2026/11/21/10/02",
            "/land/events/2026/11/21/10/03",
            "/land/events/2026/11/21/10/04",
        ),
        start=at(10, 0),
        end=at(10, 5),
    )


def test_source_defaults_to_table_name_and_can_point_elsewhere(config):
    assert plan_ingest(config, "clicks", at(10, 0), at(10, 2)).source_dirs == (
        "/land/clicks/2026/11/21/10/00",
        "/land/clicks/2026/11/21/10/01",
    )
    users = plan_ingest(config, "users", at(10, 0), at(10, 2))
    assert users.source_dirs == ("/land/cdc/users/2026/11/21/10/00", "/land/cdc/users/2026/11/21/10/01")
    assert users.table == "`lakeops`.`lakeops`.`users`"
    assert users.quarantine_table == "`lakeops`.`lakeops`.`users_quarantine`"
    assert users.batch_id == "lakeops.users@20261121T100000Z-20261121T100200Z"


def test_same_interval_gets_the_same_batch_id(config):
    first = plan_ingest(config, "events", at(10, 0), at(10, 5))
    again = plan_ingest(config, "events", at(10, 0), at(10, 5))
    other_zone = plan_ingest(config, "events", at(12, 0, tz=PLUS_2), at(12, 5, tz=PLUS_2))
    assert first.batch_id == again.batch_id == other_zone.batch_id
    assert first.source_dirs == other_zone.source_dirs


def test_each_interval_gets_its_own_batch_id(config):
    ids = [plan_ingest(config, "events", at(10, 0) + timedelta(minutes=5 * i), at(10, 5) + timedelta(minutes=5 * i)).batch_id
           for i in range(12)]
    assert len(set(ids)) == 12
    assert ids[1] == "lakeops.events@20261121T100500Z-20261121T101000Z"
    longer = plan_ingest(config, "events", at(10, 0), at(10, 10)).batch_id
    assert longer not in ids


def test_batch_id_differs_per_table(config):
    events, clicks = (plan_ingest(config, table, at(10, 0), at(10, 5)) for table in ("events", "clicks"))
    assert events.batch_id != clicks.batch_id


def test_batch_id_keeps_seconds():
    assert batch_id("events", at(10, 0, 30), at(10, 5, 30)) == "events@20261121T100030Z-20261121T100530Z"


def test_default_landing_root_is_under_data_dir(tmp_path, make_config):
    config = make_config({"catalog": {"data_dir": "lake"}, "tables": {"events": {}}})
    plan = plan_ingest(config, "events", at(10, 0), at(10, 1))
    assert plan.source_dirs == (f"{tmp_path.resolve()}/lake/landing/events/2026/11/21/10/00",)


def test_catalog_name_and_namespace_qualify_the_tables(make_config):
    config = make_config({"catalog": {"name": "prod", "namespace": "web"}, "landing_dir": "s3a://landing/",
                          "tables": {"events": {}}})
    plan = plan_ingest(config, "events", at(10, 0), at(10, 1))
    assert plan.table == "`prod`.`web`.`events`"
    assert plan.quarantine_table == "`prod`.`web`.`events_quarantine`"
    assert plan.source_dirs == ("s3a://landing/events/2026/11/21/10/00",)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (datetime(2026, 11, 21, 10, 0), at(10, 5)),
        (at(10, 0), datetime(2026, 11, 21, 10, 5)),
        (datetime(2026, 11, 21, 10, 0), datetime(2026, 11, 21, 10, 5)),
    ],
)
def test_naive_interval_is_rejected(config, start, end):
    with pytest.raises(ConfigError, match="has no time zone; pass ISO-8601 times with a zone"):
        plan_ingest(config, "events", start, end)


@pytest.mark.parametrize(("start", "end"), [(at(10, 5), at(10, 0)), (at(10, 0), at(10, 0)), (at(12, 0, tz=PLUS_2), at(10, 0))])
def test_reversed_or_empty_interval_is_rejected(config, start, end):
    with pytest.raises(ConfigError, match=r"data interval start .* is not before end .*; pass start < end"):
        plan_ingest(config, "events", start, end)


def test_unknown_table_is_rejected(config):
    with pytest.raises(ConfigError, match=r"table 'orders' is not in the config file and no discovery rule brings it in; "
                                          r"configured tables: lakeops.events, lakeops.users, lakeops.clicks"):
        plan_ingest(config, "orders", at(10, 0), at(10, 5))


def test_planners_do_not_import_pyspark():
    code = (
        "import sys, lakeops.config, lakeops.landing, lakeops.catalog, lakeops.ingest.plan, lakeops.ingest.ddl, "
        "lakeops.generator; print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'airflow')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_batch_interval_reads_back_what_batch_id_writes():
    from lakeops.ingest.plan import batch_id, batch_interval

    start, end = datetime(2026, 11, 21, 10, 0, tzinfo=UTC), datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
    assert batch_interval(batch_id("users", start, end)) == ("users", start, end)
    assert batch_interval("users@20261121T100000Z-20261121T100500Z") == ("users", start, end)
    for other in ("events@stream-3f2a-17", "users", "users@20261121T100000Z", "@20261121T100000Z-20261121T100500Z",
                  "users@2026-11-21-2026-11-22"):
        assert batch_interval(other) is None, other


def test_first_batch_not_before_finds_the_oldest_later_interval_of_the_table():
    from lakeops.ingest.plan import first_batch_not_before

    newest_first = ["users@20261121T101000Z-20261121T101500Z", "orders@20261121T100500Z-20261121T101000Z",
                    "events@stream-q-4", "users@20261121T100500Z-20261121T101000Z", "users@20261121T100000Z-20261121T100500Z"]
    at = lambda h, m: datetime(2026, 11, 21, h, m, tzinfo=UTC)  # noqa: E731
    assert first_batch_not_before(newest_first, "users", at(10, 15)) is None      # the next interval: in order
    assert first_batch_not_before(newest_first, "users", at(10, 10)) == 0         # 10:10-10:15 is already there
    assert first_batch_not_before(newest_first, "users", at(10, 0)) == 4          # oldest later one: 10:00-10:05
    assert first_batch_not_before(newest_first, "users", at(10, 3)) == 4          # overlaps 10:00-10:05
    assert first_batch_not_before(newest_first, "orders", at(10, 10)) is None
    assert first_batch_not_before(newest_first, "orders", at(10, 0)) == 1
    assert first_batch_not_before([], "users", at(10, 0)) is None

def test_direct_mode_runs_one_job_and_no_writers(config):
    run = plan_run(config, "events", at(10, 0), at(10, 5))
    assert run == RunPlan(mode="direct", table="lakeops.events", batch_id="lakeops.events@20261121T100000Z-20261121T100500Z",
                          start="2026-11-21T10:00:00+00:00", end="2026-11-21T10:05:00+00:00", writers=1, writer_args=())


def test_staged_mode_runs_one_writer_per_share(make_config):
    config = make_config({"tables": {"events": {"ingest": {"commit_mode": "staged", "writers": 3}}}})
    run = plan_run(config, "events", at(10, 0), at(10, 5))
    common = ("--table", "lakeops.events", "--start", "2026-11-21T10:00:00+00:00", "--end", "2026-11-21T10:05:00+00:00")
    assert (run.mode, run.writers) == ("staged", 3)
    assert run.writer_args == tuple((*common, "--writer", str(k), "--writers", "3") for k in range(3))
    assert run.as_dict()["writer_args"][2][-3:] == ("2", "--writers", "3")


def test_a_committed_staged_batch_gets_no_writers(make_config):
    config = make_config({"tables": {"events": {"ingest": {"commit_mode": "staged", "writers": 3}}}})
    run = plan_run(config, "events", at(10, 0), at(10, 5), committed=True)
    assert (run.mode, run.writers, run.writer_args) == ("staged", 3, ())


def test_a_streamed_table_gets_an_empty_batch_run(make_config):
    config = make_config({"tables": {"events": {"ingest": {"mode": "streaming"}}}})
    run = plan_run(config, "events", at(10, 0), at(10, 5))
    assert (run.mode, run.writers, run.writer_args) == ("streaming", 0, ())


def test_batch_and_streaming_ingest_refuse_each_others_tables(make_config):
    from lakeops.ingest.plan import check_ingest_mode

    streamed = make_config({"tables": {"events": {"ingest": {"mode": "streaming"}}}})
    batched = make_config({"tables": {"events": {}}})
    check_ingest_mode(streamed, "events", "streaming")
    check_ingest_mode(batched, "events", "batch")
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.ingest.mode is 'streaming': .* a batch ingest would "
                                          r"commit them a "
                                          r"second time .* Pause ingest_events"):
        check_ingest_mode(streamed, "events", "batch")
    with pytest.raises(ConfigError, match=r"tables.lakeops.events.ingest.mode is 'batch': the ingest_events DAG ingests "
                                          r"its landed "
                                          r"files.* Set tables.lakeops.events.ingest.mode: streaming"):
        check_ingest_mode(batched, "events", "streaming")
