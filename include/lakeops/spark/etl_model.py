"""A model's rows from its inputs: the model's SELECT run over one temporary view per source (named as the
model names the source; a view shadows a table of the same unqualified name), or its Python function. The
same code serves incremental, full and backfill runs, so every mode computes a row the same way."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from lakeops.config.models import ModelConfig
from lakeops.exceptions import ConfigError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def model_sql(model: ModelConfig) -> str:
    """The model's SELECT, from its file (a trailing semicolon dropped)."""
    path = Path(model.sql_path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(f"models.{model.name}.sql: {str(path)!r} cannot be read ({e.strerror}); the path is "
                          "relative to the config file") from e
    return text.strip().rstrip(";")


def model_rows(spark: SparkSession, model: ModelConfig, inputs: dict[str, DataFrame]) -> DataFrame:
    """The model over `inputs` ({source name: rows}). The views stay registered until the next run replaces
    them: Spark resolves a view when the returned frame is planned, so they must outlive this call."""
    if model.python is not None:
        module, function = model.python.split(":")
        try:
            build = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as e:
            raise ConfigError(f"models.{model.name}.python: {model.python!r} cannot be imported ({e})") from e
        rows: DataFrame = build(spark, dict(inputs))
        return rows
    for name, frame in inputs.items():
        frame.createOrReplaceTempView(name)
    return spark.sql(model_sql(model))
