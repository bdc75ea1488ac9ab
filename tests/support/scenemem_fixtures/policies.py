"""Card-interface policies for harness tests, loaded by path (``.../policies.py:Class``).

They drive the env only through actions, as a real policy must.
"""

from __future__ import annotations

import os
import re
import time
import zlib
from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.policy import BasePolicy


def _category(instruction: str) -> str:
    m = re.search(r"where the (.+?) is placed", instruction) or re.search(
        r"Put the (.+?) back", instruction
    )
    return m.group(1) if m else instruction


class Idle(BasePolicy):
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.videos = video_paths

    def get_action(self, env: Any) -> np.ndarray:
        return np.zeros(env.action_dim)


class Oracle(BasePolicy):
    """Knows the answer from ep_meta["answers"]; drives there and pulls the fixture open."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        assert len(video_paths) == 3 and all(os.path.isfile(p) for p in video_paths)
        self.category = _category(instruction)

    def get_action(self, env: Any) -> np.ndarray:
        meta = env.get_ep_meta()
        target = meta["answers"][self.category]
        sim = env.sim
        base = sim.data.body_xpos[sim.model.body_name2id("mobilebase0_support")][:2]
        goal = sim.data.body_xpos[sim.model.body_name2id(target)][:2]
        action = np.zeros(env.action_dim)
        delta = goal - base
        if np.linalg.norm(delta) > 0.6:
            action[:2] = np.clip(2.0 * delta, -1, 1)
        else:
            action[meta["actuators"][target]] = 1.0
        return action


class RandomWalk(BasePolicy):
    """Draws from the global numpy generator, which the harness seeds per test."""

    delay = 0.0

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.steps = 0

    def get_action(self, env: Any) -> np.ndarray:
        if self.delay:
            time.sleep(self.delay)
        self.steps += 1
        return np.random.uniform(-1.0, 1.0, env.action_dim)


class SlowRandomWalk(RandomWalk):
    delay = 0.02


class GatedRandomWalk(RandomWalk):
    """A random walk whose second and later tests wait while ``$RB_GATE/closed`` exists, so a
    test can interrupt a run in a known state (one test recorded, the next under way) without
    racing the clock. Each test drops ``$RB_GATE/started_<pid>_<n>`` when it starts."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        super().reset(instruction, video_paths)
        gate = os.environ["RB_GATE"]
        self.started = len([n for n in os.listdir(gate) if n.startswith("started_")]) + 1
        open(os.path.join(gate, f"started_{os.getpid()}_{self.started}"), "w").close()

    def get_action(self, env: Any) -> np.ndarray:
        closed = os.path.join(os.environ["RB_GATE"], "closed")
        while self.started > 1 and os.path.exists(closed):
            time.sleep(0.01)
        return super().get_action(env)


class Faulty(BasePolicy):
    """Misbehaves as the probed category says: each test exercises one fault."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.mode = _category(instruction)
        if self.mode == "raise_reset":
            raise RuntimeError("model weights missing")

    def get_action(self, env: Any) -> Any:
        mode = self.mode
        if mode == "raise_action":
            raise ValueError("bad observation key")
        if mode == "nan":
            return np.full(env.action_dim, np.nan)
        if mode == "inf":
            out = np.zeros(env.action_dim)
            out[0] = np.inf
            return out
        if mode == "wrong_shape":
            return np.zeros(env.action_dim + 1)
        if mode == "not_numeric":
            return "forward"
        if mode == "hang":
            time.sleep(3600)
        if mode == "crash":
            os._exit(3)  # the worker process dies outright
        return np.zeros(env.action_dim)


class BrokenConstructor(BasePolicy):
    def __init__(self) -> None:
        raise RuntimeError("CUDA not available")

    def reset(self, instruction: str, video_paths: list[str]) -> None: ...

    def get_action(self, env: Any) -> np.ndarray:
        return np.zeros(env.action_dim)


def _goal(instruction: str) -> np.ndarray:
    h = zlib.crc32(instruction.encode())
    return np.array([(h % 100) / 40 - 1.25, (h // 100 % 100) / 40 - 1.25])


def _seek(base_pos: np.ndarray, goal: np.ndarray, action_dim: int) -> np.ndarray:
    action = np.zeros(action_dim)
    action[:2] = np.clip(2.0 * (goal - np.asarray(base_pos)[:2]), -1, 1)
    return action


class ObservationSeeker(BasePolicy):
    """Drives toward a point the instruction names, reading only ``env._get_observations()``
    and ``env.action_dim``: it runs the same in-process and served (docs/remote-policy.md), and
    offers the batched method, so a server batches it. ``forward_calls`` counts its calls."""

    delay = 0.0

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.goal = _goal(instruction)

    def get_action(self, env: Any) -> np.ndarray:
        return _seek(env._get_observations()["base_pos"], self.goal, env.action_dim)

    def get_action_batch(self, requests: list[Any]) -> list[np.ndarray]:
        if self.delay:
            time.sleep(self.delay)
        return [_seek(r.observations["base_pos"], _goal(r.instruction), r.action_dim)
                for r in requests]


class SlowObservationSeeker(ObservationSeeker):
    delay = 0.02


class CardObservationSeeker(BasePolicy):
    """The same decisions through the card interface only (no batched method)."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.goal = _goal(instruction)

    def get_action(self, env: Any) -> np.ndarray:
        return _seek(env._get_observations()["base_pos"], self.goal, env.action_dim)


CHUNK = 8  # actions per chunk ChunkSeeker returns
REPLAN = 5  # of which the client runs this many (--policy-arg replan_steps=5)


class ChunkSeeker(BasePolicy):
    """Served, batched: a chunk of CHUNK copies of the seeking action per request."""

    def reset(self, instruction: str, video_paths: list[str]) -> None: ...

    def get_action(self, env: Any) -> np.ndarray:  # the card interface is never used served
        raise NotImplementedError

    def get_action_batch(self, requests: list[Any]) -> list[np.ndarray]:
        return [np.tile(_seek(r.observations["base_pos"], _goal(r.instruction), r.action_dim),
                        (CHUNK, 1)) for r in requests]


class CardChunkSeeker(BasePolicy):
    """In process, what ChunkSeeker served with replan_steps=REPLAN does: decide every REPLAN
    steps, repeat the decision in between."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.goal, self.step, self.action = _goal(instruction), 0, np.zeros(0)

    def get_action(self, env: Any) -> np.ndarray:
        if self.step % REPLAN == 0:
            self.action = _seek(env._get_observations()["base_pos"], self.goal, env.action_dim)
        self.step += 1
        return self.action


class SimReader(BasePolicy):
    """A card-interface policy that peeks at the simulator (refused under --observation-only)."""

    def reset(self, instruction: str, video_paths: list[str]) -> None: ...

    def get_action(self, env: Any) -> np.ndarray:
        _ = env.sim.data.body_xpos
        return np.zeros(env.action_dim)


class PoisonBatch(BasePolicy):
    """Batched; a whole batch raises when one of its requests' prompt says "poison"."""

    delay = 0.0

    def reset(self, instruction: str, video_paths: list[str]) -> None: ...

    def get_action(self, env: Any) -> np.ndarray:
        raise NotImplementedError

    def get_action_batch(self, requests: list[Any]) -> list[np.ndarray]:
        if any("poison" in r.instruction for r in requests):
            raise ValueError("poisoned batch")
        return [np.ones(r.action_dim) for r in requests]


class HugeReply(BasePolicy):
    """Answers an action chunk too large for one message (67 MB of float64)."""

    def reset(self, instruction: str, video_paths: list[str]) -> None: ...

    def get_action(self, env: Any) -> np.ndarray:
        return np.zeros((2900, 2900))
