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

from recallbench.benchmarks.findingdory.annotations import (
    MIN_COVERAGE,
    Check,
    EpisodeAnnotations,
)
from recallbench.benchmarks.findingdory.data import QACase
from recallbench.benchmarks.findingdory.ll import ll_failure_mode, ll_spl, shortest_path_length
from recallbench.benchmarks.findingdory.metrics import (
    METRICS,
    Scoring,
    check_indices,
    exact_accuracy,
    hl_spl,
    list_success,
    relaxed_accuracy,
    sequence_success,
)
from recallbench.benchmarks.findingdory.parse import (
    MAX_FRAME_INDICES,
    coerce_official,
    parse_frame_indices,
    parse_official,
    too_many_indices,
)
from recallbench.benchmarks.findingdory.templates import is_multi_goal
from recallbench.errors import InputError


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


def _unanswerable(case: QACase, offered: list[int]) -> bool:
    """Some goal has no valid frame among the offered ones: a failure of the frame budget."""
    frames = set(answer_space_frames(case, list(range(len(offered))), offered))
    return any(not frames & set(valid) for valid in case.answer)


def _candidates(case: QACase, ep: EpisodeAnnotations) -> list[list[int]]:
    assert case.subgoals is not None
    return [[ep.entity_index(e) for e in sub] for sub in case.subgoals]


def _annotated_success(
    frames: list[int],
    cands: list[list[int]],
    ep: EpisodeAnnotations,
    check: Check,
    ordered: bool,
    scoring: Scoring,
) -> bool:
    sat = ep.satisfied(check)
    satisfied = [{g for g, c in enumerate(cands) if sat[f, c].any()} for f in frames]
    return sequence_success(satisfied, len(cands), ordered, scoring)


def resolve_positions(
    record: dict[str, Any], scoring: Scoring = "published"
) -> tuple[list[int] | None, str | None]:
    """The positions an agent answered, and the parse error when its answer was unusable.

    Official: text goes through the released agent's parser, and a list answered directly gets
    the same ``int()`` coercion (66.0, "24", true are indices there).
    """
    if record.get("agent_error"):
        return None, f"agent error: {record['agent_error']}"
    if record.get("frame_indices") is not None:
        fi = record["frame_indices"]
        if isinstance(fi, list) and len(fi) > MAX_FRAME_INDICES:  # recorded before the cap
            return None, too_many_indices(len(fi))
        if scoring == "official":
            parsed = coerce_official({"frame_indices": fi})
            return parsed.frame_indices, parsed.error
        if isinstance(fi, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in fi):
            return fi, None
        return None, "frame_indices is not a list of integers"
    parse = parse_official if scoring == "official" else parse_frame_indices
    parsed = parse(record.get("response"))
    return parsed.frame_indices, parsed.error


def _offline_accuracy(
    case: QACase, positions: list[int] | None, offered: list[int], scoring: Scoring
) -> tuple[float, float]:
    """Exact and relaxed accuracy over one singleton list per answered position.

    Published: a position outside 0..K-1 is [-2] (matches nothing; -1 marks "no valid frame"
    and must not match). Official (evaluate_llm_outputs.py): the raw lists are compared, so a
    -1 answer matches a [-1] sub-list; an unparsable answer scores 0 in both.
    """
    if positions is None:
        return 0.0, 0.0
    in_range = [p for p in positions if 0 <= p < len(offered)]
    mapped = iter(answer_space_frames(case, in_range, offered))
    out_of_range = (lambda p: p) if scoring == "official" else (lambda p: -2)
    pred = [[next(mapped)] if 0 <= p < len(offered) else [out_of_range(p)] for p in positions]
    return exact_accuracy(pred, case.answer), relaxed_accuracy(pred, case.answer, scoring=scoring)


def _hl_spl(
    frame: int | None,
    cands: list[int],
    episode: EpisodeAnnotations,
    hl_success: bool,
    scoring: Scoring = "published",
) -> float:
    """d_nearest / max(d_nearest, d_chosen) with distances from the start pose; 0 when HL failed.

    The chosen target, of the valid targets satisfied at the chosen frame: published, the one
    nearest that frame's pose; official (measures.py: FindingDoryHighLevelSPL), the first in
    assignment order, because the goal's OR stops at the first true assignment and only that
    one is logged with success True. A chosen target already at the start scores 1 there.
    """
    d_near = min((float(episode.start_distance[e]) for e in cands), default=math.inf)
    if frame is None or not hl_success or not math.isfinite(d_near):
        return 0.0  # no reachable valid target: HL cannot succeed, so 0
    sat = episode.satisfied("full")[frame]
    chosen = [e for e in cands if sat[e]]
    if not chosen:
        return 0.0
    if scoring == "official":
        d_chosen = float(episode.start_distance[chosen[0]])
        return 1.0 if d_chosen == 0 else hl_spl(True, d_near, d_chosen)
    target = min(chosen, key=lambda e: float(episode.distance[frame, e]))
    return hl_spl(True, d_near, float(episode.start_distance[target]))


def _spl_defined(case: QACase, scoring: Scoring) -> bool:
    """HL-SPL is single-goal only. Official: any Multi-Goal instruction (``sequential_goals``)
    reports -1, "not supported", even with one sub-goal; published: one sub-goal is one goal."""
    assert case.subgoals is not None
    if scoring == "official":
        return not is_multi_goal(case.low_level_category)
    return len(case.subgoals) == 1


def _start_verdict(case: QACase, episode: EpisodeAnnotations) -> dict[str, Any]:
    """The official LL outcome when HL failed: the task issues a STOP at the start pose (the pose
    of the video's last frame). A failure whatever that pose: the goal's ``robot_at_*`` /
    ``robot_in_room`` predicates are ANDed with ``does_want_intermediate_stop``, which only the
    LL policy's intermediate stop sets, never this STOP (pddl_predicate.py, is_true;
    findingdory_multi_task.py, step and _switch_evaluation_to_new_task)."""
    cands = _candidates(case, episode)
    last = episode.num_frames - 1
    targets = [e for c in cands for e in c]
    dist = min((float(episode.distance[last, e]) for e in targets), default=math.inf)
    in_view = any(float(episode.coverage[last, e]) >= MIN_COVERAGE for e in targets)
    return {
        "success": False,
        "path_length": 0.0,
        "steps": 1,
        "stopped": True,
        "target_in_view": in_view,
        "stop_distance": dist,
    }


def score_case(
    case: QACase,
    record: dict[str, Any],
    *,
    scoring: Scoring = "published",
    episode: EpisodeAnnotations | None = None,
) -> dict[str, Any]:
    """Every metric for one case; a metric the suite cannot support is None (reported n/a)."""
    offered = list(record.get("offered_frames") or [])
    positions, parse_error = resolve_positions(record, scoring)
    checked = check_indices(positions, len(offered), case.num_targets, scoring=scoring)
    out = _blank_row(case, checked.failure)
    out["parse_error"] = parse_error
    _score_hl(out, case, checked.positions, offered, scoring)
    out["exact_acc"], out["relaxed_acc"] = _offline_accuracy(case, positions, offered, scoring)
    # the per-frame annotations' metrics need the episode and the case's sub-goals
    annotated = episode if case.subgoals is not None else None
    if annotated is not None:
        _score_annotated(out, case, annotated, checked.positions, offered, scoring)
    ll = record.get("ll")
    if ll is not None:
        _score_ll(out, case, ll, annotated, scoring)
    return out


def _score_hl(out: dict[str, Any], case: QACase, positions: list[int] | None,
              offered: list[int], scoring: Scoring) -> None:
    """HL-SR of the checked answer, and why it failed (into ``out``)."""
    frames = (
        answer_space_frames(case, positions, offered)
        if positions is not None
        else None
    )
    if frames is not None:
        out["hl_sr"] = float(list_success(frames, case.answer, case.ordered, scoring))
        if out["hl_sr"] == 0.0:
            out["failure"] = ("no_valid_frame_offered" if _unanswerable(case, offered)
                              else "misidentification")


def _score_annotated(out: dict[str, Any], case: QACase, episode: EpisodeAnnotations,
                     positions: list[int] | None, offered: list[int], scoring: Scoring) -> None:
    """DTG-SR, SC-SR and HL-SPL of the checked answer's frames, from the annotations."""
    cands = _candidates(case, episode)
    orig = [int(offered[p]) for p in positions] if positions else None
    sc: Check = "sc_official" if scoring == "official" else "sc"
    checks: tuple[tuple[str, Check], ...] = (("dtg_sr", "dtg"), ("sc_sr", sc))
    for name, check in checks:
        out[name] = (
            float(_annotated_success(orig, cands, episode, check, case.ordered, scoring))
            if orig is not None
            else 0.0
        )
    if _spl_defined(case, scoring):
        frame = orig[0] if orig else None
        out["hl_spl"] = _hl_spl(frame, cands[0], episode, bool(out["hl_sr"]), scoring)


def _score_ll(out: dict[str, Any], case: QACase, ll: dict[str, Any],
              episode: EpisodeAnnotations | None, scoring: Scoring) -> None:
    """LL-SR, its failure mode and (with annotations) LL-SPL of the recorded rollout."""
    if scoring == "official" and not out["hl_sr"]:
        # The official task STOPs at the start pose when HL fails, and that STOP never
        # satisfies a goal.
        ll = _start_verdict(case, episode) if episode is not None else {**ll, "success": False}
    success = bool(ll.get("success"))
    out["ll_sr"] = float(success)
    out["ll_failure"] = ll_failure_mode(
        success=success,
        steps=int(ll.get("steps", 0)),
        stopped=bool(ll.get("stopped", False)),
        target_in_view=bool(ll.get("target_in_view", False)),
        stop_distance=float(ll.get("stop_distance", math.inf)),
    )
    if episode is not None:
        shortest = shortest_path_length(
            episode.start_distance,
            episode.entity_distance,
            _candidates(case, episode),
            ordered=case.ordered,
        )
        out["ll_spl"] = ll_spl(success, shortest, float(ll.get("path_length", math.nan)))


def _blank_row(case: QACase, failure: str | None) -> dict[str, Any]:
    return {
        "id": case.id,
        "group": case.group,
        "category": case.category,
        "template": case.template,
        "solvable": case.solvable,
        "failure": failure,
        "parse_error": None,
        "ll_failure": None,
        # what score_case finds nothing for: a failure, or n/a where a metric can be n/a
        **{m.name: None if m.na_reason else 0.0 for m in METRICS if m.value is None},
    }


def missing_row(
    case: QACase,
    *,
    episode: EpisodeAnnotations | None = None,
    with_ll: bool = False,
    scoring: Scoring = "published",
) -> dict[str, Any]:
    """A case with no prediction: every metric the suite supports fails (the official pipeline
    runs every episode); failure mode ``missing`` so it is reported apart."""
    out = _blank_row(case, "missing")
    if episode is not None and case.subgoals is not None:
        out["dtg_sr"] = out["sc_sr"] = 0.0
        if _spl_defined(case, scoring):
            out["hl_spl"] = 0.0
        if with_ll:
            out["ll_spl"] = 0.0
    if with_ll:
        out["ll_sr"] = 0.0
        out["ll_failure"] = "missing"
    return out
