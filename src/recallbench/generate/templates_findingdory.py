"""FindingDory's 60 instruction templates, instantiated from a generated day.

Each template turns the day's interactions (object, receptacle picked from, receptacle placed on,
rooms, frames) into instructions whose goals are sets of entity ids, one set per sub-goal. The
template sentences are exactly the evaluation side's (``benchmarks/findingdory/templates.py``), so
its template recovery and metrics apply unchanged; "Navigate to a {category}." is two of the 60
tasks (an object category and a receptacle category), as in the public set.

Ground truth follows the published rule: a frame is valid for a sub-goal when the goal predicate
of any entity in that sub-goal holds there (single-goal instructions are existential).

The tasks are kept in one module per group of the evaluation side's taxonomy (spatial, temporal,
multi-goal); ``TASKS`` is their concatenation in the public order.
"""

from __future__ import annotations

from recallbench.generate.findingdory_goals import Gen
from recallbench.generate.templates_findingdory_multigoal import MULTI_GOAL_TASKS
from recallbench.generate.templates_findingdory_spatial import SPATIAL_TASKS
from recallbench.generate.templates_findingdory_temporal import TEMPORAL_TASKS

TASKS: tuple[tuple[str, str, str, Gen], ...] = SPATIAL_TASKS + TEMPORAL_TASKS + MULTI_GOAL_TASKS
TASK_IDS: tuple[str, ...] = tuple(t[0] for t in TASKS)
