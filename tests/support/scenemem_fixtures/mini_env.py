"""A tiny real MuJoCo kitchen with robosuite's env API, so harness tests run in seconds.

Real physics (mj_step), real model compile from XML; only the scene is small: a mobile base on
two slide joints (velocity actuators), a cabinet with a hinged door and a drawer on a slide joint
(motors), and a bowl resting on the floor. It exposes exactly what the SceneMem harness uses from
robosuite: set_ep_meta/get_ep_meta, reset, edit_model_xml, reset_from_xml_string, action_dim,
step, _get_observations, and an ``env.sim`` with robosuite's MjSim subset (model.body_name2id,
model.joint_name2id, data.body_xpos, data.get_joint_qpos, reset, forward,
set_state_from_flattened, get_state().flatten()). The robosuite backend itself is covered by the
robosuite end-to-end test.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

MINI_XML = """
<mujoco model="mini_kitchen">
  <compiler angle="radian"/>
  <option timestep="0.01"/>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1" contype="1" conaffinity="1"/>
    <body name="mobilebase0_base" pos="0 0 0.1">
      <joint name="mobilebase0_x" type="slide" axis="1 0 0" damping="5"/>
      <joint name="mobilebase0_y" type="slide" axis="0 1 0" damping="5"/>
      <geom type="box" size="0.3 0.3 0.08" mass="10" contype="0" conaffinity="0"/>
      <body name="mobilebase0_support" pos="0 0 0.2">
        <geom type="cylinder" size="0.05 0.1" mass="1" contype="0" conaffinity="0"/>
      </body>
    </body>
    <body name="cabinet_main" pos="3 0 0.5">
      <geom type="box" size="0.3 0.3 0.5" pos="0.35 0 0" contype="0" conaffinity="0"/>
      <body name="cabinet_door" pos="0 0.3 0">
        <joint name="cabinet_door_hinge" type="hinge" axis="0 0 1" range="0 1.6" damping="0.5"/>
        <geom type="box" size="0.02 0.3 0.5" pos="0 -0.3 0" mass="2" contype="0" conaffinity="0"/>
      </body>
    </body>
    <body name="drawer_main" pos="-3 2 0.4">
      <geom type="box" size="0.3 0.3 0.3" pos="-0.35 0 0" contype="0" conaffinity="0"/>
      <body name="drawer_box">
        <joint name="drawer_slide" type="slide" axis="1 0 0" range="0 0.6" damping="5"/>
        <geom type="box" size="0.25 0.25 0.1" mass="1" contype="0" conaffinity="0"/>
      </body>
    </body>
    <body name="bowl" pos="0 2 0.06">
      <freejoint name="bowl_joint"/>
      <geom type="sphere" size="0.05" mass="0.2" contype="1" conaffinity="1"/>
    </body>
  </worldbody>
  <actuator>
    <velocity name="base_vx" joint="mobilebase0_x" kv="300" ctrlrange="-1 1" ctrllimited="true"/>
    <velocity name="base_vy" joint="mobilebase0_y" kv="300" ctrlrange="-1 1" ctrllimited="true"/>
    <motor name="door" joint="cabinet_door_hinge" gear="5" ctrlrange="-1 1" ctrllimited="true"/>
    <motor name="drawer" joint="drawer_slide" gear="40" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
</mujoco>
"""

# Action index that opens each fixture (what an oracle policy needs; a real robot uses its arm).
FIXTURE_ACTUATOR = {"cabinet_main": 2, "drawer_main": 3}
SUBSTEPS = 5  # 20 Hz control at a 10 ms physics step, like robosuite's control_freq=20


class _Model:
    def __init__(self, model: mujoco.MjModel) -> None:
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def _id(self, kind: mujoco.mjtObj, name: str) -> int:
        idx = mujoco.mj_name2id(self._model, kind, name)
        if idx < 0:
            raise ValueError(f'No "{kind.name}" with name {name} exists.')
        return idx

    def body_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_BODY, name)

    def joint_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_JOINT, name)


class _Data:
    def __init__(self, model: _Model, data: mujoco.MjData) -> None:
        self._m, self._data = model, data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._data, name)

    @property
    def body_xpos(self) -> np.ndarray:
        return self._data.xpos

    def get_joint_qpos(self, name: str) -> Any:
        jid = self._m.joint_name2id(name)
        adr = self._m.jnt_qposadr[jid]
        size = {0: 7, 1: 4}.get(int(self._m.jnt_type[jid]), 1)
        return self._data.qpos[adr] if size == 1 else self._data.qpos[adr : adr + size].copy()


class _State:
    def __init__(self, flat: np.ndarray) -> None:
        self._flat = flat

    def flatten(self) -> np.ndarray:
        return self._flat.copy()


class MiniSim:
    def __init__(self, xml: str) -> None:
        raw = mujoco.MjModel.from_xml_string(xml)
        self.model = _Model(raw)
        self.data = _Data(self.model, mujoco.MjData(raw))

    def reset(self) -> None:
        mujoco.mj_resetData(self.model._model, self.data._data)

    def forward(self) -> None:
        mujoco.mj_forward(self.model._model, self.data._data)

    def step(self) -> None:
        mujoco.mj_step(self.model._model, self.data._data)

    def get_state(self) -> _State:
        d = self.data._data
        return _State(np.concatenate([[d.time], d.qpos, d.qvel]))

    def set_state_from_flattened(self, value: np.ndarray) -> None:
        nq, nv = self.model.nq, self.model.nv
        d = self.data._data
        d.time = value[0]
        d.qpos[:] = value[1 : 1 + nq]
        d.qvel[:] = value[1 + nq : 1 + nq + nv]


class MiniKitchenEnv:
    def __init__(self, env_name: str, **kwargs: Any) -> None:
        self.env_name = env_name
        self.kwargs = kwargs
        self._ep_meta: dict[str, Any] = {}
        self.sim = MiniSim(MINI_XML)

    def set_ep_meta(self, meta: dict[str, Any]) -> None:
        self._ep_meta = dict(meta)

    def get_ep_meta(self) -> dict[str, Any]:
        return dict(self._ep_meta)

    def reset(self) -> dict[str, np.ndarray]:
        self.sim = MiniSim(MINI_XML)
        self.sim.forward()
        return self._get_observations()

    def edit_model_xml(self, xml: str) -> str:
        return xml

    def reset_from_xml_string(self, xml: str) -> None:
        self.sim = MiniSim(xml)
        self.sim.forward()

    @property
    def action_dim(self) -> int:
        return int(self.sim.model.nu)

    def step(self, action: np.ndarray) -> tuple[dict, float, bool, dict]:
        self.sim.data.ctrl[:] = action
        for _ in range(SUBSTEPS):
            self.sim.step()
        return self._get_observations(), 0.0, False, {}

    def _get_observations(self) -> dict[str, np.ndarray]:
        d = self.sim.data
        return {"base_pos": d.body_xpos[self.sim.model.body_name2id("mobilebase0_support")].copy()}

    def close(self) -> None:
        pass


def make_env(env_name: str, **kwargs: Any) -> MiniKitchenEnv:
    return MiniKitchenEnv(env_name, **kwargs)
