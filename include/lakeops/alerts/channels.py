"""Where an alert goes, read from Airflow connection fields (plain values: no Airflow import here).

Webhook connection (e.g. conn_type http): the full URL in `host` (https://hooks.slack.com/services/...),
or host + schema + port + extra {"path": "/..."}. The URL is a secret for most receivers: it is never
logged. Email connection (conn_type smtp, Airflow's SMTP provider): host, port, login, password and
extra {"from_email": ..., "to": ["oncall@example.com"]}.
"""

from __future__ import annotations

from typing import Any

from lakeops.exceptions import ConfigError

CHANNELS = ("log", "webhook", "email")


def webhook_url(conn_id: str, host: str | None, schema: str | None, port: int | None, extra: dict[str, Any]) -> str:
    host = (host or "").strip()
    if not host:
        raise ConfigError(f"connection {conn_id!r}: host is empty; put the webhook URL (https://...) in host")
    if "://" in host:
        return host
    scheme = schema or "https"
    if scheme not in ("http", "https"):
        raise ConfigError(f"connection {conn_id!r}: schema {scheme!r} is not http or https; set schema to https")
    path = str(extra.get("path", ""))
    return f"{scheme}://{host}{f':{port}' if port else ''}{path if not path or path.startswith('/') else '/' + path}"


def email_recipients(conn_id: str, extra: dict[str, Any]) -> list[str]:
    raw = extra.get("to")
    recipients = [r.strip() for r in raw.split(",")] if isinstance(raw, str) else list(raw or [])
    recipients = [r for r in recipients if r]
    if not recipients or not all(isinstance(r, str) and "@" in r for r in recipients):
        raise ConfigError(f"connection {conn_id!r}: extra 'to' is {raw!r}; set it to the recipients, "
                          'e.g. {"to": ["oncall@example.com"], "from_email": "lakeops@example.com"}')
    return recipients


def delivery_failed(results: dict[str, str]) -> list[str]:
    """Channels that are configured but failed (not those switched off)."""
    return [channel for channel, outcome in results.items() if outcome.startswith("failed")]
