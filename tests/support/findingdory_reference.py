"""An independent FindingDory reference scorer, written from the definitions alone.

It shares no code with ``recallbench`` (no import from it): the published definitions are the
paper's (docs/findingdory.md), the official ones are read from the released code
(findingdory-habitat vlm_agent.py, findingdory_task.py, pddl_logical_expr.py, measures.py;
findingdory-train evaluate_llm_outputs.py) as summarised in
../shared/reference/findingdory.md, "The official code, exactly". Deliberately simple and slow
where recallbench is fast (naive parsing, an assignment solver instead of augmenting paths).
"""

from __future__ import annotations

import ast
import json
import math
from dataclasses import dataclass
from typing import Any

import json5
import numpy as np
from scipy.optimize import linear_sum_assignment

MULTI = ("Unordered Revisitation", "Ordered Revisitation")


@dataclass(frozen=True)
class Row:
    id: str
    answer: list[list[int]]
    category: str

    @property
    def ordered(self) -> bool:
        return self.category == "Ordered Revisitation"

    @property
    def targets(self) -> int:
        return len(self.answer) if self.category in MULTI else 1


def load_rows(path: str) -> list[Row]:
    return [
        Row(str(r["id"]), [list(s) for s in r["answer"]], r["low_level_category"])
        for r in json.loads(open(path, encoding="utf-8").read())
    ]


# ---- published parsing: first JSON object with frame_indices, fenced blocks first ----
def _all_dicts(value: Any, out: list[dict]) -> None:
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            _all_dicts(v, out)
    elif isinstance(value, list):
        for v in value:
            _all_dicts(v, out)


def _fences(text: str) -> list[str]:
    parts = text.split("```")
    bodies = []
    for k in range(1, len(parts) - 1, 2):  # odd parts sit between an opening and a closing fence
        body = parts[k]
        if body.lower().startswith("json"):
            body = body[4:]
        bodies.append(body.strip())
    return bodies


def published_parse(text: str | None) -> list[int] | None:
    if text is None or not text.strip():
        return None
    decoder = json.JSONDecoder()
    for chunk in [*_fences(text), text]:
        i = 0
        while i < len(chunk):
            if chunk[i] != "{":
                i += 1
                continue
            try:
                value, end = decoder.raw_decode(chunk, i)
            except (ValueError, RecursionError):
                i += 1
                continue
            found: list[dict] = []
            _all_dicts(value, found)
            for d in found:
                if "frame_indices" in d:
                    fi = d["frame_indices"]
                    if isinstance(fi, list) and all(type(x) is int for x in fi):
                        return list(fi)
                    return None
            i = end  # a decoded object is consumed whole
    return None


# ---- official parsing: vlm_agent.py response_json_loads + extract_frame_indices ----
def official_parse(text: str | None) -> list[int] | None:
    """The int()-coerced indices, or None where the released agent answers [-1] (or raises)."""
    if text is None:
        return None
    if not ("json" in text or ("{" in text and "}" in text)):
        return None
    cleaned = text.strip().replace("json", "").replace("```", "")
    a, b = cleaned.find("{"), cleaned.rfind("}") + 1
    if a >= 0 and b > a:
        cleaned = cleaned[a:b]
    value: Any = None
    try:
        value = json5.loads(cleaned)
    except Exception:
        try:
            value = ast.literal_eval(cleaned)
        except Exception:
            value = None
    return official_coerce(value)


def official_coerce(value: Any) -> list[int] | None:
    if not isinstance(value, dict) or "frame_indices" not in value:
        return None
    fi = value["frame_indices"]
    try:
        if Ellipsis in fi:
            return None
        return [int(t) for t in fi]
    except (TypeError, ValueError, OverflowError):
        return None


# ---- success ----
def matching_exists(sat: list[set[int]], n: int) -> bool:
    cost = np.ones((len(sat), n))
    for i, s in enumerate(sat):
        for g in s:
            cost[i, g] = 0.0
    r, c = linear_sum_assignment(cost)
    return len(sat) == n and float(cost[r, c].sum()) == 0.0


def greedy_official(sat: list[set[int]], n: int) -> bool:
    truth = [False] * n
    for s in sat:
        marked = False
        for g in range(n):
            if not truth[g] and g in s and not marked:
                truth[g] = True
                marked = True
        if not marked:  # intermediate stop that satisfied nothing new: permanently false
            return False
    return all(truth)


def hl_success(frames: list[int], row: Row, mode: str) -> bool:
    if len(row.answer) == 1:
        return len(frames) == 1 and frames[0] >= 0 and frames[0] in row.answer[0]
    sat = [{g for g, sub in enumerate(row.answer) if f in sub and f != -1} for f in frames]
    if len(sat) != len(row.answer):
        return False
    if row.ordered:
        return all(g in s for g, s in enumerate(sat))
    return greedy_official(sat, len(row.answer)) if mode == "official" else matching_exists(
        sat, len(row.answer)
    )


# ---- offline accuracy ----
def relaxed_published(pred: list[list[int]], gt: list[list[int]]) -> float:
    if len(pred) != len(gt):
        return 0.0
    score = 1.0
    for p, g in zip(pred, gt, strict=True):
        if not p and not g:
            continue
        if not p or not g:
            return 0.0
        score *= sum(x in g for x in p) / len(p)
    return score


def relaxed_official(pred: list[list[int]], gt: list[list[int]]) -> float:
    """evaluate_llm_outputs.py calculate_relaxed_match (empty sides add no factor)."""
    if not pred or not gt or len(pred) != len(gt):
        return 0.0
    precisions = [
        sum(x in g for x in p) / len(p) for p, g in zip(pred, gt, strict=True) if len(p) and len(g)
    ]
    return float(np.prod(precisions))


# ---- one case ----
def score(row: Row, pred: dict[str, Any] | None, mode: str, k: int = 96) -> dict[str, Any]:
    """hl_sr, failure, exact_acc, relaxed_acc for one prediction (None = no prediction)."""
    if pred is None:
        return {"hl_sr": 0.0, "failure": "missing", "exact_acc": 0.0, "relaxed_acc": 0.0}
    if "frame_indices" in pred and pred["frame_indices"] is not None:
        fi = pred["frame_indices"]
        if mode == "official":
            raw = official_coerce({"frame_indices": fi})
        else:
            ok = isinstance(fi, list) and all(type(x) is int for x in fi)
            raw = list(fi) if ok else None
    else:
        text = pred.get("response")
        raw = official_parse(text) if mode == "official" else published_parse(text)
    if mode == "official":
        # act(): >= K -> -1, then clip into 0..K-1 (so -1 and unparsable [-1] -> frame 0)
        online = [-1] if raw is None else [t if t < k else -1 for t in raw]
        positions: list[int] | None = [max(0, min(t, k - 1)) for t in online]
    else:
        positions = raw
    if positions is None:
        failure, hl = "response_error", False
    elif len(positions) != row.targets:
        failure, hl = "num_targets_error", False
    elif any(p < 0 or p >= k for p in positions):
        failure, hl = "out_of_bounds_pred", False
    else:
        hl = hl_success(positions, row, mode)
        # a goal with no valid frame among the K offered: the budget's failure, not the agent's
        unanswerable = any(not set(range(k)) & set(valid) for valid in row.answer)
        failure = None if hl else ("no_valid_frame_offered" if unanswerable
                                   else "misidentification")
    if raw is None:
        exact = relaxed = 0.0
    elif mode == "official":
        pred_lists = [[t] for t in raw]
        exact = float(pred_lists == row.answer)
        relaxed = relaxed_official(pred_lists, row.answer)
    else:
        pred_lists = [[t] if 0 <= t < k else [-2] for t in raw]
        exact = float(pred_lists == row.answer)
        relaxed = relaxed_published(pred_lists, row.answer)
    return {"hl_sr": float(hl), "failure": failure, "exact_acc": exact, "relaxed_acc": relaxed}


# ---- annotated episodes (generated suites): predicates, SC/DTG, HL-SPL, LL ----
def predicate(kind: str, dist: float, angle: float, cov: float, room: bool, check: str) -> bool:
    """The goal predicate at one frame for one entity. Values were stored as float32: a value
    on a threshold by construction passes (relative tolerance 1e-6, the documented one)."""
    if kind == "room":
        return bool(room)
    max_d, max_a = (2.0, math.pi / 4) if kind == "object" else (0.1, math.pi / 2)
    if check == "sc_official":
        max_d = 10000.0
    ok = abs(angle) <= max_a * (1 + 1e-6)
    if check != "sc":
        ok = ok and dist <= max_d * (1 + 1e-6)
    if check != "dtg":
        ok = ok and cov >= 0.001 * (1 - 1e-6)
    return ok


def hl_spl(
    frame: int,
    cands: list[int],
    kinds: list[str],
    distance: np.ndarray,
    angle: np.ndarray,
    coverage: np.ndarray,
    in_room: np.ndarray,
    start_distance: np.ndarray,
    mode: str = "published",
) -> float:
    """HL-SPL of a successful single-goal frame. The chosen target among those satisfied at the
    frame: published, the one nearest the frame's pose; official (measures.py), the first in
    assignment order (the OR logs success only up to its first true assignment), and a chosen
    target at distance 0 from the start scores 1."""
    d_near = min(float(start_distance[e]) for e in cands)
    sat = [
        e
        for e in cands
        if predicate(
            kinds[e],
            float(distance[frame, e]),
            float(angle[frame, e]),
            float(coverage[frame, e]),
            bool(in_room[frame, e]),
            "full",
        )
    ]
    if not sat or not math.isfinite(d_near):
        return 0.0
    if mode == "official":
        d_chosen = float(start_distance[sat[0]])
        if d_chosen == 0:
            return 1.0
    else:
        d_chosen = float(start_distance[sorted(sat, key=lambda e: float(distance[frame, e]))[0]])
    denom = max(d_near, d_chosen)
    return 1.0 if denom <= 0 else d_near / denom
