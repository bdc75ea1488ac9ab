"""``recallbench demo`` (the README's main job): generate small default suites, compare the
baselines and the memory agents with ``recallbench run``'s machinery (``cli.run``), write a report.

Checks everything before work, exits 1 when nothing was scored, and prints partial failure as
warnings with counts (also in comparison.json and report.html). Imports nothing heavy at
module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.cli.checks import check_positive
from recallbench.cli.errors import print_warning
from recallbench.cli.formats import add_format_option
from recallbench.cli.run import compare, finish_comparison, prepare_runs
from recallbench.errors import InputError

# the demo's suites and agents
DEMO_SCENEMEM_AGENTS = ["oracle", "blind", "do-nothing", "random", "hierarchical"]
DEMO_FINDINGDORY_AGENTS = ["oracle", "blind", "random", "recency", "text-memory"]
# Big enough that each memory agent's paired difference against its memoryless baseline has a
# 95% interval that excludes zero (measured: SceneMem hierarchical vs search over 15 probes,
# +0.53 [0.27, 0.80] on first_open_success; FindingDory text-memory vs blind over ~114
# questions, +29 points [18, 40]); small enough that a rerun takes minutes. Every scenario still
# records three camera videos and verifies its probes; probes get the card's 1,500 steps.
DEMO_SCENEMEM_SCENARIOS = 3
DEMO_SCENEMEM_KNOBS: dict[str, Any] = {"size": 128, "use_camera_obs": False}
DEMO_FINDINGDORY_EPISODES = 2
DEMO_FINDINGDORY_KNOBS: dict[str, Any] = {"width": 120, "height": 160}
DEMO_FRAMES = DEFAULT_FRAMES
# The demo's memory agents read ground truth (no perceiving model ships offline): said once.
DEMO_NO_MODEL_NOTE = (
    "note: no model that perceives the video ships offline, so the demo's memory agents "
    "(hierarchical, text-memory) read ground-truth annotations and are marked * (privileged); "
    "plug a model in with: recallbench run --suite {suites} --agents blind,vlm --out runs/vlm "
    "--agent-arg vlm.model=MODEL --agent-arg vlm.base_url=http://localhost:8000/v1 "
    "(docs/agents.md)")
# Offline text memory: captions from the suite's privileged annotations, answered by MiniLM.
DEMO_TEXT_MEMORY_ARGS = {
    "answerer": "embedding",
    "captioner": "recallbench.agents.annotation_captions:AnnotationCaptioner",
}


def _demo_plan() -> tuple[tuple[str, int, dict[str, Any], list[str]], ...]:
    """What the demo generates and runs, per benchmark: (benchmark, items, knobs, agents), read
    when it runs (its generator fills in the knobs' defaults)."""
    return (
        ("scenemem", DEMO_SCENEMEM_SCENARIOS, DEMO_SCENEMEM_KNOBS, DEMO_SCENEMEM_AGENTS),
        ("findingdory", DEMO_FINDINGDORY_EPISODES, DEMO_FINDINGDORY_KNOBS,
         DEMO_FINDINGDORY_AGENTS),
    )


def _demo_suites(suites: Path, workers: int, seed: int = 0) -> list[str]:
    """Both demo suites through the generator's own machinery, once. A suite made with other
    knobs (an older recallbench) is made again. Returns the benchmarks (re)generated now."""
    from rich.console import Console

    from recallbench.errors import InputError
    from recallbench.generate.registry import generator
    from recallbench.generate.suite import check_suite_file, run_suite

    console = Console(stderr=True)
    made = []
    for bench, n, given, _ in _demo_plan():
        knobs = generator(bench).knobs(given)
        out = suites / bench
        try:
            check_suite_file(out, bench, seed, n, knobs)
        except InputError:  # the demo owns this folder: an old suite is replaced
            console.print(f"the demo's {bench} suite was made with other settings: remaking it")
            shutil.rmtree(out)
        if (out / ".complete").is_file():
            continue
        console.print(f"generating the demo's {bench} suite in {out} (once; reused afterwards)")
        status = run_suite(bench, out, n, seed, knobs, workers, console=console)
        made.append(bench)
        if status == 0:
            (out / ".complete").touch()
        else:
            print_warning(f"some {bench} items failed to generate (see {out}/error_*.txt); "
                          "the demo goes on with the rest; rerun it to retry them")
    return made


def _usable(bench: str, path: Path) -> bool:
    """Whether a demo suite loads: one whose generation failed may exist yet hold nothing (an
    empty qa.json); it is then left out like a missing one, with the reason, not the demo's end."""
    from recallbench.benchmarks.registry import get_benchmark

    try:
        get_benchmark(bench).load_suite(path)
    except InputError as exc:
        print_warning(f"the demo's {bench} suite cannot be used: {exc}")
        return False
    return True


def _handle_demo(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.agents.embeddings import embeddings_available
    from recallbench.benchmarks.registry import detect_suites
    from recallbench.cli.outputs import check_output_folder
    from recallbench.run.compare import CompareOptions

    check_positive("--workers", args.workers)
    check_output_folder("--out", args.out)  # the demo replaces what it made, nothing else
    out = Path(args.out)
    workers = args.workers or os.cpu_count() or 1
    print(DEMO_NO_MODEL_NOTE.format(suites=out / "suites"), file=sys.stderr, flush=True)
    made = _demo_suites(out / "suites", workers)
    comparison_dir = out / "comparison"
    for bench in made:  # runs on a suite that changed are redone, never mixed
        shutil.rmtree(comparison_dir / bench, ignore_errors=True)
    try:
        suites = detect_suites(out / "suites")
    except InputError:  # neither suite could be generated: said below, with the report
        suites = {}
    suites = {bench: path for bench, path in suites.items() if _usable(bench, path)}
    agent_args: dict[str, dict[str, Any]] = {"text-memory": dict(DEMO_TEXT_MEMORY_ARGS)}
    left_out: set[str] = set()
    if not embeddings_available():
        print_warning("the embeddings extra is not installed (pip install "
                      "'recallbench[embeddings]'): text-memory is left out")
        left_out, agent_args = {"text-memory"}, {}
    by_bench = {bench: [a for a in agents if a not in left_out]
                for bench, _, _, agents in _demo_plan() if bench in suites}
    # arguments only for agents that run (text-memory's go with its suite)
    agent_args = {a: v for a, v in agent_args.items()
                  if any(a in names for names in by_bench.values())}
    # every option at its declared default (FindingDory's K is DEMO_FRAMES)
    prepared, plan = prepare_runs(suites, {}, [], by_bench, agent_args, seed=0)
    opts = CompareOptions(workers=workers, agent_args=agent_args, quiet_runs=True,
                          overwrite=True)
    missing = [bench for bench, _, _, _ in _demo_plan() if bench not in suites]
    warnings = [f"no {b} suite could be generated (see {out / 'suites' / b})" for b in missing]
    comparison = compare(prepared, plan, comparison_dir, opts, console=Console(stderr=True),
                         suite=out / "suites", warnings=warnings, fmt=args.format)
    comparison["benchmarks"].update({b: {"agents": []} for b in missing})
    return finish_comparison(comparison, comparison_dir, need_every_benchmark=True,
                             fmt=args.format)


def register(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="generate small suites, compare baselines and memory agents, write a report",
        description=(
            "The main job: generates the small default SceneMem and FindingDory suites in "
            "OUT/suites (once; reused afterwards, remade when their settings changed), then "
            "compares the baselines and the memory agents and prints where the report is."
        ),
    )
    demo.add_argument("--out", default="runs/demo", help="demo folder (default runs/demo)")
    demo.add_argument("--workers", type=int, default=None, help="default: one per core")
    add_format_option(demo)
    demo.set_defaults(func=_handle_demo)
