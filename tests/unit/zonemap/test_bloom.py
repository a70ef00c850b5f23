"""The Bloom filter's size and measured false-positive rate against the rate it is sized for."""

from __future__ import annotations

import pytest

from lakeops.zonemap.bloom import BloomFilter, bloom_shape


def test_shape_follows_the_rate():
    assert bloom_shape(200, 0.01) == (1920, 7)
    assert bloom_shape(200, 0.001) == (2880, 10)
    assert bloom_shape(0, 0.001) == (64, 44)  # an empty file still gets a minimal filter


@pytest.mark.parametrize("fpp", [0.01, 0.001])
def test_members_always_pass_and_absent_values_pass_at_about_the_rate(fpp):
    members = range(0, 2_000_000, 1000)  # 2,000 values
    bloom = BloomFilter.build(members, fpp)
    assert all(bloom.might_contain(v) for v in members)
    absent = [v for v in range(1, 400_001) if v % 1000]
    rate = sum(bloom.might_contain(v) for v in absent) / len(absent)
    assert fpp / 3 < rate < fpp * 1.5, rate
