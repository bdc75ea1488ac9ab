"""The frame recorder: after every control step, render the requested cameras into H.264 videos
(one per camera) and keep the base pose, the robot's state and the action of that frame.

It renders through the env's own ``Renders`` (shadows off) into preallocated buffers, and
encodes with ``video.writer.VideoWriter`` (short GOP, so frames can be sought quickly). The
SceneMem writer records the three SceneMem views at 256x256; the FindingDory writer can reuse it
with the head camera.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from recallbench.video.writer import VideoWriter

SCENEMEM_VIEWS = ("robot0_agentview_left", "robot0_agentview_right", "robot0_eye_in_hand")
# The state a demonstration records per frame (``videos/trajectory.npz``), in this order.
STATE_KEYS = ("robot0_base_pose", "robot0_base_to_eef_pos", "robot0_arm_qpos",
              "robot0_gripper_qpos")
TRAJECTORY_FILE = "trajectory.npz"


class FrameRecorder:
    """``capture(env)`` appends one frame per camera; ``close()`` finishes the files.

    ``sizes`` maps camera -> (width, height); cameras not in it use ``size``.
    """

    def __init__(
        self,
        out_dir: str | Path,
        cameras: Sequence[str] = SCENEMEM_VIEWS,
        size: tuple[int, int] = (256, 256),
        fps: int = 20,
        sizes: dict[str, tuple[int, int]] | None = None,
        gop: int = 20,
        crf: int = 20,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.cameras = list(cameras)
        self.sizes = {c: (sizes or {}).get(c, size) for c in self.cameras}
        self.fps = fps
        self.writers = {
            c: VideoWriter(self.out_dir / f"{c}.mp4", fps, *self.sizes[c], gop=gop, crf=crf)
            for c in self.cameras
        }
        self._buffers = {c: np.empty((h, w, 3), np.uint8) for c, (w, h) in self.sizes.items()}
        self.poses: list[np.ndarray] = []
        self.events: list[dict[str, Any]] = []
        self.actions: list[np.ndarray] = []  # the 12-dim action that led to each frame
        self.states: list[np.ndarray] = []  # STATE_KEYS at each frame
        self.state_names: list[str] = []

    @property
    def frames(self) -> int:
        return len(self.poses)

    def capture(self, env: Any) -> None:
        """Render every camera at the env's current state and write one frame to each video."""
        for cam in self.cameras:
            w, h = self.sizes[cam]
            img = env.renders.rgb(env.data, cam, w, h, out=self._buffers[cam])
            self.writers[cam].write(img)
        self.poses.append(np.asarray(env.base_pose(), dtype=float).copy())
        action = getattr(env, "last_action", None)
        self.actions.append(np.zeros(12) if action is None else np.asarray(action).copy())
        state = env.proprio()
        if not self.state_names:
            self.state_names = [f"{k}_{i}" for k in STATE_KEYS for i in range(len(state[k]))]
        self.states.append(np.concatenate([np.asarray(state[k], dtype=float)
                                           for k in STATE_KEYS]))

    def note(self, event: str, **fields: Any) -> None:
        """Mark something that happened at the current frame (the last one captured)."""
        self.events.append({"frame": max(self.frames - 1, 0), "event": event, **fields})

    def pose_array(self) -> np.ndarray:
        return np.array(self.poses, dtype=float).reshape(-1, 3)

    def save_trajectory(self, path: str | Path) -> None:
        """Per frame: the action that led to it and the robot's state in it (float32), as an
        ``np.load``-able .npz whose bytes depend on the day only (np.savez stamps the clock)."""
        arrays = {"action": np.array(self.actions, dtype=np.float32).reshape(-1, 12),
                  "state": np.array(self.states, dtype=np.float32),
                  "state_names": np.array(self.state_names, dtype=str)}
        with zipfile.ZipFile(path, "w") as z:
            for name, array in arrays.items():
                with z.open(zipfile.ZipInfo(f"{name}.npy", (1980, 1, 1, 0, 0, 0)), "w") as f:
                    np.lib.format.write_array(f, array, allow_pickle=False)

    def close(self) -> None:
        for w in self.writers.values():
            w.close()

    def __enter__(self) -> FrameRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
