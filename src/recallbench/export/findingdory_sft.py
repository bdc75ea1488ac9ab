"""FindingDory SFT rows as the released trainer reads them, from a generated FindingDory suite.

The folder ``datasets.load_dataset(DIR)`` reads, laid out as the released dataset (findingdory-train
@acb30f2 ``findingdory/sft_video_llm.py`` and ``evaluate_video_llm.py`` read it as they are):

- ``videos/<ep_id>.mp4``: each day's video, subsampled to K frames (``--frames``, default 96,
  the linspace the benchmark offers) with "Frame: p" and "Time of Day: HH:MM" stamped on every
  frame (``video.stamp``, as the agents see them), written at ``VIDEO_FPS`` (1 fps): the trainer
  asks qwen-vl-utils for ``fps: 1.0``, whose sampler takes duration x fps frames, so at 1 fps it
  takes every frame; ``--full-length``: every frame, stamped with its original index;
- ``data/<split>-00000-of-00001.parquet``: one row per question with the released columns
  ``ep_id``, ``video`` (the path relative to the folder), ``question``, ``answer`` (the
  list-of-lists text the offline evaluator reads with ``ast.literal_eval``, indices into the
  exported video), ``task_id``, ``high_level_category``, ``low_level_category``,
  ``num_interactions``, and recallbench's ``id`` and ``template`` beside them;
- ``README.md``: the dataset card whose ``configs`` name the splits' files.

Each day is one unit of work (``export_day``), written atomically through temp files of unique
names: its video, then its rows in ``rows/<ep_id>.json`` (their presence marks the day done).
``finish`` writes the parquet files and the card (``DATASET``) from the rows of every day, so
shards that wrote into the same folder and one final run give the same bytes as an unsharded
export. The suite is read through the runs' loaders (``load_suite``, ``load_episode``) and the
video under the resolution cap.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.benchmarks.findingdory.annotations import load_episode
from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.errors import UsageError
from recallbench.generate.findingdory import subsample_answer
from recallbench.io import read_json, replace_atomic, write_json_atomic, write_text_atomic
from recallbench.video.reader import check_resolution
from recallbench.video.sampling import subsample_indices

if importlib.util.find_spec("datasets") is None:  # refused before any work, not at the end
    raise UsageError("--dataset-format", "findingdory-sft writes with HF datasets, which is not "
                     "installed: pip install 'recallbench[export]'")

# the released dataset card's columns (HF yali30/findingdory), then recallbench's own
RELEASED_COLUMNS = ("ep_id", "video", "question", "answer", "task_id", "high_level_category",
                    "low_level_category", "num_interactions")
COLUMNS = (*RELEASED_COLUMNS, "id", "template")
VIDEO_FPS = 1  # the trainer's messages ask for fps 1.0: at 1 fps its sampler takes every frame
# qwen-vl-utils 0.0.14 vision_process.py: smart_nframes floors to FRAME_FACTOR 2 and caps at 768
SAMPLER_FRAME_FACTOR, SAMPLER_MAX_FRAMES = 2, 768
DEFAULT_VAL_FRACTION = 0.05
ROWS_DIR = "rows"
SPLITS = ("train", "validation")
DATASET = ("data", "README.md")  # what finish writes under the export folder
PARTIAL = ".partial.mp4"  # a day's video being written (a temp name of its own)


def answer_text(answer: list[list[int]]) -> str:
    """The answer as the released rows write it: a Python/JSON list of lists of ints."""
    return json.dumps([[int(i) for i in sub] for sub in answer])


def sampler_loss(frames: int) -> str | None:
    """Why findingdory-train's video sampler would not take every one of ``frames`` frames
    written at 1 fps (qwen-vl-utils 0.0.14 ``smart_nframes``: duration x fps frames, floored to
    an even count, at most 768), or None when it takes them all."""
    if frames % SAMPLER_FRAME_FACTOR or frames > SAMPLER_MAX_FRAMES:
        taken = min(frames, SAMPLER_MAX_FRAMES) // SAMPLER_FRAME_FACTOR * SAMPLER_FRAME_FACTOR
        return (f"findingdory-train's video sampler (qwen-vl-utils smart_nframes) takes an even "
                f"number of frames, at most {SAMPLER_MAX_FRAMES}: it would take {taken} of "
                f"{frames}")
    return None


def offered_frames(num_frames: int, options: dict[str, Any]) -> np.ndarray:
    if options.get("full_length"):
        return np.arange(num_frames, dtype=int)
    return subsample_indices(num_frames, int(options.get("frames", DEFAULT_FRAMES)))


def write_stamped_video(src: Path, dst: Path, offered: np.ndarray, times: list[str],
                        fps: int) -> int:
    """Decode ``src`` once, keep the offered frames in order, stamp each with its position and
    time of day, and encode them to ``dst``. Frames are streamed: memory is one frame."""
    wanted: dict[int, list[int]] = {}
    for pos, frame in enumerate(offered.tolist()):
        wanted.setdefault(int(frame), []).append(pos)
    fd, name = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=PARTIAL)
    os.close(fd)  # a unique name: two writers of one day never share a temp file
    tmp = Path(name)
    try:
        written = _stamp_into(src, tmp, wanted, times, fps)
        if written != len(offered):
            raise ValueError(f"{src}: {written} of the {len(offered)} offered frames decoded")
        tmp.replace(dst)
    finally:
        tmp.unlink(missing_ok=True)
    return written


def _stamp_into(src: Path, tmp: Path, wanted: dict[int, list[int]], times: list[str],
                fps: int) -> int:
    import av

    from recallbench.video.stamp import stamp_frame
    from recallbench.video.writer import VideoWriter

    written = 0
    with av.open(str(src)) as container:
        stream = container.streams.video[0]
        check_resolution(src, stream)  # the cap the runs hold a video to, before decoding
        writer: VideoWriter | None = None
        try:
            for index, frame in enumerate(container.decode(stream)):
                if index not in wanted:
                    continue
                rgb = frame.to_ndarray(format="rgb24")
                if writer is None:
                    writer = VideoWriter(tmp, fps, rgb.shape[1], rgb.shape[0])
                for pos in wanted[index]:
                    writer.write(stamp_frame(rgb, pos, times[index]))
                    written += 1
        finally:
            if writer is not None:
                writer.close()
    return written


def _source(ep_dir: Path, meta: dict[str, Any], num_frames: int, times: list[str],
            offered: np.ndarray, options: dict[str, Any]) -> tuple[Path, np.ndarray, list[str]]:
    """The video to stamp from, its frames to keep, and the time of day of each of its frames.
    The generator records the offered frames of its K as ``video_<K>.mp4`` (the same renders,
    encoded once): when the export asks for that K, K frames are decoded instead of the day's
    thousands. Otherwise the day's ``video.mp4``."""
    knobs = meta.get("knobs", {})
    sub = ep_dir / f"video_{len(offered)}.mp4"
    if (not options.get("full_length") and knobs.get("subsample") == len(offered)
            and knobs.get("steps") == num_frames and sub.is_file()):
        return sub, np.arange(len(offered)), [times[int(f)] for f in offered]
    return ep_dir / "video.mp4", offered, times


def export_day(suite_dir: Path, out_dir: Path, day: str, options: dict[str, Any]
               ) -> dict[str, Any]:
    """One day: its stamped video and its rows. Returns {"rows": n, "frames": K}."""
    suite = load_suite(suite_dir)
    cases = [c for c in suite.cases if c.ep_id == day]
    episode = load_episode(suite.episode_dir(day))
    offered = offered_frames(episode.num_frames, options)
    meta = read_json(suite.episode_dir(day) / "episode.json")
    interactions = len(meta.get("interactions", []))
    video = Path("videos") / f"{day}.mp4"
    (out_dir / "videos").mkdir(parents=True, exist_ok=True)
    src, keep, times = _source(suite.episode_dir(day), meta, episode.num_frames, episode.times,
                               offered, options)
    write_stamped_video(src, out_dir / video, keep, times, VIDEO_FPS)
    rows = []
    for case in cases:
        answer = [list(sub) for sub in case.answer]
        if case.answer_frames is not None:
            raise ValueError(f"case {case.id}: answers index a {case.answer_frames}-frame "
                             "video; export needs full-video answers (a generated suite)")
        if not options.get("full_length"):
            answer = subsample_answer(answer, offered)
        rows.append({
            "ep_id": day, "video": video.as_posix(), "question": case.question,
            "answer": answer_text(answer),
            # one of the 60 task names; a suite without them names the task by its template
            "task_id": case.task_id or case.template,
            "high_level_category": case.high_level_category,
            "low_level_category": case.low_level_category,
            "num_interactions": interactions if case.num_interactions is None
            else case.num_interactions,
            "id": str(case.id), "template": case.template})
    write_json_atomic(out_dir / ROWS_DIR / f"{day}.json", rows, indent=None)
    return {"rows": len(rows), "frames": len(offered)}


def day_done(out_dir: Path, day: str) -> bool:
    return (out_dir / ROWS_DIR / f"{day}.json").is_file()


def _day_hash(day: str) -> int:
    import hashlib

    return int.from_bytes(hashlib.sha256(day.encode("utf-8")).digest()[:8], "little")


def split_of(day: str, val_fraction: float) -> str:
    """A day's split from its name alone (the same in every shard): sha256 below the fraction."""
    return "validation" if _day_hash(day) < val_fraction * 2**64 else "train"


def validation_days(days: list[str], val_fraction: float) -> set[str]:
    """The days of the validation split: those ``split_of`` puts there, and with two days or
    more never none nor all (the released trainer loads both splits): the day of the lowest
    hash joins an empty validation, the highest leaves a full one. One day stays in train."""
    if val_fraction <= 0 or len(days) < 2:
        return set()
    val = {d for d in days if split_of(d, val_fraction) == "validation"}
    if not val:
        val = {min(days, key=_day_hash)}
    elif len(val) == len(days):
        val.discard(max(days, key=_day_hash))
    return val


def finish(out_dir: Path, days: list[str], options: dict[str, Any]) -> dict[str, int]:
    """The parquet file of each split and the dataset card, from every day's rows."""
    from datasets import Dataset, Features, Value, disable_progress_bars

    disable_progress_bars()  # the command prints its own one-line summary
    features = Features({c: Value("int64" if c == "num_interactions" else "string")
                         for c in COLUMNS})
    by_split: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    val = validation_days(days, float(options.get("val_fraction", 0.0)))
    for day in days:
        rows = json.loads((out_dir / ROWS_DIR / f"{day}.json").read_text())
        by_split["validation" if day in val else "train"].extend(rows)
    (out_dir / "data").mkdir(exist_ok=True)
    # the temp videos of days killed mid-write: their names are this module's own, and the run
    # that finishes holds the folder alone (outdir.export_lock), so none is still being written
    for stale in (out_dir / "videos").glob(f".*{PARTIAL}"):
        stale.unlink()
    counts = {}
    for split, rows in by_split.items():
        path = out_dir / "data" / f"{split}-00000-of-00001.parquet"
        path.unlink(missing_ok=True)
        if rows:
            replace_atomic(path, Dataset.from_list(rows, features=features).to_parquet)
            counts[split] = len(rows)
    write_text_atomic(out_dir / "README.md", dataset_card(counts, options))
    return counts


def dataset_card(counts: dict[str, int], options: dict[str, Any]) -> str:
    files = "".join(f"  - split: {s}\n    path: data/{s}-*.parquet\n" for s in counts)
    frames = "every frame" if options.get("full_length") else \
        f"{options.get('frames', DEFAULT_FRAMES)} frames"
    return ("---\nconfigs:\n- config_name: default\n  data_files:\n" + files + "---\n\n"
            "# FindingDory SFT rows from recallbench\n\n"
            f"Videos hold {frames} of each day at {VIDEO_FPS} fps, stamped with the frame index "
            "and time of day; `answer` is the list of valid frame lists (indices into the "
            "exported video), read with `ast.literal_eval`. The columns are the released "
            "dataset's (`ep_id`, `video`, `question`, `answer`, `task_id`, "
            "`high_level_category`, `low_level_category`, `num_interactions`) plus `id` and "
            "`template`. `export.json` records the source days' fingerprints.\n")


def chat_messages(row: dict[str, Any], root: str | Path) -> list[dict[str, Any]]:
    """One row as the chat a VLM trainer formats (Qwen2.5-VL style: the video first, then the
    question; the answer as the assistant's turn), asking qwen-vl-utils for ``fps: 1.0`` as
    findingdory-train does (the videos' own rate). The video path is resolved under ``root``."""
    video = (Path(root) / row["video"]).as_posix()
    return [
        {"role": "user", "content": [{"type": "video", "video": video,
                                      "fps": float(VIDEO_FPS)},
                                     {"type": "text", "text": row["question"]}]},
        {"role": "assistant", "content": [{"type": "text", "text": row["answer"]}]},
    ]
