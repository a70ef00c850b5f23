"""The Spark operator keeps the job's LAKEOPS_RESULT line as its return value (the run's XCom the table page
reads): every output line still reaches the hook's own log processing, and the last result line wins."""

from __future__ import annotations

from lakeops_airflow.operators import _capture_results, result_lines


class _Hook:
    def __init__(self) -> None:
        self.logged: list[str] = []

    def _process_spark_submit_log(self, itr):
        for line in itr:
            self.logged.append(line.strip())


def test_result_lines_pass_every_line_and_keep_the_results():
    found: list[dict] = []
    lines = ["26/11/25 WARN spark\n", 'LAKEOPS_RESULT {"status": "dry_run", "before": {"data_files": 14}}\n',
             b"LAKEOPS_RESULT not json\n", "done\n"]
    assert list(result_lines(iter(lines), found)) == lines
    assert found == [{"status": "dry_run", "before": {"data_files": 14}}]


def test_the_hooks_log_processing_hands_over_the_result():
    hook, found = _Hook(), []
    _capture_results(hook, found)
    hook._process_spark_submit_log(iter(["starting\n", 'LAKEOPS_RESULT {"rows": 1}\n', 'LAKEOPS_RESULT {"rows": 7}\n']))
    assert hook.logged == ["starting", 'LAKEOPS_RESULT {"rows": 1}', 'LAKEOPS_RESULT {"rows": 7}']
    assert found[-1] == {"rows": 7}
