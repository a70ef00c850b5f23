"""The frame every spark-submit entry point runs in: logging, one result line, clear exit codes."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from lakeops.exceptions import LakeopsError

RESULT_PREFIX = "LAKEOPS_RESULT "
log = logging.getLogger("lakeops.job")


def run_job(body: Callable[[], dict[str, Any]]) -> int:
    """Run body; print its result as one JSON line. Exit 0 on success, 2 on a lakeops error
    (bad config, bad arguments: the message says the fix), 1 on anything else."""
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        result = body()
    except LakeopsError as e:
        log.error("%s", e)
        return 2
    except Exception:
        log.exception("job failed")
        return 1
    print(RESULT_PREFIX + json.dumps(result, default=str), flush=True)
    return 0
