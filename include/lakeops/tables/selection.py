"""Which maintained tables a maintenance DAG run works on, decided at run time from the config, the
discovery rules and each table's effective settings (its properties included). Tables that do not
exist yet are left out; a table that cannot be read is kept, so its own task fails under its name while the
others run: one broken table neither stops nor hides the others."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lakeops.exceptions import ConfigError

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakeops.config import LakeopsConfig, TableConfig

log = logging.getLogger(__name__)

NEEDS: dict[str, Callable[[TableConfig], bool]] = {
    "compaction_schedule": lambda spec: spec.compaction.trigger == "schedule",
    "compaction_watch": lambda spec: spec.compaction.trigger == "watch",
    "zonemap": lambda spec: bool(spec.zonemap.columns),
    "expiry": lambda spec: True,
}
"""Maintenance kind -> whether a table's effective settings ask for it."""


def select_tables(config: LakeopsConfig, catalog: Catalog, kind: str, requested: Sequence[str] = ()) -> list[str]:
    """The identifiers of the tables a run of `kind` maintains: those requested (each must be configured or
    discovered, and is taken whatever its settings: a person asked for it), else every maintained table whose
    effective settings ask for `kind`."""
    from pyiceberg.exceptions import NoSuchTableError

    from lakeops.tables.effective import effective

    if kind not in NEEDS:
        raise ConfigError(f"maintenance kind {kind!r} is unknown; use one of {', '.join(NEEDS)}")
    if requested:
        return list(dict.fromkeys(config.table(name).name for name in requested))
    selected = []
    for table in config.maintained(catalog):
        name = str(table)
        try:
            spec = effective(config.table(name), catalog.load_table(name))
        except NoSuchTableError:
            log.info("%s: table %s does not exist yet; nothing to maintain", kind, name)
            continue
        except Exception as e:  # noqa: BLE001 - a table that cannot be read must not hide the others
            log.error("%s: table %s cannot be read (%s); its task will fail under its name, the others run", kind, name, e)
            selected.append(name)
            continue
        if NEEDS[kind](spec):
            selected.append(name)
    log.info("%s: %d table(s) to maintain: %s", kind, len(selected), ", ".join(selected) or "none")
    return selected
