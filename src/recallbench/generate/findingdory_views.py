"""Which headings a wait may hold: each one rendered small before the day is acted.

A wait holds headings for up to a stride of the offered frames, so a heading whose view the
readability audit counts against the day (over 80% one colour: the dark front of a shelf filling
the frame up close, a bare wall; or no object, receptacle or fixture in view) would be an
offered frame of that kind. The planner asks ``ViewCheck.readable`` for every heading a wait
might hold and keeps those that pass (``findingdory_look.readable_stops``).

The check renders the head camera at ``VIEW_SIZE`` in the world as it is when the day is
planned (its start; the objects a day moves later cover a few percent of a frame) and puts the
simulator state back exactly, so the day acted afterwards is the one it would have been.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from recallbench.generate.frame_readability import (
    IN_VIEW,
    ONE_COLOUR,
    dominant_colour_share,
    instances,
)

if TYPE_CHECKING:
    from recallbench.world.env import HomeEnv

VIEW_SIZE = (48, 64)  # width, height: the portrait head camera's aspect; shares need no detail
TURN = math.radians(10.0)  # FindingDory's turn step


class ViewCheck:
    """``readable(pose, offset)``: does the head camera at ``pose`` turned ``offset`` turn steps
    show more than one colour and some object, receptacle or fixture? Answers are cached."""

    def __init__(self, env: HomeEnv) -> None:
        self.env = env
        self._geom_inst = instances(env)[1]
        self._seen: dict[tuple[bytes, int], bool] = {}

    def readable(self, pose: np.ndarray, offset: int) -> bool:
        key = (np.asarray(pose, dtype=float).tobytes(), int(offset))
        if key not in self._seen:
            self._seen[key] = self._look(np.asarray(pose, dtype=float), int(offset))
        return self._seen[key]

    def _look(self, pose: np.ndarray, offset: int) -> bool:
        import mujoco  # loaded by the env already

        env = self.env
        m, d = env.model, env.data
        spec = mujoco.mjtState.mjSTATE_INTEGRATION  # everything physics carries forward
        saved = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, saved, spec)
        w, h = VIEW_SIZE
        try:
            env.teleport((pose[0], pose[1], pose[2] + offset * TURN), for_render=True)
            rgb = env.render_camera("robot0_head", w, h)
            geom = env.renders.geom_segmentation(d, "robot0_head", w, h)
        finally:
            mujoco.mj_setState(m, d, saved, spec)
            mujoco.mj_forward(m, d)  # positions the state implies, as they were
        inst = np.where(geom >= 0, self._geom_inst[np.maximum(geom, 0)], -1)
        counts = np.bincount(inst.ravel() + 1)[1:]
        in_view = counts.size > 0 and counts.max() / inst.size >= IN_VIEW
        return bool(in_view and dominant_colour_share(rgb) <= ONE_COLOUR)


__all__ = ["VIEW_SIZE", "ViewCheck"]
