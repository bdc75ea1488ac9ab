"""Per-frame annotations of a generated episode, and the goal predicates evaluated on them.

On-disk schema (one directory per episode, ``episodes/<ep_id>/``; see docs/findingdory.md):

- ``frames.npz``: ``pose`` float32 (F, 3) = x, y, yaw of the robot base per frame;
  ``time`` str (F,) "HH:MM" time of day per frame.
- ``entities.json``: list of {"id", "kind": object|receptacle|room, "category", "name",
  "attributes": {...}} in column order E.
- ``annotations.npz``: float32 (F, E) ``distance`` (geodesic base-to-object; for receptacles, to
  the nearest viewpoint), ``angle`` (radians, robot forward axis to target, base frame),
  ``coverage`` (fraction of head-camera pixels on the target); bool (F, E) ``in_room`` (rooms);
  float32 (E,) ``start_distance`` (geodesic from the episode's start pose, the oracle's final
  pose, to each entity); float32 (E, E) ``entity_distance`` (geodesic between entities' goal
  points, for the shortest multi-goal tour). Unreachable distances are stored as +inf.
- ``events.json`` (optional): the oracle's interactions in order, each {"start": frame,
  "end": frame, "kind": "pick"|"place", "object": id, "receptacle": id}; privileged, read only
  by baselines that declare ``privileged = True`` (e.g. ``RecencyAgent(use_events=True)``).

All predicates are array look-ups, so scoring never touches the simulator.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from recallbench.errors import InputError
from recallbench.io import read_json

OBJECT_MAX_DIST = 2.0
OBJECT_MAX_ANGLE = np.pi / 4
RECEPTACLE_MAX_DIST = 0.1
RECEPTACLE_MAX_ANGLE = np.pi / 2
MIN_COVERAGE = 0.001
# The official SC-SR keeps a distance test with this threshold, so an unreachable target
# (distance +inf) still fails; the published SC-SR drops the distance test.
SC_OFFICIAL_MAX_DIST = 10000.0
# Annotations are stored as float32, and float32(0.1) widened to float64 exceeds 0.1: a value on
# a threshold by construction (0.1 m viewpoints on the 0.05 m grid, pi/4, 0.001) would fail.
# Thresholds are compared with this relative tolerance, 8 float32 ulps (1e-7 m at 0.1 m).
THRESHOLD_RTOL = 1e-6
KINDS = ("object", "receptacle", "room")

# full predicate; distance+angle only (DTG-SR); coverage+angle only (published SC-SR);
# coverage+angle with the official 10000 m distance test (official SC-SR)
Check = Literal["full", "dtg", "sc", "sc_official"]


@dataclass(frozen=True)
class Entity:
    id: str
    kind: str
    category: str
    name: str
    attributes: dict


@dataclass
class EpisodeAnnotations:
    pose: np.ndarray  # (F, 3)
    times: list[str]  # (F,)
    entities: list[Entity]  # (E,)
    distance: np.ndarray  # (F, E)
    angle: np.ndarray  # (F, E)
    coverage: np.ndarray  # (F, E)
    in_room: np.ndarray  # (F, E) bool
    start_distance: np.ndarray  # (E,)
    entity_distance: np.ndarray  # (E, E)
    interactions: list[tuple[int, int]] | None = None  # (start, end) frames, from events.json
    events: list[dict] | None = None

    def __post_init__(self) -> None:
        self._index = {e.id: i for i, e in enumerate(self.entities)}
        self._sat: dict[str, np.ndarray] = {}

    @property
    def num_frames(self) -> int:
        return int(self.pose.shape[0])

    def entity_index(self, entity_id: str) -> int:
        return self._index[entity_id]

    def satisfied(self, check: Check = "full") -> np.ndarray:
        """(F, E) bool: the goal predicate of each entity at each frame (cached per check)."""
        if check not in self._sat:
            self._sat[check] = predicate_matrix(self, check)
        return self._sat[check]


def predicate_matrix(ann: EpisodeAnnotations, check: Check = "full") -> np.ndarray:
    """Evaluate FindingDory's goal predicate for every (frame, entity) pair.

    objects: distance <= 2.0 m, |angle| <= pi/4, coverage >= 0.001; receptacles: distance to the
    nearest viewpoint <= 0.1 m, |angle| <= pi/2, coverage >= 0.001; rooms: inside. ``dtg`` turns
    the coverage test off, ``sc`` the distance test off (the paper's DTG-SR and SC-SR);
    ``sc_official`` keeps distance <= 10000 (the released code). Thresholds are inclusive with a
    relative tolerance of ``THRESHOLD_RTOL`` (values are stored as float32).
    """
    kinds = np.array([e.kind for e in ann.entities])
    is_obj = kinds == "object"
    is_rec = kinds == "receptacle"
    is_room = kinds == "room"
    max_dist = np.where(is_obj, OBJECT_MAX_DIST, RECEPTACLE_MAX_DIST)
    if check == "sc_official":
        max_dist = np.full_like(max_dist, SC_OFFICIAL_MAX_DIST)
    max_angle = np.where(is_obj, OBJECT_MAX_ANGLE, RECEPTACLE_MAX_ANGLE)
    up, down = 1.0 + THRESHOLD_RTOL, 1.0 - THRESHOLD_RTOL
    ok = np.abs(ann.angle.astype(np.float64)) <= max_angle * up
    if check != "sc":
        ok &= ann.distance.astype(np.float64) <= max_dist * up
    if check != "dtg":
        ok &= ann.coverage.astype(np.float64) >= MIN_COVERAGE * down
    ok &= is_obj | is_rec
    return ok | (ann.in_room.astype(bool) & is_room)


# What an episode's arrays may hold: numbers and booleans (frames.npz's ``time`` may be text).
_NUMERIC_KINDS = "biuf"
# What a damaged .npz raises: truncated or not a zip, a member that is no .npy, object arrays
# (pickles, refused by allow_pickle=False), a bad CRC or deflate stream.
_NPZ_ERRORS = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


def _load_npz(path: Path, text: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """An episode's .npz: one ``InputError`` naming it (and the array) when it cannot be decoded
    or holds anything but numbers (and text in the ``text`` arrays)."""
    if not path.is_file():
        raise InputError(path, None, "annotation file not found")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except _NPZ_ERRORS as exc:
        why = " ".join(str(exc).split())[:200]
        raise InputError(path, None, f"not a readable .npz file ({type(exc).__name__}: "
                                     f"{why})") from None
    for key, array in arrays.items():
        if array.dtype.kind not in _NUMERIC_KINDS + ("US" if key in text else ""):
            raise InputError(path, key, f"holds {array.dtype} values, expected numbers"
                                        + (" or text" if key in text else ""))
    return arrays


def load_episode(directory: str | Path) -> EpisodeAnnotations:
    """Load and validate one generated episode's annotations."""
    directory = Path(directory)
    frames = _load_npz(directory / "frames.npz", text=("time",))
    ann = _load_npz(directory / "annotations.npz")
    entities = _load_entities(directory / "entities.json")
    _check_shapes(directory, frames, ann, len(entities))
    events = _load_events(directory / "events.json")
    return EpisodeAnnotations(
        pose=frames["pose"].astype(np.float32),
        times=[str(t) for t in frames["time"]],
        entities=entities,
        distance=ann["distance"].astype(np.float32),
        angle=ann["angle"].astype(np.float32),
        coverage=ann["coverage"].astype(np.float32),
        in_room=ann["in_room"].astype(bool),
        start_distance=ann["start_distance"].astype(np.float32),
        entity_distance=ann["entity_distance"].astype(np.float32),
        interactions=[(e["start"], e["end"]) for e in events] if events is not None else None,
        events=events,
    )


def _load_entities(ent_path: Path) -> list[Entity]:
    """entities.json: a list of {id, kind, category?, name?, attributes?}."""
    if not ent_path.is_file():
        raise InputError(ent_path, None, "entities file not found")
    raw = read_json(ent_path)
    if not isinstance(raw, list):
        raise InputError(ent_path, None, "expected a list of entities")
    entities = []
    for n, e in enumerate(raw):
        if not isinstance(e, dict) or "id" not in e:
            raise InputError(ent_path, f"entity #{n}: id", "missing")
        if e.get("kind") not in KINDS:
            raise InputError(ent_path, f"entity {e['id']}: kind", f"expected one of {KINDS}")
        entities.append(
            Entity(
                id=str(e["id"]),
                kind=e["kind"],
                category=str(e.get("category", "")),
                name=str(e.get("name", e.get("category", ""))),
                attributes=dict(e.get("attributes") or {}),
            )
        )
    return entities


def _check_shapes(directory: Path, frames: dict[str, np.ndarray], ann: dict[str, np.ndarray],
                  num_e: int) -> None:
    """Every array present, per frame (F) and per entity (E) as the schema says."""
    for key in ("pose", "time"):
        if key not in frames:
            raise InputError(directory / "frames.npz", key, "missing array")
    num_f = frames["pose"].shape[0]
    if frames["pose"].shape != (num_f, 3):
        raise InputError(directory / "frames.npz", "pose", "expected shape (F, 3)")
    shapes = {
        "distance": (num_f, num_e),
        "angle": (num_f, num_e),
        "coverage": (num_f, num_e),
        "in_room": (num_f, num_e),
        "start_distance": (num_e,),
        "entity_distance": (num_e, num_e),
    }
    for key, shape in shapes.items():
        if key not in ann:
            raise InputError(directory / "annotations.npz", key, "missing array")
        if ann[key].shape != shape:
            raise InputError(
                directory / "annotations.npz", key, f"shape {ann[key].shape}, expected {shape}"
            )


def _load_events(ev_path: Path) -> list[dict] | None:
    """events.json if the episode has one: a list of {start, end, ...} frame spans."""
    if not ev_path.is_file():
        return None
    events = read_json(ev_path)
    if not isinstance(events, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("start"), int)
        and isinstance(e.get("end"), int)
        for e in events
    ):
        raise InputError(ev_path, None, "expected a list of {start, end, ...} events")
    return events


def save_episode(directory: str | Path, ann: EpisodeAnnotations) -> Path:
    """Write an episode in the schema above (used by the generator and by tests)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    np.savez(directory / "frames.npz", pose=ann.pose, time=np.array(ann.times, dtype=str))
    np.savez(
        directory / "annotations.npz",
        distance=ann.distance,
        angle=ann.angle,
        coverage=ann.coverage,
        in_room=ann.in_room,
        start_distance=ann.start_distance,
        entity_distance=ann.entity_distance,
    )
    (directory / "entities.json").write_text(
        json.dumps(
            [
                {
                    "id": e.id,
                    "kind": e.kind,
                    "category": e.category,
                    "name": e.name,
                    "attributes": e.attributes,
                }
                for e in ann.entities
            ],
            indent=1,
        )
    )
    if ann.events is not None:
        (directory / "events.json").write_text(json.dumps(ann.events, indent=1))
    return directory
