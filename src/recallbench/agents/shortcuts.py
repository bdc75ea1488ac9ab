"""Two more agents that never look at the video, used by the suite audit to find shortcuts.

- ``TimePriorAgent`` reads a time of day stated in the question ("... at 9:41 yesterday") and
  answers the frame where a day running linearly 06:00-22:00 (FindingDory's nominal clock)
  would be at that time. Questions without a time get the blind agent's answer.
- ``QuestionOnlyAgent`` learns, leave-one-episode-out like ``BlindAgent``, where the valid
  frames lie for each exact question text in the other episodes ("the first object you
  interacted with" sits early in the day): the question's words, slot values included, are
  all it uses. A question seen in no other episode falls back to its template's prior.

A suite on which either scores well above the public validation set leaks answers through the
question or the clock, not through memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from recallbench.agents.base import FrameAnswer, FrameQuery, FrameSource
from recallbench.agents.baselines import BlindAgent

DAY_START_MIN = 6 * 60  # the nominal clock: 06:00 at the first frame ...
DAY_MINUTES = 16 * 60  # ... 22:00 at the last
TIME_IN_QUESTION = re.compile(r"\bat (\d{1,2}):(\d{2})\b")


def stated_minute(question: str) -> int | None:
    """Minutes since midnight of the first "at H:MM" in the question, or None."""
    match = TIME_IN_QUESTION.search(question)
    if match is None:
        return None
    hours, minutes = int(match.group(1)), int(match.group(2))
    if hours > 23 or minutes > 59:
        return None
    return hours * 60 + minutes


def nominal_position(minute: int, k: int) -> int:
    """The offered position (of K spread evenly over the day) a linear 06:00-22:00 clock puts
    at ``minute``, clipped into the day."""
    share = (minute - DAY_START_MIN) / DAY_MINUTES
    return int(min(k - 1, max(0, round(share * (k - 1)))))


class TimePriorAgent(BlindAgent):
    """A stated time -> the frame a nominal clock puts there; otherwise the blind prior."""

    name = "time-prior"

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        minute = stated_minute(query.instruction)
        if minute is None or (query.num_targets or 1) > 1:
            return super().select_frames(query, frames)
        return FrameAnswer(frame_indices=[nominal_position(minute, len(query.offered_frames))])


def _question_key(text: str) -> str:
    return " ".join(text.lower().split())


class QuestionOnlyAgent(BlindAgent):
    """Blind, but keyed by the whole question text before its template."""

    name = "question-only"

    def fit(self, cases: Iterable[Any]) -> QuestionOnlyAgent:
        cases = list(cases)
        super().fit(cases)
        for c in cases:
            key = ("question", _question_key(c.question))
            self._add(key, c.ep_id, self._histogram(c))
        return self

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        key = ("question", _question_key(query.instruction))
        total = self._sum.get(key)
        if total is None:
            return super().select_frames(query, frames)
        prior = total - self._sum_ep.get((*key, self._episode_of.get(query.case_id, "")), 0)
        if np.sum(prior) <= 1e-9:  # asked in this episode only: the template's prior
            return super().select_frames(query, frames)
        return self._answer(prior, query)
