"""User mistakes with benchmark options, on `recallbench run` (--<benchmark>-<option>, the shared
spellings) and on `recallbench findingdory` / `scenemem`: each is one error line that names the
flag as the user typed it and says why, exit 2, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from recallbench.benchmarks.registry import declared_options
from recallbench.cli import build_parser, main
from recallbench.cli.options import check_options_apply
from recallbench.errors import UsageError
from support.findingdory_suite import build_suite
from support.scenemem_fixtures.build import mini_scenario, mini_test


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A FindingDory-only suite, a SceneMem-only one and one holding both (real files)."""
    root = tmp_path_factory.mktemp("mistakes")
    scenario = "combo_0001_L1_S1_0"
    fd = build_suite(root / "fd")
    sm = mini_scenario(root / "sm" / scenario, [mini_test("t0", "bowl")]).parent
    both = root / "both"
    build_suite(both / "findingdory")
    mini_scenario(both / "scenemem" / scenario, [mini_test("t0", "bowl")])
    return {"fd": fd, "sm": sm, "both": both}


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one error line of a command that must refuse its arguments."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2, err
    assert len(err) == 1, err
    return err[0]


def run_argv(suite: Path, out: Path, *flags: str) -> list[str]:
    return ["run", "--suite", str(suite), "--agents", "random", "--out", str(out), *flags]


# (flags on `run`, the flag the error must name) on the FindingDory-only suite
RUN_FD = [
    (["--findingdory-frames", "-3"], "--findingdory-frames"),
    (["--findingdory_frames", "-3"], "--findingdory_frames"),
    (["--frames", "-3"], "--frames"),
    (["--findingdory-limit", "0"], "--findingdory-limit"),
    (["--limit", "0"], "--limit"),
    (["--findingdory-case-timeout", "0"], "--findingdory-case-timeout"),
    (["--findingdory_case_timeout", "0"], "--findingdory_case_timeout"),
    (["--test-timeout", "0"], "--test-timeout"),
    (["--findingdory-ll-policy-arg", "novalue", "--findingdory-ll"],
     "--findingdory-ll-policy-arg"),
    (["--findingdory_ll_policy_arg", "novalue", "--findingdory-ll"],
     "--findingdory_ll_policy_arg"),
]


@pytest.mark.parametrize(("flags", "named"), RUN_FD, ids=[f[0][0] for f in RUN_FD])
def test_run_names_the_findingdory_flag_as_typed(suites, tmp_path, capsys, flags, named):
    line = error_of(capsys, run_argv(suites["fd"], tmp_path / "out", *flags))
    assert line.startswith(f"recallbench run: error: {named}: "), line
    assert not (tmp_path / "out" / "findingdory").exists()  # no agent ran


RUN_SM = [
    (["--scenemem-max-steps", "0"], "--scenemem-max-steps"),
    (["--scenemem_max_steps", "0"], "--scenemem_max_steps"),
    (["--max-steps", "0"], "--max-steps"),
    (["--max_steps", "0"], "--max_steps"),
    (["--scenemem-test-timeout", "-1"], "--scenemem-test-timeout"),
    (["--test-timeout", "-1"], "--test-timeout"),
    (["--scenemem-approach-dist", "0"], "--scenemem-approach-dist"),
    (["--scenemem-open-qpos", "-2"], "--scenemem-open-qpos"),
]


@pytest.mark.parametrize(("flags", "named"), RUN_SM, ids=[f[0][0] for f in RUN_SM])
def test_run_names_the_scenemem_flag_as_typed(suites, tmp_path, capsys, flags, named):
    line = error_of(capsys, run_argv(suites["sm"], tmp_path / "out", *flags))
    assert line.startswith(f"recallbench run: error: {named}: must be"), line


def test_the_benchmarks_own_flag_is_named_beside_the_shared_one(suites, tmp_path, capsys):
    # both given: the benchmark's own flag sets the value, so it is the one at fault
    line = error_of(capsys, run_argv(suites["both"], tmp_path / "out", "--frames", "8",
                                     "--findingdory-frames", "-3"))
    assert line.startswith("recallbench run: error: --findingdory-frames: must be >= 1"), line


BENCH = [
    (["findingdory", "--frames", "-3"], "--frames"),
    (["findingdory", "--limit", "0"], "--limit"),
    (["findingdory", "--case-timeout", "0"], "--case-timeout"),
    (["findingdory", "--case_timeout", "0"], "--case_timeout"),
    (["findingdory", "--ll-policy-arg", "novalue", "--ll"], "--ll-policy-arg"),
    (["findingdory", "--ll_policy_arg", "novalue", "--ll"], "--ll_policy_arg"),
    (["scenemem", "--max-steps", "0"], "--max-steps"),
    (["scenemem", "--max_steps", "0"], "--max_steps"),
    (["scenemem", "--test_timeout", "0"], "--test_timeout"),
    (["scenemem", "--approach_dist", "-1"], "--approach_dist"),
    (["scenemem", "--open-qpos", "0"], "--open-qpos"),
]


@pytest.mark.parametrize(("argv", "named"), BENCH, ids=[" ".join(b[0][:2]) for b in BENCH])
def test_the_benchmark_commands_name_the_flag_as_typed(suites, tmp_path, capsys, argv, named):
    command, *flags = argv
    where = (["--data", str(suites["fd"]), "--agent", "random"] if command == "findingdory" else
             ["--data-dir", str(suites["sm"]), "--policy", "random"])
    line = error_of(capsys, [command, *where, "--out", str(tmp_path / "out"), *flags])
    assert line.startswith(f"recallbench {command}: error: {named}: "), line


ABSENT = [  # (suite, flags, the flag named, the benchmark the suite lacks)
    ("fd", ["--scenemem-max-steps", "4"], "--scenemem-max-steps", "scenemem"),
    ("fd", ["--scenemem_filter", "kitchen"], "--scenemem_filter", "scenemem"),
    ("fd", ["--scenemem-no-camera-obs"], "--scenemem-no-camera-obs", "scenemem"),
    ("fd", ["--scenemem-env-factory", "m:f"], "--scenemem-env-factory", "scenemem"),
    ("fd", ["--max-steps", "4"], "--max-steps", "scenemem"),
    ("sm", ["--findingdory-ll"], "--findingdory-ll", "findingdory"),
    ("sm", ["--findingdory-frames", "8"], "--findingdory-frames", "findingdory"),
    ("sm", ["--findingdory-ll-policy-arg", "goal_radius=1"], "--findingdory-ll-policy-arg",
     "findingdory"),
    ("sm", ["--frames", "8"], "--frames", "findingdory"),
    ("sm", ["--limit", "2"], "--limit", "findingdory"),
]


@pytest.mark.parametrize(("suite", "flags", "named", "lacks"), ABSENT,
                         ids=[a[1][0] for a in ABSENT])
def test_an_option_of_a_benchmark_the_suite_lacks_is_refused(suites, tmp_path, capsys, suite,
                                                             flags, named, lacks):
    line = error_of(capsys, run_argv(suites[suite], tmp_path / "out", *flags))
    assert line.startswith(f"recallbench run: error: {named}: "), line
    assert f"no {lacks} part" in line, line
    assert not (tmp_path / "out").exists()  # caught before any work


def test_shared_spellings_apply_when_one_of_their_benchmarks_is_there():
    # --test-timeout sets FindingDory's --findingdory-case-timeout and SceneMem's
    # --scenemem-test-timeout: with either part in the suite it is used, not refused
    args = build_parser().parse_args(["run", "--suite", "S", "--out", "O", "--test-timeout",
                                      "30", "--frames", "8"])
    for present in ({"findingdory"}, {"findingdory", "scenemem"}):
        check_options_apply(args, declared_options(), present, "the suite S")
    with pytest.raises(UsageError, match="^--frames: sets --findingdory-frames, but the suite S"):
        check_options_apply(args, declared_options(), {"scenemem"}, "the suite S")


NAVIGATION = ["greedy", "stop"]  # agents.registry: the names that run on navigation


@pytest.mark.parametrize("argv", [
    ["findingdory", "--ll", "--ll-policy", "nosuch"],
    ["run", "--findingdory-ll", "--findingdory-ll-policy", "nosuch"],
], ids=["findingdory", "run"])
def test_an_unknown_ll_policy_lists_only_navigation_policies(suites, tmp_path, capsys, argv):
    command, *flags = argv
    where = (["--data", str(suites["fd"]), "--agent", "random"] if command == "findingdory" else
             ["--suite", str(suites["fd"]), "--agents", "random"])
    line = error_of(capsys, [command, *where, "--out", str(tmp_path / "out"), *flags])
    assert "ll-policy: unknown agent 'nosuch'" in line, line
    listed = line[line.index("[") + 1:line.index("]")].split(", ")
    assert listed == NAVIGATION, line  # not the frame selectors nor the SceneMem policies


@pytest.mark.parametrize(("argv", "named", "missing"), [
    (["findingdory", "--ll-policy", "stop"], "--ll-policy", "--ll"),
    (["findingdory", "--ll-policy-arg", "goal_radius=0.3"], "--ll-policy-arg", "--ll"),
    (["run", "--findingdory-ll-policy", "stop"], "--findingdory-ll-policy", "--findingdory-ll"),
    (["run", "--findingdory_ll_policy_arg", "goal_radius=0.3"], "--findingdory_ll_policy_arg",
     "--findingdory-ll"),
], ids=["findingdory", "findingdory-arg", "run", "run-arg"])
def test_an_ll_policy_without_the_ll_phase_is_refused(suites, tmp_path, capsys, argv, named,
                                                      missing):
    command, *flags = argv
    where = (["--data", str(suites["fd"]), "--agent", "random"] if command == "findingdory" else
             ["--suite", str(suites["fd"]), "--agents", "random"])
    line = error_of(capsys, [command, *where, "--out", str(tmp_path / "out"), *flags])
    assert line.startswith(f"recallbench {command}: error: {named}: "), line
    assert f"add {missing}" in line, line
    assert not (tmp_path / "out").exists()


def test_the_ll_phase_on_episodes_without_worlds_is_refused_before_work(suites, tmp_path,
                                                                        capsys):
    # the suite is in the generated format, but its episodes have no saved world
    out = tmp_path / "out"
    line = error_of(capsys, ["findingdory", "--data", str(suites["fd"]), "--agent", "random",
                             "--ll", "--out", str(out)])
    assert "--ll: episode has no saved world" in line and "ep_a" in line, line
    assert not (out / "runlog.jsonl").exists()  # no agent call was made first


@pytest.mark.parametrize(("argv", "named"), [
    (["--scenemem-filter", "nomatch"], "--scenemem-filter"),
    (["--scenemem_filter", "nomatch"], "--scenemem_filter"),
    (["--scenemem-env-factory", "nosuch_module:make"], "--scenemem-env-factory"),
    (["--scenemem-env-factory", "no_colon"], "--scenemem-env-factory"),
], ids=["filter", "filter-snake", "env-factory", "env-factory-form"])
def test_run_refuses_scenemem_options_that_would_fail_every_agent(suites, tmp_path, capsys,
                                                                   argv, named):
    # each agent's run used to fail on them in turn: a report of failed agents, exit 1
    out = tmp_path / "out"
    line = error_of(capsys, ["run", "--suite", str(suites["sm"]), "--agents",
                             "do-nothing,blind", "--out", str(out), *argv])
    assert named in line, line
    assert not out.exists()


@pytest.mark.parametrize(("argv", "named"), [
    (["--filter", "nomatch"], "--filter"),
    (["--env_factory", "nosuch_module:make"], "--env_factory"),
], ids=["filter", "env-factory"])
def test_scenemem_names_its_checked_options_as_typed(suites, tmp_path, capsys, argv, named):
    line = error_of(capsys, ["scenemem", "--data-dir", str(suites["sm"]), "--policy",
                             "do-nothing", "--out", str(tmp_path / "r.json"), *argv])
    assert named in line, line


@pytest.mark.parametrize(("argv", "named"), [
    (["run", "--findingdory-videos", "/nonexistent/videos"], "--findingdory-videos"),
    (["findingdory", "--videos", "/nonexistent/videos"], "--videos"),
], ids=["run", "findingdory"])
def test_a_videos_folder_that_is_not_there_is_refused(suites, tmp_path, capsys, argv, named):
    # random watches no video, so nothing else would ever look at the folder
    command, *flags = argv
    where = (["--data", str(suites["fd"]), "--agent", "random"] if command == "findingdory" else
             ["--suite", str(suites["fd"]), "--agents", "random"])
    line = error_of(capsys, [command, *where, "--out", str(tmp_path / "out"), *flags])
    assert line.startswith(f"recallbench {command}: error: {named}: "), line
    assert "/nonexistent/videos is not a folder" in line


@pytest.mark.parametrize(("flag", "own"), [
    ("--scenemem-policy", "--policy"),
    ("--findingdory-agent-arg", "--agent-arg"),
    ("--findingdory_frames_sweep", "--frames-sweep"),
], ids=["policy", "agent-arg", "frames-sweep"])
def test_a_benchmark_command_only_option_on_run_says_what_run_uses(suites, tmp_path, capsys,
                                                                   flag, own):
    line = error_of(capsys, run_argv(suites["fd"], tmp_path / "out", flag, "x"))
    assert line.startswith(f"recallbench run: error: {flag}: {own} is an option of "), line
    assert "--agents" in line and "--suite" in line


def test_a_bad_ll_policy_argument_names_the_argument_flag(suites, tmp_path, capsys):
    # the policy name was right; its arguments were not (the episode worlds come after)
    for argv, named in ((["findingdory", "--data", str(suites["fd"]), "--agent", "random",
                          "--ll", "--ll-policy-arg", "nosuch=1"], "--ll-policy-arg"),
                        (["run", "--suite", str(suites["fd"]), "--agents", "random",
                          "--findingdory-ll", "--findingdory-ll-policy-arg",
                          "goal_radius=abc"], "--findingdory-ll-policy-arg")):
        line = error_of(capsys, [*argv, "--out", str(tmp_path / "out")])
        assert line.startswith(f"recallbench {argv[0]}: error: {named}: LL policy 'greedy' "
                               "refused its arguments"), line
