"""Loading FindingDory QA: public file, HF rows, JSONL, generated suites; templates."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from recallbench.benchmarks.findingdory.data import load_suite, resolve_video
from recallbench.benchmarks.findingdory.templates import CATEGORY_GROUP, TEMPLATES, template_of
from recallbench.errors import InputError
from support.shared_data import FINDINGDORY_VAL_QA

VAL = FINDINGDORY_VAL_QA
needs_val = pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")

ROW = {
    "question": "The robot's goal is: Navigate to the first receptacle that you placed an object on"
    ".",
    "video": "videos/val/ep_1.mp4",
    "id": 7,
    "answer": [[3, 4, 5]],
    "high_level_category": "Single-Goal Temporal Tasks",
    "low_level_category": "Interaction Order",
    "ep_id": "ep_1",
}


def write(tmp_path: Path, rows: list, name: str = "qa.json") -> Path:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(rows))
    return path


@needs_val
def test_public_validation_file() -> None:
    suite = load_suite(VAL)
    assert len(suite.cases) == 5876
    assert len({c.ep_id for c in suite.cases}) == 100
    assert sum(not c.solvable for c in suite.cases) == 281
    counts = Counter(c.category for c in suite.cases)
    assert counts["Interaction Order"] == 1530 and counts["Object Recall"] == 200
    assert all(c.answer_frames == 96 for c in suite.cases)
    multi = [c for c in suite.cases if c.group == "Multi-Goal Tasks"]
    assert len(multi) == 900 and all(c.num_targets == len(c.answer) for c in multi)
    assert sum(c.ordered for c in suite.cases) == 300


@needs_val
def test_every_public_question_maps_to_a_template() -> None:
    suite = load_suite(VAL)
    by_template = Counter(c.template for c in suite.cases)
    assert not [t for t in by_template if t.startswith("(unmatched)")]
    # 59 distinct texts: the paper's 60 templates, object and receptacle recall share a text
    assert len(by_template) == len(TEMPLATES) == 59
    assert by_template["Navigate to a {category}."] == 200
    assert {CATEGORY_GROUP[c] for c, _ in TEMPLATES} == set(CATEGORY_GROUP.values())


def test_template_slots() -> None:
    t = template_of(
        "The robot's goal is: Navigate to the 10th object that you interacted with yesterday."
    )
    assert t == "Navigate to the {ordinal} object that you interacted with yesterday."
    t = template_of("Navigate to the room where you picked the second object from.")
    assert t == "Navigate to the room where you picked the {ordinal} object from."
    t = template_of("Navigate to the room where you picked the toy airplane from.")
    assert t == "Navigate to the room where you picked the {obj} from."
    assert template_of("Make me a sandwich.") is None


def test_hf_rows_and_jsonl(tmp_path: Path) -> None:
    hf = {**ROW, "answer": "[[3, 4, 5]]", "task_id": 12, "num_interactions": 6}
    suite = load_suite(write(tmp_path, [hf], "rows.jsonl"))
    (case,) = suite.cases
    assert case.answer == ((3, 4, 5),) and case.task_id == "12" and case.num_interactions == 6
    assert case.template == "Navigate to the {ordinal} receptacle that you placed an object on."
    assert len(suite.sha256) == 64


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"answer": "[[3, 4"}, "row 7: answer"),
        ({"answer": [[3, "x"]]}, "row 7: answer[0]"),
        ({"answer": [[3], [4]]}, "row 7: answer"),  # single-goal with two lists
        ({"answer": [[96]]}, "row 7: answer[0]"),  # beyond the 96-frame space
        ({"low_level_category": "Cooking"}, "row 7: low_level_category"),
        ({"high_level_category": "Multi-Goal Tasks"}, "row 7: high_level_category"),
        ({"question": 5}, "row 7: question"),
        ({"num_interactions": "six"}, "row 7: num_interactions"),
    ],
)
def test_bad_rows_name_row_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = write(tmp_path, [{**ROW, **change}])
    with pytest.raises(InputError) as err:
        load_suite(path)
    assert str(path) in str(err.value) and field in str(err.value)


def test_missing_fields_duplicates_and_bad_files(tmp_path: Path) -> None:
    row = dict(ROW)
    del row["ep_id"]
    with pytest.raises(InputError, match="row 7: ep_id: missing"):
        load_suite(write(tmp_path, [row]))
    with pytest.raises(InputError, match="row 7: id: duplicate"):
        load_suite(write(tmp_path, [ROW, ROW]))
    (tmp_path / "broken.json").write_text("[{")
    with pytest.raises(InputError, match="broken.json"):
        load_suite(tmp_path / "broken.json")
    (tmp_path / "x.jsonl").write_text(json.dumps(ROW) + "\n{oops\n")
    with pytest.raises(InputError, match="line 2"):
        load_suite(tmp_path / "x.jsonl")
    with pytest.raises(InputError, match="not found"):
        load_suite(tmp_path / "nope.json")


def test_generated_suite_directory_and_videos(tmp_path: Path) -> None:
    row = {**ROW, "answer": [[300, 301]], "subgoals": [["recep_3"]], "num_frames": 4000}
    (tmp_path / "suite").mkdir()
    write(tmp_path / "suite", [row])
    suite = load_suite(tmp_path / "suite")
    (case,) = suite.cases
    assert suite.generated and case.answer_frames is None and case.subgoals == (("recep_3",),)
    assert suite.episode_dir("ep_1") == tmp_path / "suite" / "episodes" / "ep_1"
    assert resolve_video(suite, case) is None
    video = tmp_path / "suite" / "videos" / "val" / "ep_1.mp4"
    video.parent.mkdir(parents=True)
    video.write_bytes(b"x")
    assert resolve_video(suite, case) == video
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "ep_1.mp4").write_bytes(b"x")
    assert resolve_video(suite, case, other) == other / "ep_1.mp4"
    bad = {**row, "subgoals": [["a"], ["b"]]}
    write(tmp_path / "suite", [bad])
    with pytest.raises(InputError, match="row 7: subgoals"):
        load_suite(tmp_path / "suite")
