"""Models a user writes, for the ETL tests: their SQL files, tables and config, on a fresh catalog."""

from __future__ import annotations

from pathlib import Path

import yaml

from lakeops.config import load_config
from tests.conftest import config_data, register_catalog

ITEMS_SQL = """SELECT grp, date_trunc('day', ts) AS day, count(1) AS n, sum(v) AS total, max(id) AS top
FROM items GROUP BY grp, date_trunc('day', ts)
"""
AD_DAY_SQL = """SELECT i.ad_id, i.day, i.impressions, coalesce(c.clicks, 0) AS clicks
FROM (SELECT ad_id, date_trunc('day', ts) AS day, count(1) AS impressions FROM impressions GROUP BY 1, 2) i
LEFT JOIN (SELECT ad_id, date_trunc('day', ts) AS day, count(1) AS clicks FROM clicks GROUP BY 1, 2) c
  ON i.ad_id = c.ad_id AND i.day = c.day
"""
ITEMS_CURRENT_SQL = "SELECT id, grp, v * 2 AS doubled, ts FROM items WHERE v >= 0\n"
ITEMS_IN_GROUP_SQL = "SELECT id, grp, v, ts, sum(v) OVER (PARTITION BY grp) AS group_total FROM items\n"
VISITS_SQL = "SELECT visitor, date_trunc('day', ts) AS day, count(1) AS n FROM visits GROUP BY 1, 2\n"
VISITS_BY_DATE_SQL = "SELECT visitor, to_date(ts) AS day, count(1) AS n FROM visits GROUP BY 1, 2\n"
# A model over another model's table (items_by_group, whose files lakeops' incremental runs rewrite).
DAY_TOTALS_SQL = "SELECT day, sum(total) AS total, count(1) AS groups FROM items_by_group GROUP BY day\n"
HITS = {"columns": {"ad_id": "bigint not null", "ts": "timestamp not null"}, "partition_by": ["day(ts)"]}
DAY_KEY = {"day": "date_trunc('day', ts)"}
TABLES = {
    "lakeops.items": {"key": ["id"], "create": {"columns": {"id": "bigint not null", "grp": "bigint", "v": "bigint",
                                                           "ts": "timestamp not null"}, "partition_by": ["day(ts)"]}},
    "lakeops.items_by_group": {"create": {"columns": {"grp": "bigint", "day": "timestamp", "n": "bigint",
                                                      "total": "bigint", "top": "bigint"}, "partition_by": ["day(day)"]}},
    "lakeops.items_current": {"create": {"columns": {"id": "bigint not null", "grp": "bigint", "doubled": "bigint",
                                                     "ts": "timestamp not null"}, "partition_by": ["day(ts)"]}},
    "lakeops.items_in_group": {"create": {"columns": {"id": "bigint not null", "grp": "bigint", "v": "bigint",
                                                      "ts": "timestamp not null", "group_total": "bigint"},
                                          "partition_by": ["day(ts)"]}},
    "lakeops.visits": {"create": {"columns": {"visitor": "bigint", "ts": "timestamp"}, "partition_by": ["day(ts)"]}},
    "lakeops.visits_by_day": {"create": {"columns": {"visitor": "bigint", "day": "timestamp", "n": "bigint"},
                                         "partition_by": ["day(day)"]}},
    "lakeops.visits_by_date": {"create": {"columns": {"visitor": "bigint", "day": "date", "n": "bigint"},
                                          "partition_by": ["day(day)"]}},
    "lakeops.items_spread": {"create": {"columns": {"grp": "bigint", "day": "timestamp", "spread": "bigint",
                                                    "largest": "bigint"}, "partition_by": ["day(day)"]}},
    "lakeops.day_totals": {"create": {"columns": {"day": "timestamp", "total": "bigint", "groups": "bigint"},
                                      "partition_by": ["day(day)"]}},
    "lakeops.impressions": {"create": HITS},
    "lakeops.clicks": {"create": HITS},
    "lakeops.ad_day": {"create": {"columns": {"ad_id": "bigint not null", "day": "timestamp not null",
                                              "impressions": "bigint", "clicks": "bigint"}, "partition_by": ["day(day)"]}},
}
MODELS = {
    "items_by_group": {"sql": "items_by_group.sql", "key": ["grp", "day"], "partition_column": "day",
                       "sources": {"items": {"kind": "changelog", "time_column": "ts", "keys": DAY_KEY}}},
    "items_current": {"sql": "items_current.sql", "key": ["id"], "partition_column": "ts",
                      "sources": {"items": {"kind": "changelog", "time_column": "ts"}}},
    # Each item with its group's total: a change of one item recomputes its group's items (recompute_by is not the key).
    # No time_column: an item's row depends on the items of its group on every day, so a backfill reads them all.
    "items_in_group": {"sql": "items_in_group.sql", "key": ["id"], "recompute_by": ["grp"], "partition_column": "ts",
                       "full_recompute_share": 0, "sources": {"items": {"kind": "changelog"}}},
    # Append models over sources of a few rows, where one more file is most of a source's bytes: no full recompute
    # for weight (full_recompute_share 0), so that the tests run them incrementally.
    "visits_by_day": {"sql": "visits_by_day.sql", "key": ["visitor", "day"], "partition_column": "day",
                      "full_recompute_share": 0,
                      "sources": {"visits": {"kind": "append", "time_column": "ts", "keys": DAY_KEY}}},
    # The same by a DATE partition column.
    "visits_by_date": {"sql": "visits_by_date.sql", "key": ["visitor", "day"], "partition_column": "day",
                       "full_recompute_share": 0,
                       "sources": {"visits": {"kind": "append", "time_column": "ts", "keys": {"day": "to_date(ts)"}}}},
    # A Python model (lakeops calls the function with the sources' rows) over the same source.
    "items_spread": {"python": "tests.integration.etl.user_models:items_spread", "key": ["grp", "day"],
                     "partition_column": "day", "full_recompute_share": 0,
                     "sources": {"items": {"kind": "changelog", "time_column": "ts", "keys": DAY_KEY}}},
    "day_totals": {"sql": "day_totals.sql", "key": ["day"], "partition_column": "day", "full_recompute_share": 0,
                   "sources": {"items_by_group": {"kind": "changelog", "time_column": "day"}}},
    "ad_day": {"sql": "ad_day.sql", "key": ["ad_id", "day"], "partition_column": "day", "full_recompute_share": 0,
               "sources": {"impressions": {"kind": "append", "time_column": "ts", "keys": DAY_KEY},
                           "clicks": {"kind": "append", "time_column": "ts", "keys": DAY_KEY}}},
}


def items_spread(spark, sources):
    """Per group and day: the spread of the items' values and the id of the largest (the smallest id among equals),
    written with the DataFrame API."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    items = sources["items"].withColumn("day", F.date_trunc("day", "ts"))
    first = F.row_number().over(Window.partitionBy("grp", "day").orderBy(F.desc("v"), "id")) == 1
    return (items.withColumn("first", first).groupBy("grp", "day")
            .agg((F.max("v") - F.min("v")).alias("spread"), F.max(F.when(F.col("first"), F.col("id"))).alias("largest")))


def user_models_config(spark, base: Path, full_recompute_share: float = 0):
    """A config with the user models above on its own catalog, registered on spark; items_by_group with the
    given full_recompute_share (0, the default here: the tests read its changes through the snapshot diff
    however much of their small source a change touches)."""
    (base / "items_by_group.sql").write_text(ITEMS_SQL)
    (base / "ad_day.sql").write_text(AD_DAY_SQL)
    (base / "items_current.sql").write_text(ITEMS_CURRENT_SQL)
    (base / "items_in_group.sql").write_text(ITEMS_IN_GROUP_SQL)
    (base / "visits_by_day.sql").write_text(VISITS_SQL)
    (base / "visits_by_date.sql").write_text(VISITS_BY_DATE_SQL)
    (base / "day_totals.sql").write_text(DAY_TOTALS_SQL)
    models = {**MODELS, "items_by_group": {**MODELS["items_by_group"], "full_recompute_share": full_recompute_share}}
    path = base / "lakeops.yaml"
    path.write_text(yaml.safe_dump(config_data(base, TABLES, models), sort_keys=False))
    config = load_config(path)
    register_catalog(spark, config)
    return config, path
