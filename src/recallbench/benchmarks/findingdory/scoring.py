"""Score one recorded case: the run-log record -> every metric the suite supports.

A run-log record (key = QA id) holds what the agent did, never a score:
``offered_frames`` (original-frame indices offered, in order), ``frame_indices`` (positions the
agent returned directly) or ``response`` (raw model text, parsed here), ``agent_error`` (the agent
raised), and optionally ``ll`` (a recorded low-level rollout: success, path_length, steps,
stopped, target_in_view, stop_distance). Re-scoring a run is therefore exact and cheap.
"""

from __future__ import annotations

import math
from typing import Any

from recallbench.benchmarks.findingdory.annotations import Check, EpisodeAnnotations
from recallbench.benchmarks.findingdory.data import QACase
from recallbench.benchmarks.findingdory.ll import ll_failure_mode, ll_spl, shortest_path_length
from recallbench.benchmarks.findingdory.metrics import (
    Scoring,
    check_indices,
    exact_accuracy,
    hl_spl,
    list_success,
    relaxed_accuracy,
    sequence_success,
)
from recallbench.benchmarks.findingdory.parse import parse_frame_indices
from recallbench.errors import InputError

METRICS = ("hl_sr", "dtg_sr", "sc_sr", "hl_spl", "ll_sr", "ll_spl", "exact_acc", "relaxed_acc")
NEEDS_ANNOTATIONS = (
    "needs per-frame distances, angles and coverage (generated episodes); "
    "this suite has only valid-frame lists"
)
NA_REASONS = {
    "dtg_sr": NEEDS_ANNOTATIONS,
    "sc_sr": NEEDS_ANNOTATIONS,
    "hl_spl": NEEDS_ANNOTATIONS + "; and defined for single-goal tasks only",
    "ll_sr": "no low-level rollout recorded for this run",
    "ll_spl": "no low-level rollout recorded, or no geodesic distances to compute L*",
}


class AnswerSpaceError(InputError):
    """The offered frames cannot be mapped onto the space the ground truth is written in."""

    def __init__(self, case_id: str, message: str) -> None:
        super().__init__("offered_frames", f"case {case_id}", message)


def answer_space_frames(case: QACase, positions: list[int], offered: list[int]) -> list[int]:
    """Map answered positions to the index space of ``case.answer``.

    The public file's answers index the 96-frame subsampled video, so only K = 96 offered frames
    can be scored there (position p is answer index p). Generated answers index original frames.
    """
    if case.answer_frames is None:
        return [int(offered[p]) for p in positions]
    if len(offered) != case.answer_frames:
        raise AnswerSpaceError(
            case.id,
            f"answers are in the {case.answer_frames}-frame subsampled space; "
            f"{len(offered)} offered frames cannot be scored without full-video answers",
        )
    return list(positions)


def _candidates(case: QACase, ep: EpisodeAnnotations) -> list[list[int]]:
    assert case.subgoals is not None
    return [[ep.entity_index(e) for e in sub] for sub in case.subgoals]


def _annotated_success(
    frames: list[int],
    cands: list[list[int]],
    ep: EpisodeAnnotations,
    check: Check,
    ordered: bool,
) -> bool:
    sat = ep.satisfied(check)
    satisfied = [{g for g, c in enumerate(cands) if sat[f, c].any()} for f in frames]
    return sequence_success(satisfied, len(cands), ordered)


def resolve_positions(record: dict[str, Any]) -> tuple[list[int] | None, str | None]:
    """The positions an agent answered, and the parse error when its text was unusable."""
    if record.get("agent_error"):
        return None, f"agent error: {record['agent_error']}"
    if record.get("frame_indices") is not None:
        fi = record["frame_indices"]
        if isinstance(fi, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in fi):
            return fi, None
        return None, "frame_indices is not a list of integers"
    parsed = parse_frame_indices(record.get("response"))
    return parsed.frame_indices, parsed.error


def score_case(
    case: QACase,
    record: dict[str, Any],
    *,
    scoring: Scoring = "published",
    episode: EpisodeAnnotations | None = None,
) -> dict[str, Any]:
    """Every metric for one case; a metric the suite cannot support is None (reported n/a)."""
    offered = list(record.get("offered_frames") or [])
    positions, parse_error = resolve_positions(record)
    checked = check_indices(positions, len(offered), case.num_targets, scoring=scoring)
    out: dict[str, Any] = {
        "id": case.id,
        "group": case.group,
        "category": case.category,
        "template": case.template,
        "solvable": case.solvable,
        "failure": checked.failure,
        "parse_error": parse_error,
        "hl_sr": 0.0,
        "dtg_sr": None,
        "sc_sr": None,
        "hl_spl": None,
        "ll_sr": None,
        "ll_spl": None,
        "ll_failure": None,
    }
    frames = (
        answer_space_frames(case, checked.positions, offered)
        if checked.positions is not None
        else None
    )
    if frames is not None:
        out["hl_sr"] = float(list_success(frames, case.answer, case.ordered))
        if out["hl_sr"] == 0.0:
            out["failure"] = "misidentification"
    # Offline accuracies compare the answer as lists, one singleton list per chosen frame. In
    # the official mode out-of-range positions were already mapped to 0 by check_indices; here
    # they match nothing (-2 is in no answer list; -1 marks "no valid frame" and must not match).
    shown = positions if scoring == "published" else (checked.positions or positions)
    if shown is None:
        out["exact_acc"] = out["relaxed_acc"] = 0.0
    else:
        in_range = [p for p in shown if 0 <= p < len(offered)]
        mapped = iter(answer_space_frames(case, in_range, offered))
        pred_lists = [[next(mapped)] if 0 <= p < len(offered) else [-2] for p in shown]
        out["exact_acc"] = exact_accuracy(pred_lists, case.answer)
        out["relaxed_acc"] = relaxed_accuracy(pred_lists, case.answer, scoring=scoring)

    if episode is not None and case.subgoals is not None:
        cands = _candidates(case, episode)
        orig = [int(offered[p]) for p in checked.positions] if checked.positions else None
        for name, check in (("dtg_sr", "dtg"), ("sc_sr", "sc")):
            out[name] = (
                float(_annotated_success(orig, cands, episode, check, case.ordered))
                if orig is not None
                else 0.0
            )
        if len(cands) == 1:
            d_near = min((float(episode.start_distance[e]) for e in cands[0]), default=math.inf)
            spl = 0.0
            if orig is not None and out["hl_sr"] and math.isfinite(d_near):
                sat = episode.satisfied("full")[orig[0]]
                chosen = [float(episode.start_distance[e]) for e in cands[0] if sat[e]]
                if chosen:
                    spl = hl_spl(True, d_near, min(chosen))
            out["hl_spl"] = spl  # no reachable valid target: HL cannot succeed, so 0
    ll = record.get("ll")
    if ll is not None:
        success = bool(ll.get("success"))
        out["ll_sr"] = float(success)
        out["ll_failure"] = ll_failure_mode(
            success=success,
            steps=int(ll.get("steps", 0)),
            stopped=bool(ll.get("stopped", False)),
            target_in_view=bool(ll.get("target_in_view", False)),
            stop_distance=float(ll.get("stop_distance", math.inf)),
        )
        if episode is not None and case.subgoals is not None:
            shortest = shortest_path_length(
                episode.start_distance,
                episode.entity_distance,
                _candidates(case, episode),
                ordered=case.ordered,
            )
            out["ll_spl"] = ll_spl(success, shortest, float(ll.get("path_length", math.nan)))
    return out
