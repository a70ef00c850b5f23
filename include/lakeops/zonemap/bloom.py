"""A small Bloom filter for equality pruning on high-cardinality columns (e.g. user_id).

Double hashing over murmur3 (mmh3, already a pyiceberg dependency); values are hashed by their
string form, so int and long (type widening) hash alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mmh3
import numpy as np
from pyiceberg.types import IntegerType, LongType, StringType

# Only types whose Python value is the same in a data file and in a bound literal (int and long
# hash alike, so widening keeps a filter valid); timestamps, floats and the rest get no filter.
BLOOM_TYPES = (IntegerType, LongType, StringType)


@dataclass(frozen=True)
class BloomFilter:
    bits: bytes
    hashes: int

    @classmethod
    def build(cls, values: Any, fpp: float) -> BloomFilter:
        """A filter of values' distinct string forms, sized for false-positive rate fpp."""
        # The values' own set first (a file holds far fewer distinct values than rows), then their string forms;
        # the positions of all of them at once: (h1 + i * h2) % size == (h1 % size + i * (h2 % size)) % size.
        distinct = {str(v) for v in set(values) if v is not None}
        size, hashes = bloom_shape(len(distinct), fpp)
        bits = np.zeros(size // 8, dtype=np.uint8)
        if distinct:
            pairs = np.array([mmh3.hash64(v.encode(), signed=False) for v in distinct], dtype=np.uint64)
            h1, h2 = (pairs % np.uint64(size)).astype(np.int64).T
            positions = ((h1[:, None] + np.arange(hashes, dtype=np.int64)[None, :] * h2[:, None]) % size).ravel()
            np.bitwise_or.at(bits, positions >> 3, np.left_shift(1, positions & 7).astype(np.uint8))
        return cls(bits.tobytes(), hashes)

    def might_contain(self, value: Any) -> bool:
        size = len(self.bits) * 8
        return all(self.bits[p >> 3] & (1 << (p & 7)) for p in _positions(str(value), self.hashes, size))


def bloom_shape(distinct: int, fpp: float) -> tuple[int, int]:
    """(bits, hashes) of a filter holding `distinct` values at false-positive rate fpp (bits a multiple of 8)."""
    n = max(distinct, 1)
    size = max(64, int(-n * math.log(fpp) / (math.log(2) ** 2)))
    size = (size + 7) // 8 * 8
    return size, max(1, round(size / n * math.log(2)))


def _positions(value: str, hashes: int, size: int) -> list[int]:
    h1, h2 = mmh3.hash64(value.encode(), signed=False)
    return [(h1 + i * h2) % size for i in range(hashes)]
