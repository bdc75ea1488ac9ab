"""FindingDory's low-level phase in the built-in world: live predicate, rollouts, failure modes.

One tiny episode is generated with the real generator (`recallbench generate findingdory`) and
its saved end-of-day world is driven with the real env. Expected outcomes come from the episode's
stored ground truth (the arrays written at generation), never from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.timeout(600)

@pytest.fixture(scope="module")
def suite(findingdory_ends_at_a_goal_suite):
    from recallbench.benchmarks.findingdory.data import load_suite

    return load_suite(findingdory_ends_at_a_goal_suite)


@pytest.fixture(scope="module")
def episode(suite):
    from recallbench.benchmarks.findingdory.annotations import load_episode

    return load_episode(suite.episode_dir("ep_0"))


@pytest.fixture(scope="module")
def worlds(suite):
    from recallbench.benchmarks.findingdory.ll_world import WorldCache

    cache = WorldCache(suite)  # one loaded world shared by every rollout of this module
    yield cache
    cache.close()


@pytest.fixture(scope="module")
def world(worlds):
    return worlds.get("ep_0")


def _cands(case, episode) -> list[list[int]]:
    return [[episode.entity_index(e) for e in sub] for sub in case.subgoals]


def _record(case, frames: list[int], num_frames: int) -> dict:
    # Offer every original frame, so a position is the frame itself.
    return {"key": case.id, "offered_frames": list(range(num_frames)), "frame_indices": frames}


def _run(worlds, policy, items):
    from recallbench.benchmarks.findingdory.ll_rollout import LLPhase

    return LLPhase(worlds.suite, policy, worlds=worlds).run_episode("ep_0", items)


def _robust_frames(episode, cols: list[int]) -> np.ndarray:
    """Frames that show one of ``cols`` clearly (well inside every threshold)."""
    ok = np.zeros(episode.num_frames, dtype=bool)
    for e in cols:
        ent = episode.entities[e]
        if ent.kind == "object":
            ok |= (
                (episode.coverage[:, e] >= 0.01)
                & (episode.distance[:, e] <= 1.5)
                & (np.abs(episode.angle[:, e]) <= math.pi / 6)
            )
        elif ent.kind == "receptacle":
            ok |= (
                (episode.coverage[:, e] >= 0.02)
                & (episode.distance[:, e] == 0)
                & (np.abs(episode.angle[:, e]) <= math.pi / 3)
            )
    return np.flatnonzero(ok)


def test_start_is_the_oracles_final_pose(world, episode):
    np.testing.assert_allclose(world.start, episode.pose[-1], atol=1e-5)


def test_live_predicate_agrees_with_the_stored_per_frame_arrays(world, episode):
    """Same world, same pose -> same verdict, distance and coverage as at generation."""
    sat = episode.satisfied("full")
    shown = np.flatnonzero(sat.any(axis=1))
    frames = sorted({0, episode.num_frames - 1, *shown[:: max(1, len(shown) // 8)].tolist()})
    live = world.check(episode.pose[frames])
    compared_true = 0
    for i, f in enumerate(frames):
        # Moved objects are masked (+inf) before their placement: the video never showed them
        # where the end-of-day world has them, so only unmasked entries can be compared.
        keep = np.isfinite(episode.distance[f])
        np.testing.assert_array_equal(live.satisfied[i, keep], sat[f, keep], err_msg=f"frame {f}")
        np.testing.assert_allclose(live.coverage[i, keep], episode.coverage[f, keep], atol=1e-6)
        np.testing.assert_allclose(live.distance[i, keep], episode.distance[f, keep], atol=1e-4)
        compared_true += int(sat[f, keep].sum())
    assert len(frames) >= 6 and compared_true >= 5


def test_follower_reaching_a_chosen_frame_succeeds(suite, episode, worlds):
    from recallbench.agents.ll_policies import GreedyFramePolicy
    from recallbench.benchmarks.findingdory.scoring import score_case

    start_sat = episode.satisfied("full")[-1]
    picked = None
    for case in suite.cases:
        if case.num_targets != 1:
            continue
        cols = _cands(case, episode)[0]
        far = [f for f in _robust_frames(episode, cols) if episode.start_distance[cols].min() > 1]
        if far and not start_sat[cols].any():
            picked = (case, int(far[len(far) // 2]), cols)
            break
    assert picked is not None, "the episode has no clearly visible target away from the start"
    case, frame, cols = picked
    rec = _run(worlds, GreedyFramePolicy(), [(case, _record(case, [frame], episode.num_frames))])[0]
    ll = rec["ll"]
    assert ll["success"] and ll["stopped"] and ll["goal_frames"] == [frame]
    assert 0 < ll["steps"] < 1000
    (stop,) = ll["stops"]
    assert np.hypot(*(np.array(stop["pose"][:2]) - episode.pose[frame][:2])) <= 0.15 + 1e-6
    # the driven path (drawn by the case viewer): from the start to the stop, no longer than walked
    path = np.array(ll["path"])
    assert 2 <= len(path) <= 200 and np.allclose(path[0], episode.pose[-1][:2], atol=2e-3)
    assert np.allclose(path[-1], stop["pose"][:2], atol=2e-3)
    assert np.hypot(*np.diff(path, axis=0).T).sum() <= ll["path_length"] + 1e-2
    # it walked at least the geodesic to the nearest valid target
    l_star = float(episode.start_distance[cols].min())
    assert ll["path_length"] >= l_star - 0.3
    scores = score_case(case, rec, episode=episode)
    assert scores["ll_sr"] == 1.0 and scores["ll_failure"] is None
    assert scores["ll_spl"] == pytest.approx(l_star / max(l_star, ll["path_length"]))


def test_stopping_at_the_start_gives_the_failure_mode_of_the_stored_arrays(suite, episode, worlds):
    """StopPolicy stops where the day ended: success and failure mode follow from frame F-1."""
    from recallbench.agents.ll_policies import StopPolicy
    from recallbench.benchmarks.findingdory.annotations import MIN_COVERAGE
    from recallbench.benchmarks.findingdory.ll import SLIGHTLY_FAR
    from recallbench.benchmarks.findingdory.scoring import score_case

    last = episode.num_frames - 1
    sat = episode.satisfied("full")[last]
    items, expect = [], {}
    for case in suite.cases:
        if case.num_targets != 1:
            continue
        cols = _cands(case, episode)[0]
        items.append((case, _record(case, [0], episode.num_frames)))
        if sat[cols].any():
            expect[case.id] = None
        else:
            seen = (episode.coverage[last, cols] >= MIN_COVERAGE).any()
            view = "tgt_in_view" if seen else "tgt_not_in_view"
            near = float(episode.distance[last, cols].min())
            expect[case.id] = f"{view}_{'slightly_far' if near < SLIGHTLY_FAR else 'too_far'}"
    records = _run(worlds, StopPolicy(), items)
    got = {}
    for (case, _), rec in zip(items, records, strict=True):
        assert rec["ll"]["steps"] == 1 and rec["ll"]["path_length"] == 0.0
        got[case.id] = score_case(case, rec, episode=episode)["ll_failure"]
    assert got == expect
    modes = set(expect.values())
    assert None in modes and len(modes - {None}) >= 2  # the check covered several outcomes


class SpinPolicy:
    """Turns in place forever: never calls STOP."""

    def reset(self, env) -> None:
        return None

    def act(self, pose, goal):
        return 2  # TURN_LEFT


def test_never_stopping_times_out_after_1000_steps(suite, episode, worlds):
    from recallbench.benchmarks.findingdory.scoring import score_case

    case = next(c for c in suite.cases if c.num_targets == 1)
    rec = _run(worlds, SpinPolicy(), [(case, _record(case, [0], episode.num_frames))])[0]
    ll = rec["ll"]
    assert ll["steps"] == 1000 and not ll["stopped"] and ll["stops"] == []
    assert ll["path_length"] == 0.0
    assert score_case(case, rec, episode=episode)["ll_failure"] == "timeout"


def _ordered_pair(suite, ep_id, episode):
    """An ordered two-goal case and a clear frame of each goal that does not show the other
    goal, in the world the LL phase runs in: the day's end, where both objects already stand
    at their new places (before a placement the annotations leave the object out: coverage 0,
    distance inf, so a frame from then may show it once it stands there); None if none."""
    sat = episode.satisfied("full")
    for case in suite.cases:
        if case.ep_id != ep_id or not case.ordered or len(case.subgoals) != 2:
            continue
        c0, c1 = _cands(case, episode)

        def clear(frames, other):
            return [f for f in frames if np.isfinite(episode.distance[f, other]).all()
                    and not sat[f, other].any() and episode.coverage[f, other].max() == 0]

        f0s, f1s = clear(_robust_frames(episode, c0), c1), clear(_robust_frames(episode, c1), c0)
        if f0s and f1s:
            return case, int(f0s[len(f0s) // 2]), int(f1s[len(f1s) // 2])
    return None


@pytest.fixture(scope="module")
def ordered(findingdory_ends_at_a_goal_suite, findingdory_two_day_suite):
    """The first day of the two suites with an ordered case whose goals stand apart (a day
    may put its two objects side by side): its suite's world cache, episode, case and frames."""
    from recallbench.benchmarks.findingdory.annotations import load_episode
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.ll_world import WorldCache

    for path in (findingdory_ends_at_a_goal_suite, findingdory_two_day_suite):
        suite = load_suite(path)
        for ep_id in sorted({c.ep_id for c in suite.cases}):
            episode = load_episode(suite.episode_dir(ep_id))
            found = _ordered_pair(suite, ep_id, episode)
            if found is not None:
                cache = WorldCache(suite)
                yield cache, ep_id, episode, *found
                cache.close()
                return
    raise AssertionError("no ordered two-goal case with clear frames")


def test_ordered_goals_succeed_in_order_and_fail_at_the_first_wrong_stop(ordered):
    from recallbench.agents.ll_policies import GreedyFramePolicy
    from recallbench.benchmarks.findingdory.ll import shortest_path_length
    from recallbench.benchmarks.findingdory.ll_rollout import LLPhase
    from recallbench.benchmarks.findingdory.scoring import score_case

    worlds, ep_id, episode, case, f0, f1 = ordered
    right, wrong = LLPhase(worlds.suite, GreedyFramePolicy(), worlds=worlds).run_episode(
        ep_id,
        [
            (case, _record(case, [f0, f1], episode.num_frames)),
            (case, _record(case, [f1, f0], episode.num_frames)),
        ],
    )
    assert right["ll"]["success"] and [s["met"] for s in right["ll"]["stops"]] == [[0], [1]]
    l_star = shortest_path_length(
        episode.start_distance, episode.entity_distance, _cands(case, episode), ordered=True
    )
    spl = score_case(case, right, episode=episode)["ll_spl"]
    assert spl == pytest.approx(l_star / max(l_star, right["ll"]["path_length"]))
    assert not wrong["ll"]["success"] and len(wrong["ll"]["stops"]) == 1  # ended there
    assert wrong["ll"]["stopped"] and wrong["ll"]["steps"] == wrong["ll"]["stops"][0]["step"]
    assert score_case(case, wrong, episode=episode)["ll_failure"] != "timeout"


@pytest.mark.slow
def test_an_unusable_answer_stops_at_the_start(suite, episode, worlds):
    from recallbench.agents.ll_policies import GreedyFramePolicy

    case = next(c for c in suite.cases if c.num_targets == 1)
    rec = {"key": case.id, "offered_frames": [0, 1], "frame_indices": None, "response": "no"}
    ll = _run(worlds, GreedyFramePolicy(), [(case, rec)])[0]["ll"]
    assert not ll["success"] and ll["steps"] == 0 and ll["stopped"]
    assert "response_error" in ll["note"]


def test_ll_phase_refuses_a_suite_without_worlds(suite):
    from recallbench.agents.ll_policies import StopPolicy
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.ll_rollout import LLPhase
    from recallbench.errors import InputError

    public = load_suite(suite.root / "qa_96.json")
    with pytest.raises(InputError, match="--ll"):
        LLPhase(public, StopPolicy())


def test_ll_policies_load_by_name_or_module_path():
    from recallbench.agents.ll_policies import GreedyFramePolicy, StopPolicy, load_ll_policy

    assert isinstance(load_ll_policy("greedy"), GreedyFramePolicy)
    assert isinstance(load_ll_policy("stop"), StopPolicy)
    custom = load_ll_policy("recallbench.agents.ll_policies:GreedyFramePolicy", goal_radius=0.3)
    assert custom.goal_radius == 0.3
    with pytest.raises(ValueError, match="unknown agent 'teleport'"):
        load_ll_policy("teleport")
    with pytest.raises(ValueError, match=r"has no reset\(\) and act\(\)"):
        load_ll_policy("collections:OrderedDict")


def test_official_scoring_stops_at_the_start_when_hl_fails(suite, episode, worlds):
    """Finding 7: in the official mode a misidentified answer is never driven to; the task
    STOPs at the start pose (the policy is not asked) and fails, even where the start pose
    satisfies the goal (that STOP never sets does_want_intermediate_stop). A correct answer is
    driven as usual."""
    from recallbench.benchmarks.findingdory.ll_rollout import OFFICIAL_HL_FAILED, LLPhase
    from recallbench.benchmarks.findingdory.scoring import score_case

    last = episode.num_frames - 1
    sat = episode.satisfied("full")
    items = []
    for case in suite.cases:
        if case.num_targets != 1:
            continue
        cols = _cands(case, episode)[0]
        wrong = np.flatnonzero(~sat[:, cols].any(1))
        if len(wrong):
            items.append((case, _record(case, [int(wrong[0])], episode.num_frames)))
    right_case = next(c for c, _ in items if any(f >= 0 for f in c.answer[0]))
    right = _record(right_case, [int(right_case.answer[0][0])], episode.num_frames)
    phase = LLPhase(worlds.suite, SpinPolicy(), scoring="official", worlds=worlds)
    records = phase.run_episode("ep_0", [*items, (right_case, right)])
    start_ok = 0
    for (case, _), rec in zip(items, records[:-1], strict=True):
        ll = rec["ll"]
        assert ll["note"] == OFFICIAL_HL_FAILED and ll["steps"] == 1 and ll["path_length"] == 0
        start_ok += bool(sat[last, _cands(case, episode)[0]].any())
        assert ll["success"] is False
        row = score_case(case, rec, episode=episode, scoring="official")
        assert row["hl_sr"] == 0.0 and row["ll_sr"] == 0.0
    assert start_ok > 0  # some failed cases had a start pose satisfying their goal
    assert records[-1]["ll"]["steps"] == 1000  # the correct answer was driven (and spun)


@pytest.mark.slow
def test_generated_suite_metrics_agree_with_the_reference_scorer(suite, episode):
    """Findings 4 and 5 on a generated suite: DTG-SR, SC-SR (both modes) and HL-SPL of every
    single-goal case at every 5th frame, recallbench against support/findingdory_reference.py."""
    import support.findingdory_reference as ref
    from recallbench.benchmarks.findingdory.scoring import score_case

    kinds = [e.kind for e in episode.entities]
    arrays = (episode.distance, episode.angle, episode.coverage, episode.in_room)
    checked = 0
    for case in suite.cases:
        if case.num_targets != 1 or case.ep_id != "ep_0":
            continue
        cands = _cands(case, episode)[0]
        for f in range(0, episode.num_frames, 5):
            rec = _record(case, [f], episode.num_frames)
            for mode, sc in (("published", "sc"), ("official", "sc_official")):
                row = score_case(case, rec, episode=episode, scoring=mode)
                for name, check in (("dtg_sr", "dtg"), ("sc_sr", sc), ("hl_sr", "full")):
                    want = any(
                        ref.predicate(kinds[e], *(float(a[f, e]) for a in arrays), check)
                        for e in cands
                    )
                    assert row[name] == float(want), (case.id, f, mode, name)
                spl = (
                    ref.hl_spl(f, cands, kinds, *arrays, episode.start_distance, mode)
                    if row["hl_sr"]
                    else 0.0
                )
                if mode == "official" and case.category in ref.MULTI:
                    assert row["hl_spl"] is None  # measures.py: -1, not supported
                else:
                    assert row["hl_spl"] == pytest.approx(spl), (case.id, f, mode)
                checked += row["hl_sr"]
    assert checked > 0  # some answers were valid, so HL-SPL was really compared
