"""The audit checks that caught the generator's Multi-Goal shortcut fire on a suite that has it.

Generated days showed the receptacle of the first pick in the first offered frames (positions
1-4) far more regularly than val's days do, so "Revisit all the {recep} you picked objects
from yesterday" with one goal was answered by the template's prior (blind, and time-prior,
which falls back to it without a stated time). The checks are per category and per group
(``blind Unordered Revisitation``, ``time-prior Multi-Goal Tasks``, ...): four real val days
pass them; the same days with every "{recep}" revisit question made single-goal and valid at
positions 1-4 fail them, at the 4-episode size the audit judges from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recallbench.audit.findingdory import audit
from support.shared_data import FINDINGDORY_VAL_QA

pytestmark = pytest.mark.skipif(not FINDINGDORY_VAL_QA.is_file(),
                                reason="public validation file not present")
DAYS = ("ep_3", "ep_27", "ep_51", "ep_80")
CHECKS = [f"{agent} {label}" for agent in ("blind", "time-prior")
          for label in ("Unordered Revisitation", "Multi-Goal Tasks")]


def _is_recep_revisit(row: dict) -> bool:
    """A "{recep}" revisit question: Unordered Revisitation about one receptacle category."""
    q = row["question"]
    return (row["low_level_category"] == "Unordered Revisitation"
            and "all the receptacles" not in q and "all the objects" not in q)


def _checks(tmp_path: Path, rows: list[dict], name: str) -> dict[str, dict]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(rows))
    report = audit(path)
    assert report["episodes"] == len(DAYS) and report["calibration"]["episodes"] == len(DAYS)
    return {c["name"]: c for c in report["checks"]}


def test_the_multi_goal_prior_checks_pass_val_days_and_fail_a_planted_first_pick_shortcut(
    tmp_path,
):
    rows = [r for r in json.loads(FINDINGDORY_VAL_QA.read_text()) if r["ep_id"] in DAYS]
    recep = [r for r in rows if _is_recep_revisit(r)]
    assert len(recep) == 2 * len(DAYS)  # val asks each "{recep}" template once a day
    val = _checks(tmp_path, rows, "val")
    for name in CHECKS:
        assert val[name]["calibrated"] and val[name]["passed"], name
    planted = [{**r, "answer": [[1, 2, 3, 4]]} if _is_recep_revisit(r) else r for r in rows]
    leaky = _checks(tmp_path, planted, "planted")
    for name in CHECKS:
        check = leaky[name]
        assert not check["passed"] and check["value"] > check["limit"], name
        assert check["value"] > val[name]["value"] and check["percentile"] == 100.0, name
    # 2 of a day's 6 Unordered Revisitation questions now sit where the prior points
    assert leaky["blind Unordered Revisitation"]["value"] == pytest.approx(1 / 3)
