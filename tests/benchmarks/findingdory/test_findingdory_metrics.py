"""HL and LL metrics on hand-computed cases: valid-frame lists and synthetic per-frame
annotation arrays in the generated-episode format."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from recallbench.benchmarks.findingdory import ll
from recallbench.benchmarks.findingdory.annotations import (
    Entity,
    EpisodeAnnotations,
    load_episode,
    predicate_matrix,
    save_episode,
)
from recallbench.benchmarks.findingdory.data import QACase
from recallbench.benchmarks.findingdory.metrics import (
    check_indices,
    exact_accuracy,
    hl_spl,
    list_success,
    relaxed_accuracy,
)
from recallbench.benchmarks.findingdory.scoring import AnswerSpaceError, score_case
from recallbench.errors import InputError

# --- validity checks and failure modes -------------------------------------------------------


def test_failure_modes_published() -> None:
    assert check_indices(None, 96, 1).failure == "response_error"
    assert check_indices([1, 2], 96, 1).failure == "num_targets_error"
    assert check_indices([96], 96, 1).failure == "out_of_bounds_pred"
    assert check_indices([-1], 96, 1).failure == "out_of_bounds_pred"
    ok = check_indices([0, 95], 96, 2)
    assert ok.failure is None and ok.positions == [0, 95]


def test_failure_modes_official_map_to_frame_zero() -> None:
    # unparsable -> [0]; single-goal: scored as frame 0, multi-goal: count error
    assert check_indices(None, 96, 1, scoring="official").positions == [0]
    assert check_indices(None, 96, 3, scoring="official").failure == "num_targets_error"
    assert check_indices([5, 200, -3], 96, 3, scoring="official").positions == [5, 0, 0]


# --- HL from valid-frame lists ---------------------------------------------------------------


def test_single_goal_is_existential() -> None:
    assert list_success([7], [[5, 6, 7]], ordered=False)
    assert not list_success([8], [[5, 6, 7]], ordered=False)
    assert not list_success([-1], [[-1]], ordered=False)  # [-1]: no frame can succeed
    assert not list_success([0], [[]], ordered=False)


def test_unordered_each_frame_needs_a_new_subgoal() -> None:
    answer = [[1, 2], [2, 3], [9]]
    assert list_success([9, 3, 1], answer, ordered=False)
    assert list_success([2, 2, 9], answer, ordered=False)  # 2 serves goal 0 once and goal 1 once
    assert not list_success([1, 1, 9], answer, ordered=False)  # frame 1 only serves goal 0
    # greedy would give frame 2 to goal 0 and then fail on frame 1: matching must not
    assert list_success([2, 1, 9], answer, ordered=False)
    assert not list_success([9, 3], answer, ordered=False)


def test_ordered_requires_the_given_order() -> None:
    answer = [[10, 11], [3]]
    assert list_success([11, 3], answer, ordered=True)
    assert not list_success([3, 11], answer, ordered=True)
    assert list_success([3, 11], answer, ordered=False)


def test_offline_accuracies() -> None:
    assert exact_accuracy([[3]], [[3]]) == 1.0
    assert exact_accuracy([[3]], [[3, 4]]) == 0.0
    assert relaxed_accuracy([[3], [7]], [[3, 4], [8]]) == 0.0
    assert relaxed_accuracy([[3, 9], [8]], [[3, 4], [8]]) == 0.5
    assert relaxed_accuracy([[3]], [[3], [4]]) == 0.0  # sub-list counts differ
    # one side empty: published counts 0, the official code skips the sub-list
    assert relaxed_accuracy([[3], []], [[3], [5]]) == 0.0
    assert relaxed_accuracy([[3], []], [[3], [5]], scoring="official") == 1.0
    assert relaxed_accuracy([[]], [[]]) == 1.0


def public_case(answer: list[list[int]], category: str = "Interaction", ordered: bool = False):
    group = {
        "Interaction": "Single-Goal Spatial Tasks",
        "Unordered Revisitation": "Multi-Goal Tasks",
        "Ordered Revisitation": "Multi-Goal Tasks",
    }[category]
    return QACase(
        id="q1",
        question="The robot's goal is: Navigate to any receptacle you interacted with.",
        answer=tuple(tuple(s) for s in answer),
        high_level_category=group,
        low_level_category=category,
        ep_id="ep_1",
        template="t",
        ordered=ordered,
    )


def test_score_case_parses_responses_and_reports_na() -> None:
    case = public_case([[40, 41]])
    offered = list(range(96))
    good = score_case(case, {"offered_frames": offered, "response": '{"frame_indices": [41]}'})
    assert good["hl_sr"] == 1.0 and good["failure"] is None
    assert good["dtg_sr"] is None and good["hl_spl"] is None and good["ll_sr"] is None
    bad = score_case(case, {"offered_frames": offered, "response": "frames 1, 2, ..."})
    assert bad["hl_sr"] == 0.0 and bad["failure"] == "response_error"
    wrong = score_case(case, {"offered_frames": offered, "frame_indices": [3]})
    assert wrong["failure"] == "misidentification"
    crashed = score_case(case, {"offered_frames": offered, "agent_error": "RuntimeError()"})
    assert crashed["failure"] == "response_error" and "agent error" in crashed["parse_error"]
    # official: unparsable -> frame 0, which is a misidentification here, not a response error
    official = score_case(case, {"offered_frames": offered, "response": "?"}, scoring="official")
    assert official["failure"] == "misidentification"


def test_a_goal_no_offered_frame_satisfies_is_not_a_misidentification() -> None:
    """The oracle's failures on val's [-1] answers used to read "misidentification"."""
    offered = list(range(96))
    unsolvable = score_case(public_case([[-1]]), {"offered_frames": offered,
                                                  "frame_indices": [0]})
    assert unsolvable["hl_sr"] == 0.0 and unsolvable["failure"] == "no_valid_frame_offered"
    second_missing = score_case(public_case([[3], []], "Unordered Revisitation"),
                                {"offered_frames": offered, "frame_indices": [3, 4]})
    assert second_missing["failure"] == "no_valid_frame_offered"


def test_public_answers_need_k96() -> None:
    case = public_case([[40]])
    with pytest.raises(AnswerSpaceError, match="96-frame"):
        score_case(case, {"offered_frames": list(range(48)), "frame_indices": [20]})


# --- per-frame annotations (generated episodes) ------------------------------------------------

FAR = (10.0, 3.0, 0.0)  # distance, angle, coverage: nowhere near


def synthetic_episode() -> EpisodeAnnotations:
    """6 frames x 4 entities, values chosen to sit on each side of every threshold."""
    ents = [
        Entity("o1", "object", "cup", "cup", {}),
        Entity("o2", "object", "cup", "red cup", {"color": "red"}),
        Entity("r1", "receptacle", "table", "table", {}),
        Entity("k", "room", "kitchen", "kitchen", {}),
    ]
    f, e = 6, 4
    dist = np.full((f, e), FAR[0], np.float32)
    ang = np.full((f, e), FAR[1], np.float32)
    cov = np.full((f, e), FAR[2], np.float32)
    room = np.zeros((f, e), bool)
    # o1: frame 0 full; 1 too far (sc only); 2 too little coverage (dtg only); 3 bad angle
    for frame, (d, a, c) in {0: (2.0, 0.1, 0.01), 1: (2.5, 0, 0.02), 2: (1.0, 0.2, 0.0005),
                             3: (1.0, 1.0, 0.1)}.items():  # fmt: skip
        dist[frame, 0], ang[frame, 0], cov[frame, 0] = d, a, c
    dist[4, 1], ang[4, 1], cov[4, 1] = 0.5, -0.5, 0.05  # o2 full at frame 4
    dist[4, 2], ang[4, 2], cov[4, 2] = 0.05, 1.2, 0.01  # r1 full at 4 (receptacle angle pi/2)
    dist[5, 2], ang[5, 2], cov[5, 2] = 0.2, 0.0, 0.1  # r1 too far from a viewpoint at 5
    room[5, 3] = True
    start = np.array([3.0, 5.0, 4.0, 1.0], np.float32)
    pos = np.array([3.0, -5.0, 4.0, 1.0])  # entities on a line through the start at 0
    pair = np.abs(pos[:, None] - pos[None]).astype(np.float32)
    return EpisodeAnnotations(
        pose=np.zeros((f, 3), np.float32),
        times=[f"06:{i:02d}" for i in range(f)],
        entities=ents,
        distance=dist,
        angle=ang,
        coverage=cov,
        in_room=room,
        start_distance=start,
        entity_distance=pair,
    )


def test_predicates_thresholds() -> None:
    ep = synthetic_episode()
    full, dtg, sc = (predicate_matrix(ep, c) for c in ("full", "dtg", "sc"))
    assert full[:, 0].tolist() == [True, False, False, False, False, False]
    assert dtg[:, 0].tolist() == [True, False, True, False, False, False]
    assert sc[:, 0].tolist() == [True, True, False, False, False, False]
    assert full[:, 1].tolist() == [False] * 4 + [True, False]
    assert full[:, 2].tolist() == [False] * 4 + [True, False]
    assert sc[5, 2] and not dtg[5, 2]
    assert full[:, 3].tolist() == [False] * 5 + [True]  # rooms: inside, whatever the check


def gen_case(subgoals: list[list[str]], ordered: bool = False, multi: bool = False) -> QACase:
    cat = ("Ordered Revisitation" if ordered else "Unordered Revisitation") if multi else (
        "Object Recall"
    )
    group = "Multi-Goal Tasks" if multi else "Single-Goal Spatial Tasks"
    ep = synthetic_episode()
    sat = ep.satisfied("full")
    answer = tuple(
        tuple(int(f) for f in np.flatnonzero(sat[:, [ep.entity_index(e) for e in sub]].any(1)))
        or (-1,)
        for sub in subgoals
    )
    return QACase(
        id="g1", question="q", answer=answer, high_level_category=group,
        low_level_category=cat, ep_id="e", template="t", ordered=ordered,
        answer_frames=None, subgoals=tuple(tuple(s) for s in subgoals), num_frames=6,
    )  # fmt: skip


def score(case: QACase, frames: list[int], **extra) -> dict:
    record = {"offered_frames": list(range(6)), "frame_indices": frames, **extra}
    return score_case(case, record, episode=synthetic_episode())


def test_dtg_sc_and_hl_spl_single_goal() -> None:
    case = gen_case([["o1", "o2"]])
    near = score(case, [0])
    assert (near["hl_sr"], near["dtg_sr"], near["sc_sr"], near["hl_spl"]) == (1, 1, 1, 1)
    far = score(case, [4])  # valid, but o2 is 5.0 m away while o1 is 3.0 m
    assert far["hl_sr"] == 1 and far["hl_spl"] == pytest.approx(3.0 / 5.0)
    only_sc = score(case, [1])
    assert (only_sc["hl_sr"], only_sc["dtg_sr"], only_sc["sc_sr"], only_sc["hl_spl"]) == (
        0, 0, 1, 0)  # fmt: skip
    only_dtg = score(case, [2])
    assert (only_dtg["dtg_sr"], only_dtg["sc_sr"]) == (1, 0)
    assert hl_spl(False, 3.0, 3.0) == 0.0


def test_annotated_multi_goal_and_subsampled_offer() -> None:
    unordered = gen_case([["o1"], ["r1"]], multi=True)
    assert score(unordered, [4, 0])["hl_sr"] == 1
    assert score(unordered, [0, 0])["hl_sr"] == 0
    assert score(unordered, [4, 0])["hl_spl"] is None  # single-goal only
    ordered = gen_case([["o1"], ["r1"]], ordered=True, multi=True)
    assert score(ordered, [0, 4])["hl_sr"] == 1 and score(ordered, [4, 0])["hl_sr"] == 0
    # positions map through the offered list to original frames
    single = gen_case([["r1"]])
    rec = {"offered_frames": [0, 2, 4], "frame_indices": [2]}
    assert score_case(single, rec, episode=synthetic_episode())["hl_sr"] == 1


def test_episode_round_trip_and_bad_files(tmp_path: Path) -> None:
    ep = synthetic_episode()
    save_episode(tmp_path / "e", ep)
    back = load_episode(tmp_path / "e")
    assert [e.id for e in back.entities] == ["o1", "o2", "r1", "k"]
    assert np.array_equal(back.satisfied("full"), ep.satisfied("full"))
    assert back.times == ep.times
    np.savez(tmp_path / "e" / "annotations.npz", distance=np.zeros((2, 2)))
    with pytest.raises(InputError, match="annotations.npz: distance"):
        load_episode(tmp_path / "e")


# --- LL: shortest paths, SPL, failure modes -----------------------------------------------------


def line_world(xs: list[float]) -> tuple[np.ndarray, np.ndarray]:
    pos = np.asarray(xs, float)
    return np.abs(pos), np.abs(pos[:, None] - pos[None])


def test_shortest_path_single_ordered_unordered() -> None:
    start, pair = line_world([1.0, -2.0, 4.0, 0.5])
    # single goal with two valid targets: the nearer one
    assert ll.shortest_path_length(start, pair, [[2, 3]], ordered=False) == 0.5
    # ordered 1, -2, 4: 1 + 3 + 6
    assert ll.shortest_path_length(start, pair, [[0], [1], [2]], ordered=True) == 10.0
    # unordered: best is -2, 1, 4 = 2 + 3 + 3
    assert ll.shortest_path_length(start, pair, [[0], [1], [2]], ordered=False) == 8.0
    # a sub-goal with a choice of target: {-2 or 0.5}, then 4 -> 0.5 + 3.5
    assert ll.shortest_path_length(start, pair, [[1, 3], [2]], ordered=True) == 4.0
    assert math.isinf(ll.shortest_path_length(start, pair, [[0], []], ordered=False))


def test_heuristic_tour_beyond_six_goals(monkeypatch: pytest.MonkeyPatch) -> None:
    xs = [-3.0, 5.0, -1.0, 2.0, 7.0, -6.0, 1.0, 4.0]  # 8 goals on a line
    start, pair = line_world(xs)
    goals = [[i] for i in range(len(xs))]
    heuristic = ll.shortest_path_length(start, pair, goals, ordered=False)
    assert heuristic == pytest.approx(min(2 * 6 + 7, 6 + 2 * 7))  # optimal on a line
    rng = np.random.default_rng(0)
    for trial in range(3):  # 7 random goals: the heuristic vs the exact tour (7! orders)
        pts = rng.uniform(-10, 10, size=(7, 2))
        start = np.linalg.norm(pts, axis=1)
        pair = np.linalg.norm(pts[:, None] - pts[None], axis=2)
        goals7 = goals[:7]
        heuristic = ll.shortest_path_length(start, pair, goals7, ordered=False)
        with monkeypatch.context() as m:
            m.setattr(ll, "EXACT_TOUR_MAX_GOALS", 7)
            exact = ll.shortest_path_length(start, pair, goals7, ordered=False)
        assert exact <= heuristic + 1e-9 and heuristic <= 1.25 * exact, trial


def test_ll_spl_and_failure_modes() -> None:
    assert ll.ll_spl(True, 8.0, 10.0) == 0.8
    assert ll.ll_spl(True, 8.0, 6.0) == 1.0
    assert ll.ll_spl(False, 8.0, 8.0) == 0.0
    assert ll.ll_spl(True, -1.0, 5.0) is None  # the official placeholder: unknown, not negative
    kw = {"steps": 120, "stopped": True}
    assert ll.ll_failure_mode(success=True, target_in_view=True, stop_distance=0, **kw) is None
    assert (
        ll.ll_failure_mode(success=False, steps=1000, stopped=False, target_in_view=False,
                           stop_distance=9)  # fmt: skip
        == "timeout"
    )
    assert ll.ll_failure_mode(success=False, target_in_view=True, stop_distance=2.4, **kw) == (
        "tgt_in_view_slightly_far")  # fmt: skip
    assert ll.ll_failure_mode(success=False, target_in_view=False, stop_distance=2.6, **kw) == (
        "tgt_not_in_view_too_far")  # fmt: skip


def test_ll_metrics_from_recorded_rollout() -> None:
    case = gen_case([["o1"], ["r1"]], multi=True)  # o1 at +3, r1 at +4: L* = 3 + 1
    rollout = {"success": True, "path_length": 5.0, "steps": 40, "stopped": True,
               "target_in_view": True, "stop_distance": 0.0}  # fmt: skip
    got = score(case, [0, 4], ll=rollout)
    assert got["ll_sr"] == 1.0 and got["ll_spl"] == pytest.approx(4.0 / 5.0)
    failed = score(case, [0, 4], ll={**rollout, "success": False, "stop_distance": 3.0,
                                      "target_in_view": False})  # fmt: skip
    assert failed["ll_sr"] == 0.0 and failed["ll_spl"] == 0.0
    assert failed["ll_failure"] == "tgt_not_in_view_too_far"
