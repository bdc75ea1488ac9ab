"""SceneMem acting policies used to check generated suites.

``PrivilegedScenememPolicy`` knows the answer: it reads the probe's fixture from the scenario's
own eval_spec.json (beside the videos it is given) and opens that fixture with the scripted
oracle, through the env's normal 12-dim actions. A suite where it does not reach 100% has a
broken probe. ``DoNothingPolicy`` sends zero actions: it must score 0%, or a probe is already
answered by the start state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.policy import BasePolicy

# Just past the card's 0.5 test: a door opened wide can keep the base from the fixture (a
# bottom-hinged door drops toward the robot).
OPEN_ANGLE = {"side": 0.9, "bottom": 0.6, "slide": 0.38}


class PrivilegedScenememPolicy(BasePolicy):
    """Drives to the probed fixture and opens its door (a cheat: it reads the answer)."""

    def __init__(self) -> None:
        self._fixture: str | None = None
        self._joint: str | None = None
        self._skill: Any = None

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        root = Path(video_paths[0]).resolve().parent.parent
        spec = json.loads((root / "eval_spec.json").read_text())
        from recallbench.benchmarks.scenemem.spec import EvalSpec

        tests = [t for t in EvalSpec.model_validate(spec).tests if t.instruction == instruction]
        if not tests:
            raise ValueError(f"{root / 'eval_spec.json'}: no test with instruction {instruction!r}")
        self._fixture = tests[0].fixture.name
        self._joint = tests[0].fixture.joint_names[0]
        self._skill = None

    def get_action(self, env: Any) -> np.ndarray:
        if self._skill is None:
            from recallbench.generate.oracle import Oracle

            oracle = Oracle(env)
            fx = env.fixture(self._fixture)
            door = next(d["name"] for d in fx["doors"] if d["joint"] == self._joint)
            self._skill = self._plan(oracle, fx, door)
        try:
            return next(self._skill)
        except StopIteration:  # the skill ended (success ends the rollout before this)
            return np.zeros(env.action_dim)


    @staticmethod
    def _plan(oracle: Any, fx: dict, door: str) -> Any:
        """Open the door (or turn the sink handle), then come within reach of the fixture."""
        if fx["type"] == "sink":
            yield from oracle.turn_sink(fx["name"])
        else:
            d = next(x for x in fx["doors"] if x["name"] == door)
            yield from oracle.open_door(fx["name"], door, angle=OPEN_ANGLE[oracle.hinge_kind(d)])
        yield from oracle.approach(fx["name"])


class DoNothingPolicy(BasePolicy):
    """Zero actions every step: the floor every memory policy must beat."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env: Any) -> np.ndarray:
        return np.zeros(env.action_dim)
