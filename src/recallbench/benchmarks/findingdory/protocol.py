"""The two agent interfaces recallbench evaluates.

Frame selection (FindingDory's high level): given the offered frames of a long video and an
instruction, return frame indices, or the raw model text for the benchmark's parser to read.

Acting (SceneMem's card, kept exactly): ``reset(instruction, video_paths)`` once per rollout, then
``get_action(env)`` every step, returning an array of shape ``env.action_dim``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES

__all__ = ["DEFAULT_FRAMES", "FrameAnswer", "FrameQuery", "FrameSelectionAgent",
           "FrameSource", "LLGoal", "LowLevelPolicy", "TransientError"]


@dataclass(frozen=True)
class FrameQuery:
    """One frame-selection question as an agent sees it.

    ``offered_frames`` are indices into the original video of the K frames the agent may choose
    from (the frame budget); answers are positions 0..K-1 in that list, as in the paper's prompt
    ("Frame: i" stamps). ``privileged`` carries ground truth and is filled only for agents whose
    ``privileged`` attribute is True (oracles); a normal agent never sees it.
    """

    case_id: str
    instruction: str
    video_path: str | None
    offered_frames: tuple[int, ...]
    times_of_day: tuple[str, ...] | None = None
    num_targets: int | None = None
    category: str | None = None
    template: str | None = None
    privileged: dict[str, Any] | None = None


@dataclass
class FrameAnswer:
    """An agent's answer: indices into ``offered_frames`` and/or the raw model response.

    When ``frame_indices`` is None the benchmark parses ``response`` (and records a parse failure
    as ``response_error``). ``info`` holds what the run log should keep: latency, token counts,
    cache hits, chain of thought.
    """

    frame_indices: list[int] | None = None
    response: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


class TransientError(Exception):
    """An answer that could not be obtained for a reason that may pass (timeout, connection,
    server overload, I/O, video decode). Raised from ``select_frames``: the runner records
    nothing for the case, so ``--resume`` asks again; ``kind`` names the failure mode."""

    def __init__(self, kind: str, message: str, info: dict[str, Any] | None = None) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.info = info or {}


class FrameSource(Protocol):
    """Lazy access to the offered frames (decoded on demand, never the whole video)."""

    def __len__(self) -> int: ...

    def frames(self, positions: Sequence[int] | None = None) -> list[np.ndarray]:
        """RGB uint8 HxWx3 frames at these positions of the offered list (all when None)."""
        ...


@runtime_checkable
class FrameSelectionAgent(Protocol):
    name: str
    privileged: bool

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer: ...


@dataclass(frozen=True)
class LLGoal:
    """One navigation goal: the robot's recorded pose at a chosen frame of the video."""

    index: int  # position in the chosen-frame sequence (sub-goal order for ordered tasks)
    frame: int  # original frame index in the episode's video
    pose: tuple[float, float, float]  # base x, y, yaw recorded at that frame


@runtime_checkable
class LowLevelPolicy(Protocol):
    def reset(self, env: Any) -> None: ...

    def act(self, pose: np.ndarray, goal: LLGoal) -> Any: ...
