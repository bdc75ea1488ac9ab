"""A thin facade with robosuite's ``MjSim`` API over raw MuJoCo, so code written for robosuite
envs (SceneMem's loading steps and success function) runs unchanged on the built-in world."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

STATE_SPEC = mujoco.mjtState.mjSTATE_INTEGRATION


@dataclass
class MjSimState:
    """robosuite's state triple; ``flatten()`` gives ``[time, qpos, qvel]`` like robosuite."""

    time: float
    qpos: np.ndarray
    qvel: np.ndarray

    def flatten(self) -> np.ndarray:
        return np.concatenate([[self.time], self.qpos, self.qvel])


class ModelView:
    """MjModel plus robosuite's name/id helpers; other attributes pass through."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def _id(self, obj: mujoco.mjtObj, name: str) -> int:
        i = mujoco.mj_name2id(self._model, obj, name)
        if i < 0:
            raise ValueError(f'No "{name}" {obj.name[6:].lower()} in the model')
        return i

    def body_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_BODY, name)

    def joint_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_JOINT, name)

    def geom_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_GEOM, name)

    def site_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_SITE, name)

    def camera_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_CAMERA, name)

    def actuator_name2id(self, name: str) -> int:
        return self._id(mujoco.mjtObj.mjOBJ_ACTUATOR, name)

    def _name(self, obj: mujoco.mjtObj, i: int) -> str | None:
        return mujoco.mj_id2name(self._model, obj, int(i))

    def body_id2name(self, i: int) -> str | None:
        return self._name(mujoco.mjtObj.mjOBJ_BODY, i)

    def joint_id2name(self, i: int) -> str | None:
        return self._name(mujoco.mjtObj.mjOBJ_JOINT, i)

    def geom_id2name(self, i: int) -> str | None:
        return self._name(mujoco.mjtObj.mjOBJ_GEOM, i)

    @property
    def body_names(self) -> tuple[str, ...]:
        return tuple(self._model.body(i).name for i in range(self._model.nbody))

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(self._model.joint(i).name for i in range(self._model.njnt))

    def get_joint_qpos_addr(self, name: str) -> int | tuple[int, int]:
        j = self.joint_name2id(name)
        adr = int(self._model.jnt_qposadr[j])
        width = {0: 7, 1: 4}.get(int(self._model.jnt_type[j]), 1)
        return adr if width == 1 else (adr, adr + width)


class DataView:
    """MjData plus robosuite's getters by name; other attributes pass through."""

    def __init__(self, model: ModelView, data: mujoco.MjData) -> None:
        self._m = model
        self._data = data

    # mujoco-py names that robosuite code uses, mapped to MjData fields
    _ALIASES = {"body_xpos": "xpos", "body_xquat": "xquat", "body_xmat": "xmat"}
    # Fixed-size state arrays: views of buffers an MjData keeps for life, so each is looked up
    # once and then read from this view's own attributes (a rollout reads some every step).
    # Scalars (time, ncon) and per-contact arrays change and are always passed through.
    _STABLE = frozenset({"qpos", "qvel", "qacc", "ctrl", "xpos", "xquat", "xmat", "xipos",
                         "site_xpos", "site_xmat", "geom_xpos", "geom_xmat", "cam_xpos",
                         "cam_xmat", "userdata", "eq_active", "mocap_pos", "mocap_quat"})

    def __getattr__(self, name: str) -> Any:
        field = self._ALIASES.get(name, name)
        value = getattr(self._data, field)
        if field in self._STABLE:
            self.__dict__[name] = value
        return value

    def _qslice(self, name: str, vel: bool) -> slice:
        m = self._m._model
        j = self._m.joint_name2id(name)
        width = {0: 7, 1: 4}.get(int(m.jnt_type[j]), 1)
        if vel:
            adr, width = int(m.jnt_dofadr[j]), {0: 6, 1: 3}.get(int(m.jnt_type[j]), 1)
        else:
            adr = int(m.jnt_qposadr[j])
        return slice(adr, adr + width)

    def get_joint_qpos(self, name: str) -> float | np.ndarray:
        s = self._qslice(name, vel=False)
        v = self._data.qpos[s]
        return float(v[0]) if v.size == 1 else v.copy()

    def get_joint_qvel(self, name: str) -> float | np.ndarray:
        s = self._qslice(name, vel=True)
        v = self._data.qvel[s]
        return float(v[0]) if v.size == 1 else v.copy()

    def set_joint_qpos(self, name: str, value: float | np.ndarray) -> None:
        self._data.qpos[self._qslice(name, vel=False)] = value

    def set_joint_qvel(self, name: str, value: float | np.ndarray) -> None:
        self._data.qvel[self._qslice(name, vel=True)] = value

    def get_body_xpos(self, name: str) -> np.ndarray:
        return self._data.xpos[self._m.body_name2id(name)].copy()

    def get_body_xquat(self, name: str) -> np.ndarray:
        return self._data.xquat[self._m.body_name2id(name)].copy()

    def get_body_xmat(self, name: str) -> np.ndarray:
        return self._data.xmat[self._m.body_name2id(name)].reshape(3, 3).copy()

    def get_site_xpos(self, name: str) -> np.ndarray:
        return self._data.site_xpos[self._m.site_name2id(name)].copy()

    def get_geom_xpos(self, name: str) -> np.ndarray:
        return self._data.geom_xpos[self._m.geom_name2id(name)].copy()


class MjSim:
    """``sim.model`` / ``sim.data`` views, ``get_state``, ``set_state_from_flattened``, ...

    ``set_state_from_flattened`` accepts robosuite's ``[time, qpos, qvel]`` and also MuJoCo's
    full integration state (``full_state()``), which adds actuator targets, active grasp welds
    and the grasp pose kept in ``userdata``. ``on_state_loaded`` lets the env re-sync.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        on_state_loaded: Callable[[bool], None] | None = None,
    ) -> None:
        self.model = ModelView(model)
        self.data = DataView(self.model, data)
        self._raw_model = model
        self._raw_data = data
        self._on_state_loaded = on_state_loaded

    def get_state(self) -> MjSimState:
        d = self._raw_data
        return MjSimState(float(d.time), d.qpos.copy(), d.qvel.copy())

    def set_state(self, state: MjSimState) -> None:
        self.set_state_from_flattened(state.flatten())

    def full_state(self) -> np.ndarray:
        size = mujoco.mj_stateSize(self._raw_model, STATE_SPEC)
        out = np.empty(size)
        mujoco.mj_getState(self._raw_model, self._raw_data, out, STATE_SPEC)
        return out

    def set_state_from_flattened(self, state: np.ndarray) -> None:
        m, d = self._raw_model, self._raw_data
        state = np.asarray(state, dtype=float).ravel()
        short = 1 + m.nq + m.nv
        full = mujoco.mj_stateSize(m, STATE_SPEC)
        if state.size == full:
            mujoco.mj_setState(m, d, state, STATE_SPEC)
            is_full = True
        elif state.size == short:
            d.time = state[0]
            d.qpos[:] = state[1 : 1 + m.nq]
            d.qvel[:] = state[1 + m.nq :]
            is_full = False
        else:
            raise ValueError(
                f"state has {state.size} values; expected {short} "
                f"([time, qpos, qvel]) or {full} (full integration state)"
            )
        if self._on_state_loaded is not None:
            self._on_state_loaded(is_full)

    def reset(self) -> None:
        mujoco.mj_resetData(self._raw_model, self._raw_data)
        if self._on_state_loaded is not None:
            self._on_state_loaded(False)

    def forward(self) -> None:
        mujoco.mj_forward(self._raw_model, self._raw_data)

    def step(self, nstep: int = 1) -> None:
        mujoco.mj_step(self._raw_model, self._raw_data, nstep=nstep)
