"""A SceneMem policy in the card's interface, as small as one can be: it remembers nothing and
walks at random. Copy it, then make ``reset`` watch the videos and ``get_action`` act on what
it saw.

    recallbench scenemem --data_dir suites/scenemem --policy examples/my_policy.py:MyPolicy \
        --out results.json
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.policy import BasePolicy  # the card's eval.base_policy


class MyPolicy(BasePolicy):
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        # instruction: "Show me where the bowl is placed."; video_paths: agentview_left,
        # agentview_right and eye_in_hand mp4s of the robot's earlier work.
        self.instruction = instruction

    def get_action(self, env: Any) -> np.ndarray:
        # One action of shape env.action_dim per step; the harness seeds numpy per test.
        return np.random.uniform(-1.0, 1.0, env.action_dim)
