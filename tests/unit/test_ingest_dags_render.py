"""Which tables get an ingest DAG: those with a landing folder (`source`) and those fed by a Kafka topic
(`ingest.kafka`, no `source` needed); a table with neither is maintained, not ingested."""

from __future__ import annotations

from lakeops.config import parse_config
from tests.conftest import config_data

KAFKA = {"topic": "shop.public.orders", "bootstrap_servers": "broker:9092"}


def test_a_table_fed_by_a_kafka_topic_gets_its_ingest_dag(tmp_path):
    from lakeops_airflow.dags import build_dags

    tables = {"shop.orders": {"key": ["id"], "ingest": {"format": "cdc", "kafka": KAFKA}},
              "shop.clicks": {"source": "clicks"},
              "shop.feed": {"ingest": {"mode": "streaming", "kafka": {**KAFKA, "topic": "feed"}}},
              "shop.archive": {}}
    config = parse_config(config_data(tmp_path, tables), tmp_path)

    ids = {dag.dag_id for dag in build_dags(config)}

    assert {"ingest.shop.orders", "ingest.shop.clicks", "stream.shop.feed"} <= ids
    assert not {i for i in ids if i.endswith("shop.archive")}
    orders = next(dag for dag in build_dags(config) if dag.dag_id == "ingest.shop.orders")
    assert "Kafka topic `shop.public.orders`" in orders.doc_md
