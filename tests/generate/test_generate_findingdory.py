"""FindingDory episode generation in the built-in world: a tiny real day, end to end.

One episode (2 interactions, 600 steps, 120x160 frames, one room) is generated with the real
world, physics, renderer and video encoder, then checked against the evaluation side's loader,
templates and metrics, against direct re-measurements in the saved end-of-day world, and against
a second generation with the same seed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from support.clock import minutes

pytestmark = pytest.mark.timeout(600)

KNOBS = FindingDoryKnobs(
    interactions=2, interactions_spread=0, steps=600, rooms=1, width=120, height=160,
    distractors=4, revisits=1,
)
PUBLIC_KEYS = {
    "question",
    "video",
    "id",
    "answer",
    "high_level_category",
    "low_level_category",
    "ep_id",
    "task_id",
    "num_interactions",
}


def _generate(root: Path) -> Path:
    from recallbench.generate.findingdory import generate_episode, merge_suite

    generate_episode(root, seed=7, index=0, knobs=KNOBS)
    merge_suite(root)
    return root


@pytest.fixture(scope="module")
def suite_dir(findingdory_generated_suite: Path) -> Path:
    """The run's shared suite: `recallbench generate findingdory` with these knobs
    (support.findingdory_suite.GENERATE), generated once for every module that reads it."""
    return findingdory_generated_suite


@pytest.fixture(scope="module")
def episode(suite_dir):
    from recallbench.benchmarks.findingdory.annotations import load_episode

    return load_episode(suite_dir / "episodes" / "ep_0")


def test_episode_files_load_with_the_evaluation_loaders(suite_dir, episode):
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.video.reader import count_frames

    ep_dir = suite_dir / "episodes" / "ep_0"
    assert count_frames(ep_dir / "video.mp4") == KNOBS.steps
    assert count_frames(ep_dir / "video_96.mp4") == 96
    assert episode.num_frames == KNOBS.steps
    start, end = minutes(episode.times[0]), minutes(episode.times[-1])
    assert 5 * 60 + 30 <= start <= 6 * 60 + 30 and 90 <= end - start <= 13 * 60 + 1
    assert episode.times == sorted(episode.times)  # the clock only runs forward
    meta = json.loads((ep_dir / "episode.json").read_text())
    assert len(meta["interactions"]) == KNOBS.interactions
    kinds = {e.kind for e in episode.entities}
    assert kinds == {"object", "receptacle", "room"}

    full = load_suite(suite_dir)
    public = load_suite(suite_dir / "qa_96.json")
    assert full.generated and not public.generated
    assert len(full.cases) == len(public.cases) > 30
    rows = json.loads((suite_dir / "qa_96.json").read_text())
    assert all(set(r) == PUBLIC_KEYS for r in rows)
    for case in public.cases:
        assert case.question.startswith("The robot's goal is: ")
        assert case.answer_frames == 96
        assert all(-1 <= i < 96 for sub in case.answer for i in sub)
        assert case.num_interactions == KNOBS.interactions
    for case in full.cases:
        assert case.answer_frames is None and case.subgoals is not None
        assert all(-1 <= i < KNOBS.steps for sub in case.answer for i in sub)


def test_instructions_cover_the_categories_and_match_the_templates(suite_dir):
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.templates import CATEGORIES, template_of
    from recallbench.generate.templates_findingdory import TASK_IDS, TASKS

    assert len(TASKS) == 60 and len(set(TASK_IDS)) == 60
    cases = load_suite(suite_dir).cases
    assert {c.category for c in cases} == set(CATEGORIES)
    per_task: dict[str, int] = {}
    for c in cases:
        assert c.task_id in TASK_IDS
        per_task[c.task_id] = per_task.get(c.task_id, 0) + 1
        # the evaluation side recovers the template from the question text alone
        assert template_of(c.question, c.category) == c.template, c.question
    assert max(per_task.values()) <= KNOBS.per_template
    # ~60 questions allocated by val's category mix, spread over the tasks of each category
    assert len(per_task) >= 35 and abs(len(cases) - KNOBS.questions) <= 8


def _oracle_positions(case, offered: list[int]) -> list[int]:
    """A frame oracle: for each sub-goal, the first offered position showing a valid frame."""
    where = {f: p for p, f in enumerate(offered)}
    return [where[sub[0]] if case.answer_frames is None else sub[0] for sub in case.answer]


@pytest.mark.parametrize("which", ["full", "subsampled"])
def test_frame_oracle_scores_full_marks_on_solvable_instances(suite_dir, which):
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.evaluate import EpisodeCache
    from recallbench.benchmarks.findingdory.scoring import score_case

    suite = load_suite(suite_dir if which == "full" else suite_dir / "qa_96.json")
    episodes = EpisodeCache(suite)
    solvable = 0
    for case in suite.cases:
        offered = list(range(KNOBS.steps if which == "full" else 96))
        positions = _oracle_positions(case, offered) if case.solvable else [0] * case.num_targets
        ep = episodes.get(case.ep_id)
        scores = score_case(
            case, {"offered_frames": offered, "frame_indices": positions}, episode=ep
        )
        if case.solvable:
            solvable += 1
            assert scores["hl_sr"] == 1.0, case.question
            if which == "full":
                assert scores["dtg_sr"] == 1.0 and scores["sc_sr"] == 1.0, case.question
                if scores["hl_spl"] is not None:
                    assert 0.0 < scores["hl_spl"] <= 1.0
        else:
            assert scores["hl_sr"] == 0.0
    assert solvable >= 0.7 * len(suite.cases)


def test_answers_are_the_annotated_predicate(suite_dir, episode):
    """Every answer frame satisfies its sub-goal's predicate; every other frame does not."""
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.video.sampling import subsample_indices

    sat = episode.satisfied("full")
    full = load_suite(suite_dir)
    public = {c.id: c for c in load_suite(suite_dir / "qa_96.json").cases}
    offered = subsample_indices(KNOBS.steps, 96)
    for case in full.cases:
        for sub, goal, sub96 in zip(
            case.answer, case.subgoals, public[case.id].answer, strict=True
        ):
            cols = [episode.entity_index(e) for e in goal]
            valid = np.flatnonzero(sat[:, cols].any(axis=1)).tolist()
            assert list(sub) == (valid or [-1])
            assert list(sub96) == ([p for p, f in enumerate(offered) if f in valid] or [-1])


def test_moved_objects_count_only_after_their_placement(suite_dir, episode):
    meta = json.loads((suite_dir / "episodes" / "ep_0" / "episode.json").read_text())
    sat = episode.satisfied("full")
    for it in meta["interactions"]:
        e = episode.entity_index(it["object"])
        assert np.isinf(episode.distance[: it["place_end"], e]).all()
        assert not sat[: it["place_end"], e].any()
        # the robot stands at the placing pose, facing the spot, as the placement ends
        assert sat[it["place_end"], e], it


def test_annotations_agree_with_a_direct_check_in_the_saved_world(suite_dir, episode):
    from recallbench.world.io import load_world
    from recallbench.world.render import coverage, subtree_bodies

    ep_dir = suite_dir / "episodes" / "ep_0"
    meta = json.loads((ep_dir / "episode.json").read_text())
    env = load_world(ep_dir / "world")
    grid = env.nav_grid
    recs = {r["name"]: r for r in env.world_meta["receptacles"]}
    it = meta["interactions"][-1]
    frames = [0, it["pick_start"], it["place_end"], KNOBS.steps - 1]
    checked = 0
    for f in frames:
        pose = episode.pose[f].astype(float)
        env.teleport(pose)
        seg = env.render_camera("robot0_head", KNOBS.width, KNOBS.height, mode="segmentation")
        for e, ent in enumerate(episode.entities):
            if ent.kind == "room":
                continue
            if ent.kind == "object":
                body = env.model.body(ent.id).id
                bodies = [body]
                target = env.data.xpos[body][:2]
                moved_later = any(
                    i["object"] == ent.id and f < i["place_end"] for i in meta["interactions"]
                )
                if moved_later:
                    continue
                geo = grid.geodesic(pose[:2], grid.snap(target))
                assert math.isclose(episode.distance[f, e], geo, rel_tol=0.05, abs_tol=0.08)
            else:
                bodies = subtree_bodies(env.model, recs[ent.id]["body_name"])
                sid = env.model.site(recs[ent.id]["top_site"]).id
                target = env.data.site_xpos[sid][:2]
            cov = coverage(seg, bodies)
            assert episode.coverage[f, e] == pytest.approx(cov, abs=1e-6)
            ang = math.atan2(target[1] - pose[1], target[0] - pose[0]) - pose[2]
            ang = (ang + math.pi) % (2 * math.pi) - math.pi
            assert abs(episode.angle[f, e] - ang) < 1e-3
            checked += 1
    env.close()
    assert checked > 20
    # rooms: inside means the base is within the room's bounds
    rooms = {r["name"]: r["bounds"] for r in env.world_meta["rooms"]}
    for f in range(0, KNOBS.steps, 37):
        x, y = episode.pose[f][:2]
        for e, ent in enumerate(episode.entities):
            if ent.kind == "room":
                x0, y0, x1, y1 = rooms[ent.id]
                assert episode.in_room[f, e] == (x0 <= x <= x1 and y0 <= y <= y1)


@pytest.mark.slow
def test_same_seed_gives_the_same_episode(suite_dir, tmp_path):
    again = _generate(tmp_path / "again")
    for name in ("qa.json", "qa_96.json"):
        assert (again / name).read_bytes() == (suite_dir / name).read_bytes()
    a, b = suite_dir / "episodes" / "ep_0", again / "episodes" / "ep_0"
    for name in ("entities.json", "events.json", "episode.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    for name in ("frames.npz", "annotations.npz"):
        with np.load(a / name) as x, np.load(b / name) as y:
            assert sorted(x.files) == sorted(y.files)
            for k in x.files:
                np.testing.assert_array_equal(x[k], y[k])


def test_generation_is_resumable_and_skips_complete_episodes(suite_dir):
    from recallbench.generate.findingdory import generate_episode

    ep = suite_dir / "episodes" / "ep_0"
    stamp = (ep / "episode.json").stat().st_mtime_ns
    assert generate_episode(suite_dir, seed=7, index=0, knobs=KNOBS) == ep
    assert (ep / "episode.json").stat().st_mtime_ns == stamp
    assert not list((suite_dir / "episodes").glob(".*partial"))


def test_subsample_answer_maps_frames_to_positions():
    from recallbench.generate.findingdory import subsample_answer

    offered = np.array([0, 10, 20, 30])
    assert subsample_answer([[10, 11, 30], [5]], offered) == [[1, 3], [-1]]
    assert subsample_answer([[-1]], offered) == [[-1]]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"interactions": 1},
        {"interactions": 12},
        {"steps": 0},
        {"rooms": 0},
        {"width": 121},
        {"distractors": -1},
        {"video_preset": "warp"},
        {"video_x264_params": "bframes"},
    ],
)
def test_bad_knobs_are_rejected(kwargs):
    with pytest.raises(ValueError):
        FindingDoryKnobs(**kwargs)


@pytest.mark.slow
def test_a_day_too_short_for_its_chores_fails_clearly():
    from recallbench.generate.findingdory_day import DayFailed, run_day
    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=3, style=0, kind="home", n_objects=16)
    knobs = FindingDoryKnobs(interactions=2, steps=40, width=32, height=48)
    frames: list[int] = []
    with pytest.raises(DayFailed, match="steps"):
        run_day(env, knobs, np.random.default_rng(0), lambda i, rgb: frames.append(i))
    assert frames == []  # refused before acting: nothing half-recorded
    env.close()


def test_the_harness_runs_the_oracle_agent_on_the_generated_suite(suite_dir, tmp_path):
    """The whole evaluation path (video look-up, run log, scoring) on a generated suite."""
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.evaluate import score_records
    from recallbench.run.findingdory import run_cases
    from recallbench.run.findingdory_worker import AgentSpec
    from recallbench.run.runlog import completed

    suite = load_suite(suite_dir)
    log = run_cases(suite, AgentSpec("oracle"), budget=96, run_dir=tmp_path, privileged=True)
    rows = score_records(suite, completed(log))
    assert len(rows) == len(suite.cases)
    for row, case in zip(rows, suite.cases, strict=True):
        # with 96 of 600 frames offered, a valid frame may fall between the offered ones
        offered_ok = all(
            any(f in set(np.linspace(0, KNOBS.steps - 1, 96, dtype=int).tolist()) for f in sub)
            for sub in case.answer
        )
        if case.solvable and offered_ok:
            assert row["hl_sr"] == 1.0, case.question
        if not case.solvable:
            assert row["hl_sr"] == 0.0


def test_video_shows_the_recorded_day_frame_by_frame(suite_dir):
    """Images are rendered after the day from the recorded states: the video must still hold
    one frame per step, still frames where the robot waited, and the end-of-day world (as
    saved, after the replay) must look like the last frame."""
    import av

    from recallbench.world.io import load_world

    ep = suite_dir / "episodes" / "ep_0"
    meta = json.loads((ep / "episode.json").read_text())
    with av.open(str(ep / "video.mp4")) as c:
        frames = [f.to_ndarray(format="rgb24").astype(np.int16) for f in c.decode(video=0)]
    assert len(frames) == KNOBS.steps
    with np.load(ep / "frames.npz") as f:
        poses = f["pose"]
    change = np.array([np.abs(a - b).mean() for a, b in zip(frames[1:], frames[:-1], strict=True)])
    moved = np.any(poses[1:] != poses[:-1], axis=1)
    assert change[moved].mean() > 5 * max(change[~moved].mean(), 0.05)  # drives change the view
    assert meta["renders"]["rgb"] < KNOBS.steps  # idle frames were not rendered again
    env = load_world(ep / "world")
    last = env.render_camera("robot0_head", KNOBS.width, KNOBS.height).astype(np.int16)
    env.close()
    assert np.abs(last - frames[-1]).mean() < 4  # lossy codec: close, not equal
    assert np.abs(last - frames[0]).mean() > np.abs(last - frames[-1]).mean()


def test_video_preset_default_is_the_writers():
    from recallbench.video.writer import DEFAULT_PRESET

    assert FindingDoryKnobs().video_preset == DEFAULT_PRESET
    assert FindingDoryKnobs(video_preset="ultrafast").to_dict()["video_preset"] == "ultrafast"
