"""Offline accuracy of a model's answers on an exported FindingDory SFT split, as findingdory-train
scores them (@acb30f2 ``findingdory/evaluate_llm_outputs.py``: ``evaluate_results``).

The answers come as ``evaluate_video_llm.py`` writes them: ``{"individual_results": [{"task_id",
"video", "model_output", ...}, ...]}``. Each answer is joined to the split's row by the key that
file carries: the day (the video's file name, ``videos/<ep_id>.mp4``) and ``task_id``; a day
asks a task more than once, so of a key's rows an answer takes the first left whose ``answer``
is the file's ``ground_truth`` (any, in split order, when the file has none). The ground truth
scored is the export's ``answer`` column; a row without an answer scores 0 (an entry with
``error`` answers nothing), as the official count of every row of the split does.

- exact: the answer text equals the row's ``answer`` text (a string comparison, as released);
- relaxed: both texts read as lists of lists (``ast.literal_eval``, else the last ``[...]`` in the
  text, a flat list of ints wrapped as one goal); 0 unless both read as non-empty with the same
  count of goals; else the product over goals of the share of predicted indices inside the
  goal's valid list, goals where exactly one side is empty skipped (as released). Anything the
  released code would raise on scores 0 there and here.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

from recallbench.errors import InputError
from recallbench.io import read_json


def read_lists(text: Any) -> Any:
    """The answer text as the released evaluator reads it; [] when it reads nothing."""
    try:
        return ast.literal_eval(text)
    except Exception:  # SyntaxError, ValueError, RecursionError, MemoryError, TypeError...
        pass
    try:
        tail = text[text.rfind("["):text.rfind("]") + 1]
        if text.rfind("[") == -1 or text.rfind("]") == -1:
            return []
        value = ast.literal_eval(tail)
    except Exception:
        return []
    if isinstance(value, list) and value and isinstance(value[0], int):
        return [value]  # one goal's indices
    if isinstance(value, list) and value and isinstance(value[0], list):
        return value
    return []


def relaxed_score(pred_text: Any, gt_text: Any) -> float:
    """Relaxed accuracy of one answer (see the module's docstring)."""
    pred, gt = read_lists(pred_text), read_lists(gt_text)
    if not pred or not gt:
        return 0.0
    try:
        if len(pred) != len(gt):
            return 0.0
        score = 1.0
        for p, g in zip(pred, gt, strict=True):  # lengths equal here
            if len(p) and len(g):  # a goal where one side (or both) is empty is skipped
                score *= sum(i in g for i in p) / len(p)
        return float(score)
    except Exception:  # an int where a goal's list should be, ...: the released code's 0
        return 0.0


def _split_rows(export_dir: Path, split: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    path = export_dir / "data" / f"{split}-00000-of-00001.parquet"
    if not path.is_file():
        raise InputError(export_dir, None, f"no {split} split (data/{path.name})")
    return list(pq.read_table(path).to_pylist())


def _join(rows: list[dict[str, Any]], results: list[Any], path: Path) -> dict[int, Any]:
    """Row index -> the answer joined to it (day from the video's name, task_id, n-th)."""
    pending: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        pending.setdefault((row["ep_id"], row["task_id"]), []).append(i)
    joined: dict[int, Any] = {}
    for n, res in enumerate(results):
        if not isinstance(res, dict):
            raise InputError(path, f"individual_results[{n}]", "expected an object")
        if "error" in res and "model_output" not in res:
            continue  # the evaluator failed on this example: its row scores 0
        video, task = res.get("video"), res.get("task_id")
        if not isinstance(video, str) or not isinstance(task, str):
            raise InputError(path, f"individual_results[{n}]", "needs video and task_id")
        left = pending.get((Path(video).stem, task))
        if not left:
            raise InputError(path, f"individual_results[{n}]", f"task_id {task!r} of video "
                             f"{video!r}: no row left in the split for it")
        gt = res.get("ground_truth")  # when given, it picks among a key's rows
        same = [i for i in left if gt is None or rows[i]["answer"] == gt]
        if not same:
            raise InputError(path, f"individual_results[{n}]: ground_truth",
                             "differs from the export's answer (another export's results?)")
        left.remove(same[0])
        joined[same[0]] = res.get("model_output")
    return joined


def score_results(export_dir: str | Path, results_file: str | Path,
                  split: str = "validation") -> dict[str, Any]:
    """Exact and relaxed accuracy over every row of ``split``, with per-row scores."""
    export_dir, results_file = Path(export_dir), Path(results_file)
    rows = _split_rows(export_dir, split)
    data = read_json(results_file)
    results = data.get("individual_results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise InputError(results_file, "individual_results", "expected a list")
    joined = _join(rows, results, results_file)
    per_row = []
    for i, row in enumerate(rows):
        out = joined.get(i)
        per_row.append({"ep_id": row["ep_id"], "task_id": row["task_id"], "id": row["id"],
                        "answered": i in joined,
                        "exact": float(isinstance(out, str) and out == row["answer"]),
                        "relaxed": relaxed_score(out, row["answer"]) if i in joined else 0.0})
    n = len(rows)
    exact = sum(r["exact"] for r in per_row)
    relaxed = math.fsum(r["relaxed"] for r in per_row)
    return {"split": split, "total_examples": n, "answered": len(joined),
            "exact_matches": int(exact), "exact_accuracy": exact / n if n else 0.0,
            "avg_relaxed_score": relaxed / n if n else 0.0, "rows": per_row}
