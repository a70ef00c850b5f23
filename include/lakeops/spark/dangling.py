"""Drop a table's dangling delete files in one metadata-only commit: no Spark job.

Which files are dangling comes from lakeops.health (pyiceberg, the manifests only): position
delete files and deletion vectors that apply to no live data file. The commit is Iceberg's own
RewriteFiles removing those delete files, made through the Spark session's catalog so Spark's
cached table sees it.

Removing a dangling delete file never changes what a reader sees, whatever commits land
meanwhile: a data file committed later has a newer data sequence number, or a path the delete
file names no rows of. A concurrent commit that removed one of the files first makes Iceberg
refuse this one (a missing file to delete); the next attempt starts again from the new state.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from lakeops.compaction.model import CompactionAction
from lakeops.health.compute import dangling_delete_paths
from lakeops.spark.compact import ActionResult, attempt_on_conflict
from lakeops.spark.session import jvm

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


def live_delete_files(spark: SparkSession, jtable: Any, paths: frozenset[str]) -> list[Any]:
    """The Java DeleteFile objects among the live entries of the current snapshot's delete
    manifests whose location is in `paths`."""
    snapshot = jtable.currentSnapshot()
    if snapshot is None or not paths:
        return []
    manifest_files = jvm(spark).org.apache.iceberg.ManifestFiles
    io, specs = jtable.io(), jtable.specs()
    found = []
    for manifest in snapshot.deleteManifests(io):
        if not (manifest.hasAddedFiles() or manifest.hasExistingFiles()):
            continue
        reader = manifest_files.readDeleteManifest(manifest, io, specs)
        try:
            files = reader.iterator()
            while files.hasNext():
                delete_file = files.next()
                if delete_file.location() in paths:
                    found.append(delete_file)
        finally:
            reader.close()
    return found


def _drop_once(spark: SparkSession, catalog: Catalog, identifier: str, qualified: str) -> dict[str, int]:
    snapshot_id, paths = dangling_delete_paths(catalog.load_table(identifier))
    if not paths:
        return {"removed_delete_files_count": 0, "removed_delete_records": 0}
    jtable = jvm(spark).org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified)
    jtable.refresh()
    files = live_delete_files(spark, jtable, paths)
    log.info("dropping %d dangling delete files of %s (%d found dangling at snapshot %s)", len(files), qualified,
             len(paths), snapshot_id)
    if files:
        rewrite = jtable.newRewrite()
        for delete_file in files:
            rewrite.deleteFile(delete_file)
        rewrite.commit()
    return {"removed_delete_files_count": len(files), "removed_delete_records": sum(f.recordCount() for f in files)}


def remove_dangling_deletes(spark: SparkSession, catalog: Catalog, identifier: str, qualified: str,
                            action: CompactionAction, attempts: int) -> ActionResult:
    """Run a remove_dangling_delete_files action: up to `attempts` tries when a concurrent commit
    conflicts, each finding the dangling files anew."""
    result = ActionResult(action.kind, action.partition)
    started = time.monotonic()
    spark.sparkContext.setJobDescription(f"lakeops compact {qualified}: drop dangling delete files")

    def attempt(n: int) -> bool:
        result.outputs = _drop_once(spark, catalog, identifier, qualified)
        return True

    attempt_on_conflict(result, attempts, f"dropping dangling delete files of {qualified}", attempt)
    result.duration_s = round(time.monotonic() - started, 2)
    return result
