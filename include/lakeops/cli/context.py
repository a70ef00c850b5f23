"""What every command works with: the config file, the catalog, the console, and the Spark jobs it runs,
each resolved once and only when the command needs it. Refusals become CliError (exit status 2) with the
value and the fix."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeops.cli.console import Console
from lakeops.cli.values import CliError

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

    from lakeops.config import LakeopsConfig, TableConfig


@dataclass
class Context:
    console: Console
    config_path: str
    """Absolute path of the config file (--config, else $LAKEOPS_CONFIG, else the packaged default)."""
    master_option: str | None = None
    _config: LakeopsConfig | None = field(default=None, repr=False)
    _catalog: Catalog | None = field(default=None, repr=False)

    @property
    def config(self) -> LakeopsConfig:
        if self._config is None:
            from lakeops.config import load_config

            self._config = load_config(self.config_path)
        return self._config

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            from lakeops.catalog import load_catalog

            self._catalog = load_catalog(self.config.catalog)
        return self._catalog

    def table(self, name: str) -> TableConfig:
        """A configured or discovered table by identifier; a malformed or unknown one is refused."""
        from lakeops.exceptions import ConfigError

        self.config.table_id(name)  # a malformed identifier fails here with its own message
        try:
            return self.config.table(name)
        except ConfigError as e:
            raise CliError(f"{e}. Fix: pass a table `lakeops tables` lists, or add {name} under tables: (or a discover: "
                           f"rule) in {self.config_path}") from e

    def load(self, name: str) -> tuple[TableConfig, Table]:
        """The table's effective settings (its properties layered in) and the table as the catalog has it now."""
        from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

        from lakeops.tables.effective import effective

        spec = self.table(name)
        try:
            loaded = self.catalog.load_table(spec.name)
        except (NoSuchTableError, NoSuchNamespaceError) as e:
            raise CliError(f"table {spec.name} is in the config but does not exist in catalog {self.config.catalog.name} "
                           "yet; create it first (a table with a create block is created by its first `lakeops ingest`), "
                           "or check the identifier") from e
        return effective(spec, loaded), loaded

    def master(self) -> tuple[str, str]:
        """(Spark master, where it came from): lakeops.cli.master.resolve_master."""
        from lakeops.cli.master import resolve_master

        return resolve_master(self.master_option, os.environ, self.config.spark.conn_id)

    def run_job(self, job: str, job_args: list[str]) -> dict[str, Any]:
        """spark-submit a lakeops job on this config, its progress streamed to the console; its result."""
        from lakeops.cli.jobs import run_job
        from lakeops.cli.master import job_environment

        master, origin = self.master()
        self.console.progress(f"Spark master {master} (from {origin})")
        env = job_environment(os.environ, sys.executable, self.config_path)
        return run_job(job, [*job_args, "--config", self.config_path], master, env, self.console.progress)
