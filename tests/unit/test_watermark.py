import pytest

from lakeops.exceptions import ConfigError
from lakeops.watermark import watermark_key, watermarks_of


def test_watermark_key_names_the_source():
    assert watermark_key("events") == "lakeops.watermark.events"


def test_watermark_key_refuses_an_unsafe_name():
    with pytest.raises(ConfigError, match="'events; drop'"):
        watermark_key("events; drop")


def test_watermarks_are_read_from_a_summary_and_other_keys_ignored():
    summary = {"lakeops.watermark.events": "17", "lakeops.watermark.users": "-3", "added-records": "5"}
    assert watermarks_of(summary) == {"events": 17, "users": -3}
    assert watermarks_of(None) == {}


def test_watermark_facts_are_properties_of_their_own_that_watermarks_of_ignores():
    from lakeops.watermark import watermark_fact_properties

    properties = watermark_fact_properties({"events": (12, 4000)})
    assert properties == {"lakeops.watermark-sequence.events": "12", "lakeops.watermark-records.events": "4000"}
    assert watermarks_of({**properties, "lakeops.watermark.events": "17"}) == {"events": 17}
    with pytest.raises(ConfigError):
        watermark_fact_properties({"events; drop": (1, 1)})
