"""One small-suite rule for both benchmarks (issue 34): a suite below the size its audit judges
(SceneMem 40 probes, FindingDory 2 episodes) is audited neither by `recallbench generate` nor by
`recallbench audit`; both say so in one line with the size to generate, before any work, and
nothing suggests a command that could not judge the suite."""

from __future__ import annotations

import json

from recallbench.cli import main
from support.findingdory_suite import build_suite
from support.scenemem_fixtures.build import mini_scenario, mini_test


def test_audit_refuses_a_scenemem_suite_it_cannot_judge_before_any_work(tmp_path, capsys):
    suite = tmp_path / "sm"
    mini_scenario(suite / "combo_0000", [mini_test("t0", "bowl"), mini_test("t1", "cup")])
    assert main(["audit", str(suite), "--workers", "1"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"recallbench audit: error: {suite}: 2 probes, below the 40 a "
                           "SceneMem audit judges")
    assert "generate at least 40 probes (--n 20 at this suite's 2 probes a scenario)" in line
    assert sorted(p.name for p in suite.iterdir()) == ["combo_0000"]  # nothing written


def test_one_findingdory_day_is_below_the_audit_and_two_days_are_judged(tmp_path, capsys):
    from recallbench.audit.core import too_small
    from recallbench.cli.generate import audit_suite

    two = build_suite(tmp_path / "two")
    assert too_small(two) is None
    one = tmp_path / "one"
    one.mkdir()
    rows = json.loads((two / "qa.json").read_text())
    (one / "qa.json").write_text(json.dumps([r for r in rows if r["ep_id"] == "ep_a"]))
    assert main(["audit", str(one)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "1 episode, below the 2 a FindingDory audit judges" in line
    assert "generate at least 2 episodes (--n 2)" in line
    (one / "suite.json").write_text("{}")  # as generate leaves it: the same rule, one line
    assert audit_suite(str(one), 0) == 0
    err = capsys.readouterr().err
    assert "audit: not run (1 episode, below the 2 a FindingDory audit judges" in err
    assert "recallbench audit" not in err and not (one / "audit.json").exists()
