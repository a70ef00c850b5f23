"""What a streaming test reads back, with pyiceberg (a fresh catalog load each time)."""

from __future__ import annotations

from pathlib import Path

from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.table.snapshots import ancestors_of

from lakeops.catalog import load_catalog
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream


def committed_event_ids(config) -> list[str]:
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    return table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()


def quarantined_rows(config) -> int:
    return load_catalog(config.catalog).load_table(config.identifier("events_quarantine")).scan().to_arrow().num_rows


def stream_commits(config) -> list[tuple[int, dict[str, str]]]:
    """(snapshot id, summary) of each published micro-batch commit of the stream on `events`, oldest first
    (none while the table does not exist yet)."""
    try:
        table = load_catalog(config.catalog).load_table(config.identifier("events"))
    except NoSuchTableError:
        return []
    if table.current_snapshot() is None:
        return []
    found = [(s.snapshot_id, dict(s.summary.additional_properties))
             for s in ancestors_of(table.current_snapshot(), table.metadata)
             if s.summary is not None and "@stream-" in s.summary.additional_properties.get("lakeops.batch-id", "")]
    return list(reversed(found))


def checkpoint_dir(config) -> Path:
    """The local folder of the `events` query's checkpoint."""
    return Path(plan_stream(config, "events", AVAILABLE_NOW).checkpoint.removeprefix("file://"))


def micro_batch_logs(config) -> tuple[set[int], set[int]]:
    """Micro-batch ids in the checkpoint's offsets log (planned) and commit log (done)."""
    checkpoint = checkpoint_dir(config)
    return tuple({int(p.name) for p in (checkpoint / log).iterdir() if p.name.isdigit()}  # type: ignore[return-value]
                 if (checkpoint / log).exists() else set() for log in ("offsets", "commits"))
