"""Generate FindingDory episodes in the built-in world, and merge them into a suite.

One episode (``generate_episode``) is written to ``<suite>/episodes/ep_<index>/``:

- ``video.mp4``: the head-camera video, one frame per step of the day;
  ``video_<K>.mp4``: its K-frame subsample (``np.linspace(0, N-1, K, dtype=int)``);
- ``frames.npz``, ``entities.json``, ``annotations.npz``, ``events.json``: the ground truth in
  the evaluation schema (``benchmarks/findingdory/annotations.py``);
- ``qa.json``: the instructions with answers as valid original frames (plus ``subgoals``,
  ``ordered``, ``template``, ``answer_frames: null``, ``num_frames``); ``qa_<K>.json``: the same
  instructions in the public validation format, answers as positions in the K-frame video;
- ``readability.json``: what each offered frame shows and each target's area in its valid
  offered frames (``generate/frame_readability.py``); ``sheet_frames.jpg`` and
  ``sheet_targets.jpg``: contact sheets of the offered frames and of every target at its valid
  offered frames (``generate/contact_sheet.py``);
- ``world/``: the end-of-day world (``world.io.save_world``), for the low-level phase;
- ``episode.json``: knobs, seeds, the home, the interactions and visits (written last: its
  presence marks the episode complete, so an interrupted generation redoes only this episode).

``merge_suite`` concatenates the episodes' rows into ``<suite>/qa.json`` (loadable with
``benchmarks.findingdory.data.load_suite(<suite>)``) and ``<suite>/qa_<K>.json`` (public format),
numbering ids 0..n-1 in episode order.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from recallbench.benchmarks.findingdory.data import PUBLIC_ANSWER_FRAMES
from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.generate.findingdory_knobs import FindingDoryKnobs

if TYPE_CHECKING:
    from recallbench.video.writer import VideoWriter

MAX_ATTEMPTS = 8  # homes tried per episode before giving up (a home may not fit the day)
PREFIX = "The robot's goal is: "


def episode_id(index: int) -> str:
    return f"ep_{index}"


def _n_objects(knobs: FindingDoryKnobs) -> int:
    # The builder puts about half of the objects (at most 10) inside kitchen fixtures; the rest
    # go on receptacles, where the day's objects and its distractors must be.
    need = knobs.interactions + knobs.distractors + 2
    return need + min(10, need)


def subsample_answer(answer: list[list[int]], offered: np.ndarray) -> list[list[int]]:
    """Map valid original frames to positions in the subsampled video ([-1] where none)."""
    out = []
    for sub in answer:
        valid = set(sub) - {-1}
        pos = [p for p, f in enumerate(offered.tolist()) if f in valid]
        out.append(pos or [-1])
    return out


class _Sink:
    """Writes each frame of the day to the full video, and the offered ones to the subsample.

    An idle frame comes as the very array of the frame before (``run_day``), and the day's
    images are never modified afterwards, so "same object" means "same image": a writer then
    re-encodes its last frame without converting the image again.
    """

    def __init__(self, full: VideoWriter, sub: VideoWriter, offered: set[int],
                 watch: Any = None) -> None:
        self.offered = offered
        self._last: dict[int, np.ndarray | None] = {id(full): None, id(sub): None}
        self.full, self.sub = full, sub
        self.watch = watch  # measures the offered frames in the state they are rendered in

    def _write(self, writer: VideoWriter, rgb: np.ndarray) -> None:
        if rgb is self._last[id(writer)]:
            writer.repeat()
        else:
            writer.write(rgb)
            self._last[id(writer)] = rgb

    def __call__(self, frame: int, rgb: np.ndarray) -> None:
        self._write(self.full, rgb)
        if frame in self.offered:
            self._write(self.sub, rgb)
            if self.watch is not None:
                self.watch(frame, rgb)


def _act_day(work: Path, seed: int, index: int, knobs: FindingDoryKnobs) -> tuple[Any, Any, dict]:
    """Try homes until one holds the day; the env (end of day), the day, and the home drawn
    (with the homes rejected and why). The videos are written into ``work``."""
    from recallbench.generate.findingdory_day import DayFailed, run_day
    from recallbench.generate.frame_readability import OfferedFrames
    from recallbench.video.sampling import subsample_indices
    from recallbench.video.writer import VideoWriter
    from recallbench.world.env import HomeEnv

    rng = np.random.default_rng([seed, index])
    knobs = knobs.for_episode(rng)
    offered = set(subsample_indices(knobs.steps, knobs.subsample).tolist())
    errors: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        world_seed, style = int(rng.integers(0, 2**31 - 1)), int(rng.integers(0, 5))
        day_rng = np.random.default_rng([seed, index, attempt])
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        env = HomeEnv(seed=world_seed, style=style, kind="home", n_objects=_n_objects(knobs))
        try:
            size = (knobs.width, knobs.height)
            video: dict[str, Any] = {"preset": knobs.video_preset,
                                     "x264_params": knobs.video_x264_params}
            sub_path = work / f"video_{knobs.subsample}.mp4"
            watch = OfferedFrames(env, offered, *size)
            with (
                VideoWriter(work / "video.mp4", knobs.fps, *size, **video) as full,
                VideoWriter(sub_path, knobs.fps, *size, **video) as sub,
            ):
                day = run_day(env, knobs, day_rng, _Sink(full, sub, offered, watch))
        except DayFailed as exc:
            errors.append(f"home {world_seed}/{style}: {exc}")
            env.close()
            continue
        home = {"seed": world_seed, "style": style, "kind": "home",
                "n_objects": _n_objects(knobs), "failed": errors, "rng": day_rng,
                "offered_frames": watch}
        return env, day, home
    ep_id = episode_id(index)
    raise RuntimeError(f"{ep_id}: no home fits the day after {MAX_ATTEMPTS} tries: {errors}")


def _qa_rows(day: Any, ann: Any, rng: np.random.Generator, ep_id: str,
             knobs: FindingDoryKnobs) -> tuple[list[dict], list[dict]]:
    """The episode's instructions: full-video rows (qa.json) and public-format rows."""
    from recallbench.generate.findingdory_goals import answer_frames
    from recallbench.generate.findingdory_questions import instructions
    from recallbench.video.sampling import subsample_indices

    offered = subsample_indices(knobs.steps, knobs.subsample)
    rows, rows_sub = [], []
    chosen = instructions(day.interactions, ann, rng, knobs.per_template, knobs.questions,
                          offered)
    for n, ins in enumerate(chosen):
        answer = answer_frames(ann, ins.subgoals)
        common = {
            "question": PREFIX + ins.question,
            "id": n,
            "high_level_category": ins.high_level_category,
            "low_level_category": ins.category,
            "ep_id": ep_id,
            "task_id": ins.task_id,
            "num_interactions": len(day.interactions),
        }
        rows.append({**common, "video": f"episodes/{ep_id}/video.mp4", "answer": answer,
                     "template": ins.template, "subgoals": [list(g) for g in ins.subgoals],
                     "ordered": ins.ordered, "answer_frames": None,
                     "num_frames": ann.num_frames})
        sub_row = {**common, "video": f"episodes/{ep_id}/video_{knobs.subsample}.mp4",
                   "answer": subsample_answer(answer, offered)}
        if len(offered) != PUBLIC_ANSWER_FRAMES:  # the public loader assumes it unless told
            sub_row["answer_frames"] = int(len(offered))
        rows_sub.append(sub_row)
    return rows, rows_sub


def _readability(work: Path, frames: Any, ann: Any, rows: list[dict],
                 knobs: FindingDoryKnobs) -> None:
    """``readability.json`` and the contact sheets (``generate.contact_sheet``)."""
    from recallbench.generate.contact_sheet import write_sheets
    from recallbench.generate.frame_readability import (
        READABILITY_FILE,
        readability_record,
        target_areas,
    )
    from recallbench.io import write_json_atomic
    from recallbench.video.sampling import subsample_indices

    targets = target_areas(ann, rows, subsample_indices(knobs.steps, knobs.subsample))
    write_json_atomic(work / READABILITY_FILE, readability_record(frames, targets), indent=None)
    write_sheets(frames, targets, {e.id: e.name for e in ann.entities}, work)


def generate_episode(out_dir: Path, *, seed: int, index: int, knobs: FindingDoryKnobs) -> Path:
    """Generate episode ``index`` of the suite at ``out_dir``; returns the episode directory.

    Deterministic in (seed, index, knobs). Already complete episodes are left as they are.
    """
    from recallbench.world.gl import select_backend

    select_backend()
    from recallbench.benchmarks.findingdory.annotations import save_episode
    from recallbench.benchmarks.findingdory.ground_truth import annotate_day
    from recallbench.generate.fingerprint import findingdory_fingerprint
    from recallbench.io import write_json_atomic
    from recallbench.world.io import save_world

    out_dir = Path(out_dir)
    ep_id = episode_id(index)
    final = out_dir / "episodes" / ep_id
    if (final / "episode.json").is_file():
        return final
    work = out_dir / "episodes" / f".{ep_id}.partial"
    env, day, home = _act_day(work, seed, index, knobs)
    save_world(env, work / "world")  # end of day, robot at its final pose
    ann = annotate_day(env, day, knobs.width, knobs.height)
    env.close()
    save_episode(work, ann)
    rows, rows_sub = _qa_rows(day, ann, home.pop("rng"), ep_id, knobs)
    write_json_atomic(work / "qa.json", rows, indent=None)
    write_json_atomic(work / f"qa_{knobs.subsample}.json", rows_sub, indent=None)
    _readability(work, home.pop("offered_frames"), ann, rows, knobs)
    errors = home.pop("failed")
    episode = {
        "ep_id": ep_id,
        "seed": seed,
        "index": index,
        "knobs": knobs.to_dict(),
        "world": home,
        "failed_homes": errors,
        "num_frames": ann.num_frames,
        "num_questions": len(rows),
        "renders": {
            "rgb": day.rgb_renders,
            "segmentation": len({p.tobytes() for p in ann.pose}),
        },
        **day.to_dict(),
    }
    entities = json.loads((work / "entities.json").read_text())
    episode["fingerprint"] = findingdory_fingerprint(episode, entities)  # the leakage key
    write_json_atomic(work / "episode.json", episode)
    if final.exists():
        shutil.rmtree(final)
    work.rename(final)
    return final


def merge_suite(out_dir: Path, subsample: int = DEFAULT_FRAMES) -> tuple[Path, Path]:
    """Write ``qa.json`` and ``qa_<K>.json`` for all complete episodes under ``out_dir``."""
    from recallbench.io import write_json_atomic

    out_dir = Path(out_dir)
    eps = sorted(
        (p for p in (out_dir / "episodes").glob("ep_*") if (p / "episode.json").is_file()),
        key=lambda p: int(p.name.split("_")[1]),
    )
    merged: dict[str, list[dict[str, Any]]] = {"qa.json": [], f"qa_{subsample}.json": []}
    for name, rows in merged.items():
        for ep in eps:
            for row in json.loads((ep / name).read_text()):
                rows.append({**row, "id": len(rows)})
        write_json_atomic(out_dir / name, rows, indent=None)
    return out_dir / "qa.json", out_dir / f"qa_{subsample}.json"
