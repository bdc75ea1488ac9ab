"""A served policy's step against an in-process step, on loopback, measured in the same run.

The built-in world (RecallbenchHome, 12-dim action) with the card's three 256x256 cameras; the
policy reads the three images and returns an action. Per step, medians of alternating blocks:
  in-process: policy.get_action(env) + env.step(action)
  served:     RemotePolicy.get_action(env) (observations -> msgpack -> WebSocket -> a
              `recallbench serve-policy` process -> action) + env.step(action)
  the policy's own time: its get_action on the same observations, no env.
Target: served <= 1.2x the in-process step (which includes the policy's own time). The
protocol's own cost is also printed: a served get_action on fixed observations, no env work.

    MUJOCO_GL=egl PYTHONPATH=src .venv/bin/python bench/bench_remote_policy.py [--steps 40]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

CAMERAS = ["robot0_agentview_left", "robot0_agentview_right", "robot0_eye_in_hand"]


class ImagePolicy:
    """Looks at the three images (a mean per camera), returns a small 12-dim action."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env: Any) -> np.ndarray:
        obs = env._get_observations()
        action = np.zeros(env.action_dim)
        for i, cam in enumerate(CAMERAS):
            action[3 + i] = 1e-3 * float(obs[f"{cam}_image"][::8, ::8].mean()) / 255
        return action

    def get_action_batch(self, requests: list[Any]) -> list[np.ndarray]:
        from recallbench.agents.remote.server import ObservationEnv

        return [self.get_action(ObservationEnv(r.observations, r.action_dim)) for r in requests]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def per_step(fn: Any, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="steps per block")
    parser.add_argument("--blocks", type=int, default=7)
    args = parser.parse_args()

    from recallbench.agents.remote import RemotePolicy, check_server
    from recallbench.agents.remote.server import ObservationEnv
    from recallbench.world.env import make_env

    env = make_env("RecallbenchHome", seed=0, cameras=CAMERAS, camera_width=256,
                   camera_height=256)
    env.reset()
    local = ImagePolicy()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "recallbench.cli", "serve-policy",
         f"{Path(__file__).resolve()}:ImagePolicy", "--port", str(port), "--batch-wait-ms", "0"],
        env=os.environ, stdout=subprocess.DEVNULL,
    )
    url = f"ws://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                check_server(url, timeout=2)
                break
            except ValueError:
                time.sleep(0.1)
        remote = RemotePolicy(url)
        remote.reset("bench", [])
        local.reset("bench", [])

        def in_process() -> None:
            env.step(local.get_action(env))

        def served() -> None:
            env.step(remote.get_action(env))

        view = ObservationEnv(env._get_observations(), env.action_dim)
        t_local, t_served, t_policy, t_wire = [], [], [], []
        in_process(), served()  # warm-up (renderers, connection)
        for _ in range(args.blocks):
            t_local.append(per_step(in_process, args.steps))
            t_served.append(per_step(served, args.steps))
            t_policy.append(per_step(lambda: local.get_action(view), args.steps))
            # the protocol alone: the same observations every call, no render, no physics
            t_wire.append(per_step(lambda: remote.get_action(view), args.steps))
        remote.close()
    finally:
        server.terminate()
        server.wait(10)
    local_ms, served_ms, policy_ms, wire_ms = (statistics.median(t) * 1e3
                                               for t in (t_local, t_served, t_policy, t_wire))
    nbytes = sum(v.nbytes for v in view.observations.values())
    print(f"built-in world, 3 cameras 256x256, 12-dim action, {nbytes / 1e3:.0f} KB of "
          f"observations per step; medians of {args.blocks} blocks x {args.steps} steps")
    print(f"in-process step (policy + env.step)   {local_ms:8.2f} ms")
    print(f"the policy's own time                 {policy_ms:8.2f} ms")
    print(f"served step (ws://, loopback)          {served_ms:8.2f} ms")
    print(f"one served get_action, no env work     {wire_ms:8.2f} ms  (pack, send, serve, "
          "reply: the protocol's cost)")
    print(f"ratio served / in-process step         {served_ms / local_ms:8.2f}x (target <= 1.2x; "
          "the in-process step already includes the policy's own time)")


if __name__ == "__main__":
    main()
