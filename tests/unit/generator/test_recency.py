"""KeysByDay: O(1) add/remove of live keys per creation day, and a recency-weighted pick."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lakeops.generator.recency import DAY_MICROS, KeysByDay, day_of


def test_day_of_is_the_utc_day_number():
    assert day_of(0) == 0 and day_of(DAY_MICROS - 1) == 0 and day_of(DAY_MICROS) == 1 and day_of(20413 * DAY_MICROS + 5) == 20413


def test_removing_keys_keeps_the_rest_pickable():
    keys = KeysByDay()
    for key, day in ((1, 10), (2, 10), (3, 10), (4, 11)):
        keys.add(key, day)
    keys.remove(1)  # the last key of day 10 moves into its slot
    keys.remove(4)  # day 11 empties and is dropped
    rng = random.Random(1)
    assert len(keys) == 2
    assert {keys.pick(rng, today=11, skew=2.0) for _ in range(50)} == {2, 3}
    keys.remove(2)
    keys.remove(3)
    with pytest.raises(ValueError, match="no live keys"):
        keys.pick(rng, today=11, skew=2.0)


def test_pick_weighs_days_by_age():
    keys = KeysByDay()
    for key in range(300):
        keys.add(key, 100 + key // 100)  # 100 keys on each of days 100, 101, 102
    rng = random.Random(7)
    days = Counter(100 + keys.pick(rng, today=102, skew=1.0) // 100 for _ in range(6000))
    # weights 1, 1/2, 1/3 for ages 0, 1, 2: shares 6/11, 3/11, 2/11
    assert abs(days[102] / 6000 - 6 / 11) < 0.03 and abs(days[101] / 6000 - 3 / 11) < 0.03
    assert abs(days[100] / 6000 - 2 / 11) < 0.03
