# ruff: noqa: E501 - template sentences are kept whole so they can be read and grepped
"""FindingDory's Multi-Goal Tasks (9 of the 60): revisit every entity of a set, one sub-goal
each, in any order or in a given one (Unordered Revisitation, Ordered Revisitation).

Rows are ``(task_id, low-level category, template sentence, generator)`` in the public order;
``templates_findingdory.TASKS`` joins the three groups.
"""

from __future__ import annotations

from recallbench.generate.findingdory_goals import (
    Gen,
    ordered,
    revisit,
    revisit_cat,
)

MULTI_GOAL_TASKS: tuple[tuple[str, str, str, Gen], ...] = (
    # Unordered Revisitation (6)
    (
        "revisit_receptacles",
        "Unordered Revisitation",
        "Revisit all the receptacles you interacted with yesterday.",
        revisit(lambda c: c.interacted_recs),
    ),
    (
        "revisit_picked_receptacles",
        "Unordered Revisitation",
        "Revisit all the receptacles you picked objects from yesterday.",
        revisit(lambda c: c.picked),
    ),
    (
        "revisit_placed_receptacles",
        "Unordered Revisitation",
        "Revisit all the receptacles you placed objects on yesterday.",
        revisit(lambda c: c.placed),
    ),
    (
        "revisit_objects",
        "Unordered Revisitation",
        "Revisit all the objects you interacted with yesterday.",
        revisit(lambda c: c.obj_i),
    ),
    (
        "revisit_picked_category",
        "Unordered Revisitation",
        "Revisit all the {recep} you picked objects from yesterday.",
        revisit_cat(lambda c: c.picked),
    ),
    (
        "revisit_placed_category",
        "Unordered Revisitation",
        "Revisit all the {recep} you placed objects on yesterday.",
        revisit_cat(lambda c: c.placed),
    ),
    # Ordered Revisitation (3)
    (
        "ordered_placed_receptacles",
        "Ordered Revisitation",
        "Revisit all the receptacles you placed objects on yesterday in specific order. The order to revisit them is: {order}.",
        ordered(lambda c: c.placed),
    ),
    (
        "ordered_picked_receptacles",
        "Ordered Revisitation",
        "Revisit all the receptacles you picked objects from yesterday in specific order. The order to revisit them is: {order}.",
        ordered(lambda c: c.picked),
    ),
    (
        "ordered_objects",
        "Ordered Revisitation",
        "Revisit all the objects you interacted with yesterday in specific order. The order to revisit them is: {order}.",
        ordered(lambda c: c.obj_i),
    ),
)
