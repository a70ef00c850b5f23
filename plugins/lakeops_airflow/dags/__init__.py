"""Every lakeops DAG, rendered from the configuration: a DAGs folder needs one short file that calls
render_dags(globals()). At parse time only the local config file is read (no catalog, no connection, no Spark).

Ingest is one DAG per configured table with a `source` or an `ingest.kafka` topic (its own schedule, runs and
backfills under its name); maintenance is one DAG per kind whose first task lists the tables at run time (configured
and discovered) and maps one task per table, labelled with its name: a table created later is maintained from the
next run on, the parse time does not grow with the number of tables, and one table's failure is its own task's.
ETL is one DAG per model (`etl.<model>`): a model is a pipeline a person wrote, with its own schedule and backfills.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from airflow.sdk import DAG

from lakeops.config import LakeopsConfig, load_config


def build_dags(config: LakeopsConfig) -> list[DAG]:
    """The DAGs of this configuration."""
    from lakeops_airflow.dags.compaction import compact_on_health_dag, compact_tables_dag
    from lakeops_airflow.dags.etl import etl_model_dag
    from lakeops_airflow.dags.ingest import ingest_dag, stream_dag
    from lakeops_airflow.dags.maintenance import expire_snapshots_dag, zonemap_dag
    from lakeops_airflow.dags.observe import table_freshness_dag, table_health_dag

    dags = []
    for spec in config.tables.values():
        if not spec.ingested:
            continue
        dags.append(stream_dag(spec) if spec.ingest.mode == "streaming" else ingest_dag(spec))
    dags += [compact_tables_dag(), compact_on_health_dag(config.health), expire_snapshots_dag(), zonemap_dag("hourly"),
             zonemap_dag("daily"), table_freshness_dag(), table_health_dag()]
    dags += [etl_model_dag(config, model) for model in config.models.values()]
    return dags


def render_dags(namespace: MutableMapping[str, Any], config_path: str | None = None) -> list[DAG]:
    """Build the DAGs and place them in `namespace` (a DAG file's globals()) under their ids."""
    dags = build_dags(load_config(config_path))
    for dag in dags:
        namespace[dag.dag_id] = dag
    return dags
