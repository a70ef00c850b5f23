"""Table identifiers as users write them (`namespace.table`, namespaces of several levels), validated
once and rendered for each client: a tuple for pyiceberg, a back-quoted name for Spark SQL."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from lakeops.exceptions import ConfigError

_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def validate_name(value: object, what: str) -> str:
    """One namespace level, table or column name: letters, digits and `_`, starting with a letter or `_`.
    Names reach SQL, so anything else (quotes, dots, spaces, back-quotes) is refused here."""
    if not isinstance(value, str) or not _PART.fullmatch(value):
        raise ConfigError(f"{what}: {value!r} is not a valid name; use letters, digits and '_', starting with a "
                          "letter or '_' (at most 128 characters)")
    return value


def quote(name: str) -> str:
    """A validated name as a Spark SQL identifier."""
    return f"`{validate_name(name, 'identifier')}`"


@dataclass(frozen=True, order=True)
class TableId:
    """A table's identifier in its catalog: the namespace levels and the table name."""

    namespace: tuple[str, ...]
    name: str

    @classmethod
    def parse(cls, value: object, default_namespace: str | None = None, what: str = "table") -> TableId:
        """`ns.table`, `ns1.ns2.table`; a bare `table` is taken in `default_namespace` when one is given."""
        if isinstance(value, TableId):
            return value
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{what}: {value!r} is not a table identifier; write namespace.table, e.g. analytics.clickstream")
        parts = value.split(".")
        if len(parts) == 1:
            if not default_namespace:
                raise ConfigError(f"{what}: {value!r} has no namespace; write namespace.table, e.g. analytics.{value}")
            parts = [*default_namespace.split("."), value]
        for part in parts:
            validate_name(part, f"{what} {value!r}")
        return cls(tuple(parts[:-1]), parts[-1])

    def __str__(self) -> str:
        return ".".join((*self.namespace, self.name))

    @property
    def dotted_namespace(self) -> str:
        return ".".join(self.namespace)

    def as_tuple(self) -> tuple[str, ...]:
        """The identifier as pyiceberg's catalogs take it."""
        return (*self.namespace, self.name)

    def spark(self, catalog: str) -> str:
        """`catalog`.`ns`.`table` for Spark SQL: every part back-quoted."""
        return ".".join(quote(p) for p in (catalog, *self.namespace, self.name))

    def spark_namespace(self, catalog: str) -> str:
        return ".".join(quote(p) for p in (catalog, *self.namespace))

    def sibling(self, name: str) -> TableId:
        """A table of the same namespace (the quarantine table beside a table)."""
        return TableId(self.namespace, validate_name(name, "table name"))

    @property
    def slug(self) -> str:
        """A name for files, ids and metrics: `ns1.ns2.table` -> `ns1__ns2__table`."""
        return "__".join((*self.namespace, self.name))

    @classmethod
    def from_qualified(cls, qualified: str) -> tuple[str, TableId]:
        """(catalog, table) of a Spark name written by `spark()`: `cat`.`ns`.`table` (back-quotes optional)."""
        parts = [p.strip("`") for p in qualified.split(".")]
        if len(parts) < 3:
            raise ConfigError(f"{qualified!r} is not catalog.namespace.table")
        return parts[0], cls(tuple(parts[1:-1]), parts[-1])

    def matches(self, pattern: str) -> bool:
        """Shell-style match of the table name, or of the whole identifier when the pattern has a dot."""
        target = str(self) if "." in pattern else self.name
        return fnmatch.fnmatchcase(target, pattern)
