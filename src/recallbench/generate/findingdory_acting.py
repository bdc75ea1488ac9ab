"""Acting out a planned FindingDory day in the env: one recorded frame per robot step, the
images rendered only once the whole day succeeded."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import body_pos
from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from recallbench.generate.findingdory_look import look_actions
from recallbench.generate.findingdory_plan import (
    CARRY,
    CLEAR_Z,
    GRASP_ABOVE,
    HOLD_STEPS,
    MAX_NAV_STEPS,
    REACH_STEPS,
    RETRACT_STEPS,
    SETTLE_STEPS,
    DayFailed,
    Leg,
    face_yaw,
    on_top,
)
from recallbench.world.env import HomeEnv
from recallbench.world.navigation import DiscreteAction, GreedyGeodesicFollower
from recallbench.world.objects import SPHERE_COLLIDERS

if TYPE_CHECKING:
    import mujoco

# A neighbour may roll or be nudged this far (m) while the arm works; knocked over or off its
# surface (a height change), the home is rejected.
NUDGE_XY = 0.1
SETTLE_SECONDS = 5.0  # physics run before the day starts

FrameSink = Callable[[int, np.ndarray], None]


def _refresh_poses(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """The pose refresh ``HomeEnv.step`` does after physics (all that renders read)."""
    import mujoco  # loaded by the env already

    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_camlight(model, data)


class DayActor:
    """Executes legs in the env, recording one frame (pose, time, rgb) per robot step.

    The images are rendered after the day succeeded (``replay``): a home the day fails in
    (found only while acting) then costs its physics, not its renders and video encoding. A
    frame stores what a render reads that the day changes, the joint and mocap poses.
    """

    def __init__(self, env: HomeEnv, knobs: FindingDoryKnobs, sink: FrameSink) -> None:
        self.env, self.knobs, self.sink = env, knobs, sink
        self.follower = GreedyGeodesicFollower(env.nav_grid)
        self.poses: list[np.ndarray] = []
        self.rgb_renders = 0
        self._shots: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # states to render
        self._shot_of: list[int] = []  # per frame: its image's index in _shots

    @property
    def frame(self) -> int:
        return len(self.poses)

    def record(self, render: bool = True) -> None:
        if self.frame >= self.knobs.steps:
            raise DayFailed(f"the day needs more than {self.knobs.steps} steps")
        if render or not self._shots:
            d = self.env.data
            self._shots.append((d.qpos.copy(), d.mocap_pos.copy(), d.mocap_quat.copy()))
            self.rgb_renders += 1
        self._shot_of.append(len(self._shots) - 1)
        self.poses.append(self.env.base_pose())

    def replay(self) -> None:
        """Render the recorded frames in order into the sink; the env ends as it was."""
        import mujoco  # loaded by the env already

        m, d = self.env.model, self.env.data
        spec = mujoco.mjtState.mjSTATE_INTEGRATION  # everything physics carries forward
        end = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, end, spec)
        w, h = self.knobs.width, self.knobs.height
        img: np.ndarray | None = None
        shown = -1
        try:
            for f, k in enumerate(self._shot_of):
                if k != shown:
                    d.qpos[:], d.mocap_pos[:], d.mocap_quat[:] = self._shots[k]
                    _refresh_poses(m, d)
                    img, shown = self.env.render_camera("robot0_head", w, h), k
                assert img is not None
                self.sink(f, img)  # an idle frame passes the same array again
        finally:
            mujoco.mj_setState(m, d, end, spec)
            _refresh_poses(m, d)

    def idle(self, n: int) -> None:
        for _ in range(max(0, n)):
            self.record(render=False)  # nothing moves: the last image is the frame

    def wait(self, n: int, stops: list[int], back: bool) -> None:
        """``n`` frames looking at ``stops`` (headings in turn steps, ``findingdory_look``);
        with ``back`` the robot ends exactly at the pose it started from."""
        pose = self.env.base_pose()
        for a in look_actions(stops, n, back, self.knobs.longest_hold()):
            if a is None:
                self.record(render=False)
            else:
                self.env.step_discrete(int(a))
                self.record()
        if back:
            self._hold_base(pose)  # ten-degree turns there and back may differ in the last bit

    def drive(self, leg: Leg) -> None:
        if leg.actions is not None and leg.end is not None:
            for a in leg.actions:
                self.env.step_discrete(a)
                self.record()
            if np.allclose(self.env.base_pose(), leg.end, atol=1e-9):
                return
            # should not happen (the world is deterministic); finish with the live follower
        yaw = face_yaw(leg.goal, leg.face)
        for _ in range(MAX_NAV_STEPS):
            a = self.follower.act(self.env.base_pose(), leg.goal, goal_yaw=yaw)
            if a == DiscreteAction.STOP:
                if self.follower.status != "arrived":
                    raise DayFailed(f"{leg.kind} leg: stopped ({self.follower.status})")
                return
            self.env.step_discrete(int(a))
            self.record()
        raise DayFailed(f"{leg.kind} leg: no arrival within {MAX_NAV_STEPS} steps")

    def _arm_path(self, waypoints: list[np.ndarray], max_steps: int, tol: float = 0.02) -> float:
        """Move the grip site through points in the base frame; one frame per arm step.

        Returns the distance left to the last point (all points but the last are passed
        within 0.03 m).
        """
        steps = 0
        for n, goal in enumerate(waypoints):
            goal_tol = tol if n == len(waypoints) - 1 else 0.03
            while steps < max_steps:
                err = float(np.linalg.norm(goal - self.env.eef_pos_base()))
                if err <= goal_tol:
                    break
                act = np.zeros(self.env.action_dim)
                act[0:3] = np.clip((goal - self.env.eef_pos_base()) / 0.05, -1.0, 1.0)
                self.env.step(act)
                self.record()
                steps += 1
        return float(np.linalg.norm(waypoints[-1] - self.env.eef_pos_base()))

    def _over(self, target: np.ndarray, travel_z: float) -> list[np.ndarray]:
        """Up at the current reach, across at ``travel_z``, then straight down to ``target``:
        the gripper (and what it holds) passes over the other objects, never through them."""
        cur = self.env.eef_pos_base()
        z = max(travel_z, target[2])
        return [np.array([cur[0], cur[1], z]), np.array([target[0], target[1], z]), target]

    def _back(self, travel_z: float) -> list[np.ndarray]:
        """Straight up to ``travel_z``, back over the base, then down to the carry pose."""
        cur = self.env.eef_pos_base()
        z = max(travel_z, cur[2])
        return [np.array([cur[0], cur[1], z]), np.array([CARRY[0], CARRY[1], z]), CARRY]

    def _to_base(self, world: np.ndarray) -> np.ndarray:
        x, y, yaw = self.env.base_pose()
        base_z = self.env.data.xpos[self.env.model.body("mobilebase0_base").id][2]
        d = world - np.array([x, y, base_z])
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], d[2]])

    def _hold_base(self, pose: np.ndarray) -> None:
        # Arm motions may nudge the base by a hair through contacts; put it back exactly so
        # the planned (dry-run) navigation stays exact.
        self.env.teleport(pose)

    def _free_objects(self) -> dict[str, np.ndarray]:
        """Positions of the objects the disturbance check watches: those in sight on
        receptacles, except balls and round fruit, which may roll on their own."""
        return {
            o["name"]: body_pos(self.env, o["body_name"])
            for o in self.env.world_meta["objects"]
            if o["initial_location"]["kind"] == "receptacle"
            and o["category"] not in SPHERE_COLLIDERS
        }

    def _check_undisturbed(self, before: dict[str, np.ndarray], moved: str) -> None:
        after = self._free_objects()
        for name, pos in before.items():
            shift = after[name] - pos
            if name != moved and (np.linalg.norm(shift[:2]) > NUDGE_XY or abs(shift[2]) > 0.03):
                raise DayFailed(
                    f"handling {moved} disturbed {name} by {np.round(shift, 3).tolist()}"
                )

    def pick(self, leg: Leg) -> None:
        assert leg.obj is not None  # a pick leg names its object
        env, pose = self.env, self.env.base_pose()
        before = self._free_objects()
        obj = body_pos(env, leg.obj)
        half_height = next(o for o in env.world_meta["objects"] if o["name"] == leg.obj)[
            "half_height"
        ]
        # grasp from just above (the magic grasp reaches 0.15 m), travelling high enough to
        # clear the tallest neighbour
        above = self._to_base(obj + np.array([0.0, 0.0, GRASP_ABOVE]))
        travel = self._to_base(obj)[2] - half_height + CLEAR_Z
        self._arm_path(self._over(above, travel), REACH_STEPS)
        name = env.grasp()
        if name != leg.obj:
            env.release()
            raise DayFailed(f"pick of {leg.obj} grasped {name!r}")
        self._arm_path(self._back(travel), RETRACT_STEPS, tol=0.05)
        self._hold_base(pose)
        self._check_undisturbed(before, leg.obj)

    def place(self, leg: Leg, meta: dict) -> None:
        assert leg.obj is not None and leg.spot is not None  # a place leg names both
        env, pose = self.env, self.env.base_pose()
        before = self._free_objects()
        held = env.held_body()
        if held is None or env.model.body(held).name != leg.obj:
            raise DayFailed(f"place of {leg.obj}: not holding it")
        offset = body_pos(env, leg.obj) - env.data.site_xpos[env._eef_site]
        target = self._to_base(leg.spot - offset)
        travel = target[2] + 0.1
        err = self._arm_path(self._over(target, travel), REACH_STEPS)
        # hold still before letting go: the arm servos lag their targets, and an object
        # released while still moving tips over or slides off
        for _ in range(HOLD_STEPS):
            env.step(np.zeros(env.action_dim))
            self.record()
        env.release()
        for _ in range(SETTLE_STEPS):
            env.step(np.zeros(env.action_dim))
            self.record()
        self._arm_path(self._back(travel), RETRACT_STEPS, tol=0.05)
        self._hold_base(pose)
        rec = next(r for r in meta["receptacles"] if r["name"] == leg.receptacle)
        obj = next(o for o in meta["objects"] if o["name"] == leg.obj)
        pos = body_pos(env, leg.obj)
        if not on_top(env, rec, pos, obj["half_height"]):
            raise DayFailed(
                f"{leg.obj} did not come to rest on {leg.receptacle} (reach error {err:.3f} m, "
                f"now at {np.round(pos, 3).tolist()}, spot {np.round(leg.spot, 3).tolist()})"
            )
        self._check_undisturbed(before, leg.obj)


def settle(env: HomeEnv, seconds: float = SETTLE_SECONDS) -> None:
    """Let the house come to rest before the day (and its video) starts: a round object left
    on a slightly uneven top may roll for a while once physics runs."""
    for _ in range(int(seconds * env.control_freq)):
        env.step(np.zeros(env.action_dim))
