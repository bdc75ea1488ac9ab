"""FindingDory's metrics, declared once (``METRICS``), and the high-level (frame-choice) ones as
plain functions of recorded outcomes.

Published definitions by default. ``scoring="official"`` reproduces the released code: an
unparsable response becomes frame [0], an out-of-range index becomes 0, unordered multi-goal is
the greedy AND_SEQUENTIAL lock, and relaxed accuracy skips sub-lists where exactly one side is
empty. See docs/findingdory.md, "Deviation options".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from recallbench.benchmarks.seam import Metric

if TYPE_CHECKING:  # types only: the metric functions stay light to import
    from recallbench.benchmarks.findingdory.annotations import EpisodeAnnotations
    from recallbench.benchmarks.findingdory.data import QACase

Scoring = Literal["published", "official"]
SCORINGS: tuple[str, ...] = ("published", "official")
FAILURE_MODES = (
    "misidentification",
    # a goal none of the offered frames satisfies (the subsampled video missed it): no agent,
    # the privileged oracle included, could have answered; not the agent's mistake
    "no_valid_frame_offered",
    "response_error",
    "out_of_bounds_pred",
    "num_targets_error",
    "missing",  # no prediction for the case: a failure, reported apart
)


@dataclass(frozen=True)
class Checked:
    """Indices after the validity checks: ``positions`` is None when the case already failed."""

    positions: list[int] | None
    failure: str | None


def check_indices(
    positions: Sequence[int] | None,
    num_offered: int,
    num_targets: int,
    *,
    scoring: Scoring = "published",
) -> Checked:
    """Apply the failure checks in the official order: response, count, range."""
    if scoring == "official":
        # The released agent maps an unparsable answer to [0] and each out-of-range index to 0
        # before the harness checks anything, so only the count check can still fire.
        positions = (
            [0] if positions is None else [p if 0 <= p < num_offered else 0 for p in positions]
        )
    if positions is None:
        return Checked(None, "response_error")
    if len(positions) != num_targets:
        return Checked(None, "num_targets_error")
    if any(not 0 <= p < num_offered for p in positions):
        return Checked(None, "out_of_bounds_pred")
    return Checked(list(positions), None)


def _perfect_matching(options: list[set[int]], num_goals: int) -> bool:
    """Can every frame claim a distinct sub-goal it satisfies? (Kuhn's augmenting paths.)"""
    owner: dict[int, int] = {}

    def claim(frame: int, seen: set[int]) -> bool:
        for goal in options[frame]:
            if goal in seen:
                continue
            seen.add(goal)
            if goal not in owner or claim(owner[goal], seen):
                owner[goal] = frame
                return True
        return False

    return len(options) == num_goals and all(claim(f, set()) for f in range(len(options)))


def greedy_lock_success(satisfied: list[set[int]], num_goals: int) -> bool:
    """The official AND_SEQUENTIAL check (pddl_logical_expr.py), frame by frame.

    Each frame locks only the first not-yet-locked sub-goal (in sub-goal order) true at it; a
    frame that locks nothing new makes the task permanently false. Greedy, not a matching:
    frames [43, 42] fail on [[42, 43, 63], [43, 63, 64]] (43 locks sub-goal 0, 42 adds nothing).
    Ordered tasks (AND_SEQUENTIAL_ORDERED) lock in sequence order and fail when a sub-goal would
    lock before its predecessor, which is exactly "frame i satisfies sub-goal i".
    """
    return len(satisfied) == num_goals and greedy_prefix_ok(satisfied, num_goals)


def greedy_prefix_ok(satisfied: list[set[int]], num_goals: int) -> bool:
    """Did every frame so far lock a new sub-goal under the greedy rule?"""
    locked: set[int] = set()
    for sat in satisfied:
        new = [g for g in range(num_goals) if g in sat and g not in locked]
        if not new:
            return False
        locked.add(new[0])
    return True


def sequence_success(
    satisfied: list[set[int]], num_goals: int, ordered: bool, scoring: Scoring = "published"
) -> bool:
    """Multi-goal semantics: ``satisfied[i]`` = sub-goals the i-th chosen frame satisfies.

    Ordered: frame i must satisfy sub-goal i (both modes). Unordered, published: each frame
    must satisfy one new sub-goal, i.e. frames and sub-goals admit a one-to-one assignment;
    official: the greedy lock above. Single-goal is the case num_goals == 1.
    """
    if len(satisfied) != num_goals:
        return False
    if ordered:
        return all(i in s for i, s in enumerate(satisfied))
    if scoring == "official":
        return greedy_lock_success(satisfied, num_goals)
    return _perfect_matching(satisfied, num_goals)


def list_success(
    frames: Sequence[int],
    answer: Sequence[Sequence[int]],
    ordered: bool,
    scoring: Scoring = "published",
) -> bool:
    """HL success from valid-frame lists (frames already mapped into the answer's index space).

    Single-goal instructions are existential: one sub-list, any frame in it succeeds.
    """
    if len(answer) == 1:
        return len(frames) == 1 and frames[0] in answer[0] and frames[0] >= 0
    sets = [frozenset(sub) - {-1} for sub in answer]
    satisfied = [{j for j, s in enumerate(sets) if f in s} for f in frames]
    return sequence_success(satisfied, len(answer), ordered, scoring)


def exact_accuracy(pred: Sequence[Sequence[int]], gt: Sequence[Sequence[int]]) -> float:
    """1.0 when the predicted lists equal the ground-truth lists, else 0.0."""
    return float([list(p) for p in pred] == [list(g) for g in gt])


def relaxed_accuracy(
    pred: Sequence[Sequence[int]], gt: Sequence[Sequence[int]], *, scoring: Scoring = "published"
) -> float:
    """Product over sub-lists of the fraction of predicted indices inside the ground-truth list.

    0 when the sub-list counts differ. Both sides empty counts 1; one side empty counts 0 in the
    published definition, while the official code skips such sub-lists (counts them as 1).
    """
    if len(pred) != len(gt):
        return 0.0
    score = 1.0
    for p, g in zip(pred, gt, strict=True):
        if not p and not g:
            continue
        if not p or not g:
            if scoring == "official":
                continue
            return 0.0
        gset = set(g)
        score *= sum(i in gset for i in p) / len(p)
    return score


def hl_spl(success: bool, d_nearest: float, d_chosen: float) -> float:
    """d_nearest / max(d_nearest, d_chosen), 0 when HL failed. Distances from the start pose."""
    if not success:
        return 0.0
    denom = max(d_nearest, d_chosen)
    return 1.0 if denom <= 0 else float(d_nearest / denom)



@dataclass(frozen=True)
class CaseFacts:
    """What a declared metric's code reads of one scored case."""

    case: QACase
    record: Mapping[str, Any] | None  # None: the case has no record (it counts as missing)
    row: Mapping[str, Any]  # the scorer's row so far: failure, parse_error, the built-ins
    episode: EpisodeAnnotations | None  # generated suites' per-frame annotations
    scoring: Scoring


@dataclass(frozen=True)
class FindingDoryMetric(Metric):
    """A FindingDory metric; ``value`` is its code when ``scoring.score_case`` does not compute
    it: called once per scored case (a missing one too), after the built-ins."""

    value: Callable[[CaseFacts], float | None] | None = None


NEEDS_ANNOTATIONS = (
    "needs per-frame distances, angles and coverage (generated episodes); "
    "this suite has only valid-frame lists"
)

# The one declaration of FindingDory's metrics, in summary.json's order. A metric with an n/a
# reason starts a case's row as None (n/a), one without as 0.0 (a failure).
METRICS: tuple[FindingDoryMetric, ...] = (
    FindingDoryMetric(
        "hl_sr", "HL-SR",
        "the chosen frame(s) satisfy the goal: a single-goal frame in the valid list; "
        "multi-goal frames each satisfy one new sub-goal (in order when ordered)"),
    FindingDoryMetric(
        "dtg_sr", "DTG-SR",
        "HL check with the coverage test off (distance + angle); needs annotations",
        na_reason=NEEDS_ANNOTATIONS),
    FindingDoryMetric(
        "sc_sr", "SC-SR",
        "HL check with the distance test off (coverage + angle); needs annotations",
        na_reason=NEEDS_ANNOTATIONS),
    FindingDoryMetric(
        "hl_spl", "HL-SPL",
        "single-goal only: d_nearest / max(d_nearest, d_chosen) from the start pose; 0 when "
        "HL fails",
        na_reason=NEEDS_ANNOTATIONS + "; and defined for single-goal tasks only",
        note="HL-SPL is averaged over single-goal instances only (the published definition)"),
    FindingDoryMetric(
        "ll_sr", "LL-SR", "the goal holds when the low-level policy calls STOP",
        na_reason="no low-level rollout recorded for this run"),
    FindingDoryMetric(
        "ll_spl", "LL-SPL", "LL success * L* / max(L*, L)",
        na_reason="no low-level rollout recorded, or no geodesic distances to compute L*"),
    FindingDoryMetric("exact_acc", "exact acc.", "predicted lists equal the answer lists"),
    FindingDoryMetric(
        "relaxed_acc", "relaxed acc.",
        "per sub-list fraction of predicted frames inside the valid list (product)"),
)
