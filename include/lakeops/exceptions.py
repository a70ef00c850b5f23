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


class MaintenanceError(LakeopsError):
    """A maintenance run (expiry, orphan removal) stopped to protect the table."""
