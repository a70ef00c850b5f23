"""Settings of the services around the tables: Spark, alert channels and deadlines, the health history."""

from __future__ import annotations

from dataclasses import dataclass, field

from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import validate_name


@dataclass(frozen=True)
class SparkConfig:
    conn_id: str = "lakeops_spark"
    """Airflow connection of the Spark master the jobs are submitted to (default lakeops_spark)."""
    conf: dict[str, str] = field(default_factory=dict)
    """Extra Spark settings for every job, e.g. spark.sql.shuffle.partitions: "4"; keys start with spark., values are strings."""

    def __post_init__(self) -> None:
        for key, value in self.conf.items():
            if not key.startswith("spark."):
                raise ConfigError(f"spark.conf: key {key!r} is not a Spark setting; Spark settings start with 'spark.'")
            if not isinstance(value, str):
                raise ConfigError(f"spark.conf.{key}: {value!r} must be a string; quote it in the YAML file")


DEFAULT_DEADLINE_MINUTES = 60


@dataclass(frozen=True)
class AlertsConfig:
    """Deadline alerts and where alerts go. Endpoints and credentials live in Airflow connections,
    named here; a missing connection turns its channel off (the task log always gets the alert)."""

    deadline_minutes: dict[str, int] = field(default_factory=dict)
    """Per DAG kind (ingest, compaction, ...): minutes a run may take from being queued to success."""
    default_deadline_minutes: int = DEFAULT_DEADLINE_MINUTES
    """Minutes a run may take when its DAG kind is not in deadline_minutes (default 60, at least 1)."""
    webhook_conn_id: str = "lakeops_alerts_webhook"
    """Airflow connection of the Slack-compatible webhook (its URL in host); missing: no webhook alerts."""
    email_conn_id: str = "lakeops_alerts_email"
    """Airflow connection of the SMTP server (extra: to, from_email); missing: no e-mail alerts."""

    def __post_init__(self) -> None:
        for kind, minutes in self.deadline_minutes.items():
            validate_name(kind, "alerts.deadline_minutes: DAG kind")
            if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
                raise ConfigError(f"alerts.deadline_minutes.{kind}: {minutes!r} must be a whole number of minutes, at least 1")
        if self.default_deadline_minutes < 1:
            raise ConfigError(f"alerts.default_deadline_minutes: {self.default_deadline_minutes} must be at least 1")
        for key in ("webhook_conn_id", "email_conn_id"):
            if not getattr(self, key).strip():
                raise ConfigError(f"alerts.{key}: must name an Airflow connection id "
                                  "(a missing connection turns the channel off)")

    def deadline_for(self, kind: str) -> int:
        """Minutes a run of this DAG kind may take; the default for kinds not listed."""
        return self.deadline_minutes.get(kind, self.default_deadline_minutes)


@dataclass(frozen=True)
class HealthConfig:
    history_url: str | None = None
    """SQLAlchemy URL of the health-history database; default: the embedded catalog's SQLite file."""
    growth_window_hours: float = 1.0
    """Delete-file growth counts the delete files committed during this many past hours."""
    watch_interval_seconds: float = 60.0
    """How often the triggerer's watches read the tables' metadata: the health watch (compact_on_health) evaluates
    the watched tables, and each ETL model's source that lakeops does not ingest is checked for a new snapshot."""
    watch_min_event_interval_seconds: float = 300.0
    """The watch reports a table over threshold at most once per this many seconds (one compaction run, not one a poll)."""

    def __post_init__(self) -> None:
        if not 0 < self.growth_window_hours <= 168:
            raise ConfigError(f"health.growth_window_hours: {self.growth_window_hours} must be in (0, 168]; 1 is one hour")
        if not 5 <= self.watch_interval_seconds <= 86400:
            raise ConfigError(f"health.watch_interval_seconds: {self.watch_interval_seconds} must be in [5, 86400]; "
                              "60 evaluates the watched tables once a minute")
        if self.watch_min_event_interval_seconds < self.watch_interval_seconds:
            raise ConfigError(f"health.watch_min_event_interval_seconds: {self.watch_min_event_interval_seconds} is "
                              f"shorter than watch_interval_seconds ({self.watch_interval_seconds}); raise it to at least "
                              "that, e.g. 300")
        if self.history_url == "":
            object.__setattr__(self, "history_url", None)  # an unset ${VAR:-} in the file
        if self.history_url is not None and "://" not in self.history_url:
            raise ConfigError(f"health.history_url: {self.history_url!r} is not a database URL; "
                              "use e.g. postgresql+psycopg2://host/db or sqlite:////path/health.db")


