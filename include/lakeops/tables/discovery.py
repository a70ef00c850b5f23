"""Discovery rules: every table of the named namespaces whose name matches `include` and not `exclude`
is maintained without being listed. Matching is pure; listing asks the catalog, at run time only."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import TableId, validate_name

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DiscoveryRule:
    namespaces: tuple[str, ...]
    """Namespaces to list, dotted for several levels (analytics, lake.raw)."""
    include: tuple[str, ...] = ("*",)
    """Shell patterns a table name must match (or `ns.table` patterns, with a dot)."""
    exclude: tuple[str, ...] = ()
    """Shell patterns that leave a table out, e.g. tmp_*."""

    def __post_init__(self) -> None:
        if not self.namespaces:
            raise ConfigError("discover: a rule needs namespaces, e.g. {namespaces: [analytics], include: ['*']}")
        for namespace in self.namespaces:
            for part in namespace.split("."):
                validate_name(part, f"discover.namespaces {namespace!r}")
        if not self.include:
            raise ConfigError("discover: include is empty, so the rule brings in nothing; use ['*'] for every table")

    def matches(self, table: TableId) -> bool:
        return (table.dotted_namespace in self.namespaces and any(table.matches(p) for p in self.include)
                and not any(table.matches(p) for p in self.exclude))


def matches_any(rules: tuple[DiscoveryRule, ...], table: TableId) -> bool:
    return any(rule.matches(table) for rule in rules)


def discover(catalog: Catalog, rules: tuple[DiscoveryRule, ...]) -> list[TableId]:
    """The tables the rules bring in, listed from the catalog now. A namespace that does not exist yet
    brings nothing (it may be created later) and is logged."""
    from pyiceberg.exceptions import NoSuchNamespaceError

    found: set[TableId] = set()
    for namespace in sorted({ns for rule in rules for ns in rule.namespaces}):
        try:
            listed = catalog.list_tables(namespace)
        except NoSuchNamespaceError:
            log.info("discovery: namespace %s does not exist (yet)", namespace)
            continue
        for identifier in listed:
            table = TableId(tuple(identifier[:-1]), identifier[-1])
            if matches_any(rules, table):
                found.add(table)
    return sorted(found)
