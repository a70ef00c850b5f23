"""The Bloom filter's size and measured false-positive rate against the rate it is sized for."""

from __future__ import annotations

import pytest

from lakeops.zonemap.bloom import BloomFilter, _positions, bloom_shape


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


@pytest.mark.parametrize("values", [
    [], [None], [7], [1, 1, 2, None, 3], ["a", "b", "a"], list(range(-500, 40_000, 7)), [f"user-{i % 321}" for i in range(5000)],
])
def test_filters_set_exactly_the_bits_of_each_distinct_values_positions(values):
    """The bits are those of every distinct value's string form at its double-hashing positions, one value at a time
    (the filters already written keep testing the same), however many rows repeat a value."""
    built = BloomFilter.build(values, 0.01)
    size, hashes = bloom_shape(len({str(v) for v in values if v is not None}), 0.01)
    expected = bytearray(size // 8)
    for value in {str(v) for v in values if v is not None}:
        for p in _positions(value, hashes, size):
            expected[p >> 3] |= 1 << (p & 7)
    assert (built.bits, built.hashes) == (bytes(expected), hashes)
