"""What ``generate.suite`` (and the leakage rule) needs from each benchmark's generator, one
``Generator`` per benchmark, named by its declaration (``Benchmark.generator``), so the shared
machinery (workers, progress, resume, suite.json, fingerprints) never branches on a name, and
``recallbench generate <benchmark>`` is the command its generator names (``command``).

Light to import (the command line reads ``command`` for ``generate --help``): what the
functions need is imported when they run.
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.loader import load_attr

if TYPE_CHECKING:
    from recallbench.generate.fingerprint import Fingerprint

Summary = dict[str, Any]


@dataclass(frozen=True)
class Generator:
    # one item (a SceneMem scenario, a FindingDory episode), in a worker: its summary
    generate_item: Callable[[Path, int, int, dict[str, Any]], Summary]
    # the summary of a complete item on disk, or None when it is not complete
    item_summary: Callable[[Path, int], Summary | None]
    # suite.json from the complete items
    suite_manifest: Callable[[Path, int, int, dict[str, Any], list[Summary]], dict[str, Any]]
    # after every item: files made from all of them (FindingDory's merged qa.json)
    finish: Callable[[Path, dict[str, Any]], None] = lambda out_dir, knobs: None
    # one line about the whole suite, or None
    describe: Callable[[dict[str, Any]], str | None] = lambda manifest: None
    # knobs as the generator records them (defaults filled in); a wrong one raises
    knobs: Callable[[dict[str, Any]], dict[str, Any]] = dict
    # the suite's complete days (items) with their fingerprints recomputed from their files, for
    # the leakage rule (fingerprint.MISMATCH notes a recorded one that disagrees)
    days: Callable[[Path], list[tuple[str, Fingerprint]]] = lambda suite: []
    # "module:attr" of ``register(subparsers)``, adding ``recallbench generate <benchmark>``
    # (and any tool of its own) to generate's subcommands; None: no command
    command: str | None = None


# ---------------------------------------------------------------------------------- scenemem
def _scenemem_item(out_dir: Path, index: int, seed: int, knobs: dict[str, Any]) -> Summary:
    from recallbench.generate.scenemem import generate_scenario

    return generate_scenario(out_dir, index, seed, knobs)


def _scenemem_summary(out_dir: Path, index: int) -> Summary | None:
    from recallbench.generate.scenemem import find_complete

    done = find_complete(out_dir, index)
    return None if done is None else json.loads((done / "generation.json").read_text())


def _scenemem_manifest(out_dir: Path, seed: int, n: int, knobs: dict[str, Any],
                       items: list[Summary]) -> dict[str, Any]:
    from recallbench.generate.scenemem import ScenememKnobs, suite_manifest

    manifest = suite_manifest(out_dir, seed, n, ScenememKnobs.from_dict(knobs), items)
    manifest["knobs"] = knobs
    return manifest


def _scenemem_describe(manifest: dict[str, Any]) -> str:
    t = manifest["totals"]
    return (f"{t['probes']} probes ({t['dropped_probes']} dropped by verification), "
            f"{t['minutes_of_video']} min of video")


# ------------------------------------------------------------------------------- findingdory
def _episode_summary(path: Path, index: int) -> Summary:
    from recallbench.generate.fingerprint import findingdory_episode_fingerprint

    meta = json.loads((path / "episode.json").read_text())
    return {"index": index, "name": path.name, "frames": meta.get("num_frames"),
            "questions": meta.get("num_questions"), "world": meta.get("world"),
            "fingerprint": findingdory_episode_fingerprint(path)}


def _findingdory_item(out_dir: Path, index: int, seed: int, knobs: dict[str, Any]) -> Summary:
    from recallbench.generate.findingdory import generate_episode
    from recallbench.generate.findingdory_knobs import FindingDoryKnobs

    path = generate_episode(out_dir, seed=seed, index=index, knobs=FindingDoryKnobs(**knobs))
    return _episode_summary(Path(path), index)


def _findingdory_summary(out_dir: Path, index: int) -> Summary | None:
    path = out_dir / "episodes" / f"ep_{index}"
    return _episode_summary(path, index) if (path / "episode.json").is_file() else None


def _findingdory_manifest(out_dir: Path, seed: int, n: int, knobs: dict[str, Any],
                          items: list[Summary]) -> dict[str, Any]:
    from recallbench.versions import package_versions

    return {"benchmark": "findingdory", "generator": "recallbench", "seed": seed, "n": n,
            "knobs": knobs, "python": sys.version.split()[0], "platform": platform.machine(),
            "packages": package_versions(), "complete": len(items) == n, "items": items}


def _findingdory_finish(out_dir: Path, knobs: dict[str, Any]) -> None:
    from recallbench.generate.findingdory import merge_suite

    merge_suite(out_dir, int(knobs.get("subsample", DEFAULT_FRAMES)))


def _findingdory_days(suite: Path) -> list[tuple[str, Fingerprint]]:
    from recallbench.generate.fingerprint import findingdory_day_fingerprint

    eps = sorted((p for p in (suite / "episodes").glob("ep_*") if (p / "episode.json").is_file()),
                 key=lambda p: int(p.name.split("_")[1]))
    return [(p.name, findingdory_day_fingerprint(p)) for p in eps]


def _scenemem_days(suite: Path) -> list[tuple[str, Fingerprint]]:
    from recallbench.generate.fingerprint import scenemem_day_fingerprint

    found = sorted(p for p in suite.glob("combo_*") if (p / "generation.json").is_file())
    return [(p.name, scenemem_day_fingerprint(p)) for p in found]


def _scenemem_knobs(given: dict[str, Any]) -> dict[str, Any]:
    from recallbench.generate.scenemem import ScenememKnobs

    return ScenememKnobs.from_dict(given).to_dict()


def _findingdory_knobs(given: dict[str, Any]) -> dict[str, Any]:
    from recallbench.generate.findingdory_knobs import FindingDoryKnobs

    return FindingDoryKnobs(**given).to_dict()


SCENEMEM = Generator(_scenemem_item, _scenemem_summary, _scenemem_manifest,
                     describe=_scenemem_describe, knobs=_scenemem_knobs, days=_scenemem_days,
                     command="recallbench.cli.generate:scenemem_command")
FINDINGDORY = Generator(_findingdory_item, _findingdory_summary, _findingdory_manifest,
                        finish=_findingdory_finish, knobs=_findingdory_knobs,
                        days=_findingdory_days,
                        command="recallbench.cli.generate:findingdory_command")


def generators() -> dict[str, Generator]:
    """benchmark -> its generator, for every benchmark that declares one."""
    from recallbench.benchmarks.registry import BENCHMARKS

    return {b.name: load_attr(b.generator) for b in BENCHMARKS.values() if b.generator}


def generator(benchmark: object) -> Generator:
    """The generator of ``benchmark``; one error naming it when it has none."""
    found = generators()
    if not isinstance(benchmark, str) or benchmark not in found:
        raise ValueError(f"benchmark must be one of {tuple(found)}, not {benchmark!r}")
    return found[benchmark]
