"""Predictions made elsewhere (``findingdory score``): read a JSONL file, turn it into run-log
records that score exactly as a run's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.data import Suite, resolve_video
from recallbench.benchmarks.findingdory.evaluate import EpisodeCache, offered_for
from recallbench.errors import InputError
from recallbench.io import parse_json


def read_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """JSONL of {"id", "frame_indices"} or {"id", "response"} (optionally "offered_frames")."""
    preds: dict[str, dict[str, Any]] = {}
    lines: dict[str, int] = {}
    if not path.is_file():
        raise InputError(path, None, "predictions file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text (a binary file?)") from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        row = parse_json(line, path, f"line {n}")  # malformed, nested too deeply: one line
        if not isinstance(row, dict) or "id" not in row:
            raise InputError(path, f"line {n}: id", "missing")
        if "frame_indices" not in row and "response" not in row:
            raise InputError(path, f"line {n}", "needs frame_indices or response")
        fi = row.get("frame_indices")
        if fi is not None and not isinstance(fi, list):
            raise InputError(path, f"line {n}: frame_indices", "expected a list")
        offered = row.get("offered_frames")
        if offered is not None and not (isinstance(offered, list) and all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in offered
        )):
            raise InputError(
                path, f"line {n}: offered_frames", "expected a list of frame indices (ints >= 0)"
            )
        rid = str(row["id"])
        if rid in preds:  # keeping either silently would score an arbitrary one
            raise InputError(path, f"line {n}: id", f"duplicate id {rid!r} (line {lines[rid]})")
        preds[rid], lines[rid] = row, n
    return preds


def prediction_records(suite: Suite, preds: dict[str, dict[str, Any]], path: str | Path,
                       frames: int) -> dict[str, dict[str, Any]]:
    """Case id -> run-log record for each predicted case, in suite order; the offered frames are
    the prediction's own or the K = ``frames`` subsampling a run would have offered. An empty
    file, or an id the suite does not hold, is an error naming ``path`` (as the user wrote it)."""
    if not preds:
        raise InputError(path, None, "no predictions in the file")
    unknown = sorted(set(preds) - {c.id for c in suite.cases})
    if unknown:
        raise InputError(path, "id", f"ids not in the data: {unknown[:5]}")
    episodes = EpisodeCache(suite)
    records = {}
    for case in suite.cases:
        if case.id not in preds:
            continue  # scored as a failure (missing) unless subset
        p = preds[case.id]
        offered = p.get("offered_frames")
        if offered is None:
            video = resolve_video(suite, case, None)
            offered = offered_for(case, frames, video, episodes.get(case.ep_id))
        records[case.id] = {
            "key": case.id,
            "offered_frames": offered,
            "frame_indices": p.get("frame_indices"),
            "response": p.get("response"),
        }
    return records
