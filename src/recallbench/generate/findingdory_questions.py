"""Which instructions an episode asks: about ``questions`` of them, allocated to categories by
the public validation set's mix, each category's instances chosen so that their valid windows
match val's width for the category (what chance and priors score depends on it)."""

from __future__ import annotations

import math

import numpy as np

from recallbench.benchmarks.findingdory.annotations import EpisodeAnnotations
from recallbench.benchmarks.findingdory.templates import is_multi_goal, is_ordered
from recallbench.generate.findingdory_day import Interaction
from recallbench.generate.findingdory_goals import Ctx, Gen, Instruction, answer_frames
from recallbench.generate.templates_findingdory import TASK_IDS, TASKS

# Instances per category in the public validation set (5,876 questions): the quota the
# generator allocates each episode's questions by, so a suite's category mix matches val's.
VAL_CATEGORY_COUNTS = {
    "Object Recall": 200,
    "Interaction": 600,
    "Conditional Interaction": 684,
    "Object Attributes": 491,
    "Spatial Relationship": 480,
    "Room Visitation": 492,
    "Interaction Order": 1530,
    "Time-Based": 200,
    "Duration Tracking": 299,
    "Unordered Revisitation": 600,
    "Ordered Revisitation": 300,
}


# Mean share of the 96 offered frames valid for a goal, per category, in the public
# validation set (``recallbench audit`` of it): instances are chosen to match these.
VAL_WINDOW_WIDTH = {
    "Object Recall": 0.113,
    "Interaction": 0.299,
    "Conditional Interaction": 0.072,
    "Object Attributes": 0.073,
    "Spatial Relationship": 0.052,
    "Room Visitation": 0.262,
    "Interaction Order": 0.078,
    "Time-Based": 0.085,
    "Duration Tracking": 0.189,
    "Unordered Revisitation": 0.068,
    "Ordered Revisitation": 0.067,
}
# Categories with unsolvable instances in val (a goal never seen): only there may a task with
# no solvable instance be asked anyway, with [-1] answers.
UNSOLVABLE_IN_VAL = frozenset(
    {"Interaction", "Conditional Interaction", "Spatial Relationship", "Room Visitation"}
)


def _candidates(
    ctx: Ctx, task: tuple[str, str, str, Gen], offered: np.ndarray | None
) -> list[Instruction]:
    """Every distinct instance of one task the day supports; the solvable ones only (a valid
    frame for every goal among the ``offered`` frames, when given), unless the task has none
    (e.g. "a room that you did not visit", asked with [-1] as in val)."""
    task_id, category, template, gen = task
    found: list[Instruction] = []
    for slots, goals in gen(ctx):
        question = template.format(**slots)
        if any(i.question == question for i in found):
            continue
        found.append(Instruction(task_id, category, template, question, goals,
                                 ordered=is_ordered(category)))
    def solvable(ins: Instruction) -> bool:
        answer = answer_frames(ctx.ann, ins.subgoals)
        if offered is not None:
            return all(np.isin(offered, a).any() for a in answer)
        return all(-1 not in a for a in answer)

    keep = [i for i in found if solvable(i)]
    if keep or category not in UNSOLVABLE_IN_VAL:
        return keep
    return found


def _width(ctx: Ctx, ins: Instruction, offered: np.ndarray | None) -> float:
    """Mean share of the offered frames (all frames when None) valid for the goals."""
    answer = answer_frames(ctx.ann, ins.subgoals)
    if offered is None:
        return float(np.mean([len(set(a) - {-1}) / ctx.ann.num_frames for a in answer]))
    return float(np.mean([np.isin(offered, a).mean() for a in answer]))


def _single_goal_penalty(ins: Instruction) -> float:
    """Revisiting "all the {recep} you picked from" is multi-goal in val for 4 in 10 questions
    (a day's instances: mostly one receptacle of a category), so an instance with several goals
    goes first: single-goal ones are what a prior can guess."""
    return 1.0 if is_multi_goal(ins.category) and len(ins.subgoals) == 1 else 0.0


def _closest(ctx: Ctx, pool: list[Instruction], target: float, offered: np.ndarray | None,
             rng: np.random.Generator) -> list[int]:
    """Indices of a task's instances, those whose valid windows are closest to ``target`` (val's
    width for the category) first, ties broken at random: a suite's windows, hence what
    chance and priors score, then match val's."""
    jitter = rng.uniform(0.0, 0.01, size=len(pool))
    keys = [abs(_width(ctx, ins, offered) - target) + j + _single_goal_penalty(ins)
            for ins, j in zip(pool, jitter, strict=True)]
    return [int(i) for i in np.argsort(keys, kind="stable")]


def category_quota(questions: int, rng: np.random.Generator) -> dict[str, int]:
    """Questions per category for one episode: val's share of ``questions``, rounded up or
    down at random in proportion (unbiased, so a suite's mix converges on val's)."""
    total = sum(VAL_CATEGORY_COUNTS.values())
    return {
        cat: int(math.floor(questions * count / total + rng.random()))
        for cat, count in VAL_CATEGORY_COUNTS.items()
    }


def instructions(
    interactions: list[Interaction],
    ann: EpisodeAnnotations,
    rng: np.random.Generator,
    per_template: int = 2,
    questions: int = 60,
    offered: np.ndarray | None = None,
) -> list[Instruction]:
    """About ``questions`` instructions, allocated to categories by val's quota and, within a
    category, spread over its tasks (round robin in random order, at most ``per_template`` per
    task) and over answers: each turn takes the instance nearest val's window width among those
    whose answer no question of the category asked yet (any, when none is left). A category the
    day cannot fill stays short. Instances solvable among the ``offered`` frames (the K-frame
    subsample) are preferred. Returned in TASKS order."""
    ctx = Ctx(interactions, ann, rng)
    pools = {task[0]: _candidates(ctx, task, offered) for task in TASKS}
    chosen: set[tuple[str, int]] = set()
    for category, quota in category_quota(questions, rng).items():
        tasks = [t[0] for t in TASKS if t[1] == category]
        ranked = {t: _closest(ctx, pools[t], VAL_WINDOW_WIDTH[category], offered, rng)
                  for t in tasks}
        picked = dict.fromkeys(tasks, 0)
        keys = {t: [_answer_key(ctx, ins) for ins in pools[t]] for t in tasks}
        tiers = {t: [_single_goal_penalty(ins) for ins in pools[t]] for t in tasks}
        answers: set[tuple[tuple[int, ...], ...]] = set()
        order = [tasks[int(i)] for i in rng.permutation(len(tasks))]
        taken = 0
        while taken < quota and any(picked[t] < per_template and ranked[t] for t in tasks):
            open_ = [t for t in order if picked[t] < per_template and ranked[t]]
            # a task whose instances all repeat an answer waits while another has a fresh one
            fresh = [t for t in open_ if any(keys[t][i] not in answers for i in ranked[t])]
            for t in fresh or open_:
                if picked[t] < per_template and ranked[t] and taken < quota:
                    i = _fresh_first(keys[t], tiers[t], ranked[t], answers)
                    ranked[t].remove(i)
                    answers.add(keys[t][i])
                    chosen.add((t, i))
                    picked[t] += 1
                    taken += 1
    return [ins for t in TASK_IDS for i, ins in enumerate(pools[t]) if (t, i) in chosen]


def _answer_key(ctx: Ctx, ins: Instruction) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(f) for f in a) for a in answer_frames(ctx.ann, ins.subgoals))


def _fresh_first(
    keys: list[tuple[tuple[int, ...], ...]], tiers: list[float], ranked: list[int], answers: set
) -> int:
    """The best-ranked instance whose valid frames no question of its category asked today
    has, else the best-ranked one, never leaving its tier (a multi-goal task's single-goal
    instances stay last). Val's days ask about the rooms of different chores; without this,
    every room question of a day chose the room whose window is nearest val's width (the start
    room, valid from the first offered frames), so one constant answer scored 70%."""
    return min(ranked, key=lambda i: (tiers[i], keys[i] in answers))
