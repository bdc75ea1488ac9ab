"""Can a model that perceives pixels read a suite's offered frames? The readability section of
a FindingDory audit.

Five figures, each judged against issue 38's bound (``BOUNDS``), plus the textured share and
the receptacle targets' area for information:

- near-identical: share of offered frames whose mean absolute difference (RGB, 0..255) to
  another offered frame of the same day is below 2 (2/255);
- one colour: share of offered frames of which over 80% of the pixels fall in one colour, a
  32-level cube in RGB (2 x 2 x 2 bins of 16 levels, at any position: ``dominant_colour_share``),
  so that a wall whose shade crosses a bin edge is still one colour, while a grey wall beside a
  beige floor (33 levels apart in red) is two;
- nothing in view: share of offered frames where no object, receptacle or kitchen fixture
  covers 0.1% of the frame;
- object-target area: the share of the frame an object target's instance covers in each valid
  offered frame of its question goal (median, 10th percentile, share under 32 x 32 px; and of
  those small pairs, the share the frame's border cuts);
- textured object pixels: share of the objects' pixels in offered frames on textured geoms.

The pixel figures are read from the offered frames of each day's video (the episode's
``video_<K>.mp4`` when there is one); the others from the instance segmentation the generator
records per episode (``readability.json``, ``generate/frame_readability.py``). A suite without
them (older generated suites, the public val QA without its videos) gets "n/a" with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.errors import InputError
from recallbench.generate.frame_readability import (  # the generator checks views with these
    IN_VIEW,
    ONE_COLOUR,
    dominant_colour_share,
)
from recallbench.io import read_json, validated

NEAR_IDENTICAL = 2.0  # mean absolute difference, 0..255 levels
SMALL_SIDE = 32  # px: a target smaller than SMALL_SIDE x SMALL_SIDE is small
READABILITY_FILE = "readability.json"  # generate/frame_readability.py writes it
BLOCK = 8  # px: block means bound the difference from below, to skip most exact pairs
# name: (label, "max" | "min", bound) from issue 38's done-when
BOUNDS: dict[str, tuple[str, str, float]] = {
    "near_identical": ("near-identical offered frames", "max", 0.10),
    "nothing_in_view": ("offered frames with nothing in view", "max", 0.03),
    "one_colour": ("offered frames over 80% one colour", "max", 0.03),
    "object_target_area_median": ("median object-target area", "min", 0.025),
    "object_target_small": ("object targets under 32x32 px", "max", 0.02),
}


# ---------------------------------------------------------------------------- pixel figures
def _block_means(frames: np.ndarray) -> np.ndarray:
    n, h, w, c = frames.shape
    hb, wb = h // BLOCK, w // BLOCK
    cut = frames[:, : hb * BLOCK, : wb * BLOCK].astype(np.float32)
    return cut.reshape(n, hb, BLOCK, wb, BLOCK, c).mean(axis=(2, 4)).reshape(n, -1)


def near_identical(frames: Sequence[np.ndarray]) -> np.ndarray:
    """Per frame: is its mean absolute difference to some other frame below 2 levels?

    Exact, and fast: the difference of block means never exceeds the mean absolute
    difference, so only pairs whose block means are that close are compared in full."""
    n = len(frames)
    out = np.zeros(n, dtype=bool)
    if n < 2:
        return out
    stack = np.stack(frames)
    small = _block_means(stack) if min(stack.shape[1:3]) >= BLOCK else None
    for i in range(n):
        if small is not None:
            bound = np.abs(small - small[i]).mean(axis=1)
            bound[i] = np.inf
            order = [int(j) for j in np.argsort(bound) if bound[j] < NEAR_IDENTICAL]
        else:
            order = [j for j in range(n) if j != i]
        a = stack[i].astype(np.int16)
        for j in order:
            if out[i] and out[j]:
                break
            if np.abs(a - stack[j]).mean() < NEAR_IDENTICAL:
                out[i] = out[j] = True
                break
    return out


Sources = dict[str, tuple[Path, list[int]]]  # day -> (video, the frames of it offered)


def pixel_figures(sources: Sources) -> dict[str, Any]:
    """Near-identical and one-colour flags per offered frame, per day; one day's frames
    decoded at a time (a day's 96 frames at 480x640 hold 88 MB)."""
    from recallbench.video.reader import VideoFrames

    near, one = {}, {}
    for ep, (video, offered) in sources.items():
        frames = VideoFrames(video, offered, stamp=False).frames()
        near[ep] = near_identical(frames).tolist()
        one[ep] = [dominant_colour_share(f) > ONE_COLOUR for f in frames]
    return {"near_identical": near, "one_colour": one}


def _offered_video(suite: Any, case: Any, k: int) -> tuple[Path, list[int]] | None:
    """The video holding a day's offered frames and their indices in it (None: no video)."""
    from recallbench.benchmarks.findingdory.data import resolve_video
    from recallbench.benchmarks.findingdory.evaluate import offered_for

    own = suite.episode_dir(case.ep_id) / f"video_{k}.mp4"
    if own.is_file():
        return own, list(range(k))
    video = resolve_video(suite, case)
    if video is None:
        return None
    return video, offered_for(case, k, video, None)


def offered_sources(suite: Any, k: int) -> tuple[Sources, list[str]]:
    """Where each day's K offered frames are, and the days without a video on disk."""
    days: Sources = {}
    missing: list[str] = []
    first: dict[str, Any] = {}
    for case in suite.cases:
        first.setdefault(case.ep_id, case)
    for ep, case in first.items():
        found = _offered_video(suite, case, k)
        if found is None:
            missing.append(ep)
            continue
        days[ep] = found
    return days, missing


# ---------------------------------------------------------------------------- segmentation
# The shape of readability.json the audit reads (other fields pass): suite data, so a damaged
# file is one line naming its field, never a crash after the agents' work.
Share = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class _Frame(BaseModel):
    model_config = ConfigDict(extra="allow")
    largest: Share
    object_px: int = Field(ge=0)
    textured_object_px: int = Field(ge=0)


class _Target(BaseModel):
    model_config = ConfigDict(extra="allow")
    kind: str
    area: list[Share]
    cut: list[bool] | None = None

    @model_validator(mode="after")
    def _one_cut_per_area(self) -> _Target:
        if self.cut is not None and len(self.cut) != len(self.area):
            raise ValueError(f"cut has {len(self.cut)} entries, area {len(self.area)}")
        return self


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")
    width: int = Field(ge=1)
    height: int = Field(ge=1)
    frames: list[_Frame]
    targets: list[_Target]


def read_records(suite: Any) -> tuple[dict[str, dict[str, Any]], list[str], list[str]]:
    """Each day's ``readability.json``, the days without one, and why each damaged one is
    (``InputError``'s line: the file and its field)."""
    records, missing, damaged = {}, [], []
    for ep in dict.fromkeys(c.ep_id for c in suite.cases):
        path = suite.episode_dir(ep) / READABILITY_FILE
        if not path.is_file():
            missing.append(ep)
            continue
        try:
            data = read_json(path)
            validated(_Record, data, path)
        except InputError as exc:
            damaged.append(str(exc))
            continue
        records[ep] = data
    return records, missing, damaged


def _areas(records: dict[str, dict[str, Any]], kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Every (goal, valid offered frame) area of ``kind`` targets, and its pixel count."""
    area, px = [], []
    for rec in records.values():
        pixels = rec["width"] * rec["height"]
        for t in rec["targets"]:
            if t["kind"] == kind:
                area += t["area"]
                px += [a * pixels for a in t["area"]]
    return np.asarray(area, dtype=float), np.asarray(px, dtype=float)


def best_view_small(records: dict[str, dict[str, Any]], kind: str = "object") -> float | None:
    """Share of the question goals of ``kind`` whose largest view in any valid offered frame is
    under SMALL_SIDE x SMALL_SIDE px: the goals a model cannot read in any frame it may pick
    (a goal is counted once, however many of its frames are small)."""
    small = []
    for rec in records.values():
        pixels = rec["width"] * rec["height"]
        small += [max(t["area"]) * pixels < SMALL_SIDE**2
                  for t in rec["targets"] if t["kind"] == kind and t["area"]]
    return float(np.mean(small)) if small else None


def small_cut(records: dict[str, dict[str, Any]], kind: str = "object") -> float | None:
    """Of the (goal, valid offered frame) pairs of ``kind`` under SMALL_SIDE x SMALL_SIDE px,
    the share whose target reaches the frame's border (``cut`` in readability.json): a partial
    view at the edge, not a far or tiny object. None without small pairs or ``cut`` records."""
    flags = []
    for rec in records.values():
        pixels = rec["width"] * rec["height"]
        for t in rec["targets"]:
            if t["kind"] == kind and "cut" in t:
                flags += [c for a, c in zip(t["area"], t["cut"], strict=True)
                          if a * pixels < SMALL_SIDE**2]
    return float(np.mean(flags)) if flags else None


def segmentation_figures(records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    frames = [f for rec in records.values() for f in rec["frames"]]
    obj_px = sum(f["object_px"] for f in frames)
    area, px = _areas(records, "object")
    rec_area, _ = _areas(records, "receptacle")

    def pct(a: np.ndarray, q: float) -> float | None:
        return float(np.percentile(a, q)) if len(a) else None

    return {
        "nothing_in_view": [f["largest"] < IN_VIEW for f in frames],
        "textured_object_share": (sum(f["textured_object_px"] for f in frames) / obj_px
                                  if obj_px else None),
        "object_target_area_median": pct(area, 50),
        "object_target_area_p10": pct(area, 10),
        "object_target_small": float(np.mean(px < SMALL_SIDE**2)) if len(px) else None,
        "object_target_frames": len(area),
        "object_target_best_view_small": best_view_small(records),
        "object_target_small_cut": small_cut(records),
        "receptacle_target_area_median": pct(rec_area, 50),
        "receptacle_target_area_p10": pct(rec_area, 10),
    }


# ---------------------------------------------------------------------------- the section
def _row(name: str, value: float | None, n: int, reason: str | None = None) -> dict[str, Any]:
    label, side, bound = BOUNDS[name]
    if value is None:
        return {"name": name, "label": label, "value": None, "bound": bound, "side": side,
                "n": n, "passed": None, "reason": reason or "no frames to measure"}
    passed = value <= bound if side == "max" else value >= bound
    return {"name": name, "label": label, "value": float(value), "bound": bound, "side": side,
            "n": n, "passed": bool(passed)}


def _share(flags: dict[str, list[bool]] | list[bool]) -> tuple[float | None, int]:
    every = [x for v in flags.values() for x in v] if isinstance(flags, dict) else list(flags)
    return (float(np.mean(every)) if every else None), len(every)


def _missing(what: str, missing: list[str], total: int) -> str:
    return f"{len(missing)} of {total} days have no {what} ({', '.join(missing[:3])}" + \
        (", ..." if len(missing) > 3 else "") + ")"


def _pixel_rows(frames: Sources, no_video: list[str],
                total: int) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    pixels = pixel_figures(frames) if frames and not no_video else None
    rows = []
    for name in ("near_identical", "one_colour"):
        value, n = _share(pixels[name]) if pixels else (None, 0)
        rows.append(_row(name, value, n, None if pixels else
                         _missing("offered-frame video on disk", no_video, total)))
    return rows, pixels


def _segmentation_rows(seg: dict[str, Any] | None, why: str | None) -> list[dict[str, Any]]:
    value, n = _share(seg["nothing_in_view"]) if seg else (None, 0)
    rows = [_row("nothing_in_view", value, n, why)]
    targets = seg["object_target_frames"] if seg else 0
    for name in ("object_target_area_median", "object_target_small"):
        rows.append(_row(name, seg[name] if seg else None, targets,
                         why or "no object target has a valid offered frame"))
    return rows


def _section(rows: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"rows": rows, "passed": all(r["passed"] for r in rows if r["passed"] is not None),
            "measured": sum(r["passed"] is not None for r in rows), **extra}


def readability(suite: Any, k: int) -> dict[str, Any]:
    """The readability section of a FindingDory suite's audit (JSON-able)."""
    days_all = list(dict.fromkeys(c.ep_id for c in suite.cases))
    frames, no_video = offered_sources(suite, k)
    records, no_record, damaged = read_records(suite)
    rows, pixels = _pixel_rows(frames, no_video, len(days_all))
    seg = segmentation_figures(records) if records and not no_record and not damaged else None
    why = None if seg else (
        f"{len(damaged)} of {len(days_all)} days' {READABILITY_FILE} damaged: {damaged[0]}"
        if damaged else _missing(f"{READABILITY_FILE} (instance segmentation of the offered "
                                 "frames, recorded by generate)", no_record, len(days_all)))
    info = {key: seg[key] for key in ("textured_object_share", "object_target_area_p10",
                                      "object_target_best_view_small",
                                      "object_target_small_cut",
                                      "receptacle_target_area_median",
                                      "receptacle_target_area_p10")} if seg else {}
    return _section(rows + _segmentation_rows(seg, why), days=len(days_all), unit="days", k=k,
                    **info,
                    reason=why,  # the segmentation rows' n/a reason, when they are n/a
                    per_day=_per_day(pixels, records))


def scenemem_readability(suite_dir: Path, k: int = DEFAULT_FRAMES) -> dict[str, Any]:
    """The pixel rows of a SceneMem suite, over ``k`` evenly spaced frames of each scenario's
    camera videos (each video a "day"); the segmentation rows are n/a."""
    from recallbench.video.reader import count_frames
    from recallbench.video.sampling import subsample_indices

    frames: Sources = {}
    for video in sorted(Path(suite_dir).glob("combo_*/videos/*.mp4")):
        n = count_frames(video)
        frames[f"{video.parent.parent.name}/{video.stem}"] = (
            video, subsample_indices(n, min(k, n)).tolist())
    missing = [] if frames else [Path(suite_dir).name]
    rows, pixels = _pixel_rows(frames, missing, len(frames) or 1)
    why = "SceneMem scenarios record no instance segmentation of their frames"
    return _section(rows + _segmentation_rows(None, why), days=len(frames), unit="videos", k=k,
                    reason=why,
                    per_day=_per_day(pixels, {}))


def _per_day(pixels: dict[str, Any] | None, records: dict[str, dict[str, Any]]) -> dict:
    out: dict[str, dict[str, Any]] = {}
    for name in ("near_identical", "one_colour"):
        for ep, flags in (pixels or {}).get(name, {}).items():
            out.setdefault(ep, {})[name] = [p for p, x in enumerate(flags) if x]
    for ep, rec in records.items():
        out.setdefault(ep, {})["nothing_in_view"] = [
            p for p, f in enumerate(rec["frames"]) if f["largest"] < IN_VIEW]
    return out  # per day: the offered positions each figure counts, for a person to look
