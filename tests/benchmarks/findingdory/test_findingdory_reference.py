"""recallbench's FindingDory scorer against the independent reference scorer
(tests/findingdory_reference.py), case by case, on many generated prediction files over the
5,876 public validation questions, and on small synthetic suites with stored per-frame
annotations for what the public file lacks (distances, coverage, poses, LL outcomes)."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import support.findingdory_reference as ref
from recallbench.benchmarks.findingdory.annotations import (
    Entity,
    EpisodeAnnotations,
    load_episode,
    predicate_matrix,
    save_episode,
)
from recallbench.benchmarks.findingdory.data import QACase, load_suite
from recallbench.benchmarks.findingdory.evaluate import score_records
from recallbench.benchmarks.findingdory.scoring import score_case
from support.shared_data import FINDINGDORY_VAL_QA as VAL

K = 96
needs_val = pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")


# ---- prediction files -------------------------------------------------------------------------
def _oracle(row: ref.Row, pick: Callable[[list[int]], int]) -> list[int]:
    return [pick([f for f in s if f >= 0]) if any(f >= 0 for f in s) else 0 for s in row.answer]


def index_files(rows: list[ref.Row]) -> dict[str, dict[str, list[Any]]]:
    """name -> {id: frame_indices}: oracle orders, random, edges, off by one, out of range..."""
    rng = random.Random(12)
    first = {r.id: _oracle(r, lambda s: s[0]) for r in rows}
    files: dict[str, dict[str, list[Any]]] = {
        "oracle": first,
        "oracle_reversed": {k: v[::-1] for k, v in first.items()},
        "oracle_rotated": {k: v[1:] + v[:1] for k, v in first.items()},
        "oracle_last_frame": {r.id: _oracle(r, lambda s: s[-1]) for r in rows},
        "oracle_middle_shuffled": {
            r.id: rng.sample(_oracle(r, lambda s: s[len(s) // 2]), r.targets) for r in rows
        },
        "random": {r.id: [rng.randrange(K) for _ in range(r.targets)] for r in rows},
        "first_frame": {r.id: [0] * r.targets for r in rows},
        "last_frame": {r.id: [K - 1] * r.targets for r in rows},
        "plus_one": {k: [f + 1 for f in v] for k, v in first.items()},
        "minus_one": {k: [f - 1 for f in v] for k, v in first.items()},
        "out_of_range_high": {r.id: [K] * r.targets for r in rows},
        "out_of_range_far": {r.id: [1000, -5][: r.targets] or [1000] for r in rows},
        "minus_1": {r.id: [-1] * r.targets for r in rows},
        "duplicates": {k: [v[0]] * len(v) for k, v in first.items()},
        "empty": {r.id: [] for r in rows},
        "extra_frame": {k: v + [v[0]] for k, v in first.items()},
        "missing_frame": {k: v[:-1] for k, v in first.items()},
        "partial_half": {k: v for n, (k, v) in enumerate(first.items()) if n % 2 == 0},
        "coercible_values": {
            k: [[float(f), str(f), True, f + 0.7][n % 4] for f in v]
            for n, (k, v) in enumerate(first.items())
        },
    }
    return files


STYLES: list[Callable[[list[int]], str]] = [
    lambda v: json.dumps({"chain_of_thought": "seen there", "frame_indices": v}),
    lambda v: "```json\n" + json.dumps({"frame_indices": v}) + "\n```",
    lambda v: "I watched it. Answer: " + json.dumps({"frame_indices": v}) + " Done.",
    lambda v: "```JSON\n" + json.dumps({"frame_indices": v}) + "\n```",
    lambda v: str({"chain_of_thought": "python dict", "frame_indices": v}),
    lambda v: '{"frame_indices": [' + "".join(f"{f}," for f in v) + "],}",
    lambda v: "{frame_indices: " + json.dumps(v) + ", chain_of_thought: 'json5'}",
    lambda v: json.dumps({"frame_indices": [float(f) for f in v]}),
    lambda v: json.dumps({"frame_indices": [str(f) for f in v]}),
    lambda v: json.dumps({"frame_indices": [f + 0.7 for f in v]}),
    lambda v: json.dumps({"frame_indices": [True for _ in v]}),
    lambda v: "Answer: " + json.dumps({"frame_indices": v}) + " and " + json.dumps({"x": 1}),
    lambda v: "{'frame_indices': [" + ", ".join(map(str, v)) + ", ...]}",
    lambda v: "I think it is frame " + " and ".join(map(str, v)) + ".",
    lambda v: json.dumps({"answer": {"frame_indices": v}}),
    lambda v: json.dumps({"chain_of_thought": "the json {shows} " * 30, "frame_indices": v}),
    lambda v: json.dumps({"frame_indices": ",".join(map(str, v))}),
    lambda v: '{"frame_indices": [Infinity]}',
    lambda v: "",
]


def response_files(rows: list[ref.Row]) -> dict[str, dict[str, str]]:
    """Every question answered in one of the styles above (round robin), with the oracle's
    or random frames."""
    rng = random.Random(7)
    out: dict[str, dict[str, str]] = {"styles_oracle": {}, "styles_random": {}}
    for n, r in enumerate(rows):
        style = STYLES[n % len(STYLES)]
        out["styles_oracle"][r.id] = style(_oracle(r, lambda s: s[0]))
        out["styles_random"][r.id] = style([rng.randrange(K + 3) for _ in range(r.targets)])
    return out


def _records(preds: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    return {i: {"offered_frames": list(range(K)), key: v} for i, v in preds.items()}


def _compare(rows: list[ref.Row], suite: Any, preds: dict, key: str, mode: str, name: str) -> float:
    got = {
        r["id"]: r for r in score_records(suite, _records(preds, key), scoring=mode)  # type: ignore[arg-type]
    }
    assert len(got) == len(rows), name
    total = 0.0
    for row in rows:
        want = ref.score(row, {key: preds[row.id]} if row.id in preds else None, mode)
        have = got[row.id]
        for metric in ("hl_sr", "failure", "exact_acc", "relaxed_acc"):
            w, h = want[metric], have[metric]
            ok = h == pytest.approx(w) if isinstance(w, float) else h == w
            assert ok, f"{name} ({mode}) case {row.id} {metric}: recallbench {h}, reference {w}"
        total += want["hl_sr"]
    return total


@needs_val
@pytest.mark.slow
def test_scorers_agree_on_every_generated_prediction_file() -> None:
    rows = ref.load_rows(str(VAL))
    suite = load_suite(VAL)
    assert len(rows) == 5876
    hl: dict[tuple[str, str], float] = {}
    for name, preds in index_files(rows).items():
        for mode in ("published", "official"):
            hl[name, mode] = _compare(rows, suite, preds, "frame_indices", mode, name)
    for name, texts in response_files(rows).items():
        for mode in ("published", "official"):
            hl[name, mode] = _compare(rows, suite, texts, "response", mode, name)
    # the frame oracle is unchanged in both modes; the figures for reversed order
    assert hl["oracle", "published"] == hl["oracle", "official"] == 5595
    assert round(hl["oracle_reversed", "published"] / 5876, 4) == 0.9013
    assert round(hl["oracle_reversed", "official"] / 5876, 4) == 0.8831


# ---- one test per finding, each failing on the code before this change -----------------------
@needs_val
def test_official_unordered_multi_goal_is_greedy_row_5268() -> None:
    """Finding 1: [43, 42] on [[42,43,63],[43,63,64,65,66]] fails officially (43 locks sub-goal 0,
    42 adds nothing) and passes the published one-to-one matching."""
    case = next(c for c in load_suite(VAL).cases if c.id == "5268")
    assert case.answer == ((42, 43, 63), (43, 63, 64, 65, 66)) and not case.ordered
    rec = {"offered_frames": list(range(K)), "frame_indices": [43, 42]}
    pub, off = score_case(case, rec), score_case(case, rec, scoring="official")
    assert (pub["hl_sr"], off["hl_sr"], off["failure"]) == (1.0, 0.0, "misidentification")


@pytest.mark.parametrize(
    ("text", "official", "published"),
    [
        ("{'frame_indices': [12], 'chain_of_thought': 'a'}", [12], None),  # Python dict
        ('{"frame_indices": [12,],}', [12], None),  # trailing commas
        ("{frame_indices: [12]}", [12], None),  # json5 unquoted key
        ('{"frame_indices": [66.0, "24", true, 59.7]}', [66, 24, 1, 59], None),  # int()
        ('Answer: {"frame_indices": [3]} and {"frame_indices": [4]}', None, [3]),
        ("```json\n{\"frame_indices\": [7]}\n```", [7], [7]),
        ("no braces here", None, None),
        ('{"frame_indices": ["x"]}', None, None),
    ],
)
def test_official_parsing_reads_what_the_released_agent_reads(
    text: str, official: list[int] | None, published: list[int] | None
) -> None:
    """Finding 2, through the scorer: official reads Python dicts, json5 and int()-coerces; it
    cuts from the first '{' to the last '}', so two objects are unparsable ([-1] -> frame 0)."""
    case = QACase(
        id="1", question="q", answer=((12, 66, 7, 3),), high_level_category="g",
        low_level_category="Object Recall", ep_id="e", template="t", ordered=False,
    )  # fmt: skip
    rec = {"offered_frames": list(range(K)), "response": text}
    off = score_case(case, rec, scoring="official")
    pub = score_case(case, rec)
    assert ref.official_parse(text) == official and ref.published_parse(text) == published
    single = official is not None and len(official) == 1
    want_off = float(single and official[0] in case.answer[0])
    assert off["hl_sr"] == want_off
    assert (off["parse_error"] is None) == (official is not None)
    assert pub["hl_sr"] == (0.0 if published is None else float(published[0] in case.answer[0]))


@needs_val
def test_official_offline_accuracy_compares_raw_lists() -> None:
    """Finding 3: officially, a -1 answer on a [[-1]] row is an exact match (226 val rows);
    an unparsable answer scores 0 relaxed, not the clipped frame 0."""
    suite = load_suite(VAL)
    recs = _records({c.id: [-1] * c.num_targets for c in suite.cases}, "frame_indices")
    off = score_records(suite, recs, scoring="official")
    pub = score_records(suite, recs, scoring="published")
    assert sum(r["exact_acc"] for r in off) == 226
    assert sum(r["exact_acc"] for r in pub) == 0
    frame0_valid = QACase(
        id="1", question="q", answer=((0, 1),), high_level_category="g",
        low_level_category="Object Recall", ep_id="e", template="t", ordered=False,
    )  # fmt: skip
    bad = {"offered_frames": list(range(K)), "response": "no idea"}
    row = score_case(frame0_valid, bad, scoring="official")
    assert row["hl_sr"] == 1.0  # online: [-1] is clipped to frame 0, which is valid here
    assert (row["exact_acc"], row["relaxed_acc"]) == (0.0, 0.0)


# ---- synthetic suites with stored per-frame annotations -------------------------------------
def random_episode(seed: int, frames: int = 40) -> EpisodeAnnotations:
    """Random annotations with values exactly on every threshold (as float32), unreachable
    targets (+inf) and far ones, so each predicate is exercised on both sides."""
    rng = np.random.default_rng(seed)
    kinds = ["object", "object", "object", "receptacle", "receptacle", "room"]
    e = len(kinds)
    on = {"object": (2.0, np.pi / 4), "receptacle": (0.1, np.pi / 2), "room": (0.0, 0.0)}
    dist = rng.uniform(0, 3, (frames, e))
    ang = rng.uniform(-2, 2, (frames, e))
    cov = rng.choice([0.0, 0.0005, 0.001, 0.01], (frames, e))
    for j, kind in enumerate(kinds):
        d, a = on[kind]
        pick = rng.random(frames)
        dist[pick < 0.3, j] = d  # exactly on the distance threshold
        dist[(pick >= 0.3) & (pick < 0.4), j] = 0.05 * 2  # 0.1 m by construction on the grid
        dist[(pick >= 0.4) & (pick < 0.5), j] = np.inf  # unreachable
        ang[pick > 0.7, j] = a * rng.choice([-1, 1])
    start = rng.uniform(1, 8, e)
    start[1] = np.inf if seed % 2 else start[1]
    pos = rng.uniform(0, 5, (e, 2))
    pair = np.linalg.norm(pos[:, None] - pos[None], axis=-1)
    return EpisodeAnnotations(
        pose=rng.uniform(0, 5, (frames, 3)).astype(np.float32),
        times=[f"{6 + i // 60:02d}:{i % 60:02d}" for i in range(frames)],
        entities=[Entity(f"e{j}", k, k, f"e{j}", {}) for j, k in enumerate(kinds)],
        distance=dist.astype(np.float32),
        angle=ang.astype(np.float32),
        coverage=cov.astype(np.float32),
        in_room=rng.random((frames, e)) < 0.3,
        start_distance=start.astype(np.float32),
        entity_distance=pair.astype(np.float32),
    )


def stored(tmp_path: Path, seed: int) -> EpisodeAnnotations:
    save_episode(tmp_path / f"ep{seed}", random_episode(seed))
    return load_episode(tmp_path / f"ep{seed}")


def _ref_predicate(ep: EpisodeAnnotations, f: int, e: int, check: str) -> bool:
    return ref.predicate(
        ep.entities[e].kind,
        float(ep.distance[f, e]),
        float(ep.angle[f, e]),
        float(ep.coverage[f, e]),
        bool(ep.in_room[f, e]),
        check,
    )


def test_float32_thresholds_pass_on_the_boundary() -> None:
    """Finding 6: 0.1 m by construction (two 0.05 m grid steps), 2.0 m, pi/4, pi/2 and 0.001,
    stored as float32, satisfy the inclusive thresholds; just beyond them they do not."""
    ep = random_episode(0, frames=2)
    ep.distance[:] = np.float32(9)
    ep.angle[:] = np.float32(0)
    ep.coverage[:] = np.float32(0.001)
    ep.distance[0, 0], ep.angle[0, 0] = np.float32(2.0), np.float32(np.pi / 4)
    ep.distance[0, 3], ep.angle[0, 3] = np.float32(0.05 * 2), np.float32(np.pi / 2)
    ep.distance[1, 0], ep.distance[1, 3] = np.float32(2.0001), np.float32(0.1001)
    assert np.float32(0.1) > 0.1  # why "<= 0.1" failed on stored values
    for check in ("full", "dtg"):
        m = predicate_matrix(ep, check)  # type: ignore[arg-type]
        assert m[0, 0] and m[0, 3], check
        assert not m[1, 0] and not m[1, 3], check
    ep.coverage[0, 0] = np.float32(0.000999)
    assert not predicate_matrix(ep, "full")[0, 0]


def test_predicates_agree_with_reference_on_stored_suites(tmp_path: Path) -> None:
    """Findings 4 and 6 on stored per-frame annotations: every (frame, entity, check)."""
    for seed in range(4):
        ep = stored(tmp_path, seed)
        for check in ("full", "dtg", "sc", "sc_official"):
            m = predicate_matrix(ep, check)  # type: ignore[arg-type]
            for f in range(ep.num_frames):
                for e in range(len(ep.entities)):
                    assert m[f, e] == _ref_predicate(ep, f, e, check), (seed, check, f, e)


def _case(subgoals: list[list[str]], ep: EpisodeAnnotations, ordered: bool = False) -> QACase:
    sat = ep.satisfied("full")
    answer = tuple(
        tuple(int(f) for f in np.flatnonzero(sat[:, [ep.entity_index(x) for x in sub]].any(1)))
        or (-1,)
        for sub in subgoals
    )
    multi = len(subgoals) > 1
    kind = "Ordered Revisitation" if ordered else "Unordered Revisitation"
    cat = kind if multi else "Interaction"
    return QACase(
        id="c", question="q", answer=answer, high_level_category="g", low_level_category=cat,
        ep_id="e", template="t", ordered=ordered, answer_frames=None,
        subgoals=tuple(tuple(s) for s in subgoals), num_frames=ep.num_frames,
    )  # fmt: skip


def test_sc_sr_official_fails_unreachable_targets(tmp_path: Path) -> None:
    """Finding 4: an unreachable target (distance +inf) in view passes the published SC-SR
    (distance test off) and fails the official one (distance <= 10000)."""
    ep = random_episode(1, frames=3)
    ep.distance[:, 0], ep.angle[:, 0], ep.coverage[:, 0] = np.inf, 0.0, 0.5
    save_episode(tmp_path / "e", ep)
    ep = load_episode(tmp_path / "e")
    case = _case([["e0"]], ep)
    rec = {"offered_frames": [0, 1, 2], "frame_indices": [1]}
    assert score_case(case, rec, episode=ep)["sc_sr"] == 1.0
    assert score_case(case, rec, episode=ep, scoring="official")["sc_sr"] == 0.0


def test_hl_spl_chosen_target_published_nearest_the_frame_official_first_assignment() -> None:
    """Finding 5: two valid targets hold at the chosen frame. Published takes the one the robot
    stands at (e0, far from the start); official (measures.py) takes the first satisfied one in
    assignment order, the only one its short-circuiting OR logs as a success (here e1)."""
    ep = random_episode(2, frames=2)
    ep.angle[:] = 0.0
    ep.coverage[:] = 0.5
    ep.distance[0, 0], ep.distance[0, 1] = 0.5, 1.9  # at frame 0 the robot stands at e0
    ep.start_distance[0], ep.start_distance[1] = 6.0, 3.0
    rec = {"offered_frames": [0, 1], "frame_indices": [0]}
    for order in (["e1", "e0"], ["e0", "e1"]):
        case = _case([order], ep)
        assert score_case(case, rec, episode=ep)["hl_spl"] == pytest.approx(3.0 / 6.0)
        official = score_case(case, rec, episode=ep, scoring="official")["hl_spl"]
        assert official == pytest.approx(1.0 if order[0] == "e1" else 0.5), order


def test_hl_spl_official_is_not_supported_for_multi_goal_instructions() -> None:
    """measures.py reports -1 for any instruction with ``sequential_goals``: a Multi-Goal
    instruction with one sub-goal is n/a officially, scored as one goal in the published mode,
    in a scored case and a missing one alike."""
    from recallbench.benchmarks.findingdory.scoring import missing_row

    ep = random_episode(2, frames=2)
    ep.angle[:], ep.coverage[:], ep.distance[:] = 0.0, 0.5, 0.5
    ep.start_distance[0], ep.start_distance[1] = 6.0, 3.0
    single = _case([["e0", "e1"]], ep)
    case = dataclasses.replace(single, low_level_category="Unordered Revisitation")
    assert case.num_targets == 1
    rec = {"offered_frames": [0, 1], "frame_indices": [0]}
    assert score_case(case, rec, episode=ep)["hl_spl"] == pytest.approx(0.5)
    assert score_case(case, rec, episode=ep, scoring="official")["hl_spl"] is None
    assert score_case(single, rec, episode=ep, scoring="official")["hl_spl"] == pytest.approx(0.5)
    assert missing_row(case, episode=ep)["hl_spl"] == 0.0
    assert missing_row(case, episode=ep, scoring="official")["hl_spl"] is None


def test_hl_and_spl_agree_with_reference_on_stored_suites(tmp_path: Path) -> None:
    """Findings 1, 4, 5 on stored annotations: every frame as a single-goal answer, and random
    multi-goal answers, in both modes (DTG-SR, SC-SR, HL-SR, HL-SPL)."""
    rng = random.Random(5)
    for seed in range(4):
        ep = stored(tmp_path, seed)
        ids = [e.id for e in ep.entities]
        single = _case([ids[:3]], ep)
        cands = [ep.entity_index(x) for x in ids[:3]]
        arrays = (ep.distance, ep.angle, ep.coverage, ep.in_room, ep.start_distance)
        for f in range(ep.num_frames):
            rec = {"offered_frames": list(range(ep.num_frames)), "frame_indices": [f]}
            for mode in ("published", "official"):
                row = score_case(single, rec, episode=ep, scoring=mode)
                sc = "sc_official" if mode == "official" else "sc"
                for name, check in (("dtg_sr", "dtg"), ("sc_sr", sc), ("hl_sr", "full")):
                    want = any(_ref_predicate(ep, f, e, check) for e in cands)
                    assert row[name] == float(want), (seed, f, mode, name)
                kinds = [e.kind for e in ep.entities]
                spl = ref.hl_spl(f, cands, kinds, *arrays, mode) if row["hl_sr"] else 0.0
                assert row["hl_spl"] == pytest.approx(spl), (seed, f, mode)
        for ordered in (False, True):
            multi = _case([[ids[0], ids[3]], [ids[3]], [ids[5], ids[1]]], ep, ordered)
            ref_row = ref.Row("c", [list(s) for s in multi.answer], multi.low_level_category)
            for _ in range(60):
                frames = [rng.randrange(ep.num_frames) for _ in range(3)]
                rec = {"offered_frames": list(range(ep.num_frames)), "frame_indices": frames}
                for mode in ("published", "official"):
                    row = score_case(multi, rec, episode=ep, scoring=mode)
                    want = ref.hl_success(frames, ref_row, mode)
                    assert row["hl_sr"] == float(want), (seed, frames, mode, ordered)


def test_official_ll_stops_at_the_start_when_hl_fails(tmp_path: Path) -> None:
    """Finding 7: officially LL success needs HL success: a misidentified frame becomes a STOP
    at the start pose, which fails even where that pose satisfies the goal, because the goal
    predicates are ANDed with does_want_intermediate_stop and a STOP never sets it."""
    ep = random_episode(3, frames=4)
    ep.angle[:] = 0.0
    ep.coverage[:] = 0.0
    ep.coverage[1, 0] = 0.5
    ep.distance[:] = 1.0
    save_episode(tmp_path / "e", ep)
    ep = load_episode(tmp_path / "e")
    case = _case([["e0"]], ep)
    assert case.answer == ((1,),)
    drove_there = {"success": True, "path_length": 4.0, "steps": 20, "stopped": True}
    wrong = {"offered_frames": [0, 1, 2, 3], "frame_indices": [2], "ll": drove_there}
    assert score_case(case, wrong, episode=ep)["ll_sr"] == 1.0
    off = score_case(case, wrong, episode=ep, scoring="official")
    assert off["ll_sr"] == 0.0 and off["ll_spl"] == 0.0
    # the start pose (the last frame's) satisfies the goal: the STOP there still fails
    ep.coverage[3, 0] = 0.5
    ep._sat.clear()
    case = _case([["e0"]], ep)
    assert _ref_predicate(ep, 3, 0, "full")
    off = score_case(case, wrong, episode=ep, scoring="official")
    assert off["hl_sr"] == 0.0 and off["ll_sr"] == 0.0
    assert off["ll_failure"] == "tgt_in_view_slightly_far"
    right = {**wrong, "frame_indices": [1]}
    assert score_case(case, right, episode=ep, scoring="official")["ll_sr"] == 1.0


def test_official_ll_rollout_plans_no_drive_when_hl_fails(tmp_path: Path) -> None:
    from recallbench.benchmarks.findingdory.ll_rollout import OFFICIAL_HL_FAILED, chosen_goals

    ep = random_episode(3, frames=4)
    ep.angle[:], ep.coverage[:], ep.distance[:] = 0.0, 0.0, 1.0
    ep.coverage[1, 0] = 0.5
    case = _case([["e0"]], ep)
    wrong = {"offered_frames": [0, 1, 2, 3], "frame_indices": [2]}
    goals, note = chosen_goals(case, wrong, ep, "official")
    assert goals == [] and note == OFFICIAL_HL_FAILED
    goals, note = chosen_goals(case, wrong, ep, "published")
    assert [g.frame for g in goals] == [2] and note is None
    right = {**wrong, "frame_indices": [1]}
    assert [g.frame for g in chosen_goals(case, right, ep, "official")[0]] == [1]
