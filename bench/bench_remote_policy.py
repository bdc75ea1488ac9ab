"""A policy served with openpi's protocol against the same policy in process, on loopback,
measured in the same run; and server calls per test with replan_steps 1 vs 5.

The built-in world (RecallbenchHome, 12-dim action) with three 224x224 cameras (the size pi0
takes, so the observation map sends them unresized) and the robot state; the policy reads the
three images and returns a chunk of 10 actions. Per step, medians of alternating blocks:
  in-process: policy.get_action(env) + env.step(action)
  served:     OpenpiPolicy.get_action(env) with replan_steps=1 (the default observation map ->
              openpi_client -> WebSocket -> a `recallbench serve-policy` process -> a chunk)
              + env.step(action)
  the policy's own time: its get_action on the same observations, no env.
Target: served <= 1.2x the in-process step (which includes the policy's own time). The
protocol's own cost is also printed: a served request on fixed observations, no env work.

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
# the default observation map's request keys for the three cameras (agents.remote.obs_map)
REQUEST_KEYS = ["observation/image", "observation/image_right", "observation/wrist_image"]
CHUNK = 10
SIZE = 224


class ImagePolicy:
    """Looks at the three images (a mean per camera), returns a small 12-dim action (served: a
    chunk of CHUNK copies). Reads the env's keys in process, the request's keys served."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env: Any) -> np.ndarray:
        obs = env._get_observations()
        action = np.zeros(env.action_dim)
        for i, (cam, key) in enumerate(zip(CAMERAS, REQUEST_KEYS, strict=True)):
            image = obs[key] if key in obs else obs[f"{cam}_image"]
            action[3 + i] = 1e-3 * float(image[::8, ::8].mean()) / 255
        return action

    def get_action_batch(self, requests: list[Any]) -> list[np.ndarray]:
        from recallbench.agents.remote.policy_contract import ObservationEnv

        return [np.tile(self.get_action(ObservationEnv(r.observations, r.action_dim)), (CHUNK, 1))
                for r in requests]


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
    parser.add_argument("--test-steps", type=int, default=50, help="steps of the test whose "
                        "server calls are counted")
    args = parser.parse_args()

    from recallbench.agents.remote.openpi import OpenpiPolicy
    from recallbench.agents.remote.openpi_connection import server_metadata
    from recallbench.agents.remote.openpi_settings import openpi_settings
    from recallbench.agents.remote.policy_contract import ObservationEnv
    from recallbench.world.env import make_env

    env = make_env("RecallbenchHome", seed=0, cameras=CAMERAS, camera_width=SIZE,
                   camera_height=SIZE)
    env.reset()
    local = ImagePolicy()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "recallbench.cli", "serve-policy",
         f"{Path(__file__).resolve()}:ImagePolicy", "--port", str(port), "--batch-wait-ms", "0"],
        env=os.environ, stdout=subprocess.DEVNULL,
    )
    url = f"openpi://127.0.0.1:{port}"

    def served_policy(replan: int) -> Any:
        return OpenpiPolicy(openpi_settings(url, {"replan_steps": replan, "memory": "none"}))

    try:
        for _ in range(100):
            try:
                server_metadata(served_policy(1).settings)
                break
            except ValueError:
                time.sleep(0.1)
        remote = served_policy(1)
        remote.reset("bench", [])
        local.reset("bench", [])

        def in_process() -> None:
            env.step(local.get_action(env))

        def served() -> None:
            env.step(remote.get_action(env))

        view = ObservationEnv(env._get_observations(), env.action_dim)
        request = remote.settings.obs_map.request(view.observations, "bench")
        t_local, t_served, t_policy, t_wire = [], [], [], []
        in_process(), served()  # warm-up (renderers, connection)
        for _ in range(args.blocks):
            t_local.append(per_step(in_process, args.steps))
            t_served.append(per_step(served, args.steps))
            t_policy.append(per_step(lambda: local.get_action(view), args.steps))
            # the protocol alone: the same observations every call, no render, no physics
            t_wire.append(per_step(lambda: remote.get_action(view), args.steps))
        remote.close()
        calls, chunked_ms = {}, 0.0
        for replan in (1, 5):  # one test of --test-steps steps
            policy = served_policy(replan)
            policy.reset("bench", [])
            start = time.perf_counter()
            for _ in range(args.test_steps):
                env.step(policy.get_action(env))
            if replan == 5:
                chunked_ms = (time.perf_counter() - start) / args.test_steps * 1e3
            calls[replan] = policy.calls
            policy.close()
    finally:
        server.terminate()
        server.wait(10)
    local_ms, served_ms, policy_ms, wire_ms = (statistics.median(t) * 1e3
                                               for t in (t_local, t_served, t_policy, t_wire))
    nbytes = sum(v.nbytes for v in request.values() if isinstance(v, np.ndarray))
    print(f"built-in world, 3 cameras {SIZE}x{SIZE} + state ({len(request)} request keys, "
          f"{nbytes / 1e3:.0f} KB per request), 12-dim action; medians of {args.blocks} blocks "
          f"x {args.steps} steps")
    print(f"in-process step (policy + env.step)         {local_ms:8.2f} ms")
    print(f"the policy's own time                       {policy_ms:8.2f} ms")
    print(f"served step (openpi://, replan 1, loopback)  {served_ms:8.2f} ms")
    print(f"one served request, no env work             {wire_ms:8.2f} ms  (map, pack, send, "
          "serve, reply: the protocol's cost)")
    print(f"ratio served / in-process step              {served_ms / local_ms:8.2f}x (target "
          "<= 1.2x; the in-process step already includes the policy's own time)")
    print(f"server calls per {args.test_steps}-step test: replan 1: {calls[1]}, replan 5: "
          f"{calls[5]} ({calls[1] / calls[5]:.1f}x fewer); served step with replan 5: "
          f"{chunked_ms:.2f} ms ({chunked_ms / local_ms:.2f}x in-process)")


if __name__ == "__main__":
    main()
