from lakeops.phases import PhaseTimer, add_phases, parse_phases, render_phases


def test_phases_accumulate_in_order():
    timer = PhaseTimer()
    with timer.phase("parse"):
        pass
    with timer.phase("write"):
        pass
    with timer.phase("parse"):
        pass
    assert list(timer.seconds) == ["parse", "write"]


def test_render_and_parse_round_trip():
    assert render_phases({"parse": 1.2, "commit": 0.456}) == "parse=1.20s commit=0.46s"
    assert parse_phases("parse=1.20s commit=0.46s") == {"parse": 1.2, "commit": 0.46}


def test_add_phases():
    assert add_phases({"parse": 1.0}, {"parse": 0.5, "zonemap": 0.25}) == {"parse": 1.5, "zonemap": 0.25}
