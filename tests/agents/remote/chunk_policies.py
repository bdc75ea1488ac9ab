"""Policies served by `recallbench serve-policy` to openpi's own client loops: they declare
chunks (``action_horizon``) and a width (``action_dim``) as openpi's LIBERO (10 x 7) and DROID
(10 x 8) checkpoints reply, and check each request holds what those examples send (a key
missing or misshapen raises, so the client sees an error text).

Each chunk's rows are ``[rollouts started (0 for the batched one), the rollout's request index
(``step``), row, 0, ...]`` so a test sees where the server started a rollout and which row the
client ran."""

from __future__ import annotations

from typing import Any

import numpy as np

IMAGE = (224, 224, 3)


def _image(obs: dict[str, Any], key: str) -> None:
    image = obs[key]  # KeyError: the client did not send it
    if image.dtype != np.uint8 or image.shape != IMAGE:
        raise ValueError(f"{key}: {image.dtype} {image.shape}, expected uint8 {IMAGE}")


def _vector(obs: dict[str, Any], key: str, size: int) -> None:
    value = np.asarray(obs[key])
    if value.shape != (size,) or not np.all(np.isfinite(value)):
        raise ValueError(f"{key}: shape {value.shape}, expected ({size},)")


def _chunk(rollouts: int, step: int, horizon: int, dim: int) -> np.ndarray:
    out = np.zeros((horizon, dim))
    out[:, 0], out[:, 1], out[:, 2] = rollouts, step, np.arange(horizon)
    return out


class LiberoChunks:
    """A card-interface policy (one instance per connection) shaped as pi05_libero."""

    action_horizon = 10
    action_dim = 7

    def __init__(self) -> None:
        self.rollouts, self.step = 0, -1

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.rollouts, self.step = self.rollouts + 1, -1

    def get_action(self, env: Any) -> np.ndarray:
        obs = env.observations
        _image(obs, "observation/image")
        _image(obs, "observation/wrist_image")
        _vector(obs, "observation/state", 8)  # eef pos 3, axis-angle 3, gripper qpos 2
        if not isinstance(obs["prompt"], str):
            raise ValueError("prompt is not text")
        self.step += 1
        return _chunk(self.rollouts, self.step, self.action_horizon, env.action_dim)


class DroidChunks:
    """A batched policy (one model for every connection) shaped as pi05_droid."""

    action_horizon = 10
    action_dim = 8

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass  # the card's interface; a batched policy keeps per-rollout memory in request.state

    def get_action(self, env: Any) -> np.ndarray:  # served batched: never called
        raise NotImplementedError

    def get_action_batch(self, requests: list[Any]) -> list[np.ndarray]:
        out = []
        for request in requests:
            obs = request.observations
            _image(obs, "observation/exterior_image_1_left")
            _image(obs, "observation/wrist_image_left")
            _vector(obs, "observation/joint_position", 7)
            _vector(obs, "observation/gripper_position", 1)
            out.append(_chunk(0, request.step, self.action_horizon, request.action_dim))
        return out
