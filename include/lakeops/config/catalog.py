"""The catalog both clients (Spark and pyiceberg) reach, and where the embedded one keeps its files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import validate_name

CATALOG_KINDS = ("embedded", "rest")


@dataclass(frozen=True)
class CatalogConfig:
    kind: str = "embedded"
    name: str = "lakeops"
    namespace: str = "lakeops"
    data_dir: str = ".lakeops"
    uri: str | None = None
    warehouse: str | None = None
    s3_endpoint: str | None = None
    s3_region: str = "us-east-1"
    s3_path_style_access: bool = True

    def __post_init__(self) -> None:
        if self.kind not in CATALOG_KINDS:
            raise ConfigError(f"catalog.kind: {self.kind!r} is not supported; use one of {', '.join(CATALOG_KINDS)}")
        validate_name(self.name, "catalog.name")
        for part in self.namespace.split("."):
            validate_name(part, "catalog.namespace")
        if self.kind == "rest":
            for key in ("uri", "warehouse"):
                if not getattr(self, key):
                    raise ConfigError(f"catalog.{key}: required when catalog.kind is 'rest'; set it to the REST catalog's {key}")

    @property
    def sqlite_path(self) -> Path:
        return Path(self.data_dir) / "catalog.db"

    @property
    def warehouse_location(self) -> str:
        if self.kind == "embedded":
            return (Path(self.data_dir) / "warehouse").as_uri()
        assert self.warehouse is not None
        return self.warehouse


