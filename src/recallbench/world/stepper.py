"""``mj_step`` x n for ``HomeEnv``, ending with the position stage at the new state.

mj_step leaves everything position-dependent (poses, contacts, constraints) one substep behind
qpos, and observations, renders and ``sim.data.body_xpos`` must describe the current state, so
a step ends with MuJoCo's position stage at the new qpos (``mj_fwdPosition``). The next step's
first substep then starts from it instead of computing it again: ``mj_step``'s own sequence for
an implicit integrator with that stage skipped (``mj_forwardSkip`` at ``mjSTAGE_POS``), the same
calls on the same inputs and so the same bits, as long as nothing the position stage reads
changed in between. qpos and the active welds are compared byte for byte (a grasp turns one on;
``tobytes() ==`` is a memcmp, ~20x cheaper than numpy's elementwise ``==``, and stricter: -0.0
and 0.0 differ); a state load, which may rewrite the held weld's pose, calls ``drop``.
"""

from __future__ import annotations

import mujoco

_POS_STAGE = mujoco.mjtStage.mjSTAGE_POS
_IMPLICIT = (int(mujoco.mjtIntegrator.mjINT_IMPLICIT), int(mujoco.mjtIntegrator.mjINT_IMPLICITFAST))
_ENERGY = int(mujoco.mjtEnableBit.mjENBL_ENERGY)
_FWDINV = int(mujoco.mjtEnableBit.mjENBL_FWDINV)


class Stepper:
    """Steps one ``MjData``; ``can_skip`` False steps with plain mj_step and a pose refresh."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.model, self.data = model, data
        opt = model.opt
        # only where mj_step's sequence is the one replayed in step()
        self.can_skip = (
            opt.integrator in _IMPLICIT
            and model.nsensor == 0
            and not opt.enableflags & (_ENERGY | _FWDINV)
        )
        self._qpos, self._eq_active = data.qpos, data.eq_active  # views, valid for data's life
        self._pos_qpos = self._pos_eq = b""  # their bytes when the position stage was computed
        self._ready = False

    def drop(self) -> None:
        """The saved position stage may no longer match the model: compute it again."""
        self._ready = False

    def step(self, n: int) -> None:
        m, d = self.model, self.data
        if (
            self._ready
            and self._qpos.tobytes() == self._pos_qpos
            and self._eq_active.tobytes() == self._pos_eq
        ):
            mujoco.mj_checkPos(m, d)
            mujoco.mj_checkVel(m, d)
            mujoco.mj_forwardSkip(m, d, _POS_STAGE, 0)
            mujoco.mj_checkAcc(m, d)
            mujoco.mj_implicit(m, d)
            n -= 1
        if n:
            mujoco.mj_step(m, d, nstep=n)
        if self.can_skip:
            mujoco.mj_fwdPosition(m, d)
            self._pos_qpos = self._qpos.tobytes()
            self._pos_eq = self._eq_active.tobytes()
            self._ready = True
        else:  # poses only (cheap, no dynamics)
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)
            mujoco.mj_camlight(m, d)
