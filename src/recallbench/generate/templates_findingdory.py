# ruff: noqa: E501 - template sentences are kept whole so they can be read and grepped
"""FindingDory's 60 instruction templates, instantiated from a generated day.

Each template turns the day's interactions (object, receptacle picked from, receptacle placed on,
rooms, frames) into instructions whose goals are sets of entity ids, one set per sub-goal. The
template sentences are exactly the evaluation side's (``benchmarks/findingdory/templates.py``), so
its template recovery and metrics apply unchanged; "Navigate to a {category}." is two of the 60
tasks (an object category and a receptacle category), as in the public set.

Ground truth follows the published rule: a frame is valid for a sub-goal when the goal predicate
of any entity in that sub-goal holds there (single-goal instructions are existential).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from recallbench.benchmarks.findingdory.annotations import EpisodeAnnotations
from recallbench.benchmarks.findingdory.templates import CATEGORY_GROUP
from recallbench.generate.findingdory_day import Interaction

ORDINALS = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
)
PATTERN_WORDS = {"striped": "stripes"}  # attribute value -> the words "with {pattern} on it"


@dataclass(frozen=True)
class Instruction:
    task_id: str  # one of the 60 task names (TASKS)
    category: str  # FindingDory low-level category
    template: str  # template sentence with {slots}
    question: str  # without the "The robot's goal is: " prefix
    subgoals: tuple[tuple[str, ...], ...]  # entity ids per sub-goal
    ordered: bool = False

    @property
    def high_level_category(self) -> str:
        return CATEGORY_GROUP[self.category]


@dataclass
class _Ctx:
    """What the templates read: the day's interactions and the annotated entities."""

    its: list[Interaction]
    ann: EpisodeAnnotations
    rng: np.random.Generator

    def __post_init__(self) -> None:
        self.ent = {e.id: e for e in self.ann.entities}
        self.cat = {e.id: e.name for e in self.ann.entities}  # readable category
        self.objects = [e.id for e in self.ann.entities if e.kind == "object"]
        self.receptacles = [e.id for e in self.ann.entities if e.kind == "receptacle"]
        self.rooms = [e.id for e in self.ann.entities if e.kind == "room"]
        self.obj_i = [it.object for it in self.its]
        self.picked = [it.pick_receptacle for it in self.its]
        self.placed = [it.place_receptacle for it in self.its]
        self.interacted_recs = _unique(
            r for it in self.its for r in (it.pick_receptacle, it.place_receptacle)
        )
        counts = Counter(self.cat[o] for o in self.obj_i)
        # interactions that a category name identifies unambiguously
        self.named = [k for k, o in enumerate(self.obj_i) if counts[self.cat[o]] == 1]

    def name(self, eid: str) -> str:
        return self.cat[eid]

    def farthest(self, ids: Sequence[str]) -> tuple[str, ...] | None:
        d = [(float(self.ann.start_distance[self.ann.entity_index(i)]), i) for i in ids]
        d = [t for t in d if np.isfinite(t[0])]
        if not d:
            return None
        d.sort()
        if len(d) > 1 and d[-1][0] == d[-2][0]:
            return None  # a tie: "the farthest" would be ambiguous
        return (d[-1][1],)


def _unique(items) -> list[str]:
    out: list[str] = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


Goals = tuple[tuple[str, ...], ...]
Gen = Callable[[_Ctx], Iterator[tuple[dict[str, str], Goals]]]


def _one(ids) -> Goals | None:
    ids = tuple(_unique(ids))
    return (ids,) if ids else None


def _by_cat(c: _Ctx, ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for i in ids:
        out.setdefault(c.name(i), []).append(i)
    return out


# ------------------------------------------------------------------- generators, per template
def _static(goal: Callable[[_Ctx], Goals | None]) -> Gen:
    def gen(c: _Ctx):
        g = goal(c)
        if g:
            yield {}, g

    return gen


def _farthest(ids: Callable[[_Ctx], Sequence[str]]) -> Gen:
    return _static(lambda c: (lambda f: (f,) if f else None)(c.farthest(ids(c))))


def _object_recall(kind: str) -> Gen:
    def gen(c: _Ctx):
        ids = c.objects if kind == "object" else c.receptacles
        for name, group in sorted(_by_cat(c, ids).items()):
            yield {"category": name}, (tuple(group),)

    return gen


def _duration(longest: bool) -> Gen:
    def gen(c: _Ctx):
        d = [it.end - it.start for it in c.its]
        best = max(d) if longest else min(d)
        if d.count(best) == 1:
            yield {}, ((c.obj_i[d.index(best)],),)

    return gen


def _most_time_room(c: _Ctx):
    counts = [(int(c.ann.in_room[:, c.ann.entity_index(r)].sum()), r) for r in c.rooms]
    counts.sort()
    if counts and counts[-1][0] > 0 and (len(counts) < 2 or counts[-1][0] > counts[-2][0]):
        yield {}, ((counts[-1][1],),)


def _clock(hhmm: str) -> str:
    h, m = hhmm.split(":")
    return f"{int(h)}:{m}"


def _time_based(kind: str) -> Gen:
    """A time within one interaction (object) or one pick/place (receptacle), and only there."""

    def gen(c: _Ctx):
        times = c.ann.times
        spans: list[tuple[int, int, str]] = []
        for it in c.its:
            if kind == "object":
                spans.append((it.start, it.end, it.object))
            else:
                spans.append((it.pick_start, it.pick_end, it.pick_receptacle))
                spans.append((it.place_start, it.place_end, it.place_receptacle))
        owner: dict[str, set[str]] = {}
        for s, e, target in spans:
            for f in range(s, e + 1):
                owner.setdefault(times[f], set()).add(target)
        for s, e, target in spans:
            t = times[(s + e) // 2]
            if owner[t] == {target}:
                yield {"time": _clock(t)}, ((target,),)

    return gen


def _revisit(ids: Callable[[_Ctx], Sequence[str]], minimum: int = 2) -> Gen:
    def gen(c: _Ctx):
        goals = _unique(ids(c))
        if len(goals) >= minimum:
            yield {}, tuple((g,) for g in goals)

    return gen


def _revisit_cat(ids: Callable[[_Ctx], Sequence[str]]) -> Gen:
    def gen(c: _Ctx):
        for name, group in sorted(_by_cat(c, _unique(ids(c))).items()):
            yield {"recep": name}, tuple((g,) for g in group)

    return gen


def _ordered(ids: Callable[[_Ctx], Sequence[str]]) -> Gen:
    def gen(c: _Ctx):
        goals = _unique(ids(c))
        if 2 <= len(goals) <= len(ORDINALS):
            perm = c.rng.permutation(len(goals))
            order = ", ".join(ORDINALS[int(p)] for p in perm)
            yield {"order": order}, tuple((goals[int(p)],) for p in perm)

    return gen


def _ordinal(pick: Callable[[_Ctx, int], str]) -> Gen:
    def gen(c: _Ctx):
        for k in range(min(len(c.its), len(ORDINALS))):
            yield {"ordinal": ORDINALS[k]}, ((pick(c, k),),)

    return gen


def _relative(offsets: Sequence[int], pick: Callable[[_Ctx, int], str]) -> Gen:
    """Relative to the interaction with a uniquely named object: ``pick(c, k + offset)``."""

    def gen(c: _Ctx):
        for k in c.named:
            for off in offsets:
                j = k + off
                if 0 <= j < len(c.its):
                    slots = {"obj": c.name(c.obj_i[k])}
                    if abs(off) > 1:
                        slots["n"] = str(abs(off))
                    yield slots, ((pick(c, j),),)

    return gen


def _between(pick: Callable[[_Ctx, int], str]) -> Gen:
    def gen(c: _Ctx):
        for a in c.named:
            for b in c.named:
                if b >= a + 2:
                    goal = _one(pick(c, m) for m in range(a + 1, b))
                    if goal:
                        yield {"obj": c.name(c.obj_i[a]), "obj2": c.name(c.obj_i[b])}, goal

    return gen


def _room_of_interaction(placed: bool, by: str) -> Gen:
    def gen(c: _Ctx):
        def room(k: int) -> str:
            return c.its[k].place_room if placed else c.its[k].pick_room

        if by == "ordinal":
            for k in range(min(len(c.its), len(ORDINALS))):
                yield {"ordinal": ORDINALS[k]}, ((room(k),),)
        else:
            for name, ks in sorted(_by_cat(c, c.obj_i).items()):
                idx = [k for k, o in enumerate(c.obj_i) if o in ks]
                yield {"obj": name}, (tuple(_unique(room(k) for k in idx)),)

    return gen


def _unvisited_rooms(c: _Ctx):
    rooms = [r for r in c.rooms if not c.ann.in_room[:, c.ann.entity_index(r)].any()]
    if rooms:
        yield {}, (tuple(rooms),)


def _attribute(attr: str) -> Gen:
    def gen(c: _Ctx):
        values: dict[str, list[str]] = {}
        for o in _unique(c.obj_i):
            v = str(c.ent[o].attributes.get(attr, ""))
            if attr == "pattern":
                v = PATTERN_WORDS.get(v, "")
            if v:
                values.setdefault(v, []).append(o)
        for v, objs in sorted(values.items()):
            yield {attr: v}, (tuple(objs),)

    return gen


def _conditional(slot: str, source: Callable[[_Ctx], Sequence[tuple[str, str]]]) -> Gen:
    """``source`` gives (named entity, goal entity) pairs; one instruction per name."""

    def gen(c: _Ctx):
        groups: dict[str, list[str]] = {}
        for named, goal in source(c):
            groups.setdefault(c.name(named), []).append(goal)
        for name, goals in sorted(groups.items()):
            yield {slot: name}, (tuple(_unique(goals)),)

    return gen


def _not_interacted_recs(c: _Ctx) -> list[str]:
    return [r for r in c.receptacles if r not in c.interacted_recs]


def _not_interacted_objs(c: _Ctx) -> list[str]:
    return [o for o in c.objects if o not in c.obj_i]


# (task id, category, template, generator)
TASKS: tuple[tuple[str, str, str, Gen], ...] = (
    # Object Recall (2)
    (
        "object_recall_object",
        "Object Recall",
        "Navigate to a {category}.",
        _object_recall("object"),
    ),
    (
        "object_recall_receptacle",
        "Object Recall",
        "Navigate to a {category}.",
        _object_recall("receptacle"),
    ),
    # Interaction (6)
    (
        "interaction_picked_receptacle",
        "Interaction",
        "Navigate to any receptacle you picked an object from.",
        _static(lambda c: _one(c.picked)),
    ),
    (
        "interaction_placed_receptacle",
        "Interaction",
        "Navigate to any receptacle you placed an object on.",
        _static(lambda c: _one(c.placed)),
    ),
    (
        "interaction_untouched_receptacle",
        "Interaction",
        "Navigate to any receptacle you did not interact with.",
        _static(lambda c: _one(_not_interacted_recs(c))),
    ),
    (
        "interaction_any_receptacle",
        "Interaction",
        "Navigate to any receptacle you interacted with.",
        _static(lambda c: _one(c.interacted_recs)),
    ),
    (
        "interaction_any_object",
        "Interaction",
        "Navigate to any object that you interacted with yesterday.",
        _static(lambda c: _one(c.obj_i)),
    ),
    (
        "interaction_untouched_object",
        "Interaction",
        "Navigate to any object that you did not interact with yesterday.",
        _static(lambda c: _one(_not_interacted_objs(c))),
    ),
    # Conditional Interaction (7)
    (
        "conditional_object_from_receptacle",
        "Conditional Interaction",
        "Navigate to the object that you picked from the {recep}.",
        _conditional("recep", lambda c: list(zip(c.picked, c.obj_i, strict=True))),
    ),
    (
        "conditional_receptacle_of_object",
        "Conditional Interaction",
        "Navigate to the receptacle that you picked the {obj} from.",
        _conditional("obj", lambda c: list(zip(c.obj_i, c.picked, strict=True))),
    ),
    (
        "conditional_picked_receptacle",
        "Conditional Interaction",
        "Navigate to a {recep} you picked an object from.",
        _conditional("recep", lambda c: [(r, r) for r in c.picked]),
    ),
    (
        "conditional_placed_receptacle",
        "Conditional Interaction",
        "Navigate to a {recep} you placed an object on.",
        _conditional("recep", lambda c: [(r, r) for r in c.placed]),
    ),
    (
        "conditional_untouched_object",
        "Conditional Interaction",
        "Navigate to a {obj} that you did not interact with yesterday.",
        _conditional("obj", lambda c: [(o, o) for o in _not_interacted_objs(c)]),
    ),
    (
        "conditional_untouched_receptacle",
        "Conditional Interaction",
        "Navigate to a {recep} you did not interact with yesterday.",
        _conditional("recep", lambda c: [(r, r) for r in _not_interacted_recs(c)]),
    ),
    (
        "conditional_interacted_object",
        "Conditional Interaction",
        "Navigate to the {obj} that you interacted with yesterday.",
        _conditional("obj", lambda c: [(o, o) for o in c.obj_i]),
    ),
    # Object Attributes (5)
    (
        "attribute_color",
        "Object Attributes",
        "Navigate to a {color} colored object again that you interacted with yesterday.",
        _attribute("color"),
    ),
    (
        "attribute_material",
        "Object Attributes",
        "Navigate to an already interacted object that is made of {material}.",
        _attribute("material"),
    ),
    (
        "attribute_shape",
        "Object Attributes",
        "Navigate to a {shape} shaped object that you interacted with yesterday.",
        _attribute("shape"),
    ),
    (
        "attribute_pattern",
        "Object Attributes",
        "Navigate to an interacted object with {pattern} on it.",
        _attribute("pattern"),
    ),
    (
        "attribute_function",
        "Object Attributes",
        "Navigate to an object that is used for {function} that you interacted with yesterday.",
        _attribute("function"),
    ),
    # Spatial Relationship (5)
    (
        "farthest_object",
        "Spatial Relationship",
        "Navigate to the object which you interacted with which is the farthest from your current location.",
        _farthest(lambda c: c.obj_i),
    ),
    (
        "farthest_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you interacted with which is the farthest from your current location.",
        _farthest(lambda c: c.interacted_recs),
    ),
    (
        "farthest_placed_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you placed an object on which is the farthest from your current location.",
        _farthest(lambda c: c.placed),
    ),
    (
        "farthest_picked_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you picked an object from which is the farthest from your current location.",
        _farthest(lambda c: c.picked),
    ),
    (
        "farthest_untouched_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you did not interact with which is the farthest from your current location.",
        _farthest(_not_interacted_recs),
    ),
    # Room Visitation (5)
    (
        "room_unvisited",
        "Room Visitation",
        "Navigate to a room that you did not visit yesterday.",
        _unvisited_rooms,
    ),
    (
        "room_picked_ordinal",
        "Room Visitation",
        "Navigate to the room where you picked the {ordinal} object from.",
        _room_of_interaction(False, "ordinal"),
    ),
    (
        "room_placed_ordinal",
        "Room Visitation",
        "Navigate to the room where you placed the {ordinal} object in.",
        _room_of_interaction(True, "ordinal"),
    ),
    (
        "room_picked_object",
        "Room Visitation",
        "Navigate to the room where you picked the {obj} from.",
        _room_of_interaction(False, "obj"),
    ),
    (
        "room_placed_object",
        "Room Visitation",
        "Navigate to the room where you placed the {obj} in.",
        _room_of_interaction(True, "obj"),
    ),
    # Interaction Order (16)
    (
        "order_ordinal_object",
        "Interaction Order",
        "Navigate to the {ordinal} object that you interacted with yesterday.",
        _ordinal(lambda c, k: c.obj_i[k]),
    ),
    (
        "order_ordinal_picked_receptacle",
        "Interaction Order",
        "Navigate to the {ordinal} receptacle that you picked an object from.",
        _ordinal(lambda c, k: c.picked[k]),
    ),
    (
        "order_ordinal_placed_receptacle",
        "Interaction Order",
        "Navigate to the {ordinal} receptacle that you placed an object on.",
        _ordinal(lambda c, k: c.placed[k]),
    ),
    (
        "order_receptacle_of_ordinal_object",
        "Interaction Order",
        "Navigate to the receptacle that you picked the {ordinal} object from.",
        _ordinal(lambda c, k: c.picked[k]),
    ),
    (
        "order_object_of_ordinal_receptacle",
        "Interaction Order",
        "Navigate to the object that you picked from the {ordinal} receptacle.",
        _ordinal(lambda c, k: c.obj_i[k]),
    ),
    (
        "order_object_after",
        "Interaction Order",
        "Navigate to the object you interacted with immediately after ending the interaction with {obj}.",
        _relative((1,), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_object_before",
        "Interaction Order",
        "Navigate to the object you interacted with immediately before starting the interaction with {obj}.",
        _relative((-1,), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_picked_receptacle_after",
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from right after you finished interacting with {obj}.",
        _relative((1,), lambda c, j: c.picked[j]),
    ),
    (
        "order_placed_receptacle_before",
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on right before you started interacting with {obj}.",
        _relative((-1,), lambda c, j: c.placed[j]),
    ),
    (
        "order_object_n_before",
        "Interaction Order",
        "Navigate to the object you interacted with {n} interactions before starting the interaction with {obj}.",
        _relative(range(-2, -12, -1), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_object_n_after",
        "Interaction Order",
        "Navigate to the object you interacted with {n} interactions after ending the interaction with {obj}.",
        _relative(range(2, 12), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_placed_receptacle_n_before",
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on {n} interactions before you started interacting with {obj}.",
        _relative(range(-2, -12, -1), lambda c, j: c.placed[j]),
    ),
    (
        "order_picked_receptacle_n_after",
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from {n} interactions after you finished interacting with {obj}.",
        _relative(range(2, 12), lambda c, j: c.picked[j]),
    ),
    (
        "order_object_between",
        "Interaction Order",
        "Navigate to the object that you interacted with between the interactions with {obj} and {obj2}.",
        _between(lambda c, m: c.obj_i[m]),
    ),
    (
        "order_picked_receptacle_between",
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from between the interactions with {obj} and {obj2}.",
        _between(lambda c, m: c.picked[m]),
    ),
    (
        "order_placed_receptacle_between",
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on between the interactions with {obj} and {obj2}.",
        _between(lambda c, m: c.placed[m]),
    ),
    # Time-Based (2)
    (
        "time_receptacle",
        "Time-Based",
        "Navigate to the receptacle that you interacted with at {time} yesterday.",
        _time_based("receptacle"),
    ),
    (
        "time_object",
        "Time-Based",
        "Navigate to the object that you interacted with at {time} yesterday.",
        _time_based("object"),
    ),
    # Duration Tracking (3)
    (
        "duration_shortest",
        "Duration Tracking",
        "Navigate to to the object which took the shortest time to rearrange.",
        _duration(False),
    ),
    (
        "duration_longest",
        "Duration Tracking",
        "Navigate to to the object which took the longest time to rearrange.",
        _duration(True),
    ),
    (
        "duration_room",
        "Duration Tracking",
        "Navigate to to the room that you spent most time in.",
        _most_time_room,
    ),
    # Unordered Revisitation (6)
    (
        "revisit_receptacles",
        "Unordered Revisitation",
        "Revisit all the receptacles you interacted with yesterday.",
        _revisit(lambda c: c.interacted_recs),
    ),
    (
        "revisit_picked_receptacles",
        "Unordered Revisitation",
        "Revisit all the receptacles you picked objects from yesterday.",
        _revisit(lambda c: c.picked),
    ),
    (
        "revisit_placed_receptacles",
        "Unordered Revisitation",
        "Revisit all the receptacles you placed objects on yesterday.",
        _revisit(lambda c: c.placed),
    ),
    (
        "revisit_objects",
        "Unordered Revisitation",
        "Revisit all the objects you interacted with yesterday.",
        _revisit(lambda c: c.obj_i),
    ),
    (
        "revisit_picked_category",
        "Unordered Revisitation",
        "Revisit all the {recep} you picked objects from yesterday.",
        _revisit_cat(lambda c: c.picked),
    ),
    (
        "revisit_placed_category",
        "Unordered Revisitation",
        "Revisit all the {recep} you placed objects on yesterday.",
        _revisit_cat(lambda c: c.placed),
    ),
    # Ordered Revisitation (3)
    (
        "ordered_placed_receptacles",
        "Ordered Revisitation",
        "Revisit all the receptacles you placed objects on yesterday in specific order. The order to revisit them is: {order}.",
        _ordered(lambda c: c.placed),
    ),
    (
        "ordered_picked_receptacles",
        "Ordered Revisitation",
        "Revisit all the receptacles you picked objects from yesterday in specific order. The order to revisit them is: {order}.",
        _ordered(lambda c: c.picked),
    ),
    (
        "ordered_objects",
        "Ordered Revisitation",
        "Revisit all the objects you interacted with yesterday in specific order. The order to revisit them is: {order}.",
        _ordered(lambda c: c.obj_i),
    ),
)
TASK_IDS: tuple[str, ...] = tuple(t[0] for t in TASKS)


def instructions(
    interactions: list[Interaction],
    ann: EpisodeAnnotations,
    rng: np.random.Generator,
    per_template: int = 2,
) -> list[Instruction]:
    """Instructions for every task the day supports, at most ``per_template`` per task
    (chosen at random among its instances), in TASKS order."""
    ctx = _Ctx(interactions, ann, rng)
    out: list[Instruction] = []
    for task_id, category, template, gen in TASKS:
        found = []
        for slots, goals in gen(ctx):
            question = template.format(**slots)
            if any(i.question == question for i in found):
                continue
            found.append(
                Instruction(
                    task_id,
                    category,
                    template,
                    question,
                    goals,
                    ordered=category == "Ordered Revisitation",
                )
            )
        # Like the public set, mostly solvable instances: an unsolvable one (no valid frame,
        # e.g. an object never seen) is only kept when the task has nothing else to ask.
        solvable = [i for i in found if all(-1 not in a for a in answer_frames(ann, i.subgoals))]
        found = solvable or found
        if len(found) > per_template:
            keep = sorted(rng.choice(len(found), per_template, replace=False).tolist())
            found = [found[i] for i in keep]
        out.extend(found)
    return out


def answer_frames(ann: EpisodeAnnotations, subgoals: Goals) -> list[list[int]]:
    """Valid frames per sub-goal (any entity of the sub-goal satisfied), [-1] where none."""
    sat = ann.satisfied("full")
    out = []
    for goal in subgoals:
        cols = [ann.entity_index(e) for e in goal]
        frames = np.flatnonzero(sat[:, cols].any(axis=1)).tolist()
        out.append(frames or [-1])
    return out
