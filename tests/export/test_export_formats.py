"""Issue 39: an export format is one declaration plus its code. The day-list format
(``tests/support/day_list_format.py``) is registered only through the entry-point group
``recallbench.export_formats`` by a ``dist-info`` folder on PYTHONPATH, with no edit to
recallbench: ``export --dataset-format day-list --help`` offers it with its flags, it
exports a suite, another format's flag is refused with it, ``recallbench list
export-formats`` lists it. ``--format`` on export is a deprecated spelling of
``--dataset-format`` (one warning line). docs/export.md's table is the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fault_support import cli, error_lines
from support.plugins import install

SUPPORT = Path(__file__).resolve().parents[1] / "support"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def day_list(tmp_path_factory) -> dict[str, str]:
    """The environment that installs the day-list format (a module and its dist-info)."""
    return install(tmp_path_factory.mktemp("site"), "daylist",
                   "[recallbench.export_formats]\nday-list = day_list_format:FORMAT\n",
                   {"day_list_format.py": SUPPORT / "day_list_format.py"})


def test_a_plugin_format_is_offered_and_listed(day_list):
    done = cli("export", "--help", env=day_list)  # reads no metadata: the built-ins only
    assert done.returncode == 0, done.stderr
    assert "{findingdory-sft,lerobot}" in done.stdout
    done = cli("export", "--dataset-format", "day-list", "--help", env=day_list)
    assert done.returncode == 0, done.stderr
    assert "{findingdory-sft,lerobot,day-list}" in done.stdout
    assert "--dataset-format day-list:\n  --note NOTE" in done.stdout  # its flags, in its group
    done = cli("list", "export-formats", "--format", "json", env=day_list)
    assert done.returncode == 0, done.stderr
    rows = {row["format"]: row for row in json.loads(done.stdout)}
    assert list(rows) == ["findingdory-sft", "lerobot", "day-list"]
    assert rows["day-list"] == {"format": "day-list", "reads": "any", "extra": "-",
                                "what": "a test format: each day's suite files, and an index"}


def test_a_plugin_format_exports_a_suite(day_list, findingdory_generated_suite, tmp_path):
    out = tmp_path / "out"
    done = cli("export", str(findingdory_generated_suite), "--dataset-format", "day-list",
               "--note", "hi", "--out", str(out), "--workers", "1", env=day_list)
    assert done.returncode == 0, done.stderr
    assert not error_lines(done.stderr) and "warning" not in done.stderr
    record = json.loads((out / "export.json").read_text())
    assert (record["format"], record["options"], record["complete"]) == ("day-list",
                                                                         {"note": "hi"}, True)
    assert record["written"] == ["index.json"] and record["counts"] == {"days": 1}
    assert json.loads((out / "index.json").read_text()) == {"days": ["ep_0"], "note": "hi"}
    day = json.loads((out / "days" / "ep_0.json").read_text())
    assert day["note"] == "hi" and "episodes/ep_0/episode.json" in day["files"]


@pytest.mark.parametrize(("flags", "said"), [
    (["--dataset-format", "day-list"], "--note: is required with --dataset-format day-list"),
    (["--dataset-format", "day-list", "--note", "x", "--frames", "8"],
     "--frames: only with --dataset-format findingdory-sft"),
    (["--dataset-format", "findingdory-sft", "--note", "x"],
     "--note: only with --dataset-format day-list"),
    ([], "--dataset-format: is required (one of: findingdory-sft, lerobot, day-list)"),
])
def test_a_plugin_formats_flags_are_checked_before_any_work(day_list, findingdory_generated_suite,
                                                            tmp_path, flags, said):
    done = cli("export", str(findingdory_generated_suite), *flags, "--out",
               str(tmp_path / "out"), env=day_list)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.endswith(said), line
    assert not (tmp_path / "out").exists()  # nothing written


def test_format_is_a_deprecated_spelling_of_dataset_format(day_list, findingdory_generated_suite,
                                                           tmp_path):
    out = tmp_path / "out"
    done = cli("export", str(findingdory_generated_suite), "--format", "day-list", "--note",
               "hi", "--out", str(out), env=day_list)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == ["recallbench export: warning: export --format is deprecated (--format "
                        "names a table format on other commands): use --dataset-format "
                        "day-list"]
    assert json.loads((out / "export.json").read_text())["format"] == "day-list"


def test_the_docs_table_is_the_declaration():
    from recallbench.export.formats import BUILTIN, table

    assert table(BUILTIN) in (ROOT / "docs" / "export.md").read_text()


def test_no_format_name_is_branched_on_outside_the_table():
    """Every place that depends on a format reads its row: the built-in names are spelled in
    the table only (the writers' modules name themselves in their messages)."""
    table = ROOT / "src" / "recallbench" / "export" / "formats.py"
    for path in sorted((ROOT / "src" / "recallbench").rglob("*.py")):
        text = path.read_text()
        if path != table:
            assert '"findingdory-sft"' not in text, path
            if path.parent.name in ("export", "cli"):
                assert '"lerobot"' not in text, path
