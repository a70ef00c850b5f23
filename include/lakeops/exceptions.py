"""The errors lakeops raises. Each message says what was wrong, the value received and the fix."""

from __future__ import annotations


class LakeopsError(Exception):
    """Base class of every lakeops error."""


class ConfigError(LakeopsError):
    """The configuration file or a parameter is invalid."""


class SetupError(LakeopsError):
    """Something the project needs on this machine is missing (jars, Java, a setup step)."""


class IngestError(LakeopsError):
    """An ingest batch could not be read or committed."""


class AlertError(LakeopsError):
    """An alert could not be delivered to a channel that is configured."""


class ZonemapError(LakeopsError):
    """A zonemap-pruned read cannot honor the table's state on the path asked for."""


class EtlError(LakeopsError):
    """An incremental ETL or backfill run could not be planned or committed."""


class MaintenanceError(LakeopsError):
    """A maintenance run (expiry, orphan removal) stopped to protect the table."""


class CatalogError(LakeopsError):
    """The catalog, or the storage of a table in it, cannot be reached with the settings given."""
