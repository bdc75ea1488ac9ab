"""What a generated day was made from: its fingerprint, the key the leakage check compares.

A fingerprint names the home (``kind``, ``layout`` seed, ``style``), the day's own ``seed``, the
objects in the home and a ``digest`` of all of it plus what the robot did (the interactions or
tasks), so two days are "the same day" when their digests are equal and "the same home and seed"
when (kind, layout, style, seed) are. The generator records it (FindingDory ``episode.json``,
SceneMem ``generation.json``, both in ``suite.json``'s items); for suites made before it was
recorded it is rebuilt from the same files, which hold every field it needs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

Fingerprint = dict[str, Any]


def day_fingerprint(benchmark: str, kind: str, layout: int, style: int, seed: str,
                    objects: list[str], actions: Any) -> Fingerprint:
    """The fingerprint of one day. ``seed`` is the day's own seed as text (FindingDory days are
    seeded by suite seed, index and home attempt: ``"7/0/0"``); ``actions`` is JSON data."""
    core = {"benchmark": benchmark, "kind": kind, "layout": int(layout), "style": int(style),
            "seed": str(seed), "objects": sorted(objects)}
    blob = json.dumps({**core, "actions": actions}, sort_keys=True, separators=(",", ":"))
    return {**core, "digest": hashlib.sha256(blob.encode("utf-8")).hexdigest()}


def findingdory_fingerprint(episode: dict[str, Any], entities: list[dict[str, Any]]
                            ) -> Fingerprint:
    """From a FindingDory ``episode.json`` and its ``entities.json``."""
    world = episode["world"]
    seed = f"{episode['seed']}/{episode['index']}/{len(episode.get('failed_homes') or [])}"
    objects = [str(e["id"]) for e in entities if e.get("kind") == "object"]
    return day_fingerprint("findingdory", str(world.get("kind", "home")), world["seed"],
                           world["style"], seed, objects, episode.get("interactions", []))


def findingdory_episode_fingerprint(directory: Path) -> Fingerprint:
    """A generated FindingDory episode folder's fingerprint (recorded, else rebuilt)."""
    episode = json.loads((directory / "episode.json").read_text())
    if isinstance(episode.get("fingerprint"), dict):
        return dict(episode["fingerprint"])
    entities = json.loads((directory / "entities.json").read_text())
    return findingdory_fingerprint(episode, entities)


def scenemem_fingerprint(generation: dict[str, Any], objects: list[str],
                         tasks: list[dict[str, Any]]) -> Fingerprint:
    """From a SceneMem ``generation.json``, the home's object names and the day's tasks."""
    return day_fingerprint("scenemem", str(generation["kind"]), generation["layout"],
                           generation["style"], str(generation["seed"]), objects, tasks)


def scenemem_scenario_fingerprint(directory: Path) -> Fingerprint:
    """A generated SceneMem scenario folder's fingerprint (recorded, else rebuilt)."""
    generation = json.loads((directory / "generation.json").read_text())
    if isinstance(generation.get("fingerprint"), dict):
        return dict(generation["fingerprint"])
    meta = json.loads((directory / "env" / "ep_meta.json").read_text())
    world = meta.get("recallbench_world") or {}  # world.env.EP_META_KEY
    objects = [str(o["name"]) for o in world.get("objects", [])]
    subtasks = json.loads((directory / "videos" / "subtasks.json").read_text())
    return scenemem_fingerprint(generation, objects, subtasks.get("tasks", []))


def home_key(fp: Fingerprint) -> tuple[str, int, int, str]:
    """What the leakage rule calls the same layout+style+seed."""
    return (fp["kind"], int(fp["layout"]), int(fp["style"]), str(fp["seed"]))
