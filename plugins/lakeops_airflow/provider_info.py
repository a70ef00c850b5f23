"""lakeops as an Airflow provider: what the `apache_airflow_provider` entry point returns.

Airflow's providers manager calls get_provider_info() to list the package (`airflow providers
list`) and to learn its configuration options: `[lakeops] config_file` is declared here, so
`airflow config list` documents it with its default. It must stay cheap: it imports nothing of
Airflow or of the library.

The UI plugin is not listed under "plugins" here. Airflow 3.3 registers it through the
`airflow.plugins` entry point in every process; a provider's "plugins" are loaded only when
`[core] lazy_discover_providers` is False, and then a second registration of the same plugin is
reported as a plugin import error ("already registered"). One registration, always loaded.
lakeops declares no connection type of its own: it uses the Spark provider's `spark` connection
and Airflow's `http`/`smtp` ones for alerts.
"""

from __future__ import annotations

from typing import Any

PACKAGE_NAME = "lakeops"


def get_provider_info() -> dict[str, Any]:
    from lakeops import __version__

    return {
        "package-name": PACKAGE_NAME,
        "name": "lakeops",
        "description": "Keeps streaming-fed Apache Iceberg tables fast, fresh and correct: ingestion, zonemaps, "
                       "health sensors, compaction, snapshot expiry, incremental ETL and freshness alerts.",
        "versions": [__version__],
        "config": {
            "lakeops": {
                "description": "Where lakeops finds its configuration file.",
                "options": {
                    "config_file": {
                        "description": "Path of lakeops.yaml (catalog, Spark connection, tables and their policies). "
                                       "The LAKEOPS_CONFIG environment variable, when set, takes precedence.\n",
                        "version_added": "0.1.0",
                        "type": "string",
                        "example": "/opt/airflow/lakeops/lakeops.yaml",
                        "default": "",
                    },
                },
            },
        },
    }
