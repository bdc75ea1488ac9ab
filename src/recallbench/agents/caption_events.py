"""Reading the pick and place events a text memory's captions tell, to answer order questions.

Sentence similarity cannot tell "the second object you interacted with" from "the first": both
match every caption that mentions an interaction. The captions, though, carry the day's events
in order ("At frame 12 the robot picks up the red mug from the sofa in the living room."), so
the offline answerer rebuilds the list of interactions from them and answers the questions
that are about their order, their objects and receptacles, or their durations, directly: an
object is answered at the frame of its placement (it is where the end-of-day world has it
only from then on), a receptacle at the frame of the pick or place it was used in. Questions
of other kinds (or captions without events) return None, and similarity decides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth")
_EVENT = re.compile(r"At frame (\d+) the robot (picks up|places) the (.+?) (?:from|on) the "
                    r"(.+?)(?: in the ([^.]+))?\.")
_ORD = "(" + "|".join(ORDINALS) + ")"


@dataclass
class Interaction:
    obj: str
    pick_receptacle: str
    pick: int  # stamped position of the pick
    place_receptacle: str = ""
    place: int = -1  # of the placement (-1: not seen)


def interactions(captions: Sequence[tuple[Any, str]]) -> list[Interaction]:
    """The interactions the captions tell, in order of their picks."""
    found: list[Interaction] = []
    seen: set[tuple[int, str]] = set()
    for _, text in captions:
        for m in _EVENT.finditer(text):
            pos, verb, obj, rec = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            if (pos, verb) in seen:
                continue
            seen.add((pos, verb))
            if verb == "picks up":
                found.append(Interaction(obj, rec, pos))
            else:
                for it in reversed(found):
                    if it.obj == obj and it.place < 0:
                        it.place_receptacle, it.place = rec, pos
                        break
    found.sort(key=lambda it: it.pick)
    return [it for it in found if it.place >= 0]


def _named(its: list[Interaction], name: str) -> int | None:
    """The interaction whose object the question names by category ("mug" for "red mug")."""
    hits = [k for k, it in enumerate(its) if it.obj == name or it.obj.endswith(" " + name)]
    return hits[0] if len(hits) == 1 else None


def _frame(its: list[Interaction], k: int, what: str) -> list[int] | None:
    if not 0 <= k < len(its):
        return None
    return [its[k].pick if what == "picked" else its[k].place]


# (pattern, what the answer is at: "picked" = the pick's frame, else the placement's, how the
# interaction is found: "ord" = by ordinal, "rel" = by offset from a named object)
_ORDINAL_RULES = (
    (rf"the {_ORD} object that you interacted with", "placed"),
    (rf"the {_ORD} receptacle that you picked an object from", "picked"),
    (rf"the {_ORD} receptacle that you placed an object on", "placed"),
    (rf"the receptacle that you picked the {_ORD} object from", "picked"),
    (rf"the object that you picked from the {_ORD} receptacle", "placed"),
    (rf"the room where you picked the {_ORD} object from", "picked"),
    (rf"the room where you placed the {_ORD} object in", "placed"),
)
_RELATIVE_RULES = (
    (r"the object you interacted with immediately after ending the interaction with (.+)\.",
     "placed", 1),
    (r"the object you interacted with immediately before starting the interaction with (.+)\.",
     "placed", -1),
    (r"picked an object from right after you finished interacting with (.+)\.", "picked", 1),
    (r"placed an object on right before you started interacting with (.+)\.", "placed", -1),
    (r"the object you interacted with (\d+) interactions before starting the interaction with "
     r"(.+)\.", "placed", -1),
    (r"the object you interacted with (\d+) interactions after ending the interaction with "
     r"(.+)\.", "placed", 1),
    (r"placed an object on (\d+) interactions before you started interacting with (.+)\.",
     "placed", -1),
    (r"picked an object from (\d+) interactions after you finished interacting with (.+)\.",
     "picked", 1),
)
_NAMED_RULES = (
    (r"the receptacle that you picked the (.+?) from\.", "picked"),
    (r"the room where you picked the (.+?) from\.", "picked"),
    (r"the room where you placed the (.+?) in\.", "placed"),
    (r"the (.+?) that you interacted with yesterday\.", "placed"),
)


def _single(q: str, its: list[Interaction]) -> list[int] | None:
    for pattern, what in _ORDINAL_RULES:
        if m := re.search(pattern, q):
            return _frame(its, ORDINALS.index(m.group(1)), what)
    for pattern, what, sign in _RELATIVE_RULES:
        if m := re.search(pattern, q):
            n, name = (int(m.group(1)), m.group(2)) if m.lastindex == 2 else (1, m.group(1))
            k = _named(its, name)
            return None if k is None else _frame(its, k + sign * n, what)
    if m := re.search(r"between the interactions with (.+?) and (.+?)\.", q):
        a, b = _named(its, m.group(1)), _named(its, m.group(2))
        what = "picked" if "picked an object from between" in q else "placed"
        return None if a is None or b is None or b < a + 2 else _frame(its, a + 1, what)
    if m := re.search(r"took the (shortest|longest) time to rearrange", q):
        spans = [it.place - it.pick for it in its]
        best = min(spans) if m.group(1) == "shortest" else max(spans)
        return _frame(its, spans.index(best), "placed") if spans.count(best) == 1 else None
    for pattern, what in _NAMED_RULES:
        if m := re.search(pattern, q):
            k = _named(its, m.group(1))
            return None if k is None else _frame(its, k, what)
    if m := re.search(r"the object that you picked from the (.+?)\.", q):
        hits = [k for k, it in enumerate(its) if it.pick_receptacle == m.group(1)]
        return _frame(its, hits[0], "placed") if len(hits) == 1 else None
    return None


def _revisit(q: str, its: list[Interaction]) -> list[int] | None:
    if "Revisit all the" not in q:
        return None
    if m := re.search(r"The order to revisit them is: (.+)\.", q):
        order = [ORDINALS.index(w.strip()) for w in m.group(1).split(",")]
        what = "picked" if "picked objects from" in q else "placed"
        picks = [_frame(its, k, what) for k in order]
        return None if any(p is None for p in picks) else [p[0] for p in picks if p]
    if "objects you interacted with" in q:
        return [it.place for it in its]
    what = "picked" if "picked objects from" in q else "placed"
    m = re.search(r"Revisit all the (.+?) you (?:picked|placed) objects", q)
    kind = None if m is None or m.group(1) == "receptacles" else m.group(1)
    out: dict[str, int] = {}
    for it in its:
        uses = [(it.pick_receptacle, it.pick), (it.place_receptacle, it.place)]
        if what == "picked" and "interacted with" not in q:
            uses = uses[:1]
        elif what == "placed" and "interacted with" not in q:
            uses = uses[1:]
        for rec, pos in uses:
            if kind is None or rec == kind or rec.endswith(" " + kind):
                out.setdefault(rec, pos)
    return list(out.values())


def answer_from_events(question: str, captions: Sequence[tuple[Any, str]],
                       num_targets: int) -> list[int] | None:
    """Frame positions for an order / object / receptacle question the captions' events
    answer, one per target; None when the question is of another kind or the events do not
    settle it."""
    its = interactions(captions)
    if not its:
        return None
    picks = _revisit(question, its) if num_targets > 1 else _single(question, its)
    if not picks or len(picks) != num_targets:
        return None
    return picks
