"""Scripted skills shared by the generator and the scripted agents: each acts only through
``HomeEnv.step`` (the 12-dim PandaOmron actions) and checks its own success from the simulator
state afterwards.

Every control step goes through ``act``, which also hands the step to an optional recorder
(``on_step(env)``), so a recorded video shows exactly what the actions did. Skills plan with
kinematic look-ups on a scratch ``MjData`` (where is a handle at angle q, does an opened door
sweep through the base), never by moving the real state.

Modules, each building on the one before: ``core`` (stepping, frames, the arm),
``base_motion`` (driving, base poses), ``doors`` (open/close, the sink lever, approach),
``pick_place`` (objects; its ``Oracle`` has every skill).
"""

from recallbench.world.skills.core import Skill, SkillResult
from recallbench.world.skills.pick_place import Oracle

__all__ = ["Oracle", "Skill", "SkillResult"]
