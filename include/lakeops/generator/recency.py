"""Live keys grouped by the UTC day they were created, for changes that favour recent rows.

Real order streams are skewed by age: an order is paid within minutes, shipped within a day or two,
delivered within a week, and only a few are returned or corrected weeks later. The generator picks
the day of the order a change hits with a Zipf weight on its age, (age in days + 1) ** -skew, then
an order of that day uniformly. Adding and removing a key are O(1) (swap-remove), so picking stays
cheap on hundreds of thousands of live orders, and the result depends only on the random source.
"""

from __future__ import annotations

import random

DAY_MICROS = 86_400 * 1_000_000


def day_of(micros: int) -> int:
    """Days since 1970-01-01 (UTC) of an epoch-microsecond timestamp."""
    return micros // DAY_MICROS


class KeysByDay:
    def __init__(self) -> None:
        self._keys: dict[int, list[int]] = {}
        self._where: dict[int, tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self._where)

    def add(self, key: int, day: int) -> None:
        bucket = self._keys.setdefault(day, [])
        self._where[key] = (day, len(bucket))
        bucket.append(key)

    def remove(self, key: int) -> None:
        day, index = self._where.pop(key)
        bucket = self._keys[day]
        last = bucket.pop()
        if index < len(bucket):
            bucket[index] = last
            self._where[last] = (day, index)
        if not bucket:
            del self._keys[day]

    def pick(self, rng: random.Random, today: int, skew: float) -> int:
        """A live key: its day drawn with weight (today - day + 1) ** -skew, then a key of that day."""
        if not self._where:
            raise ValueError("no live keys to pick from")
        days = sorted(self._keys)
        weights = [(max(today - day, 0) + 1) ** -skew for day in days]
        bucket = self._keys[rng.choices(days, weights)[0]]
        return bucket[rng.randrange(len(bucket))]
