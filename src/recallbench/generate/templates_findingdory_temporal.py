# ruff: noqa: E501 - template sentences are kept whole so they can be read and grepped
"""FindingDory's Single-Goal Temporal Tasks (21 of the 60): when and in what order the robot
did things (Interaction Order, Time-Based, Duration Tracking).

Rows are ``(task_id, low-level category, template sentence, generator)`` in the public order;
``templates_findingdory.TASKS`` joins the three groups.
"""

from __future__ import annotations

from recallbench.generate.findingdory_goals import (
    Gen,
    between,
    duration,
    most_time_room,
    ordinal,
    relative,
    time_based,
)

TEMPORAL_TASKS: tuple[tuple[str, str, str, Gen], ...] = (
    # Interaction Order (16)
    (
        "order_ordinal_object",
        "Interaction Order",
        "Navigate to the {ordinal} object that you interacted with yesterday.",
        ordinal(lambda c, k: c.obj_i[k]),
    ),
    (
        "order_ordinal_picked_receptacle",
        "Interaction Order",
        "Navigate to the {ordinal} receptacle that you picked an object from.",
        ordinal(lambda c, k: c.picked[k]),
    ),
    (
        "order_ordinal_placed_receptacle",
        "Interaction Order",
        "Navigate to the {ordinal} receptacle that you placed an object on.",
        ordinal(lambda c, k: c.placed[k]),
    ),
    (
        "order_receptacle_of_ordinal_object",
        "Interaction Order",
        "Navigate to the receptacle that you picked the {ordinal} object from.",
        ordinal(lambda c, k: c.picked[k]),
    ),
    (
        "order_object_of_ordinal_receptacle",
        "Interaction Order",
        "Navigate to the object that you picked from the {ordinal} receptacle.",
        ordinal(lambda c, k: c.obj_i[k]),
    ),
    (
        "order_object_after",
        "Interaction Order",
        "Navigate to the object you interacted with immediately after ending the interaction with {obj}.",
        relative((1,), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_object_before",
        "Interaction Order",
        "Navigate to the object you interacted with immediately before starting the interaction with {obj}.",
        relative((-1,), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_picked_receptacle_after",
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from right after you finished interacting with {obj}.",
        relative((1,), lambda c, j: c.picked[j]),
    ),
    (
        "order_placed_receptacle_before",
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on right before you started interacting with {obj}.",
        relative((-1,), lambda c, j: c.placed[j]),
    ),
    (
        "order_object_n_before",
        "Interaction Order",
        "Navigate to the object you interacted with {n} interactions before starting the interaction with {obj}.",
        relative(range(-2, -12, -1), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_object_n_after",
        "Interaction Order",
        "Navigate to the object you interacted with {n} interactions after ending the interaction with {obj}.",
        relative(range(2, 12), lambda c, j: c.obj_i[j]),
    ),
    (
        "order_placed_receptacle_n_before",
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on {n} interactions before you started interacting with {obj}.",
        relative(range(-2, -12, -1), lambda c, j: c.placed[j]),
    ),
    (
        "order_picked_receptacle_n_after",
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from {n} interactions after you finished interacting with {obj}.",
        relative(range(2, 12), lambda c, j: c.picked[j]),
    ),
    (
        "order_object_between",
        "Interaction Order",
        "Navigate to the object that you interacted with between the interactions with {obj} and {obj2}.",
        between(lambda c, m: c.obj_i[m]),
    ),
    (
        "order_picked_receptacle_between",
        "Interaction Order",
        "Navigate to the receptacle that you picked an object from between the interactions with {obj} and {obj2}.",
        between(lambda c, m: c.picked[m]),
    ),
    (
        "order_placed_receptacle_between",
        "Interaction Order",
        "Navigate to the receptacle that you placed an object on between the interactions with {obj} and {obj2}.",
        between(lambda c, m: c.placed[m]),
    ),
    # Time-Based (2)
    (
        "time_receptacle",
        "Time-Based",
        "Navigate to the receptacle that you interacted with at {time} yesterday.",
        time_based("receptacle"),
    ),
    (
        "time_object",
        "Time-Based",
        "Navigate to the object that you interacted with at {time} yesterday.",
        time_based("object"),
    ),
    # Duration Tracking (3)
    (
        "duration_shortest",
        "Duration Tracking",
        "Navigate to to the object which took the shortest time to rearrange.",
        duration(False),
    ),
    (
        "duration_longest",
        "Duration Tracking",
        "Navigate to to the object which took the longest time to rearrange.",
        duration(True),
    ),
    (
        "duration_room",
        "Duration Tracking",
        "Navigate to to the room that you spent most time in.",
        most_time_room,
    ),
)
