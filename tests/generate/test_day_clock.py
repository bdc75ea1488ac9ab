"""The generated day's clock: its stamps are true, but a nominal clock cannot read them back.

FindingDory's protocol nominally runs 06:00-22:00 at 14.4 s a step, yet the public set's days
end when their chores do (1-14 h); a generator whose days all spanned the nominal day let a
time-prior agent (agents/shortcuts.py) locate Time-Based answers from the question alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from support.clock import minutes


@pytest.mark.slow
def test_a_nominal_clock_rarely_locates_a_stated_time():
    """The time-prior shortcut, simulated over many drawn clocks: a time read at an offered
    position and mapped back by the nominal 06:00-22:00 clock lands within 3 positions of it
    (about the half-width of a Time-Based window) far less often than on the first generated
    days (19%, which let the time-prior agent solve 19% of Time-Based questions)."""
    from recallbench.agents.shortcuts import nominal_position
    from recallbench.generate.findingdory_day import day_clock

    rng = np.random.default_rng(0)
    frames = 4000
    offered = np.linspace(0, frames - 1, 96).astype(int)
    hits, spans = [], []
    for _ in range(800):
        times, _ = day_clock(frames, rng)
        spans.append(minutes(times[-1]) - minutes(times[0]))
        p = int(rng.integers(5, 91))
        hits.append(abs(nominal_position(minutes(times[offered[p]]), 96) - p) <= 3)
    assert np.mean(hits) <= 0.10
    # days last as long as the public set's do (their stamps: median ~6.6 h, 10-90%: 2.3-11 h)
    assert 5 * 60 <= np.median(spans) <= 8 * 60
    assert np.percentile(spans, 10) <= 3 * 60 and np.percentile(spans, 90) >= 10 * 60
