"""What a generated day was made from: its fingerprint, the key the leakage check compares.

A fingerprint names the home (``kind``, ``layout`` seed, ``style``), the day's own ``seed``, the
objects in the home and a ``digest`` of all of it plus what the robot did (the interactions or
tasks), so two days are "the same day" when their digests are equal and "the same home and seed"
when (kind, layout, style, seed) are. The generator records it (FindingDory ``episode.json``,
SceneMem ``generation.json``, both in ``suite.json``'s items); for suites made before it was
recorded it is rebuilt from the same files, which hold every field it needs.

The leakage rule never trusts a recorded fingerprint: ``*_day_fingerprint`` rebuilds it from the
day's files and adds digests of its content (``video``: the video files; ``content``: video, QA
and events), so an edited record cannot hide a copied day. The recorded one is a cache that must
agree; a disagreement is returned as a note naming the file (``MISMATCH``), for a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from recallbench.io import read_json

Fingerprint = dict[str, Any]
MISMATCH = "recorded_mismatch"  # the note a day_fingerprint adds when its record disagrees
CHUNK = 1 << 20  # hashed a MiB at a time: a day's video is never held whole


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


# ------------------------------------------------------------------ recomputed from content
def file_digest(path: Path) -> str:
    """sha256 of a regular file's bytes (a FIFO or a folder is refused, never waited on)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path}: not a regular file")
        h = hashlib.sha256()
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def content_digests(videos: list[Path], others: list[Path]) -> dict[str, str]:
    """``video``: the digest of the videos; ``content``: of the videos and the other files (QA,
    events; an absent one counts as absent)."""
    video = hashlib.sha256(" ".join(file_digest(p) for p in videos).encode()).hexdigest()
    rest = [file_digest(p) if p.exists() else "absent" for p in others]
    content = hashlib.sha256(" ".join([video, *rest]).encode()).hexdigest()
    return {"video": video, "content": content}


def checked(recomputed: Fingerprint, recorded: Any, where: Path) -> Fingerprint:
    """``recomputed``, with a ``MISMATCH`` note when ``recorded`` (the cache) disagrees on a
    field both hold."""
    if not isinstance(recorded, dict):
        return recomputed
    wrong = sorted(k for k in recorded if k in recomputed and recorded[k] != recomputed[k])
    if wrong:
        return {**recomputed, MISMATCH: f"{where}: the recorded fingerprint differs from the "
                f"day's content in {', '.join(wrong)}; the recomputed one is used"}
    return recomputed


def findingdory_day_fingerprint(directory: Path) -> Fingerprint:
    """A FindingDory episode's fingerprint recomputed from its files: episode, entities, and the
    content digests of its video, QA rows and events."""
    episode = read_json(directory / "episode.json")
    entities = read_json(directory / "entities.json")
    try:
        fp = findingdory_fingerprint(episode, entities)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{directory / 'episode.json'}: no field {exc}") from None
    fp.update(content_digests([directory / "video.mp4"],
                              [directory / "qa.json", directory / "events.json"]))
    return checked(fp, episode.get("fingerprint") if isinstance(episode, dict) else None,
                   directory / "episode.json")


def scenemem_day_fingerprint(directory: Path) -> Fingerprint:
    """A SceneMem scenario's fingerprint recomputed from its files: generation, home, tasks, and
    the content digests of its videos, probes (eval_spec.json) and subtasks."""
    generation = read_json(directory / "generation.json")
    meta = read_json(directory / "env" / "ep_meta.json")
    subtasks = read_json(directory / "videos" / "subtasks.json")
    try:
        world = meta.get("recallbench_world") or {}  # world.env.EP_META_KEY
        objects = [str(o["name"]) for o in world.get("objects", [])]
        fp = scenemem_fingerprint(generation, objects, subtasks.get("tasks", []))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{directory}: a day's record lacks field {exc}") from None
    from recallbench.benchmarks.scenemem.spec import VIDEO_NAMES

    fp.update(content_digests([directory / "videos" / name for name in VIDEO_NAMES],
                              [directory / "eval_spec.json",
                               directory / "videos" / "subtasks.json"]))
    return checked(fp, generation.get("fingerprint") if isinstance(generation, dict) else None,
                   directory / "generation.json")
