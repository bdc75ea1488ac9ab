# ruff: noqa: E501 - template sentences are kept whole so they can be read and grepped
"""FindingDory's Single-Goal Spatial Tasks (30 of the 60): what the robot touched, where it was
and what it looked like (Object Recall, Interaction, Conditional Interaction, Object Attributes,
Spatial Relationship, Room Visitation).

Rows are ``(task_id, low-level category, template sentence, generator)`` in the public order;
``templates_findingdory.TASKS`` joins the three groups.
"""

from __future__ import annotations

from recallbench.generate.findingdory_goals import (
    Gen,
    attribute,
    conditional,
    farthest,
    not_interacted_objs,
    not_interacted_recs,
    object_recall,
    one,
    room_of_interaction,
    static,
    unvisited_rooms,
)

SPATIAL_TASKS: tuple[tuple[str, str, str, Gen], ...] = (
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
)
