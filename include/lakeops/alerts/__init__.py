"""SLA alerts: what a missed deadline or a stale table says, and where it goes (log, webhook, email)."""
