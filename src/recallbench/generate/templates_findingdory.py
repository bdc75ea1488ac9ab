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

from recallbench.generate.findingdory_goals import (
    Gen,
    attribute,
    between,
    conditional,
    duration,
    farthest,
    most_time_room,
    not_interacted_objs,
    not_interacted_recs,
    object_recall,
    one,
    ordered,
    ordinal,
    relative,
    revisit,
    revisit_cat,
    room_of_interaction,
    static,
    time_based,
    unvisited_rooms,
)

TASKS: tuple[tuple[str, str, str, Gen], ...] = (
    # Object Recall (2)
    (
        "object_recall_object",
        "Object Recall",
        "Navigate to a {category}.",
        object_recall("object"),
    ),
    (
        "object_recall_receptacle",
        "Object Recall",
        "Navigate to a {category}.",
        object_recall("receptacle"),
    ),
    # Interaction (6)
    (
        "interaction_picked_receptacle",
        "Interaction",
        "Navigate to any receptacle you picked an object from.",
        static(lambda c: one(c.picked)),
    ),
    (
        "interaction_placed_receptacle",
        "Interaction",
        "Navigate to any receptacle you placed an object on.",
        static(lambda c: one(c.placed)),
    ),
    (
        "interaction_untouched_receptacle",
        "Interaction",
        "Navigate to any receptacle you did not interact with.",
        static(lambda c: one(not_interacted_recs(c))),
    ),
    (
        "interaction_any_receptacle",
        "Interaction",
        "Navigate to any receptacle you interacted with.",
        static(lambda c: one(c.interacted_recs)),
    ),
    (
        "interaction_any_object",
        "Interaction",
        "Navigate to any object that you interacted with yesterday.",
        static(lambda c: one(c.obj_i)),
    ),
    (
        "interaction_untouched_object",
        "Interaction",
        "Navigate to any object that you did not interact with yesterday.",
        static(lambda c: one(not_interacted_objs(c))),
    ),
    # Conditional Interaction (7)
    (
        "conditional_object_from_receptacle",
        "Conditional Interaction",
        "Navigate to the object that you picked from the {recep}.",
        conditional("recep", lambda c: list(zip(c.picked, c.obj_i, strict=True))),
    ),
    (
        "conditional_receptacle_of_object",
        "Conditional Interaction",
        "Navigate to the receptacle that you picked the {obj} from.",
        conditional("obj", lambda c: list(zip(c.obj_i, c.picked, strict=True))),
    ),
    (
        "conditional_picked_receptacle",
        "Conditional Interaction",
        "Navigate to a {recep} you picked an object from.",
        conditional("recep", lambda c: [(r, r) for r in c.picked]),
    ),
    (
        "conditional_placed_receptacle",
        "Conditional Interaction",
        "Navigate to a {recep} you placed an object on.",
        conditional("recep", lambda c: [(r, r) for r in c.placed]),
    ),
    (
        "conditional_untouched_object",
        "Conditional Interaction",
        "Navigate to a {obj} that you did not interact with yesterday.",
        conditional("obj", lambda c: [(o, o) for o in not_interacted_objs(c)]),
    ),
    (
        "conditional_untouched_receptacle",
        "Conditional Interaction",
        "Navigate to a {recep} you did not interact with yesterday.",
        conditional("recep", lambda c: [(r, r) for r in not_interacted_recs(c)]),
    ),
    (
        "conditional_interacted_object",
        "Conditional Interaction",
        "Navigate to the {obj} that you interacted with yesterday.",
        conditional("obj", lambda c: [(o, o) for o in c.obj_i]),
    ),
    # Object Attributes (5)
    (
        "attribute_color",
        "Object Attributes",
        "Navigate to a {color} colored object again that you interacted with yesterday.",
        attribute("color"),
    ),
    (
        "attribute_material",
        "Object Attributes",
        "Navigate to an already interacted object that is made of {material}.",
        attribute("material"),
    ),
    (
        "attribute_shape",
        "Object Attributes",
        "Navigate to a {shape} shaped object that you interacted with yesterday.",
        attribute("shape"),
    ),
    (
        "attribute_pattern",
        "Object Attributes",
        "Navigate to an interacted object with {pattern} on it.",
        attribute("pattern"),
    ),
    (
        "attribute_function",
        "Object Attributes",
        "Navigate to an object that is used for {function} that you interacted with yesterday.",
        attribute("function"),
    ),
    # Spatial Relationship (5)
    (
        "farthest_object",
        "Spatial Relationship",
        "Navigate to the object which you interacted with which is the farthest from your current location.",
        farthest(lambda c: c.obj_i),
    ),
    (
        "farthest_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you interacted with which is the farthest from your current location.",
        farthest(lambda c: c.interacted_recs),
    ),
    (
        "farthest_placed_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you placed an object on which is the farthest from your current location.",
        farthest(lambda c: c.placed),
    ),
    (
        "farthest_picked_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you picked an object from which is the farthest from your current location.",
        farthest(lambda c: c.picked),
    ),
    (
        "farthest_untouched_receptacle",
        "Spatial Relationship",
        "Navigate to the receptacle that you did not interact with which is the farthest from your current location.",
        farthest(not_interacted_recs),
    ),
    # Room Visitation (5)
    (
        "room_unvisited",
        "Room Visitation",
        "Navigate to a room that you did not visit yesterday.",
        unvisited_rooms,
    ),
    (
        "room_picked_ordinal",
        "Room Visitation",
        "Navigate to the room where you picked the {ordinal} object from.",
        room_of_interaction(False, "ordinal"),
    ),
    (
        "room_placed_ordinal",
        "Room Visitation",
        "Navigate to the room where you placed the {ordinal} object in.",
        room_of_interaction(True, "ordinal"),
    ),
    (
        "room_picked_object",
        "Room Visitation",
        "Navigate to the room where you picked the {obj} from.",
        room_of_interaction(False, "obj"),
    ),
    (
        "room_placed_object",
        "Room Visitation",
        "Navigate to the room where you placed the {obj} in.",
        room_of_interaction(True, "obj"),
    ),
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
TASK_IDS: tuple[str, ...] = tuple(t[0] for t in TASKS)
