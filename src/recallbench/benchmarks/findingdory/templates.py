# ruff: noqa: E501 - template sentences are kept whole so they can be read and grepped
"""FindingDory's task taxonomy: the 60 question templates, 11 categories and 3 groups.

The public QA file has no ``task_id``, so the template of a question is recovered from its text:
the question (without the "The robot's goal is: " prefix) is matched against the templates below,
where each ``{slot}`` stands for a slot value (an object, receptacle, ordinal, count, time,
attribute or order list). The template id is the template text itself, e.g.
"Navigate to the room where you picked the {obj} from.". Templates are tried in order, most
specific first, so "{ordinal} object" variants win over "{obj}" ones.
"""

from __future__ import annotations

import re
from functools import lru_cache

PREFIX = "The robot's goal is: "

GROUPS: dict[str, tuple[str, ...]] = {
    "Single-Goal Spatial Tasks": (
        "Object Recall",
        "Interaction",
        "Conditional Interaction",
        "Object Attributes",
        "Spatial Relationship",
        "Room Visitation",
    ),
    "Single-Goal Temporal Tasks": ("Interaction Order", "Time-Based", "Duration Tracking"),
    "Multi-Goal Tasks": ("Unordered Revisitation", "Ordered Revisitation"),
}
CATEGORY_GROUP: dict[str, str] = {c: g for g, cats in GROUPS.items() for c in cats}
CATEGORIES: tuple[str, ...] = tuple(CATEGORY_GROUP)
MULTI_GOAL_CATEGORIES = frozenset(GROUPS["Multi-Goal Tasks"])

_ORD = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|last|"
    r"\d+(?:st|nd|rd|th))"
)
# Slot name -> regex. Anything not listed matches a non-empty lazy run of characters.
_SLOTS = {"ordinal": _ORD, "n": r"\d+", "time": r"\d{1,2}:\d{2}"}

# (category, template). Order matters: specific before general within a shape.
TEMPLATES: tuple[tuple[str, str], ...] = (
    # Spatial Relationship (5)
    (
        "Spatial Relationship",
        "Navigate to the object which you interacted with which is the farthest from your current location.",
    ),
    (
        "Spatial Relationship",
        "Navigate to the receptacle that you interacted with which is the farthest from your current location.",
    ),
    (
        "Spatial Relationship",
        "Navigate to the receptacle that you placed an object on which is the farthest from your current location.",
    ),
    (
        "Spatial Relationship",
        "Navigate to the receptacle that you picked an object from which is the farthest from your current location.",
    ),
    (
        "Spatial Relationship",
        "Navigate to the receptacle that you did not interact with which is the farthest from your current location.",
    ),
    # Interaction (6)
    ("Interaction", "Navigate to any receptacle you picked an object from."),
    ("Interaction", "Navigate to any receptacle you placed an object on."),
    ("Interaction", "Navigate to any receptacle you did not interact with."),
    ("Interaction", "Navigate to any receptacle you interacted with."),
    ("Interaction", "Navigate to any object that you interacted with yesterday."),
    ("Interaction", "Navigate to any object that you did not interact with yesterday."),
    # Duration Tracking (3)
    ("Duration Tracking", "Navigate to to the object which took the shortest time to rearrange."),
    ("Duration Tracking", "Navigate to to the object which took the longest time to rearrange."),
    ("Duration Tracking", "Navigate to to the room that you spent most time in."),
    # Time-Based (2)
    ("Time-Based", "Navigate to the receptacle that you interacted with at {time} yesterday."),
    ("Time-Based", "Navigate to the object that you interacted with at {time} yesterday."),
    # Ordered Revisitation (3)
    (
        "Ordered Revisitation",
        "Revisit all the receptacles you placed objects on yesterday in specific order. The order to revisit them is: {order}.",
    ),
    (
        "Ordered Revisitation",
        "Revisit all the receptacles you picked objects from yesterday in specific order. The order to revisit them is: {order}.",
    ),
    (
        "Ordered Revisitation",
        "Revisit all the objects you interacted with yesterday in specific order. The order to revisit them is: {order}.",
    ),
    # Unordered Revisitation (6)
    ("Unordered Revisitation", "Revisit all the receptacles you interacted with yesterday."),
    ("Unordered Revisitation", "Revisit all the receptacles you picked objects from yesterday."),
    ("Unordered Revisitation", "Revisit all the receptacles you placed objects on yesterday."),
    ("Unordered Revisitation", "Revisit all the objects you interacted with yesterday."),
    ("Unordered Revisitation", "Revisit all the {recep} you picked objects from yesterday."),
    ("Unordered Revisitation", "Revisit all the {recep} you placed objects on yesterday."),
    # Interaction Order (16)
    ("Interaction Order", "Navigate to the {ordinal} object that you interacted with yesterday."),
    ("Interaction Order", "Navigate to the {ordinal} receptacle that you picked an object from."),
    ("Interaction Order", "Navigate to the {ordinal} receptacle that you placed an object on."),
    ("Interaction Order", "Navigate to the receptacle that you picked the {ordinal} object from."),
    ("Interaction Order", "Navigate to the object that you picked from the {ordinal} receptacle."),
    (
        "Interaction Order",
        "Navigate to the object you interacted with immediately after ending the interaction with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the object you interacted with immediately before starting the interaction with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from right after you finished interacting with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on right before you started interacting with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the object you interacted with {n} interactions before starting the interaction with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the object you interacted with {n} interactions after ending the interaction with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on {n} interactions before you started interacting with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from {n} interactions after you finished interacting with {obj}.",
    ),
    (
        "Interaction Order",
        "Navigate to the object that you interacted with between the interactions with {obj} and {obj2}.",
    ),
    (
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from between the interactions with {obj} and {obj2}.",
    ),
    (
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on between the interactions with {obj} and {obj2}.",
    ),
    # Room Visitation (5)
    ("Room Visitation", "Navigate to a room that you did not visit yesterday."),
    ("Room Visitation", "Navigate to the room where you picked the {ordinal} object from."),
    ("Room Visitation", "Navigate to the room where you placed the {ordinal} object in."),
    ("Room Visitation", "Navigate to the room where you picked the {obj} from."),
    ("Room Visitation", "Navigate to the room where you placed the {obj} in."),
    # Object Attributes (5)
    (
        "Object Attributes",
        "Navigate to a {color} colored object again that you interacted with yesterday.",
    ),
    ("Object Attributes", "Navigate to an already interacted object that is made of {material}."),
    (
        "Object Attributes",
        "Navigate to a {shape} shaped object that you interacted with yesterday.",
    ),
    ("Object Attributes", "Navigate to an interacted object with {pattern} on it."),
    (
        "Object Attributes",
        "Navigate to an object that is used for {function} that you interacted with yesterday.",
    ),
    # Conditional Interaction (7)
    ("Conditional Interaction", "Navigate to the object that you picked from the {recep}."),
    ("Conditional Interaction", "Navigate to the receptacle that you picked the {obj} from."),
    ("Conditional Interaction", "Navigate to a {recep} you picked an object from."),
    ("Conditional Interaction", "Navigate to a {recep} you placed an object on."),
    ("Conditional Interaction", "Navigate to a {obj} that you did not interact with yesterday."),
    ("Conditional Interaction", "Navigate to a {recep} you did not interact with yesterday."),
    ("Conditional Interaction", "Navigate to the {obj} that you interacted with yesterday."),
    # Object Recall (1)
    ("Object Recall", "Navigate to a {category}."),
)


def _compile(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[a-z0-9]+\})", template)
    out = []
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            out.append(f"({_SLOTS.get(part[1:-1], '.+?')})")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out) + r"\Z")


_COMPILED = tuple((cat, tpl, _compile(tpl)) for cat, tpl in TEMPLATES)


def strip_prefix(question: str) -> str:
    return question[len(PREFIX) :] if question.startswith(PREFIX) else question


@lru_cache(maxsize=65536)
def template_of(question: str, category: str | None = None) -> str | None:
    """The template a question instantiates, or None when none matches.

    With ``category``, only that category's templates are tried (the QA rows carry it), which
    keeps look-alike templates across categories apart.
    """
    text = strip_prefix(question.strip())
    for cat, tpl, pattern in _COMPILED:
        if category is not None and cat != category:
            continue
        if pattern.match(text):
            return tpl
    return None


def is_ordered(category: str) -> bool:
    return category == "Ordered Revisitation"


def is_multi_goal(category: str) -> bool:
    return category in MULTI_GOAL_CATEGORIES
