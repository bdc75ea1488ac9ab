"""What ``generate.suite`` needs from each benchmark's generator, registered per benchmark, so
the shared machinery (workers, progress, resume, suite.json) never branches on a name."""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.protocol import DEFAULT_FRAMES
from recallbench.versions import package_versions

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
    return {"benchmark": "findingdory", "generator": "recallbench", "seed": seed, "n": n,
            "knobs": knobs, "python": sys.version.split()[0], "platform": platform.machine(),
            "packages": package_versions(), "complete": len(items) == n, "items": items}


def _findingdory_finish(out_dir: Path, knobs: dict[str, Any]) -> None:
    from recallbench.generate.findingdory import merge_suite

    merge_suite(out_dir, int(knobs.get("subsample", DEFAULT_FRAMES)))


GENERATORS: dict[str, Generator] = {
    "scenemem": Generator(_scenemem_item, _scenemem_summary, _scenemem_manifest,
                          describe=_scenemem_describe),
    "findingdory": Generator(_findingdory_item, _findingdory_summary, _findingdory_manifest,
                             finish=_findingdory_finish),
}
