"""``recallbench demo``: small suites generated once into ``OUT/suites``, then one comparison.

SceneMem: the privileged policy (ceiling), memoryless search, do-nothing, a random fixture choice
and the hierarchical agent whose memory is text over the video's subtask captions (offline).
FindingDory: oracle, blind, random, recency, and the text-memory agent over privileged
annotation captions answered by MiniLM retrieval when the embeddings extra is installed
(otherwise it is skipped with a note). Sizes are chosen so the whole demo takes minutes on two
CPU cores; ``recallbench generate`` makes suites of any size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.errors import InputError
from recallbench.run.compare import CompareOptions, compare

SCENEMEM_AGENTS = ("oracle", "blind", "do-nothing", "random", "hierarchical")
FINDINGDORY_AGENTS = ("oracle", "blind", "random", "recency", "text-memory")
# Small but complete: every scenario still records three camera videos and verifies its probes.
SCENEMEM_SCENARIOS = 2
SCENEMEM_KNOBS: dict[str, Any] = {"tasks": 4, "pick_place": 3, "size": 128,
                                  "use_camera_obs": False, "max_steps": 600}
FINDINGDORY_EPISODES = 1
FINDINGDORY_KNOBS: dict[str, Any] = {"interactions": 3, "steps": 1200, "width": 120,
                                     "height": 160, "subsample": 48, "distractors": 4}
FRAMES = 48
TEXT_MEMORY_ARGS = {
    "answerer": "embedding",
    "captioner": "recallbench.agents.annotation_captions:AnnotationCaptioner",
}


def generate_suites(suites: Path, workers: int, console: Console, seed: int = 0) -> None:
    """Both demo suites through the generator's own suite machinery (``generate.suite``: items
    in parallel worker processes, each written atomically; a rerun finishes only what is
    missing and refuses other knobs)."""
    from recallbench.generate.findingdory_knobs import FindingDoryKnobs
    from recallbench.generate.scenemem import ScenememKnobs
    from recallbench.generate.suite import run_suite

    plan = (
        ("scenemem", SCENEMEM_SCENARIOS, ScenememKnobs.from_dict(SCENEMEM_KNOBS).to_dict()),
        ("findingdory", FINDINGDORY_EPISODES, FindingDoryKnobs(**FINDINGDORY_KNOBS).to_dict()),
    )
    for bench, n, knobs in plan:
        out = suites / bench
        if (out / ".complete").is_file():
            continue
        console.print(f"generating the demo's {bench} suite in {out} (once; reused afterwards)")
        status = run_suite(bench, out, n, seed, knobs, workers, console=console)
        if status == 2:
            raise InputError(out / "suite.json", None, "cannot generate the demo suite here "
                             "(another suite with other settings?); use another --out")
        if status == 0:
            (out / ".complete").touch()
        else:
            console.print(f"[yellow]note[/yellow]: some {bench} items failed to generate; "
                          "comparing on the rest (rerun the demo to retry them)")


def text_memory_args() -> dict[str, dict[str, Any]]:
    from recallbench.agents.embeddings import embeddings_available

    return {"text-memory": dict(TEXT_MEMORY_ARGS)} if embeddings_available() else {}


def run_demo(out: Path, workers: int = 1, console: Console | None = None) -> Path:
    """Generate (once) and compare; returns the report's path."""
    console = console or Console(stderr=True)
    suites = out / "suites"
    generate_suites(suites, workers, console)
    args = text_memory_args()
    fd_agents = list(FINDINGDORY_AGENTS)
    if not args:
        console.print("[yellow]note[/yellow]: the embeddings extra is not installed "
                      "(pip install 'recallbench[embeddings]'); text-memory will be skipped")
    opts = CompareOptions(workers=workers, frames=FRAMES, agent_args=args, quiet_runs=True)
    compare(suites, [], out / "comparison", opts, console=console,
            agents_by_benchmark={"scenemem": SCENEMEM_AGENTS, "findingdory": fd_agents})
    return out / "comparison" / "report.html"
