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


def generate_scenemem(out: Path, console: Console, seed: int = 0) -> Path:
    """The demo's SceneMem suite (scenarios already complete are kept)."""
    from recallbench.generate.scenemem import ScenememKnobs, generate_scenario

    knobs = ScenememKnobs.from_dict(SCENEMEM_KNOBS)
    out.mkdir(parents=True, exist_ok=True)
    for index in range(SCENEMEM_SCENARIOS):
        console.print(f"generating SceneMem scenario {index + 1}/{SCENEMEM_SCENARIOS} in {out}")
        generate_scenario(out, index, seed, knobs)
    return out


def generate_findingdory(out: Path, console: Console, seed: int = 0) -> Path:
    """The demo's FindingDory suite (episodes already complete are kept)."""
    from recallbench.generate.findingdory import generate_episode, merge_suite
    from recallbench.generate.findingdory_knobs import FindingDoryKnobs

    knobs = FindingDoryKnobs(**FINDINGDORY_KNOBS)
    out.mkdir(parents=True, exist_ok=True)
    for index in range(FINDINGDORY_EPISODES):
        console.print(f"generating FindingDory episode {index + 1}/{FINDINGDORY_EPISODES} "
                      f"in {out}")
        generate_episode(out, seed=seed, index=index, knobs=knobs)
    merge_suite(out, subsample=knobs.subsample)
    return out


def text_memory_args() -> dict[str, dict[str, Any]]:
    from recallbench.agents.embeddings import embeddings_available

    return {"text-memory": dict(TEXT_MEMORY_ARGS)} if embeddings_available() else {}


def run_demo(out: Path, workers: int = 1, console: Console | None = None) -> Path:
    """Generate (once) and compare; returns the report's path."""
    console = console or Console(stderr=True)
    suites = out / "suites"
    if not (suites / "scenemem" / ".complete").is_file():
        generate_scenemem(suites / "scenemem", console)
        (suites / "scenemem" / ".complete").touch()
    if not (suites / "findingdory" / ".complete").is_file():
        generate_findingdory(suites / "findingdory", console)
        (suites / "findingdory" / ".complete").touch()
    args = text_memory_args()
    fd_agents = list(FINDINGDORY_AGENTS)
    if not args:
        console.print("[yellow]note[/yellow]: the embeddings extra is not installed "
                      "(pip install 'recallbench[embeddings]'); text-memory will be skipped")
    opts = CompareOptions(workers=workers, frames=FRAMES, agent_args=args)
    compare(suites, [], out / "comparison", opts, console=console,
            agents_by_benchmark={"scenemem": SCENEMEM_AGENTS, "findingdory": fd_agents})
    return out / "comparison" / "report.html"
