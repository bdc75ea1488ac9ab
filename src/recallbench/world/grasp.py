"""The magic grasp of one loaded world: which bodies the gripper can hold (one inactive weld
equality ``grasp_<body>`` each: objects and door handles), welding the nearest within reach,
letting go, and carrying a held object when the base is moved kinematically.

The grasp is recorded in ``userdata`` (``weld.activate_weld``), so a saved state holds it;
``home.HomeWorld`` keeps whether the gripper is closed."""

from __future__ import annotations

import mujoco
import numpy as np

from recallbench.world.weld import activate_weld, relative_pose, welded_pose


class MagicGrasp:
    """The grasp welds of ``model`` (found once: every equality's name), acting on ``data``."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, eef_body: int,
                 eef_site: int) -> None:
        self.model, self.data = model, data
        self.eef_body, self.eef_site = eef_body, eef_site
        self._userdata = data.userdata  # a view of the data's array (valid for its life)
        self.eq_of: dict[int, int] = {}  # body id -> its weld equality
        for i in range(model.neq):
            if model.equality(i).name.startswith("grasp_"):
                self.eq_of[int(model.eq_obj2id[i])] = i
        self.graspable = np.array(sorted(self.eq_of), dtype=int)
        # free bodies (objects) follow the gripper; the others are door handles
        self.free_joint_of = {
            int(model.jnt_bodyid[i]): i
            for i in range(model.njnt)
            if model.jnt_type[i] == mujoco.mjtJoint.mjJNT_FREE
        }
        self.eqs = np.array(sorted(self.eq_of.values()), dtype=int)

    def held(self) -> int | None:
        """The held body's id (None when nothing is held)."""
        eq = int(self._userdata[0])
        return int(self.model.eq_obj2id[eq]) if eq >= 0 else None

    def weld_nearest(self, reach: float) -> str | None:
        """Weld the nearest graspable body within ``reach`` of the grip site to the gripper, at
        its current relative pose. Returns its name or None."""
        m, d = self.model, self.data
        if self.graspable.size == 0:
            return None
        dist = np.linalg.norm(d.xpos[self.graspable] - d.site_xpos[self.eef_site], axis=1)
        k = int(np.argmin(dist))
        if dist[k] > reach:
            return None
        body = int(self.graspable[k])
        relp, relq = relative_pose(d, self.eef_body, body)
        # objects follow the gripper's orientation; handles only its position (the hinge
        # decides how a door turns)
        torquescale = 1.0 if body in self.free_joint_of else 0.0
        activate_weld(m, d, self.eq_of[body], relp, relq, torquescale)
        return m.body(body).name

    def release(self) -> None:
        eq = int(self.data.userdata[0])
        if eq >= 0:
            self.data.eq_active[eq] = 0
        self.data.userdata[0] = -1.0

    def carry(self, body: int) -> None:
        """Place a welded object at the gripper pose times its weld relpose."""
        m, d = self.model, self.data
        eq = self.eq_of[body]
        pos, quat = welded_pose(d, self.eef_body, m.eq_data[eq, 3:6], m.eq_data[eq, 6:10])
        j = self.free_joint_of[body]
        qa, va = m.jnt_qposadr[j], m.jnt_dofadr[j]
        d.qpos[qa : qa + 3] = pos
        d.qpos[qa + 3 : qa + 7] = quat
        d.qvel[va : va + 6] = 0.0
