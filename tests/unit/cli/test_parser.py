"""The command line's grammar and its exit statuses for bad input, without a catalog or Spark."""

from __future__ import annotations

import json

import pytest

from lakeops.cli import main
from lakeops.cli.parser import build_parser


@pytest.mark.parametrize("argv", [["--json", "--config", "c.yaml", "health", "a.b"],
                                  ["health", "a.b", "--json", "--config", "c.yaml"],
                                  ["--config", "other.yaml", "health", "--config", "c.yaml", "--json", "a.b"]])
def test_global_options_go_before_or_after_the_command(argv):
    args = build_parser().parse_args(argv)
    assert (args.command, args.table, args.json, args.config) == ("health", "a.b", True, "c.yaml")


def test_defaults_and_each_command_options():
    args = build_parser().parse_args(["tables"])
    assert (args.json, args.config, args.explain) == (False, None, False)
    args = build_parser().parse_args(["zonemap", "consolidate", "a.b", "--day", "2026-11-21", "--master", "local[4]"])
    assert (args.zonemap_command, args.table, args.hour, args.day, args.master) == ("consolidate", "a.b", None, "2026-11-21",
                                                                                   "local[4]")
    args = build_parser().parse_args(["expire", "a.b", "--dry-run", "--older-than", "2026-11-21T00:00:00Z",
                                      "--orphan-min-age-hours", "48"])
    assert (args.dry_run, args.older_than, args.retain_last, args.orphan_min_age_hours) == (True, "2026-11-21T00:00:00Z",
                                                                                             None, 48)


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("lakeops 0.")


def test_bad_usage_exits_2_with_argparse_message(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["ingest", "a.b", "--start", "2026-11-21T10:00:00Z"])
    assert exited.value.code == 2 and "the following arguments are required: --end" in capsys.readouterr().err


def test_a_config_file_that_cannot_be_read_exits_2_naming_it(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    assert main(["--config", str(missing), "tables"]) == 2
    err = capsys.readouterr().err
    assert f"lakeops: config file {str(missing)!r} cannot be read" in err and "LAKEOPS_CONFIG" in err


def test_with_json_the_error_is_a_document_on_stdout_too(tmp_path, capsys):
    assert main(["--json", "--config", str(tmp_path / "nope.yaml"), "health", "a.b"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["exit_status"] == 2 and "cannot be read" in out["error"]


def test_bad_values_exit_2_before_anything_is_read(tmp_path, capsys):
    config = tmp_path / "lakeops.yaml"
    config.write_text(f"catalog: {{data_dir: {tmp_path}}}\n")
    assert main(["--config", str(config), "zonemap", "consolidate", "a.b", "--hour", "10:00", "--day", "2026-11-21"]) == 2
    assert "--hour '10:00' and --day '2026-11-21' were both given; pass one" in capsys.readouterr().err
    assert main(["--config", str(config), "health", "a..b"]) == 2
    assert "table 'a..b'" in capsys.readouterr().err
