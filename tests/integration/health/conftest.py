"""Tables with real delete files, written by Spark MERGE INTO / DELETE in merge-on-read mode."""

from __future__ import annotations

import pytest

from tests.conftest import make_test_config, register_catalog

MOR = ("'write.merge.mode'='merge-on-read', 'write.delete.mode'='merge-on-read', "
       "'write.update.mode'='merge-on-read'")


def make_mor_table(spark, config, name: str, format_version: int, granularity: str = "file") -> str:
    """id/v/d table partitioned by d (0 or 1), two inserts of 1,000 rows, then three MERGEs
    updating 5 keys each and one DELETE of one key."""
    qualified = config.qualified(name)
    spark.sql(f"CREATE TABLE {qualified} (id BIGINT, v STRING, d INT) USING iceberg PARTITIONED BY (d) "
              f"TBLPROPERTIES ('format-version'='{format_version}', {MOR}, 'write.delete.granularity'='{granularity}')")
    spark.sql(f"INSERT INTO {qualified} SELECT id, 'a', CAST(id % 2 AS INT) FROM range(1000)")
    spark.sql(f"INSERT INTO {qualified} SELECT id, 'a', CAST(id % 2 AS INT) FROM range(1000, 2000)")
    for i in range(3):
        spark.sql(f"MERGE INTO {qualified} t USING (SELECT id, 'b' AS v, CAST(id % 2 AS INT) AS d "
                  f"FROM range({i * 700}, {i * 700 + 5})) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
    spark.sql(f"DELETE FROM {qualified} WHERE id = 1500")
    return qualified


@pytest.fixture(scope="module")
def mor_tables(spark, tmp_path_factory):
    config = make_test_config(tmp_path_factory.mktemp("health"))
    register_catalog(spark, config)
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {config.catalog.name}.{config.catalog.namespace}")
    names = {"v2_file": (2, "file"), "v2_partition": (2, "partition"), "v3": (3, "file")}
    for name, (version, granularity) in names.items():
        make_mor_table(spark, config, name, version, granularity)
    return config
