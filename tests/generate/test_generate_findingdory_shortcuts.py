"""Generated FindingDory days must not leak answers to agents without memory.

A real episode is generated (real world, physics, renderer; small frames): its clock must not
be FindingDory's linear 06:00-22:00 one (a time named in a question would locate its frame),
its last frames must not show what the robot moved last (the recency shortcut), and its
questions must follow the public set's category mix.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from support.clock import minutes

# a real generated episode: slow lane
pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

KNOBS = FindingDoryKnobs(interactions=3, interactions_spread=0, steps=1500, width=96,
                         height=128, distractors=4, revisits=1)


@pytest.fixture(scope="module")
def episode_dir(tmp_path_factory) -> Path:
    from recallbench.generate.findingdory import generate_episode

    return generate_episode(tmp_path_factory.mktemp("fd_shortcuts"), seed=3, index=0,
                            knobs=KNOBS)


def test_the_clock_does_not_run_linearly_over_the_day(episode_dir):
    from recallbench.benchmarks.findingdory.annotations import load_episode
    from recallbench.generate.findingdory_day import time_of_day

    ann = load_episode(episode_dir)
    true = np.array([minutes(t) for t in ann.times])
    nominal = np.array([minutes(time_of_day(f, KNOBS.steps)) for f in range(KNOBS.steps)])
    assert np.all(np.diff(true) >= 0)  # frames keep their true, ordered time of day
    # a nominal clock misplaces the frames by an hour or more somewhere in the day
    assert np.abs(true - nominal).max() >= 60
    clock = json.loads((episode_dir / "episode.json").read_text())["clock"]
    assert clock["start"] == ann.times[0] and len(clock["pace"]) >= 6


def test_the_day_does_not_end_beside_the_last_placed_object(episode_dir):
    from recallbench.benchmarks.findingdory.annotations import load_episode

    ann = load_episode(episode_dir)
    meta = json.loads((episode_dir / "episode.json").read_text())
    last = meta["interactions"][-1]
    sat = ann.satisfied("full")
    tail = sat[-KNOBS.steps // 96:]  # the last offered frame's stretch of the day
    for entity in (last["object"], last["place_receptacle"]):
        assert not tail[:, ann.entity_index(entity)].any(), entity
    # the robot did something after its last placement: it walked away
    assert meta["visits"][-1]["kind"] == "away"
    assert meta["visits"][-1]["start"] > last["place_end"]


def test_questions_follow_the_public_category_mix(episode_dir):
    from recallbench.generate.findingdory_questions import VAL_CATEGORY_COUNTS

    rows = json.loads((episode_dir / "qa.json").read_text())
    assert abs(len(rows) - KNOBS.questions) <= 6
    total = sum(VAL_CATEGORY_COUNTS.values())
    for category, count in VAL_CATEGORY_COUNTS.items():
        mine = sum(r["low_level_category"] == category for r in rows)
        assert abs(mine - KNOBS.questions * count / total) <= 2, category


def test_the_category_quota_is_unbiased():
    from recallbench.generate.findingdory_questions import VAL_CATEGORY_COUNTS, category_quota

    rng = np.random.default_rng(0)
    draws = [category_quota(60, rng) for _ in range(3000)]
    total = sum(VAL_CATEGORY_COUNTS.values())
    for category, count in VAL_CATEGORY_COUNTS.items():
        mean = np.mean([d[category] for d in draws])
        assert mean == pytest.approx(60 * count / total, abs=0.05), category
    # a suite of ~1,000 questions (17 episodes) lands within val's mix by TV <= 0.05
    sums = {c: sum(d[c] for d in draws[:17]) for c in VAL_CATEGORY_COUNTS}
    n = sum(sums.values())
    tv = 0.5 * sum(abs(sums[c] / n - VAL_CATEGORY_COUNTS[c] / total) for c in sums)
    assert tv <= 0.05



def test_a_days_room_questions_spread_over_its_rooms(episode_dir):
    """Val's days ask about the rooms of different chores. Each room question of a day takes an
    answer no other one took while the day has one left, rather than all taking the room whose
    window is nearest val's width (the start room: one constant answer scored 70%)."""
    rows = json.loads((episode_dir / "qa.json").read_text())
    meta = json.loads((episode_dir / "episode.json").read_text())
    rooms = [r for r in rows if r["low_level_category"] == "Room Visitation"
             and r["answer"] != [[-1]]]  # fmt: skip
    answers = {tuple(r["answer"][0]) for r in rooms}
    visited = {it[k] for it in meta["interactions"] for k in ("pick_room", "place_room")}
    assert len(rooms) >= 2 and len(visited) >= 2
    assert len(answers) == min(len(rooms), len(visited)), (answers, visited)
