"""Property: over random histories of a table (batches of files, schema changes, compactions,
consolidations, commits whose micro zonemap never got written) and random predicates, the rows of
the files the index keeps equal the rows of a full scan, under both pyiceberg's Arrow semantics and
SQL's three-valued logic.

All in memory: entries are built as the builders do (bounds at the type of the moment, Bloom
filters on int/long/string) and round-tripped through the zonemap Parquet encoding, so a bound
written as int or float is read back after widening to long or double.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyiceberg import expressions as E
from pyiceberg.expressions.visitors import bind
from pyiceberg.io.pyarrow import expression_to_pyarrow
from pyiceberg.schema import Schema
from pyiceberg.types import DoubleType, FloatType, IntegerType, LongType, NestedField, StringType

from lakeops.zonemap.bloom import BLOOM_TYPES, BloomFilter
from lakeops.zonemap.columns import from_stored
from lakeops.zonemap.consolidate import reconcile_entries
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.evaluate import may_match_all
from lakeops.zonemap.groups import summarize
from lakeops.zonemap.levels import DAILY, Scope
from lakeops.zonemap.prune import may_match
from lakeops.zonemap.store import SCHEMA as STORED
from lakeops.zonemap.store import from_arrow, to_arrow, types_for

ICEBERG = {"int": IntegerType(), "long": LongType(), "float": FloatType(), "double": DoubleType(), "string": StringType()}
ARROW = {"int": pa.int32(), "long": pa.int64(), "float": pa.float32(), "double": pa.float64(), "string": pa.string()}
WIDER = {"int": "long", "float": "double"}
STRINGS = ["", "a", "ab", "b", "DE", "DEU", "https://shop.example.com/products/0001", "https://shop.example.com/products/0002",
           "zz"]


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def literals_of(kind: str) -> st.SearchStrategy[Any]:
    """Predicate literals: also doubles a float column cannot hold exactly (0.1), which readers round."""
    if kind in ("float", "double"):
        return st.one_of(values_of(kind), st.floats(-4, 4, allow_nan=False))
    return values_of(kind)


def values_of(kind: str) -> st.SearchStrategy[Any]:
    # Few distinct values, so bounds and literals often meet (where off-by-one pruning bugs live).
    if kind == "int":
        return st.integers(-8, 8)
    if kind == "long":
        return st.one_of(st.integers(-8, 8), st.integers(2**31, 2**31 + 3))
    if kind in ("float", "double"):
        return st.one_of(st.sampled_from([-1.5, 0.0, 0.1, 1.1, 2.5]), st.floats(-4, 4, allow_nan=False, width=32))
    return st.sampled_from(STRINGS)


@dataclass
class Col:
    fid: int
    name: str
    kind: str


@dataclass
class File:
    path: str
    rows: list[dict[int, Any]]
    """Values by field id, as stored: float columns hold 32-bit values."""


@dataclass
class History:
    cols: list[Col] = field(default_factory=lambda: [Col(1, "a", "int"), Col(2, "b", "float"), Col(3, "s", "string"),
                                                     Col(4, "t", "long")])
    next_id: int = 5
    live: dict[str, File] = field(default_factory=dict)
    index: dict[str, ZonemapEntry] = field(default_factory=dict)
    stored: dict[str, pa.Table] = field(default_factory=dict)
    """Each entry in the zonemap encoding, as written (for the columnar planner)."""
    counter: int = 0

    def schema(self) -> Schema:
        return Schema(*[NestedField(c.fid, c.name, ICEBERG[c.kind], required=False) for c in self.cols])

    def entry(self, f: File) -> ZonemapEntry:
        """As a micro zonemap or reconcile builds it now, written and read back in the zonemap encoding."""
        stats, blooms = {}, {}
        for c in self.cols:
            present = [r.get(c.fid) for r in f.rows if r.get(c.fid) is not None]
            stats[c.fid] = ColumnStats(min(present, default=None), max(present, default=None), len(f.rows) - len(present))
            if isinstance(ICEBERG[c.kind], BLOOM_TYPES):
                blooms[c.fid] = BloomFilter.build(present, 0.01)
        entry = ZonemapEntry(f.path, 1, len(f.rows), 100, "", stats, blooms)
        self.stored[f.path] = to_arrow([entry], {c.fid: ICEBERG[c.kind] for c in self.cols})
        return from_arrow(self.stored[f.path])[0]

    def write(self, rows: list[dict[str, Any]], micro: bool) -> None:
        self.counter += 1
        stored = [{c.fid: (f32(r[c.name]) if c.kind == "float" and r.get(c.name) is not None else r.get(c.name))
                   for c in self.cols} for r in rows]
        f = File(f"f{self.counter}", stored)
        self.live[f.path] = f
        if micro:
            self.index[f.path] = self.entry(f)

    def compact(self, count: int) -> None:
        """Rewrite the oldest live files into one (its index entries stay, stale, until reconcile)."""
        merged = [self.live.pop(p) for p in list(self.live)[:count]]
        if merged:
            self.counter += 1
            self.live[f"f{self.counter}"] = File(f"f{self.counter}", [r for f in merged for r in f.rows])

    def reconcile(self) -> None:
        from lakeops.zonemap.live import LiveFile

        live = [LiveFile(_DataFile(p), 1, None) for p in self.live]
        kept, missing, _ = reconcile_entries(list(self.index.values()), live, Scope(DAILY, "d", None, 1))
        self.index = {e.file_path: e for e in kept} | {m.path: self.entry(self.live[m.path]) for m in missing}

    def change(self, op: str, pick: int, kind: str) -> None:
        if op == "add":
            self.cols.append(Col(self.next_id, f"c{self.next_id}", kind))
            self.next_id += 1
            return
        if not self.cols:
            return
        col = self.cols[pick % len(self.cols)]
        if op == "rename":
            col.name = f"{col.name}_r"
        elif op == "widen" and col.kind in WIDER:
            col.kind = WIDER[col.kind]
        elif op == "drop" and len(self.cols) > 1:
            self.cols.remove(col)


@dataclass(frozen=True)
class _DataFile:
    file_path: str


def arrow_of(history: History, f: File) -> pa.Table:
    return pa.table({c.name: pa.array([r.get(c.fid) for r in f.rows], ARROW[c.kind]) for c in history.cols})


def sql_match(expr: E.BooleanExpression, row: dict[str, Any], kinds: dict[str, str]) -> bool | None:
    """SQL three-valued logic; a float column compares against the literal rounded to 32 bits."""
    if isinstance(expr, E.And):
        a, b = sql_match(expr.left, row, kinds), sql_match(expr.right, row, kinds)
        return False if False in (a, b) else (None if None in (a, b) else True)
    if isinstance(expr, E.Or):
        a, b = sql_match(expr.left, row, kinds), sql_match(expr.right, row, kinds)
        return True if True in (a, b) else (None if None in (a, b) else False)
    if isinstance(expr, E.Not):
        inner = sql_match(expr.child, row, kinds)
        return None if inner is None else not inner
    name = expr.term.name
    value = row[name]
    if isinstance(expr, E.IsNull):
        return value is None
    if isinstance(expr, E.NotNull):
        return value is not None
    if value is None:
        return None
    cast = f32 if kinds[name] == "float" else (lambda x: x)
    if isinstance(expr, (E.In, E.NotIn)):
        found = value in {cast(lit.value) for lit in expr.literals}
        return found if isinstance(expr, E.In) else not found
    target = cast(expr.literal.value)
    return {E.EqualTo: value == target, E.NotEqualTo: value != target, E.LessThan: value < target,
            E.LessThanOrEqual: value <= target, E.GreaterThan: value > target, E.GreaterThanOrEqual: value >= target}[type(expr)]


@st.composite
def predicate_on(draw: Any, cols: list[Col], depth: int = 3) -> E.BooleanExpression:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        col = draw(st.sampled_from(cols))
        kind = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "in", "not in", "null", "not null"]))
        if kind == "null":
            return E.IsNull(col.name)
        if kind == "not null":
            return E.NotNull(col.name)
        if kind in ("in", "not in"):
            values = draw(st.lists(literals_of(col.kind), min_size=1, max_size=3))
            return E.In(col.name, values) if kind == "in" else E.NotIn(col.name, values)
        return {"=": E.EqualTo, "!=": E.NotEqualTo, "<": E.LessThan, "<=": E.LessThanOrEqual, ">": E.GreaterThan,
                ">=": E.GreaterThanOrEqual}[kind](col.name, draw(literals_of(col.kind)))
    op = draw(st.sampled_from(["and", "or", "not"]))
    if op == "not":
        return E.Not(draw(predicate_on(cols, depth - 1)))
    left, right = draw(predicate_on(cols, depth - 1)), draw(predicate_on(cols, depth - 1))
    return E.And(left, right) if op == "and" else E.Or(left, right)


@st.composite
def histories(draw: Any) -> History:
    history = History()
    for _ in range(draw(st.integers(2, 12))):
        step = draw(st.sampled_from(["write", "write", "write", "schema", "compact", "reconcile"]))
        if step == "write":
            rows = draw(st.lists(st.fixed_dictionaries({c.name: st.one_of(st.none(), values_of(c.kind)) for c in history.cols}),
                                 min_size=1, max_size=6))
            history.write(rows, micro=draw(st.booleans()))  # False: the job died after its commit
        elif step == "schema":
            history.change(draw(st.sampled_from(["add", "rename", "widen", "drop"])), draw(st.integers(0, 9)),
                           draw(st.sampled_from(list(ICEBERG))))
        elif step == "compact":
            history.compact(draw(st.integers(1, 3)))
        else:
            history.reconcile()
    return history


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_pruned_rows_equal_full_scan_rows_over_random_histories(data):
    history = data.draw(histories())
    predicate = data.draw(predicate_on(history.cols))
    schema = history.schema()
    kinds = {c.name: c.kind for c in history.cols}
    arrow_filter = expression_to_pyarrow(bind(schema, predicate, case_sensitive=True))
    full_arrow, pruned_arrow, full_sql, pruned_sql = [], [], [], []
    for path, f in history.live.items():
        table = arrow_of(history, f)
        rows = table.to_pylist()
        arrow_rows = [(path, r) for r in table.filter(arrow_filter).to_pylist()]
        sql_rows = [(path, i) for i, r in enumerate(rows) if sql_match(predicate, r, kinds) is True]
        kept = path not in history.index or may_match(history.index[path], predicate, schema)
        full_arrow += arrow_rows
        full_sql += sql_rows
        if kept:
            pruned_arrow += arrow_rows
            pruned_sql += sql_rows
    assert pruned_arrow == full_arrow, (predicate, history)
    assert pruned_sql == full_sql, (predicate, history)
    # The columnar planner (the whole index at once, as candidate_files evaluates it) keeps the same files.
    if history.index:
        paths = list(history.index)
        index = from_stored(pa.concat_tables([history.stored[p] for p in paths]), types_for(schema))
        columnar = dict(zip(paths, may_match_all(index, predicate, schema).tolist(), strict=True))
        assert columnar == {p: may_match(history.index[p], predicate, schema) for p in paths}, predicate
        # The master's row-group summary (lakeops.zonemap.groups) rules out no group holding an entry
        # that min/max keep: a lookup reading only the candidate groups keeps the same files.
        size = data.draw(st.integers(1, 4))
        stored = pa.concat_tables([history.stored[p] for p in paths]).cast(STORED)
        groups = from_stored(summarize(stored, size), types_for(schema))
        kept_groups = may_match_all(groups, predicate, schema, use_blooms=False)
        minmax = may_match_all(index, predicate, schema, use_blooms=False)
        for i in range(len(paths)):
            assert kept_groups[i // size] or not minmax[i], (predicate, i, size)


def test_a_float_column_prunes_against_the_literal_rounded_to_32_bits():
    """0.1 is not a float: the file holding float(0.1) matches `b <= 0.1` in Arrow and in Spark."""
    history = History()
    history.write([{"a": 1, "b": 0.1, "s": "a", "t": 1}], micro=True)
    schema = history.schema()
    for predicate in (E.LessThanOrEqual("b", 0.1), E.EqualTo("b", 0.1), E.In("b", [0.1, 3.0])):
        assert arrow_of(history, history.live["f1"]).filter(expression_to_pyarrow(bind(schema, predicate, True))).num_rows == 1
        assert may_match(history.index["f1"], predicate, schema), predicate
    assert not may_match(history.index["f1"], E.GreaterThan("b", 0.1), schema)


def test_a_file_of_negative_zeros_is_kept_for_not_in_zero():
    """Arrow's is_in hashes the bits, so -0.0 is not in (0.0) and the row matches NOT IN; the file
    must be kept although its bounds equal the excluded value to Python (-0.0 == 0.0). A file of
    one non-zero value is still pruned for NOT IN that value."""
    history = History()
    history.write([{"a": 1, "b": -0.0, "s": "a", "t": 1}], micro=True)
    history.write([{"a": 2, "b": 2.5, "s": "b", "t": 2}], micro=True)
    schema = history.schema()
    for predicate in (E.NotIn("b", [-1.5, 0.0]), E.Not(E.In("b", [0.0, 1.5]))):
        assert arrow_of(history, history.live["f1"]).filter(expression_to_pyarrow(bind(schema, predicate, True))).num_rows == 1
        assert may_match(history.index["f1"], predicate, schema), predicate
    assert not may_match(history.index["f2"], E.NotIn("b", [2.5, 0.0]), schema)
