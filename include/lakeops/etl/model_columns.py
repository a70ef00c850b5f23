"""Whether a model's SELECT fits its table, checked before a run writes anything: the SELECT must yield the model's
key, recompute and partition columns, and the table must have every column it yields. Otherwise the run would fail
inside Spark's write or MERGE with a message that names neither the model nor the fix. Pure: column names only,
compared as Spark does by default (case-insensitively)."""

from __future__ import annotations

from collections.abc import Sequence

from lakeops.config.models import ModelConfig
from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import validate_name


def check_model_columns(model: ModelConfig, yielded: Sequence[str], table: str, table_columns: Sequence[str]) -> None:
    """Raise ConfigError naming the columns and the fix when the SELECT's columns do not fit the table (or a column's
    name is no plain identifier: the run writes them into its MERGE statement)."""
    for column in yielded:
        validate_name(column, f"models.{model.name}: a column of its SELECT")
    names = {c.lower() for c in yielded}
    needed = dict.fromkeys((*model.key, *model.recompute_columns, model.partition_column))
    absent = [c for c in needed if c.lower() not in names]
    if absent:
        raise ConfigError(f"models.{model.name}: its SELECT yields no column {', '.join(absent)}, which the model's key, "
                          f"recompute_by or partition_column names; yield it (an alias in the SELECT) or change the model's "
                          f"settings. The SELECT yields: {', '.join(yielded)}")
    have = {c.lower() for c in table_columns}
    extra = [c for c in yielded if c.lower() not in have]
    if extra:
        raise ConfigError(f"models.{model.name}: its SELECT yields {', '.join(extra)}, which table {table} does not have; "
                          f"add the column(s) to the table (ALTER TABLE {table} ADD COLUMN ...) and recompute it "
                          f"(lakeops etl run {model.name} --full), or leave them out of the SELECT")
