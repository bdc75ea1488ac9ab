"""Issue 24: one grammar for benchmark options. Each option a benchmark declares is --NAME on its
own command and --<benchmark>-NAME on `recallbench run`, and both fill the same config."""

from __future__ import annotations

import pytest

from recallbench.benchmarks.registry import declared_options
from recallbench.cli import build_parser
from recallbench.cli.options import benchmark_values, run_values
from recallbench.errors import UsageError
from recallbench.run.runner import runner_for

# One value per option both commands offer, as the benchmark command spells it.
GIVEN = {
    "findingdory": ["--frames", "48", "--videos", "/v", "--limit", "3", "--case-timeout", "5",
                    "--trust-suite", "--scoring", "official", "--ll", "--ll-policy", "stop",
                    "--ll-policy-arg", "goal_radius=0.25", "--ll-policy-arg", "x=[1]"],
    "scenemem": ["--observation-only", "--filter", "kitchen", "--max-steps", "20",
                 "--test-timeout", "9", "--approach-dist", "1.5", "--open-qpos", "0.3",
                 "--no-camera-obs", "--env-factory", "m:f", "--trust-suite", "--trust-policy"],
}


def _run_spelling(bench: str, words: list[str]) -> list[str]:
    return [f"--{bench}-{w[2:]}" if w.startswith("--") else w for w in words]


@pytest.mark.parametrize("bench", sorted(GIVEN))
def test_run_and_the_benchmark_command_fill_the_same_config(bench):
    runner = runner_for(bench)
    offered = {o.name for o in runner.options if o.offered("run")}
    own = build_parser().parse_args([bench, *GIVEN[bench]])
    on_run = build_parser().parse_args(["run", "--suite", "S", "--out", "O",
                                        *_run_spelling(bench, GIVEN[bench])])
    alone = runner.config(benchmark_values(own, runner.options))
    compared = runner.config(run_values(on_run, bench, runner.options))
    given = {name: getattr(alone, name) for name in offered}
    assert given == {name: getattr(compared, name) for name in offered}
    default = runner.config({})
    assert all(given[name] != getattr(default, name) for name in offered)  # every one moved


def test_shared_spellings_keep_working_and_lose_to_the_benchmarks_own():
    args = build_parser().parse_args(["run", "--suite", "S", "--out", "O", "--frames", "48",
                                      "--test-timeout", "7", "--findingdory-case-timeout", "3"])
    fd = run_values(args, "findingdory", runner_for("findingdory").options)
    sm = run_values(args, "scenemem", runner_for("scenemem").options)
    assert (fd["frames"], fd["case_timeout"], sm["test_timeout"]) == (48, 3.0, 7.0)


def test_a_bad_value_names_the_run_flag():
    args = build_parser().parse_args(["run", "--suite", "S", "--out", "O",
                                      "--findingdory-ll-policy-arg", "novalue"])
    with pytest.raises(UsageError, match="--findingdory-ll-policy-arg"):
        run_values(args, "findingdory", runner_for("findingdory").options)


def test_every_declared_option_is_a_config_field():
    """The options are read off the config's fields; a value no option declares is refused."""
    for bench in declared_options():
        runner = runner_for(bench)
        config = runner.config({})
        assert all(getattr(config, o.name) == o.default for o in runner.options)
        with pytest.raises(ValueError, match="no option"):
            runner.config({"no_such_option": 1})
