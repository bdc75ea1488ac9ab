"""`recallbench run` interrupted and finished with the command it printed (issue 34).

Ctrl-C printed `finish with: recallbench run ... --out RUN`, and that command was refused: RUN
then held only `<benchmark>/<agent>/` folders, which the output check did not know as
recallbench's. Here a real `recallbench run` gets a real SIGINT, once between agents and once
mid-agent, in a state a gate holds it in (never by the clock), and the printed command must
finish it to exactly the results of a run never interrupted, keeping every recorded line.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from recallbench.cli import main
from support.findingdory_suite import build_suite
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
AGENTS = (policy("Oracle"), policy("GatedRandomWalk"))  # the second waits at a closed gate
FINISH = "interrupted; finish with: "


def _command(suite: Path, out: Path) -> list[str]:
    return ["recallbench", "run", "--suite", str(suite), "--agents", ",".join(AGENTS),
            "--scenemem-env-factory", MINI_FACTORY, "--max-steps", "80", "--workers", "1",
            "--out", str(out)]


def _env(gate: Path) -> dict[str, str]:
    return {**os.environ, "RB_GATE": str(gate), "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}


def _run(argv: list[str], gate: Path) -> subprocess.CompletedProcess[str]:
    assert argv[0] == "recallbench"
    return subprocess.run([RECALLBENCH, *argv[1:]], env=_env(gate), capture_output=True,
                          text=True, timeout=300)


def _logs(out: Path) -> dict[str, list[str]]:
    """Each agent's run-log lines, as written."""
    return {p.parent.parent.name: p.read_text().splitlines()
            for p in sorted(out.glob("scenemem/*/run/runlog.jsonl"))}


def _counts(out: Path) -> dict[str, int]:
    """Records per agent, by class name."""
    return {agent.rsplit("_", 1)[-1]: len(lines) for agent, lines in _logs(out).items()}


def _results(out: Path) -> dict[str, Any]:
    """What a run decides: the comparison's numbers and every case's record, without the wall
    times (the only thing a resumed run may change)."""
    comparison = json.loads((out / "comparison.json").read_text())
    records = {}
    for agent, lines in _logs(out).items():
        for line in lines:
            rec = json.loads(line)
            rec.pop("wall_time")
            assert (agent, rec["key"]) not in records, f"{agent}: {rec['key']} logged twice"
            records[agent, rec["key"]] = rec
    cards = {p.parent.name: json.loads(p.read_text())
             for p in sorted(out.glob("scenemem/*/results.json"))}
    return {"benchmarks": comparison["benchmarks"], "warnings": comparison["warnings"],
            "records": records, "cards": cards}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sm")
    tests = [mini_test(f"t{i}", f"obj{i}", "cabinet" if i % 2 else "drawer") for i in range(3)]
    mini_scenario(root / "combo_007_L3_S4_0001", tests, base_xy=(1.0, 0.5))
    return root


@pytest.fixture(scope="module")
def uninterrupted(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("full")
    (tmp / "gate").mkdir()  # open: nothing waits
    proc = _run(_command(suite, tmp / "out"), tmp / "gate")
    assert proc.returncode == 0, proc.stderr
    results = _results(tmp / "out")
    assert [len(a) for a in _logs(tmp / "out").values()] == [3, 3]
    oracle, walk = results["benchmarks"]["scenemem"]["agents"]
    assert oracle["metrics"]["memory_success"]["value"] == 1.0  # numbers worth comparing
    assert walk["metrics"]["memory_success"]["n"] == 3
    return results


def _interrupt(argv: list[str], gate: Path, out: Path, gated_records: int) -> str:
    """Start ``argv``, wait until the gated agent holds ``gated_records`` records and waits at
    the gate in its next test, send SIGINT; returns the command it printed."""
    proc = subprocess.Popen(
        [RECALLBENCH, *argv[1:]], env=_env(gate), stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        # a shell's background job inherits SIGINT ignored: Ctrl-C must reach it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def gated_logged() -> int:
        return _counts(out).get("GatedRandomWalk", 0)

    try:
        deadline = time.monotonic() + 240
        while not (len(list(gate.glob("started_*"))) >= 2 and gated_logged() >= gated_records):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the gated agent never reached the gate"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert not (out / "comparison.json").exists() and (out / "scenemem").is_dir()
    line = err.strip().splitlines()[-1]
    assert FINISH in line, err
    return line.split(FINISH, 1)[1]


@pytest.mark.slow
@pytest.mark.parametrize("where", ["between agents", "mid-agent"])
def test_the_printed_command_finishes_an_interrupted_run(suite, uninterrupted, tmp_path, where):
    gate, out = tmp_path / "gate", tmp_path / "m41"
    gate.mkdir()
    (gate / "closed").touch()
    if where == "between agents":  # the gated agent's first test waits: the oracle is done
        (gate / "started_0_0").touch()
    argv = _command(suite, out)
    printed = _interrupt(argv, gate, out, gated_records=0 if where == "between agents" else 1)
    assert shlex.split(printed) == argv  # exactly the command that ran
    before = _logs(out)
    assert _counts(out).get("Oracle") == 3
    assert _counts(out).get("GatedRandomWalk", 0) == (0 if where == "between agents" else 1)
    (gate / "closed").unlink()
    proc = _run(shlex.split(printed), gate)
    assert proc.returncode == 0, proc.stderr
    after = _logs(out)
    for agent, lines in before.items():  # nothing recorded is lost or rewritten
        assert after[agent][:len(lines)] == lines
    assert _results(out) == uninterrupted


# --- what the output check knows as a run's own, and the run's own lock ---------------------

@pytest.fixture(scope="module")
def fd_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite(tmp_path_factory.mktemp("fd"))


def _fd_run(fd_suite: Path, out: Path) -> list[str]:
    return ["run", "--suite", str(fd_suite), "--agents", "oracle,random", "--frames", "40",
            "--limit", "4", "--workers", "1", "--out", str(out)]


@pytest.mark.slow  # two whole comparisons, report and viewer included
def test_a_findingdory_comparison_left_by_an_older_interrupted_run_resumes(fd_suite, tmp_path,
                                                                           capsys):
    """An older recallbench left no lock in RUN itself: only agent folders, the last one with a
    partial log. The same command finishes it, keeping every recorded line."""
    out = tmp_path / "m41"
    assert main(_fd_run(fd_suite, out)) == 0
    full = (out / "findingdory" / "random" / "runlog.jsonl").read_text().splitlines()
    for name in (".lock", "comparison.json", "report.html", "viewer", "findingdory_comparison.png"):
        path = out / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    random_dir = out / "findingdory" / "random"
    (random_dir / "summary.json").unlink()
    (random_dir / "runlog.jsonl").write_text("\n".join(full[:2]) + "\n")  # killed after two
    capsys.readouterr()
    assert main(_fd_run(fd_suite, out)) == 0, capsys.readouterr().err
    again = (random_dir / "runlog.jsonl").read_text().splitlines()
    assert again[:2] == full[:2] and len(again) == len(full)
    assert _without_times(again) == _without_times(full)


def _without_times(lines: list[str]) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in lines]
    for rec in records:
        rec.pop("wall_time", None)  # SceneMem's wall time
        rec.pop("seconds", None)  # FindingDory's
    return sorted(records, key=lambda r: r["key"])


@pytest.mark.parametrize("layout", [
    {"notes.txt": "mine"},  # a user's folder
    {"findingdory/oracle/runlog.jsonl": "", "notes.txt": "mine"},  # a run's, and someone's file
    {"findingdory/oracle/mydata.csv": "1,2"},  # not a run folder inside
    {"photos/2019/trip/runlog.jsonl": ""},  # not a benchmark's folder
])
def test_a_folder_recallbench_did_not_make_stays_refused(fd_suite, tmp_path, capsys, layout):
    out = tmp_path / "mine"
    for name, text in layout.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    status = main(_fd_run(fd_suite, out))
    err = capsys.readouterr().err.strip()
    assert status == 2 and err.count("\n") == 0, err
    assert "--out" in err and "recallbench did not make" in err
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_a_second_run_on_a_folder_in_use_is_refused_naming_the_holder(fd_suite, tmp_path,
                                                                     capsys):
    """Two `run`s on one folder would both write comparison.json: the one that finds its lock
    held (a live process) says so in one line and writes nothing; a lock a dead process left
    is not held, and the run goes on (the test above)."""
    out = tmp_path / "m41"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom recallbench.run.lock import "
         "run_folder_lock\nwith run_folder_lock(sys.argv[1]):\n    print('held', flush=True)\n"
         "    time.sleep(120)\n", str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        status = main(_fd_run(fd_suite, out))
        err = capsys.readouterr().err.strip()
    finally:
        holder.kill()
        holder.wait()
    assert status == 2 and err.count("\n") == 0, err
    assert f"(pid {holder.pid})" in err and "run the same command again" in err
    assert sorted(p.name for p in out.iterdir()) == [".lock"]
