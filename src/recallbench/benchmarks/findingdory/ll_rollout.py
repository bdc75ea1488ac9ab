"""FindingDory's low-level (LL) phase: act the chosen frames out in the episode's world.

Per case: the episode's end-of-day world (``episodes/<ep>/world/``, saved by the generator with
the robot at the oracle's final pose) is restored, the LL policy drives toward each chosen
frame's recorded pose in turn with discrete actions (1,000 steps in total), and at every STOP the
goal predicate is checked live at the robot's pose: distances on the navigation grid, angles,
and coverage from a head-camera segmentation rendered there.

The live check is the measurement that wrote the stored per-frame arrays
(``ground_truth.annotate_day``) applied to the stop poses, and the thresholds are
``annotations.predicate_matrix``: one implementation for HL ground truth and LL verdicts.
Its entity set-up costs ~1 s per world, so the stop poses of all cases of one episode are judged
in one call; the policy never sees verdicts, so judging after driving changes nothing. A
multi-goal rollout ends at its first incorrect stop: steps and path length are cut there.

The runner (``recallbench.run.findingdory.run_ll``) appends each outcome to the run log as the
case's record plus ``ll`` (later records win), so HL answers are never lost and an interrupted
LL phase resumes where it stopped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recallbench.benchmarks.findingdory.annotations import (
    MIN_COVERAGE,
    EpisodeAnnotations,
)
from recallbench.benchmarks.findingdory.data import QACase, Suite
from recallbench.benchmarks.findingdory.ll import MAX_STEPS
from recallbench.benchmarks.findingdory.ll_world import EpisodeWorld, LiveCheck, WorldCache
from recallbench.benchmarks.findingdory.metrics import (
    Scoring,
    check_indices,
    greedy_prefix_ok,
    list_success,
    sequence_success,
)
from recallbench.benchmarks.findingdory.protocol import LLGoal, LowLevelPolicy
from recallbench.benchmarks.findingdory.scoring import answer_space_frames, resolve_positions
from recallbench.errors import InputError


@dataclass
class Stop:
    pose: np.ndarray  # (3,) where the policy called STOP
    steps: int  # actions taken up to and including this STOP
    walked: float  # path length (m) up to here


@dataclass
class Drive:
    """What the policy did: its stops in goal order, and where it was when it ended."""

    stops: list[Stop]
    end_pose: np.ndarray
    steps: int
    walked: float
    timed_out: bool
    error: str | None = None
    trail: list[list[float]] = field(default_factory=list)  # base xy after each step


# The LL record keeps the driven path thinned to this many points (for the case viewer's map).
TRAIL_POINTS = 200


def thin_trail(trail: list[list[float]], n: int = TRAIL_POINTS) -> list[list[float]]:
    """At most ``n`` evenly spaced points (first and last kept), rounded to mm."""
    if len(trail) > n:
        trail = [trail[round(i * (len(trail) - 1) / (n - 1))] for i in range(n)]
    return [[round(float(x), 3), round(float(y), 3)] for x, y in trail]


def drive(
    world: EpisodeWorld,
    goals: list[LLGoal],
    policy: LowLevelPolicy,
    *,
    max_steps: int = MAX_STEPS,
) -> Drive:
    """Let the policy act from the start pose toward each goal in turn (shared step budget)."""
    from recallbench.world.navigation import DiscreteAction

    env = world.env
    world.restore()
    env.teleport(world.start)
    pose = env.base_pose().copy()
    steps, walked = 0, 0.0
    stops: list[Any] = []
    trail = [list(pose[:2])]
    try:
        policy.reset(env)
        for goal in goals:
            while True:
                if steps >= max_steps:
                    return Drive(stops, pose, steps, walked, timed_out=True, trail=trail)
                action = DiscreteAction(int(policy.act(pose.copy(), goal)))
                steps += 1
                if action == DiscreteAction.STOP:
                    stops.append(Stop(pose.copy(), steps, walked))
                    break
                env.step_discrete(action)
                new = env.base_pose().copy()
                walked += float(np.hypot(*(new[:2] - pose[:2])))
                pose = new
                trail.append(list(pose[:2]))
    except Exception as exc:  # a failing policy fails this case only: it stops where it is
        stops.append(Stop(pose.copy(), steps, walked))
        return Drive(stops, pose, steps, walked, timed_out=False, error=repr(exc)[:2000],
                     trail=trail)
    return Drive(stops, pose, steps, walked, timed_out=False, trail=trail)


@dataclass
class Pending:
    """A driven case waiting for the live verdicts of its poses."""

    case: QACase
    record: dict[str, Any]
    goals: list[LLGoal]
    drive: Drive
    note: str | None = None
    poses: list[np.ndarray] = field(default_factory=list)


OFFICIAL_HL_FAILED = "HL failed: the official task STOPs at the start pose"


def chosen_goals(
    case: QACase, record: dict[str, Any], episode: EpisodeAnnotations, scoring: Scoring
) -> tuple[list[LLGoal], str | None]:
    """The recorded poses of the frames the agent chose (none when its answer was unusable).

    Official scoring: none either when HL failed (the caller stops at the start pose, a stop
    that fails whatever that pose).
    """
    offered = list(record.get("offered_frames") or [])
    positions, _ = resolve_positions(record, scoring)
    checked = check_indices(positions, len(offered), case.num_targets, scoring=scoring)
    if checked.positions is None:
        if scoring == "official":
            return [], OFFICIAL_HL_FAILED
        return [], f"no usable frame choice ({checked.failure}): the robot stops where it is"
    if scoring == "official":
        frames = answer_space_frames(case, checked.positions, offered)
        if not list_success(frames, case.answer, case.ordered, scoring):
            return [], OFFICIAL_HL_FAILED
    goals = []
    for k, p in enumerate(checked.positions):
        frame = int(offered[p])
        x, y, yaw = (float(v) for v in episode.pose[frame])
        goals.append(LLGoal(index=k, frame=frame, pose=(x, y, yaw)))
    return goals, None


def stop_at_start(world: EpisodeWorld) -> Drive:
    """One STOP at the start pose without moving (no policy call)."""
    start = np.asarray(world.start, dtype=float).copy()
    return Drive([Stop(start.copy(), 1, 0.0)], start, 1, 0.0, timed_out=False)


def outcome(
    case: QACase,
    pend: Pending,
    check: LiveCheck,
    rows: list[int],
    episode: EpisodeAnnotations,
    scoring: Scoring = "published",
) -> dict[str, Any]:
    """The ``ll`` record of one case from its drive and the live verdicts at its poses.

    ``rows[k]`` indexes ``check`` for stop k; the last row is the drive's end pose.
    """
    assert case.subgoals is not None
    cands = [[episode.entity_index(e) for e in sub] for sub in case.subgoals]
    n = len(cands)
    d = pend.drive
    met, fail_at = _met_by_stops(cands, check, rows[: len(d.stops)], case.ordered, scoring)
    success = fail_at is None and not d.timed_out and len(d.stops) == n and d.error is None
    # The official STOP after a failed HL never sets does_want_intermediate_stop, which every
    # goal predicate is ANDed with (pddl_predicate.py): it fails wherever the robot stands.
    success = success and pend.note != OFFICIAL_HL_FAILED
    row, steps, walked, stopped, k = _judged_stop(d, rows, fail_at)
    targets = _stop_targets(cands, met, k, case.ordered)
    dist = float(np.min(check.distance[row, targets])) if targets else math.inf
    out: dict[str, Any] = {
        "success": bool(success),
        "path_length": round(float(walked), 6),
        "steps": int(steps),
        "stopped": bool(stopped),
        "target_in_view": bool(targets and (check.coverage[row, targets] >= MIN_COVERAGE).any()),
        "goal_frames": [g.frame for g in pend.goals],
        "stops": [
            {"pose": [round(float(v), 6) for v in s.pose], "step": s.steps, "met": sorted(m)}
            for s, m in zip(d.stops, met, strict=False)
        ],
        "path": thin_trail(d.trail),
    }
    if math.isfinite(dist):  # JSON has no inf: a missing distance reads back as unreachable
        out["stop_distance"] = round(dist, 6)
    if pend.note:
        out["note"] = pend.note
    if d.error:
        out["policy_error"] = d.error
    return out


def _met_by_stops(cands: list[list[int]], check: LiveCheck, rows: list[int], ordered: bool,
                  scoring: Scoring) -> tuple[list[set[int]], int | None]:
    """Per stop (``rows[k]`` its row in ``check``), the sub-goals it satisfies, up to the first
    stop after which no success is possible; (met, that stop's index or None)."""
    met: list[set[int]] = []
    for k, row in enumerate(rows):
        met.append({g for g, c in enumerate(cands) if check.satisfied[row, c].any()})
        # a prefix of stops must still admit distinct sub-goals (ordered: stop i <-> sub-goal i)
        if not _prefix_ok(met, len(cands), ordered, scoring):
            return met, k
    return met, None


def _judged_stop(d: Drive, rows: list[int], fail_at: int | None
                 ) -> tuple[int, int, float, bool, int]:
    """The pose the record is about: (its row, steps, path walked, stopped, stop index) of the
    failing stop, else the drive's end when it timed out, else the last stop."""
    if fail_at is not None:
        stop = d.stops[fail_at]
        return rows[fail_at], stop.steps, stop.walked, True, fail_at
    if d.timed_out:
        return rows[-1], d.steps, d.walked, False, len(d.stops)
    # success, or fewer stops than sub-goals (no usable answer / a policy error)
    last = len(d.stops) - 1
    row = rows[last] if last >= 0 else rows[-1]
    return row, d.steps, d.walked, True, max(last, 0)


def _stop_targets(cands: list[list[int]], met: list[set[int]], k: int, ordered: bool
                  ) -> list[int]:
    """The sub-goals stop ``k`` (the failing or last one) was meant for: its own in order,
    else the ones still open (all of them when none is)."""
    if ordered:
        return cands[min(k, len(cands) - 1)]
    done = set().union(*met[:k]) if k else set()
    return [e for g, c in enumerate(cands) if g not in done for e in c] or [
        e for c in cands for e in c
    ]


def _prefix_ok(met: list[set[int]], n: int, ordered: bool, scoring: Scoring) -> bool:
    """Can the stops so far still be part of a success? Published: distinct sub-goals exist
    (ordered: stop i <-> sub-goal i); official: every stop locked a new sub-goal greedily."""
    if ordered:
        return all(i in s for i, s in enumerate(met))
    if scoring == "official":
        return greedy_prefix_ok(met, n)
    return sequence_success(met, len(met), ordered)


class LLPhase:
    """Run the LL phase over a run's HL records, one episode world at a time."""

    def __init__(
        self,
        suite: Suite,
        policy: LowLevelPolicy,
        *,
        scoring: Scoring = "published",
        max_steps: int = MAX_STEPS,
        worlds: WorldCache | None = None,
    ) -> None:
        if not suite.generated:
            raise InputError(
                suite.path, "--ll", "the LL phase needs a generated suite with episode worlds"
            )
        self.suite, self.policy, self.scoring, self.max_steps = suite, policy, scoring, max_steps
        self.worlds = worlds or WorldCache(suite)
        # Cases whose served policy lost its server mid-drive (the policy's ``server_lost``):
        # not the policy's fault, so not recorded; --resume drives them again.
        self.lost: list[str] = []

    def run_episode(self, ep_id: str, items: list[tuple[QACase, dict[str, Any]]]) -> list[dict]:
        """Drive every case of one episode, judge all their poses at once, return new records."""
        world = self.worlds.get(ep_id)
        episode = world.episode
        pending, poses = [], []
        for case, record in items:
            goals, note = chosen_goals(case, record, episode, self.scoring)
            if note == OFFICIAL_HL_FAILED:
                d = stop_at_start(world)
            else:
                d = drive(world, goals, self.policy, max_steps=self.max_steps)
                lost = getattr(self.policy, "server_lost", None)
                if lost:
                    self.lost.append(str(lost))
                    continue
            pend = Pending(case, record, goals, d, note)
            pend.poses = [s.pose for s in d.stops] + [d.end_pose]
            pending.append(pend)
            poses.extend(pend.poses)
        check = world.check(np.array(poses)) if poses else None
        out, row = [], 0
        for pend in pending:
            rows = list(range(row, row + len(pend.poses)))
            row += len(pend.poses)
            assert check is not None
            ll = outcome(pend.case, pend, check, rows, episode, self.scoring)
            ll["policy"] = getattr(self.policy, "policy_name", None) or type(self.policy).__name__
            out.append({**pend.record, "ll": ll})
        return out
