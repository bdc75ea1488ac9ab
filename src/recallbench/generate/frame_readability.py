"""What each offered frame shows, measured by instance segmentation while the day is rendered.

The readability audit (``audit/readability.py``) needs, per offered frame, how much of it the
home's things cover and how much of the objects' pixels are textured; and per question, how
large its target is in each valid offered frame. ``annotate_day``'s segmentation cannot give the
first: it renders the end-of-day world, where a moved object stands at its final place from
frame 0 (its coverage is zeroed before its placement) and the held object is released. So the
K offered frames are segmented here, in the very state ``DayActor.replay`` renders them (K
extra segmentation renders, not a second pass over the day). The target areas are read from
the annotations' coverage, the measurement validity itself uses.

Written per episode as ``readability.json`` (schema ``READABILITY_VERSION``):

    {"version": 1, "width": W, "height": H,
     "frames": [{"frame": f, "objects": share, "receptacles": share, "largest": share,
                 "largest_name": name, "object_px": n, "textured_object_px": n}, ...],
     "targets": [{"id": qa id, "goal": g, "kind": "object"|"receptacle", "entities": [...],
                  "frames": [f, ...], "area": [share, ...], "held": [[entity, ...], ...],
                  "cut": [bool, ...]}, ...]}

``held``: per valid frame, the goal's entities whose predicate holds there (the sheet outlines
those). ``cut`` (optional, added after version 1 without a bump: readers treat it as absent in
older files): per valid frame, whether those entities reach the border of the frame as rendered,
a view the frame's edge cuts.

An instance is an object (its body), a receptacle or a kitchen fixture (its body's subtree).
A geom is textured when its material has a texture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

READABILITY_FILE = "readability.json"
READABILITY_VERSION = 1
SHEET_SCALE = 2  # offered frames kept for the contact sheets at 1/2 of the video's size
# The readability audit's definitions (audit/readability.py reads them from here: the generator
# checks the views a wait may hold with them too)
ONE_COLOUR = 0.8  # share of a frame in one colour cube
COLOUR_BIN = 16  # levels per bin; a colour cube is 2 bins a side
IN_VIEW = 0.001  # share of the frame an instance must cover to be in view


def instances(env: Any) -> tuple[list[tuple[str, str]], np.ndarray]:
    """(name, kind) per instance, and per geom its instance index (-1: none). An object inside
    a receptacle's subtree (none today) counts as the object: objects are assigned last."""
    from recallbench.world.render import subtree_bodies

    model, meta = env.model, env.world_meta
    body_inst = np.full(model.nbody, -1, dtype=np.int32)
    named: list[tuple[str, str]] = []
    for kind, key in (("receptacle", "fixtures"), ("receptacle", "receptacles")):
        for item in meta.get(key, []):
            body_inst[subtree_bodies(model, item["body_name"])] = len(named)
            named.append((item["name"], kind))
    for o in meta["objects"]:
        body_inst[model.body(o["body_name"]).id] = len(named)
        named.append((o["name"], "object"))
    return named, body_inst[model.geom_bodyid]


def dominant_colour_share(frame: np.ndarray) -> float:
    """The largest share of ``frame``'s pixels inside one colour cube (2 x 2 x 2 bins)."""
    levels = 256 // COLOUR_BIN
    q = (frame.reshape(-1, 3) // COLOUR_BIN).astype(np.int32)
    hist = np.bincount((q[:, 0] * levels + q[:, 1]) * levels + q[:, 2],
                       minlength=levels**3).reshape(levels, levels, levels)
    cube = np.pad(hist, ((0, 1), (0, 1), (0, 1)))
    cube = cube[:-1] + cube[1:]  # a 2-wide box sum along each axis
    cube = cube[:, :-1] + cube[:, 1:]
    cube = cube[:, :, :-1] + cube[:, :, 1:]
    return float(cube.max() / len(q))



def textured_geoms(model: Any) -> np.ndarray:
    """Per geom: does its material have a texture?"""
    matid = np.asarray(model.geom_matid)
    has_tex = (np.asarray(model.mat_texid) >= 0).any(axis=1) if model.nmat else np.zeros(0, bool)
    out = np.zeros(model.ngeom, dtype=bool)
    out[matid >= 0] = has_tex[matid[matid >= 0]]
    return out


def _shrink(rgb: np.ndarray) -> np.ndarray:
    """``rgb`` at 1/SHEET_SCALE of its size, each pixel the mean of its block (no aliasing)."""
    k = SHEET_SCALE
    h, w = rgb.shape[0] // k * k, rgb.shape[1] // k * k
    blocks = rgb[:h, :w].reshape(h // k, k, w // k, k, 3).mean(axis=(1, 3))
    return blocks.round().astype(np.uint8)


@dataclass
class OfferedFrames:
    """A frame sink's companion: ``__call__(frame, rgb)`` at every frame of the day, in the
    env state the frame was rendered in; keeps the stats, a half-size image and a half-size
    instance map of each offered frame."""

    env: Any
    offered: set[int]
    width: int
    height: int
    stats: list[dict[str, Any]] = field(default_factory=list)
    images: dict[int, np.ndarray] = field(default_factory=dict)
    masks: dict[int, np.ndarray] = field(default_factory=dict)  # instance index + 1, 0: none

    def __post_init__(self) -> None:
        self.names, self._geom_inst = instances(self.env)
        self._textured = textured_geoms(self.env.model)
        self._last: tuple[int, np.ndarray] | None = None  # (frame, rgb) measured last

    def __call__(self, frame: int, rgb: np.ndarray) -> None:
        if frame not in self.offered:
            return
        if self._last is not None and rgb is self._last[1]:  # an idle frame: nothing moved
            prev = self._last[0]
            self.stats.append({**self.stats[-1], "frame": frame})
            self.images[frame], self.masks[frame] = self.images[prev], self.masks[prev]
            self._last = (frame, rgb)
            return
        inst, textured = self._segment()
        self.stats.append(self._frame_stats(frame, inst, textured))
        self.images[frame] = _shrink(rgb)
        step = SHEET_SCALE
        self.masks[frame] = (inst[::step, ::step] + 1).astype(np.uint16)
        self._last = (frame, rgb)

    def _segment(self) -> tuple[np.ndarray, np.ndarray]:
        """(H, W) instance index per pixel (-1: none) and (H, W) textured-geom mask."""
        env = self.env
        geom = env.renders.geom_segmentation(env.data, "robot0_head", self.width, self.height)
        hit = geom >= 0
        safe = np.where(hit, geom, 0)
        return np.where(hit, self._geom_inst[safe], -1), hit & self._textured[safe]

    def _frame_stats(self, frame: int, inst: np.ndarray, textured: np.ndarray) -> dict[str, Any]:
        total = inst.size
        counts = np.bincount(inst.ravel() + 1, minlength=len(self.names) + 1)[1:]
        kinds = np.array([k for _, k in self.names])
        objects = kinds == "object"
        obj_px = np.isin(inst, np.flatnonzero(objects))
        top = int(np.argmax(counts)) if len(counts) else -1
        return {
            "frame": int(frame),
            "objects": round(float(counts[objects].sum() / total), 7),
            "receptacles": round(float(counts[~objects].sum() / total), 7),
            "largest": round(float(counts[top] / total), 7) if top >= 0 else 0.0,
            "largest_name": self.names[top][0] if top >= 0 and counts[top] else None,
            "object_px": int(obj_px.sum()),
            "textured_object_px": int((obj_px & textured).sum()),
        }

    def instance_index(self, name: str) -> int:
        return next(i for i, (n, _) in enumerate(self.names) if n == name)


def target_areas(ann: Any, rows: list[dict[str, Any]], offered: np.ndarray) -> list[dict]:
    """Per question goal with an object or receptacle target: its valid offered frames and
    the target's coverage in each (the largest among the goal's entities whose predicate holds
    there: a frame is valid when any does)."""
    kinds = {e.id: e.kind for e in ann.entities}
    sat = ann.satisfied("full")
    offered_set = {int(f) for f in offered.tolist()}
    out = []
    for row in rows:
        for g, (goal, valid) in enumerate(zip(row["subgoals"], row["answer"], strict=True)):
            kind = {kinds[e] for e in goal}
            if kind - {"object", "receptacle"} or len(kind) != 1:
                continue  # a room (no instance), or a goal mixing kinds (none today)
            frames = sorted(int(f) for f in valid if int(f) in offered_set)
            cols = [ann.entity_index(e) for e in goal]
            held = [[c for c in cols if sat[f, c]] or cols for f in frames]
            area = [round(float(ann.coverage[f, h].max()), 7)
                    for f, h in zip(frames, held, strict=True)]
            names = [[ann.entities[c].id for c in h] for h in held]
            out.append({"id": row["id"], "goal": g, "kind": kind.pop(), "entities": list(goal),
                        "frames": frames, "area": area, "held": names})
    return out


def at_border(mask: np.ndarray, members: list[int]) -> bool:
    """Does any pixel of ``members`` (instance index + 1) lie on ``mask``'s outermost rows or
    columns?"""
    edge = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    return bool(np.isin(edge, members).any())


def readability_record(frames: OfferedFrames, targets: list[dict]) -> dict[str, Any]:
    """``readability.json``: the frames' stats, and the targets with ``cut`` per valid frame."""
    def cut(t: dict) -> list[bool]:
        return [at_border(frames.masks[f], [frames.instance_index(e) + 1 for e in held])
                for f, held in zip(t["frames"], t["held"], strict=True)]

    return {"version": READABILITY_VERSION, "width": frames.width, "height": frames.height,
            "frames": frames.stats, "targets": [{**t, "cut": cut(t)} for t in targets]}
