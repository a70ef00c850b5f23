"""The text of an alert. Every alert names the table, the DAG, the run, the deadline and how late."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lakeops.exceptions import ConfigError


@dataclass(frozen=True)
class Alert:
    kind: str  # "deadline", "freshness" or "lag"
    table: str
    dag_id: str
    run_id: str
    deadline: datetime
    late_seconds: float
    detail: str

    @property
    def subject(self) -> str:
        what = {"deadline": "deadline missed", "lag": "ETL lag SLA missed"}.get(self.kind, "freshness SLA missed")
        return f"[lakeops] {what}: table {self.table}, DAG {self.dag_id} ({format_duration(self.late_seconds)} late)"

    @property
    def text(self) -> str:
        return (f"{self.subject}\n"
                f"table: {self.table}\nDAG: {self.dag_id}\nrun: {self.run_id}\n"
                f"deadline: {self.deadline.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S UTC')}\n"
                f"late by: {format_duration(self.late_seconds)}\n{self.detail}")

    def webhook_payload(self) -> dict[str, Any]:
        """Slack-compatible JSON: `text` for Slack and Mattermost, the fields for any other receiver."""
        return {"text": self.text, "lakeops": {
            "kind": self.kind, "table": self.table, "dag_id": self.dag_id, "run_id": self.run_id,
            "deadline": self.deadline.astimezone(UTC).isoformat(), "late_seconds": round(self.late_seconds, 1)}}

    def email_html(self) -> str:
        from html import escape

        return "<pre>" + escape(self.text) + "</pre>"


def format_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def _as_datetime(value: Any, what: str) -> datetime:
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        raise ConfigError(f"deadline alert context: {what} is {value!r}; expected an ISO-8601 timestamp")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def deadline_alert(context: dict[str, Any], *, table: str | None, deadline_minutes: float, now: datetime) -> Alert:
    """The alert for a missed DAG-run deadline, from the context Airflow hands the deadline callback
    ({"dag_run": {...}, "deadline": {"deadline_time": ...}})."""
    dag_run = context.get("dag_run") or {}
    deadline = _as_datetime((context.get("deadline") or {}).get("deadline_time"), "deadline.deadline_time")
    conf = dag_run.get("conf") or {}
    named_table = conf.get("table") or table or "all configured tables"
    state = dag_run.get("state") or "unknown"
    return Alert(
        kind="deadline", table=str(named_table), dag_id=str(dag_run.get("dag_id", "?")),
        run_id=str(dag_run.get("dag_run_id") or dag_run.get("run_id") or "?"), deadline=deadline,
        late_seconds=(now - deadline).total_seconds(),
        detail=f"The run was to finish within {deadline_minutes} min of being queued; it is still {state}.")


def freshness_alert(*, table: str, dag_id: str, run_id: str, last_commit: datetime | None,
                    sla_minutes: int, now: datetime) -> Alert:
    """The alert for a table whose last commit is older than its freshness SLA."""
    from datetime import timedelta

    if last_commit is None:
        return Alert(kind="freshness", table=table, dag_id=dag_id, run_id=run_id, deadline=now, late_seconds=0.0,
                     detail=f"The table has no commit at all; its freshness SLA is {sla_minutes} min.")
    deadline = last_commit + timedelta(minutes=sla_minutes)
    return Alert(
        kind="freshness", table=table, dag_id=dag_id, run_id=run_id, deadline=deadline,
        late_seconds=(now - deadline).total_seconds(),
        detail=(f"Last commit {last_commit.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S UTC')}, "
                f"{format_duration((now - last_commit).total_seconds())} ago; freshness SLA {sla_minutes} min."))


def lag_alert(*, model: str, table: str, source: str, oldest_unread: datetime, sla_minutes: int, dag_id: str,
              run_id: str, now: datetime) -> Alert:
    """The alert for a model whose oldest unread source commit has waited longer than its lag SLA."""
    from datetime import timedelta

    deadline = oldest_unread + timedelta(minutes=sla_minutes)
    return Alert(
        kind="lag", table=table, dag_id=dag_id, run_id=run_id, deadline=deadline,
        late_seconds=(now - deadline).total_seconds(),
        detail=(f"ETL model {model} has not read the commit of {source} from "
                f"{oldest_unread.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S UTC')}, "
                f"{format_duration((now - oldest_unread).total_seconds())} ago; its lag SLA is {sla_minutes} min "
                f"(`lakeops etl status {model}`; the model's DAG is etl.{model})."))
