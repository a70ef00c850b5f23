import json
from pathlib import Path

import pytest

from lakeops.generator.paced import EventPool, PacedFile, land_paced, pace


def test_files_are_due_when_their_last_row_is():
    assert pace(1000, 400, 1) == [PacedFile(0, 0.4, 400), PacedFile(1, 0.8, 400), PacedFile(2, 1.0, 200)]


def test_backlog_lands_every_file_at_once():
    assert pace(1000, 600, 1.5, backlog=True) == [PacedFile(0, 0.0, 600), PacedFile(1, 0.0, 600), PacedFile(2, 0.0, 300)]


def test_rate_of_the_seeds_scale():
    files = pace(43_000, 43_000, 600)
    assert len(files) == 600 and files[0].due_s == 1.0 and files[-1].due_s == 600.0
    assert sum(f.rows for f in files) == 25_800_000


@pytest.mark.parametrize("args", [(0, 10, 1), (10, 0, 1), (10, 10, 0), (0.1, 10, 1)])
def test_rejects_empty_runs(args):
    with pytest.raises(ValueError, match="rows"):
        pace(*args)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def test_land_paced_waits_for_each_due_time(tmp_path: Path):
    clock = FakeClock()
    run = land_paced(str(tmp_path), pace(100, 50, 1), "r1", EventPool(size=64), clock=clock, sleep=clock.sleep)
    assert clock.slept == [0.5, 0.5]
    assert (run.files, run.rows, run.seconds, run.max_behind_s) == (2, 100, 1.0, 0.0)
    files = sorted(tmp_path.rglob("*.jsonl"))
    assert [f.name for f in files] == ["r1-000000.jsonl", "r1-000001.jsonl"]
    assert sum(len(f.read_text().splitlines()) for f in files) == 100


def test_good_lines_get_unique_ids_and_the_file_time():
    pool = EventPool(size=400, bad_fraction=0.05)
    lines, bad = pool.lines("r-7", 1000, "2026-11-26T10:00:00.000Z")
    good = [json.loads(line) for line in lines if line.startswith('{"event_id":"r-7-')]
    assert len(good) == 1000 - bad and 0 < bad < 100
    assert len({e["event_id"] for e in good}) == len(good)
    assert {e["event_time"] for e in good} == {"2026-11-26T10:00:00.000Z"}
