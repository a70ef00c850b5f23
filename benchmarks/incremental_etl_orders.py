"""The changelog case of the incremental ETL benchmark: a merge-on-read `orders` table and a user model over it
(`orders_gross`: each order with its gross amount, key order_id), and each repetition's changes: new orders,
updates and deletes of existing ones (Spark SQL UPDATE and DELETE, which write delete files)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

MODEL = "orders_gross"
MODEL_SQL = """SELECT order_id, user_id, status, amount, CAST(amount * 1.19 AS DECIMAL(14, 2)) AS gross, created_at
FROM orders
"""
MOR = {"write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read", "write.merge.mode": "merge-on-read"}


def config_entries(base: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(tables, models) entries of the model and its table; the SQL file written under base."""
    sql = base / f"{MODEL}.sql"
    sql.write_text(MODEL_SQL)
    table = {"create": {"columns": {"order_id": "bigint not null", "user_id": "bigint", "status": "string",
                                    "amount": "decimal(12, 2)", "gross": "decimal(14, 2)", "created_at": "timestamp"},
                        "partition_by": ["day(created_at)"]}}
    model = {"sql": str(sql), "key": ["order_id"], "partition_column": "created_at",
             "sources": {"orders": {"kind": "changelog", "time_column": "created_at"}}}
    return {f"lakeops.{MODEL}": table}, {MODEL: model}


def orders_frame(spark: SparkSession, first_id: int, rows: int, start: datetime, end: datetime, users: int,
                 seed: int) -> DataFrame:
    """`rows` orders with ids first_id.., created evenly over [start, end); columns from the id and the seed."""
    from pyspark.sql import functions as F

    span = int((end - start).total_seconds() * 1_000_000)
    offset = ((F.col("id") - F.lit(first_id)) * F.lit(span // max(rows, 1))).cast("bigint")
    created = F.timestamp_micros(F.lit(int(start.timestamp() * 1_000_000)) + offset)
    h = F.xxhash64(F.col("id"), F.lit(seed))
    return spark.range(first_id, first_id + rows).select(
        F.col("id").alias("order_id"), (F.abs(h) % F.lit(users)).cast("bigint").alias("user_id"), F.lit("new").alias("status"),
        (F.abs(h) % F.lit(100_000) / F.lit(100)).cast("decimal(12,2)").alias("amount"), F.lit("EUR").alias("currency"),
        created.alias("created_at"), created.alias("updated_at"))


def create_orders(spark: SparkSession, table: str, days: int, rows_per_day: int, users: int, start: datetime) -> None:
    for day in range(days):
        orders_frame(spark, day * rows_per_day, rows_per_day, start + timedelta(days=day),
                     start + timedelta(days=day + 1), users, seed=day).writeTo(table).append()
        print(f"orders day {day + 1}/{days} written", flush=True)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ({', '.join(f'{k!r}={v!r}' for k, v in MOR.items())})")


def change_orders(spark: SparkSession, table: str, total: int, new_share: float, changed_share: float, rep: int,
                  head: datetime, users: int, among: int | None = None) -> tuple[int, int]:
    """One repetition's changes: new orders (share new_share of total, created after head), then updates and
    deletes of the first `total` orders (those the benchmark built), each half of changed_share of total, spread
    over all of them or, with `among`, over the newest `among` of them (every n-th id, shifted per repetition).
    Returns (new rows, changed rows)."""
    new = int(total * new_share)
    orders_frame(spark, total + rep * new, new, head, head + timedelta(hours=1), users, seed=5000 + rep
                 ).writeTo(table).append()
    pool = among or total
    step = max(2, round(2 * pool / (changed_share * total)))  # one id in `step` updated and one deleted
    within = f"order_id >= {total - pool} AND order_id < {total} AND "  # never the orders new since the build
    spark.sql(f"UPDATE {table} SET status = 'paid', amount = amount + 1 WHERE {within}order_id % {step} = {(2 * rep) % step}")
    spark.sql(f"DELETE FROM {table} WHERE {within}order_id % {step} = {(2 * rep + 1) % step}")
    return new, 2 * (pool // step)
