"""FindingDory SFT rows as the released trainer reads them, from a generated FindingDory suite.

The folder ``datasets.load_dataset(DIR)`` reads:

- ``videos/<ep_id>.mp4``: each day's video, subsampled to K frames (``--frames``, default 96,
  the linspace the benchmark offers) with "Frame: p" and "Time of Day: HH:MM" stamped on every
  frame (``video.stamp``, as the agents see them); ``--full-length``: every frame, stamped with
  its original index;
- ``data/<split>-00000-of-00001.parquet``: one row per question with ``video`` (the path
  relative to the folder), ``question``, ``answer`` (the list-of-lists text the official offline
  evaluator reads with ``ast.literal_eval``, indices into the exported video), ``id``,
  ``episode``, ``category``, ``template``;
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
    raise UsageError("--format", "findingdory-sft writes with HF datasets, which is not "
                     "installed: pip install 'recallbench[export]'")

COLUMNS = ("id", "episode", "video", "question", "answer", "category", "template")
ROWS_DIR = "rows"
SPLITS = ("train", "validation")
DATASET = ("data", "README.md")  # what finish writes under the export folder
PARTIAL = ".partial.mp4"  # a day's video being written (a temp name of its own)


def answer_text(answer: list[list[int]]) -> str:
    """The answer as the released rows write it: a Python/JSON list of lists of ints."""
    return json.dumps([[int(i) for i in sub] for sub in answer])


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


def export_day(suite_dir: Path, out_dir: Path, day: str, options: dict[str, Any]
               ) -> dict[str, Any]:
    """One day: its stamped video and its rows. Returns {"rows": n, "frames": K}."""
    suite = load_suite(suite_dir)
    cases = [c for c in suite.cases if c.ep_id == day]
    episode = load_episode(suite.episode_dir(day))
    offered = offered_frames(episode.num_frames, options)
    meta = read_json(suite.episode_dir(day) / "episode.json")
    fps = int(meta.get("knobs", {}).get("fps", 10))
    video = Path("videos") / f"{day}.mp4"
    (out_dir / "videos").mkdir(parents=True, exist_ok=True)
    write_stamped_video(suite.episode_dir(day) / "video.mp4", out_dir / video, offered,
                        episode.times, fps)
    rows = []
    for case in cases:
        answer = [list(sub) for sub in case.answer]
        if case.answer_frames is not None:
            raise ValueError(f"case {case.id}: answers index a {case.answer_frames}-frame "
                             "video; export needs full-video answers (a generated suite)")
        if not options.get("full_length"):
            answer = subsample_answer(answer, offered)
        rows.append({"id": str(case.id), "episode": day, "video": video.as_posix(),
                     "question": case.question, "answer": answer_text(answer),
                     "category": case.category, "template": case.template})
    write_json_atomic(out_dir / ROWS_DIR / f"{day}.json", rows, indent=None)
    return {"rows": len(rows), "frames": len(offered)}


def day_done(out_dir: Path, day: str) -> bool:
    return (out_dir / ROWS_DIR / f"{day}.json").is_file()


def split_of(day: str, val_fraction: float) -> str:
    """Split by day, from its name alone (the same in every shard): sha256 below the fraction."""
    import hashlib

    digest = hashlib.sha256(day.encode("utf-8")).digest()
    return "validation" if int.from_bytes(digest[:8], "little") < val_fraction * 2**64 \
        else "train"


def finish(out_dir: Path, days: list[str], options: dict[str, Any]) -> dict[str, int]:
    """The parquet file of each split and the dataset card, from every day's rows."""
    from datasets import Dataset, Features, Value, disable_progress_bars

    disable_progress_bars()  # the command prints its own one-line summary
    features = Features({c: Value("string") for c in COLUMNS})
    by_split: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for day in days:
        rows = json.loads((out_dir / ROWS_DIR / f"{day}.json").read_text())
        by_split[split_of(day, float(options.get("val_fraction", 0.0)))].extend(rows)
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
            f"Videos hold {frames} of each day, stamped with the frame index and time of day; "
            "`answer` is the list of valid frame lists (indices into the exported video), "
            "read with `ast.literal_eval`. `export.json` records the source days' fingerprints.\n")


def chat_messages(row: dict[str, Any], root: str | Path) -> list[dict[str, Any]]:
    """One row as the chat a VLM trainer formats (Qwen2.5-VL style: the video first, then the
    question; the answer as the assistant's turn). The video path is resolved under ``root``."""
    video = (Path(root) / row["video"]).as_posix()
    return [
        {"role": "user", "content": [{"type": "video", "video": video},
                                     {"type": "text", "text": row["question"]}]},
        {"role": "assistant", "content": [{"type": "text", "text": row["answer"]}]},
    ]
