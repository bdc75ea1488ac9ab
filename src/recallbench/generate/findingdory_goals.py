"""What FindingDory's instruction templates are made of: the day as the templates read it
(``Ctx``), and one generator per kind of template that yields (slot values, goals) for every
instance the day supports. Goals are entity ids, one tuple per sub-goal; ``answer_frames`` turns
them into valid frames (a frame is valid for a sub-goal when the goal predicate of any of its
entities holds there: single-goal instructions are existential)."""

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
class Ctx:
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
Gen = Callable[[Ctx], Iterator[tuple[dict[str, str], Goals]]]


def one(ids) -> Goals | None:
    ids = tuple(_unique(ids))
    return (ids,) if ids else None


def _by_cat(c: Ctx, ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for i in ids:
        out.setdefault(c.name(i), []).append(i)
    return out


# ------------------------------------------------------------------- generators, per template
def static(goal: Callable[[Ctx], Goals | None]) -> Gen:
    def gen(c: Ctx):
        g = goal(c)
        if g:
            yield {}, g

    return gen


def farthest(ids: Callable[[Ctx], Sequence[str]]) -> Gen:
    return static(lambda c: (lambda f: (f,) if f else None)(c.farthest(ids(c))))


def object_recall(kind: str) -> Gen:
    def gen(c: Ctx):
        ids = c.objects if kind == "object" else c.receptacles
        for name, group in sorted(_by_cat(c, ids).items()):
            yield {"category": name}, (tuple(group),)

    return gen


def duration(longest: bool) -> Gen:
    def gen(c: Ctx):
        d = [it.end - it.start for it in c.its]
        best = max(d) if longest else min(d)
        if d.count(best) == 1:
            yield {}, ((c.obj_i[d.index(best)],),)

    return gen


def most_time_room(c: Ctx):
    counts = [(int(c.ann.in_room[:, c.ann.entity_index(r)].sum()), r) for r in c.rooms]
    counts.sort()
    if counts and counts[-1][0] > 0 and (len(counts) < 2 or counts[-1][0] > counts[-2][0]):
        yield {}, ((counts[-1][1],),)


def _clock(hhmm: str) -> str:
    h, m = hhmm.split(":")
    return f"{int(h)}:{m}"


def time_based(kind: str) -> Gen:
    """A time within one interaction (object) or one pick/place (receptacle), and only there."""

    def gen(c: Ctx):
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


def revisit(ids: Callable[[Ctx], Sequence[str]], minimum: int = 2) -> Gen:
    def gen(c: Ctx):
        goals = _unique(ids(c))
        if len(goals) >= minimum:
            yield {}, tuple((g,) for g in goals)

    return gen


def revisit_cat(ids: Callable[[Ctx], Sequence[str]]) -> Gen:
    def gen(c: Ctx):
        for name, group in sorted(_by_cat(c, _unique(ids(c))).items()):
            yield {"recep": name}, tuple((g,) for g in group)

    return gen


def ordered(ids: Callable[[Ctx], Sequence[str]]) -> Gen:
    def gen(c: Ctx):
        goals = _unique(ids(c))
        if 2 <= len(goals) <= len(ORDINALS):
            perm = c.rng.permutation(len(goals))
            order = ", ".join(ORDINALS[int(p)] for p in perm)
            yield {"order": order}, tuple((goals[int(p)],) for p in perm)

    return gen


def ordinal(pick: Callable[[Ctx, int], str]) -> Gen:
    def gen(c: Ctx):
        for k in range(min(len(c.its), len(ORDINALS))):
            yield {"ordinal": ORDINALS[k]}, ((pick(c, k),),)

    return gen


def relative(offsets: Sequence[int], pick: Callable[[Ctx, int], str]) -> Gen:
    """Relative to the interaction with a uniquely named object: ``pick(c, k + offset)``."""

    def gen(c: Ctx):
        for k in c.named:
            for off in offsets:
                j = k + off
                if 0 <= j < len(c.its):
                    slots = {"obj": c.name(c.obj_i[k])}
                    if abs(off) > 1:
                        slots["n"] = str(abs(off))
                    yield slots, ((pick(c, j),),)

    return gen


def between(pick: Callable[[Ctx, int], str]) -> Gen:
    def gen(c: Ctx):
        for a in c.named:
            for b in c.named:
                if b >= a + 2:
                    goal = one(pick(c, m) for m in range(a + 1, b))
                    if goal:
                        yield {"obj": c.name(c.obj_i[a]), "obj2": c.name(c.obj_i[b])}, goal

    return gen


def room_of_interaction(placed: bool, by: str) -> Gen:
    def gen(c: Ctx):
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


def unvisited_rooms(c: Ctx):
    rooms = [r for r in c.rooms if not c.ann.in_room[:, c.ann.entity_index(r)].any()]
    if rooms:
        yield {}, (tuple(rooms),)


def attribute(attr: str) -> Gen:
    def gen(c: Ctx):
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


def conditional(slot: str, source: Callable[[Ctx], Sequence[tuple[str, str]]]) -> Gen:
    """``source`` gives (named entity, goal entity) pairs; one instruction per name."""

    def gen(c: Ctx):
        groups: dict[str, list[str]] = {}
        for named, goal in source(c):
            groups.setdefault(c.name(named), []).append(goal)
        for name, goals in sorted(groups.items()):
            yield {slot: name}, (tuple(_unique(goals)),)

    return gen


def not_interacted_recs(c: Ctx) -> list[str]:
    return [r for r in c.receptacles if r not in c.interacted_recs]


def not_interacted_objs(c: Ctx) -> list[str]:
    return [o for o in c.objects if o not in c.obj_i]


# (task id, category, template, generator)


def answer_frames(ann: EpisodeAnnotations, subgoals: Goals) -> list[list[int]]:
    """Valid frames per sub-goal (any entity of the sub-goal satisfied), [-1] where none."""
    sat = ann.satisfied("full")
    out = []
    for goal in subgoals:
        cols = [ann.entity_index(e) for e in goal]
        frames = np.flatnonzero(sat[:, cols].any(axis=1)).tolist()
        out.append(frames or [-1])
    return out
