"""Build a SparkSession wired to the lakeops catalog."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakeops.catalog import ensure_embedded_storage, spark_catalog_conf, spark_s3_conf, spark_session_settings
from lakeops.config import LakeopsConfig
from lakeops.exceptions import SetupError
from lakeops.runtime import spark_jars, with_jit_option

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def jvm(spark: SparkSession) -> Any:
    """The driver JVM's py4j gateway (Iceberg's and Hadoop's Java API). A Spark Connect session has none."""
    gateway = spark.sparkContext._jvm
    if gateway is None:
        raise SetupError("this Spark session has no JVM gateway (a Spark Connect session?); lakeops needs a classic session")
    return gateway


def session_conf(config: LakeopsConfig) -> dict[str, str]:
    """Every setting the session gets: local defaults < secret redaction < catalog < S3 paths < the config file's spark.conf,
    and the JIT option (lakeops.runtime.JIT_OPTION) beside any Java options among them."""
    return with_jit_option({**LOCAL_DEFAULTS, **spark_session_settings(), **spark_catalog_conf(config.catalog),
                            **spark_s3_conf(config.catalog), **config.spark.conf})


def build_session(config: LakeopsConfig, app_name: str, master: str | None = None) -> SparkSession:
    """A session with the catalog registered; getOrCreate applies the SQL settings to an existing one too."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    ensure_embedded_storage(config.catalog)
    conf = session_conf(config)
    # spark-submit passes --master and --jars itself; an in-process session (tests, demo) names
    # its master and needs the jars here.
    if master:
        conf.setdefault("spark.jars", ",".join(spark_jars()))
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
