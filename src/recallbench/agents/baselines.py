"""Frame-selection baselines: oracle (privileged upper bound), random, blind, recency.

Each answers positions 0..K-1 in the offered list and needs no model or network.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from recallbench.benchmarks.findingdory.protocol import (
    DEFAULT_FRAMES,
    FrameAnswer,
    FrameQuery,
    FrameSource,
)
from recallbench.seeding import case_rng


def _count(query: FrameQuery) -> int:
    return query.num_targets if query.num_targets and query.num_targets > 0 else 1


class OracleAgent:
    """Privileged upper bound: reads the ground truth and picks, for each goal, an offered frame
    that is valid for it (the first one). A goal with no valid frame ([-1] or empty, e.g. "a room
    you did not visit") cannot be solved: the oracle then answers position 0 for it.

    Reads ``query.privileged``: ``answer`` (valid-frame lists) and ``answer_frames`` (the frame
    budget the lists are written in, or None for original-frame indices).
    """

    name = "oracle"
    privileged = True

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        if not query.privileged or "answer" not in query.privileged:
            raise ValueError(
                "the oracle needs privileged ground truth (query.privileged['answer'])"
            )
        answer: Sequence[Sequence[int]] = query.privileged["answer"]
        answer_frames = query.privileged.get("answer_frames")
        offered = np.asarray(query.offered_frames)
        picks: list[int] = []
        for sub in answer:
            valid = [i for i in sub if i >= 0]
            if not valid:
                picks.append(0)
            elif answer_frames is not None:  # lists already index the offered list
                picks.append(int(valid[0]))
            else:
                hit = np.flatnonzero(np.isin(offered, valid))
                # No valid frame survived subsampling: take the offered frame closest to one.
                picks.append(
                    int(hit[0])
                    if hit.size
                    else int(np.argmin(np.abs(offered[:, None] - np.asarray(valid)[None]).min(1)))
                )
        return FrameAnswer(frame_indices=picks[: max(1, len(picks))])


class RandomAgent:
    """Uniform random positions, one per target (independent draws), seeded per case so a rerun
    or a resumed run answers identically."""

    name = "random"
    privileged = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        rng = case_rng(self.seed, query.case_id)
        k = len(query.offered_frames)
        return FrameAnswer(frame_indices=rng.integers(0, k, size=_count(query)).tolist())


class RecencyAgent:
    """Picks the most recent frames: the last ``num_targets`` offered positions.

    With ``use_events=True`` it is privileged and reads ``query.privileged["interactions"]``
    (the generated episode's event log: original-frame [start, end] of each interaction, in
    order) and answers the middle offered frame of each of the last interactions instead.
    """

    name = "recency"

    def __init__(self, use_events: bool = False) -> None:
        self.use_events = bool(use_events)
        self.privileged = self.use_events

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        k = len(query.offered_frames)
        n = _count(query)
        events = (query.privileged or {}).get("interactions") if self.use_events else None
        if events:
            offered = np.asarray(query.offered_frames)
            picks = []
            for start, end in list(events)[-n:][::-1]:
                inside = np.flatnonzero((offered >= start) & (offered <= end))
                mid = (start + end) / 2
                picks.append(
                    int(inside[len(inside) // 2])
                    if inside.size
                    else int(np.argmin(np.abs(offered - mid)))
                )
            while len(picks) < n:
                picks.append(k - 1 - len(picks) % k)
            return FrameAnswer(frame_indices=picks)
        return FrameAnswer(frame_indices=[max(0, k - 1 - i) for i in range(n)])


class BlindAgent:
    """Instruction-only baseline: never looks at the video.

    It sees the instruction's template (``query.template``, derived from the text), the number
    of targets and K. From a training set of QA rows it learns, per template, a prior over the
    relative position (0..1 of the day) of valid frames: each valid frame of each goal adds
    1/len(list) to one of K bins. It answers the most likely bins (argmax; the next ones for
    further targets). Leave-one-episode-out: the rows of the queried case's own episode (found
    by case id in the training rows) are excluded, so it never sees the answer it is asked for.
    Unknown template -> the prior of its category, then of all rows.
    """

    name = "blind"
    privileged = False
    needs_training_suite = True  # the evaluator calls fit() with the suite's cases

    def __init__(self, bins: int = DEFAULT_FRAMES) -> None:
        self.bins = int(bins)
        # Sums of histograms per key, and per (key, episode) so one episode can be subtracted.
        self._sum: dict[tuple[str, str], np.ndarray] = {}
        self._sum_ep: dict[tuple[str, str, str], np.ndarray] = {}
        self._episode_of: dict[str, str] = {}
        self._category_of: dict[str, str] = {}

    def _add(self, key: tuple[str, str], ep: str, hist: np.ndarray) -> None:
        self._sum[key] = self._sum.get(key, 0) + hist
        self._sum_ep[(*key, ep)] = self._sum_ep.get((*key, ep), 0) + hist

    def fit(self, cases: Iterable[Any]) -> BlindAgent:
        """Learn from rows with ``id``, ``ep_id``, ``template``, ``category``, ``answer`` and
        ``answer_frames`` or ``num_frames`` (QACase objects)."""
        for c in cases:
            hist = self._histogram(c)
            self._episode_of[c.id] = c.ep_id
            self._category_of[c.template] = c.category
            for key in (("template", c.template), ("category", c.category), ("all", "")):
                self._add(key, c.ep_id, hist)
        return self

    def _prior(self, template: str | None, exclude_ep: str | None) -> np.ndarray:
        category = self._category_of.get(template or "", "")
        for key in (("template", template or ""), ("category", category), ("all", "")):
            total = self._sum.get(key)
            if total is None:
                continue
            prior = total - self._sum_ep.get((*key, exclude_ep or ""), 0)
            if np.sum(prior) > 1e-9:
                return prior
        return np.ones(self.bins)

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        prior = self._prior(query.template, self._episode_of.get(query.case_id))
        return self._answer(prior, query)

    def _histogram(self, case: Any) -> np.ndarray:
        """Where one row's valid frames lie: 1/len(list) per valid frame, in relative bins."""
        hist = np.zeros(self.bins)
        space = case.answer_frames or case.num_frames
        for sub in case.answer:
            valid = [i for i in sub if i >= 0]
            if not valid or not space:
                continue
            rel = np.asarray(valid, dtype=float) / max(1, space - 1)
            bins = np.minimum((rel * self.bins).astype(int), self.bins - 1)
            np.add.at(hist, bins, 1 / len(valid))
        return hist

    def _answer(self, prior: np.ndarray, query: FrameQuery) -> FrameAnswer:
        k = len(query.offered_frames)
        # Resample the bin prior onto the K offered positions (uniform timeline assumption).
        pos_prior = prior[np.minimum((np.arange(k) * self.bins) // max(1, k), self.bins - 1)]
        order = np.argsort(-pos_prior, kind="stable")
        n = _count(query)
        picks = [int(order[i % k]) for i in range(n)]
        return FrameAnswer(frame_indices=picks)
