"""The readability section of the FindingDory audit (audit/readability.py).

Pixel figures on real mp4 videos with a known duplicated frame and known one-colour frames
(each figure passing, then failing past its bound); the segmentation the generator records
checked against the world's own body segmentation (a pose facing a bare wall is "nothing in
view"); the target areas against the annotations' coverage; suites without the records (the
public val QA, suites generated before them) get "n/a" with the reason, never an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from recallbench.audit.readability import (
    IN_VIEW,
    dominant_colour_share,
    near_identical,
    readability,
)
from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.video import VideoWriter
from support.findingdory_suite import build_suite
from support.shared_data import FINDINGDORY_VAL_QA

SIZE = 64


def _distinct(n: int, seed: int) -> list[np.ndarray]:
    """Smooth, busy frames (they survive x264), each far from every other."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:SIZE, 0:SIZE] / SIZE
    out = []
    for _ in range(n):
        fx, fy, ph = rng.uniform(0.5, 2, 3), rng.uniform(0.5, 2, 3), rng.uniform(0, 6.3, 3)
        chans = [127 + 120 * np.sin(2 * np.pi * (fx[c] * x + fy[c] * y) + ph[c]) for c in range(3)]
        out.append(np.stack(chans, axis=-1).astype(np.uint8))
    return out


def _write(path: Path, frames: list[np.ndarray]) -> None:
    with VideoWriter(path, fps=10, width=SIZE, height=SIZE) as w:
        for f in frames:
            w.write(f)


@pytest.fixture()
def suite(tmp_path: Path) -> Path:
    """The support suite (generated format, no readability records) with K = 96 offered-frame
    videos per day: ep_a repeats frame 9 as frame 10 and shows one grey frame (20)."""
    root = build_suite(tmp_path / "suite")
    a = _distinct(96, 1)
    a[10] = a[9].copy()
    a[20] = np.full_like(a[20], 120)
    _write(root / "episodes" / "ep_a" / "video_96.mp4", a)
    _write(root / "episodes" / "ep_b" / "video_96.mp4", _distinct(96, 2))
    return root


def _rows(section: dict) -> dict[str, dict]:
    return {r["name"]: r for r in section["rows"]}


def test_pixel_figures_count_exactly_the_planted_frames_and_fail_past_their_bounds(suite):
    sec = readability(load_suite(suite), 96)
    rows = _rows(sec)
    assert sec["per_day"]["ep_a"] == {"near_identical": [9, 10], "one_colour": [20]}
    assert sec["per_day"]["ep_b"] == {"near_identical": [], "one_colour": []}
    assert rows["near_identical"]["value"] == pytest.approx(2 / 192)
    assert rows["one_colour"]["value"] == pytest.approx(1 / 192)
    assert rows["near_identical"]["passed"] and rows["one_colour"]["passed"]
    assert rows["near_identical"]["n"] == rows["one_colour"]["n"] == 192

    # a day that idles (21 copies of one frame) and faces a wall (6 grey frames): both fail
    b = _distinct(96, 2)
    for p in range(40, 60):
        b[p] = b[39]
    for p in range(70, 76):
        b[p] = np.full_like(b[p], 200)
    _write(suite / "episodes" / "ep_b" / "video_96.mp4", b)
    rows = _rows(readability(load_suite(suite), 96))
    assert rows["near_identical"]["value"] == pytest.approx((2 + 21 + 6) / 192)  # grey too
    assert rows["one_colour"]["value"] == pytest.approx(7 / 192)
    assert rows["near_identical"]["passed"] is False and rows["one_colour"]["passed"] is False


def test_a_suite_without_segmentation_records_gets_na_with_the_reason(suite):
    sec = readability(load_suite(suite), 96)
    rows = _rows(sec)
    for name in ("nothing_in_view", "object_target_area_median", "object_target_small"):
        assert rows[name]["value"] is None and rows[name]["passed"] is None
        assert "2 of 2 days have no readability.json" in rows[name]["reason"]
    assert sec["measured"] == 2 and sec["passed"]  # n/a rows judge nothing


@pytest.mark.skipif(not FINDINGDORY_VAL_QA.is_file(), reason="public validation file absent")
def test_the_public_val_qa_without_videos_is_all_na(tmp_path):
    rows = json.loads(FINDINGDORY_VAL_QA.read_text())
    few = [r for r in rows if r["ep_id"] in {rows[0]["ep_id"], rows[-1]["ep_id"]}]
    (tmp_path / "val.json").write_text(json.dumps(few))
    sec = readability(load_suite(tmp_path / "val.json"), 96)
    assert sec["measured"] == 0
    assert all(r["value"] is None and r["reason"] for r in sec["rows"])
    assert "offered-frame video on disk" in _rows(sec)["near_identical"]["reason"]


def test_near_identical_is_exact_at_the_threshold():
    a = np.zeros((32, 32, 3), np.uint8)
    b, c = a + 1, a + 2  # 1 level from a (near-identical), 2 levels: not below 2
    assert near_identical([a, b]).tolist() == [True, True]
    assert near_identical([a, c]).tolist() == [False, False]
    assert near_identical([a, c, c]).tolist() == [False, True, True]


def test_one_colour_counts_a_shade_across_a_bin_edge_but_not_wall_and_floor():
    wall = np.full((40, 40, 3), (118, 111, 111), np.uint8)
    wall[:, 20:] = (125, 113, 112)  # red 118 and 125 sit in bins 7 and 7; green 111/113: 6/7
    assert dominant_colour_share(wall) == 1.0
    wall[:, 20:] = (151, 126, 98)  # the beige floor next to it: two colours, half each
    assert dominant_colour_share(wall) == 0.5


# ------------------------------------------------------------------ recorded by the generator
def _instance_coverage(env, w: int, h: int) -> dict[str, float]:
    """Per object, receptacle and fixture: its share of the head camera's body segmentation
    (the world's own renderer, not the generator's)."""
    from recallbench.world.render import subtree_bodies

    seg = env.render_camera("robot0_head", w, h, mode="segmentation")
    meta, out = env.world_meta, {}
    for item in meta["fixtures"] + meta["receptacles"]:
        out[item["name"]] = float(np.isin(seg, subtree_bodies(env.model, item["body_name"])).mean())
    for o in meta["objects"]:
        out[o["name"]] = float((seg == env.model.body(o["body_name"]).id).mean())
    return out


def _poses(meta: dict) -> list[tuple[float, float, float]]:
    """Each room's centre looking 6 ways, and 0.35 m from each wall facing it (some bare)."""
    out = []
    for room in meta["rooms"]:
        x0, y0, x1, y1 = room["bounds"]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        out += [(cx, cy, yaw) for yaw in np.linspace(-np.pi, np.pi, 6, endpoint=False)]
        for t in (0.25, 0.5, 0.75):
            x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
            out += [(x0 + 0.35, y, np.pi), (x1 - 0.35, y, 0.0),
                    (x, y0 + 0.35, -np.pi / 2), (x, y1 - 0.35, np.pi / 2)]
    return out


def test_frame_stats_agree_with_the_worlds_segmentation_and_see_a_bare_wall():
    from recallbench.generate.frame_readability import OfferedFrames
    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=3, kind="kitchen")
    w, h = 60, 80
    poses = _poses(env.world_meta)
    watch = OfferedFrames(env, set(range(len(poses))), w, h)
    seen = {"blank": 0, "busy": 0}
    for frame, pose in enumerate(poses):
        env.teleport(pose, for_render=True)
        truth = _instance_coverage(env, w, h)
        watch(frame, np.zeros((h, w, 3), np.uint8))  # a fresh image: not an idle frame
        got = watch.stats[-1]
        objects = sum(v for k, v in truth.items() if k.startswith("obj"))
        assert got["largest"] == pytest.approx(max(truth.values()), abs=2 / (w * h))
        assert got["objects"] == pytest.approx(objects, abs=2 / (w * h))
        seen["blank" if max(truth.values()) < IN_VIEW else "busy"] += 1
    env.close()
    assert seen["blank"] and seen["busy"]  # both kinds of frame were measured


def test_generated_records_match_the_annotations_and_the_end_of_day_world(
        findingdory_generated_suite: Path):
    from recallbench.benchmarks.findingdory.annotations import load_episode
    from recallbench.world.io import load_world

    ep = findingdory_generated_suite / "episodes" / "ep_0"
    rec = json.loads((ep / "readability.json").read_text())
    assert len(rec["frames"]) == 96 and rec["targets"]
    ann = load_episode(ep)
    sat = ann.satisfied("full")
    rows = {r["id"]: r for r in json.loads((ep / "qa.json").read_text())}
    offered = [f["frame"] for f in rec["frames"]]
    for t in rec["targets"]:
        valid = set(rows[t["id"]]["answer"][t["goal"]]) & set(offered)
        assert t["frames"] == sorted(valid)
        cols = [ann.entity_index(e) for e in t["entities"]]
        for f, area, names in zip(t["frames"], t["area"], t["held"], strict=True):
            held = [c for c in cols if sat[f, c]]
            assert names == [ann.entities[c].id for c in held]
            assert area == pytest.approx(float(ann.coverage[f, held].max()), abs=1e-6)
    # the last offered frame is the end of the day: the saved world, seen by the world's renderer
    env = load_world(ep / "world")
    truth = _instance_coverage(env, rec["width"], rec["height"])
    env.close()
    last = rec["frames"][-1]
    assert last["frame"] == ann.num_frames - 1
    pixel = 1 / (rec["width"] * rec["height"])
    assert last["largest"] == pytest.approx(max(truth.values()), abs=3 * pixel)


@pytest.mark.slow  # generates the shared two-day suite (~40 s), which only slow tests use
def test_the_audit_of_a_generated_suite_holds_every_row(findingdory_two_day_suite: Path):
    report = json.loads((findingdory_two_day_suite / "audit.json").read_text())
    sec = report["readability"]
    assert sec["days"] == 2 and sec["measured"] == 5
    rows = _rows(sec)
    assert set(rows) == {"near_identical", "one_colour", "nothing_in_view",
                         "object_target_area_median", "object_target_small"}
    assert all(isinstance(r["passed"], bool) for r in rows.values())
    assert rows["nothing_in_view"]["n"] == 192 and rows["object_target_small"]["n"] > 0
    assert 0.0 <= sec["textured_object_share"] <= 1.0


def test_a_scenemem_suite_gets_the_pixel_rows_of_its_camera_videos(tmp_path):
    from recallbench.audit.readability import scenemem_readability

    videos = tmp_path / "combo_0000_L0_S0_0" / "videos"
    left = _distinct(192, 3)
    for p in range(100, 192):  # the second half stands still
        left[p] = left[99]
    _write(videos / "robot0_agentview_left.mp4", left)
    _write(videos / "robot0_eye_in_hand.mp4", _distinct(40, 4))  # shorter than 96: all frames
    sec = scenemem_readability(tmp_path)
    rows = _rows(sec)
    assert sec["days"] == 2 and sec["unit"] == "videos"
    assert rows["near_identical"]["n"] == 96 + 40
    from recallbench.video.sampling import subsample_indices

    still = int((subsample_indices(192, 96) >= 99).sum())  # sampled frames showing frame 99
    assert rows["near_identical"]["value"] == pytest.approx(still / 136)
    assert rows["near_identical"]["passed"] is False and rows["one_colour"]["passed"] is True
    assert rows["nothing_in_view"]["value"] is None
    assert "no instance segmentation" in rows["nothing_in_view"]["reason"]


def test_the_printed_table_gives_each_row_its_verdict_or_its_reason(suite):
    from rich.console import Console

    from recallbench.cli.audit import readability_table

    console = Console(record=True, width=240)
    console.print(readability_table(readability(load_suite(suite), 96)))
    text = console.export_text()
    assert "near-identical offered frames" in text and "pass" in text
    assert text.count("n/a: 2 of 2 days have no readability.json") == 3


def test_a_goal_is_unreadable_only_when_every_valid_view_of_it_is_small():
    """object_target_small counts goal-frame pairs (a goal seen small from afar in five frames
    counts five times); the best-view figure counts each goal once, by its largest view."""
    from recallbench.audit.readability import SMALL_SIDE, best_view_small, segmentation_figures

    pixels = 480 * 640
    small, large = (SMALL_SIDE**2 - 1) / pixels, 0.03
    frame = {"frame": 0, "objects": 0.1, "receptacles": 0.2, "largest": 0.2,
             "largest_name": "x", "object_px": 10, "textured_object_px": 10}
    rec = {"width": 480, "height": 640, "frames": [frame], "targets": [
        {"kind": "object", "area": [small] * 5 + [large]},  # small five times, once large
        {"kind": "object", "area": [small, small]},  # never readable
        {"kind": "object", "area": [large]},
        {"kind": "receptacle", "area": [small]},  # not an object target
    ]}
    assert best_view_small({"ep_0": rec}) == pytest.approx(1 / 3)
    seg = segmentation_figures({"ep_0": rec})
    assert seg["object_target_small"] == pytest.approx(7 / 9)
    assert seg["object_target_best_view_small"] == pytest.approx(1 / 3)
    rec["width"], rec["height"] = 960, 1280  # the same shares are four times the pixels
    assert best_view_small({"ep_0": rec}) == 0.0


def test_small_pairs_cut_by_the_frames_border_are_told_apart():
    """Most pairs under 32x32 px are neighbours the frame's border cuts while the robot works at
    a receptacle (seed 0: 28 of 38), not far or tiny objects: the record flags each valid frame
    whose target reaches the border, and the audit reports the small pairs' share of them."""
    from types import SimpleNamespace

    from recallbench.audit.readability import SMALL_SIDE, segmentation_figures
    from recallbench.generate.frame_readability import at_border, readability_record

    mask = np.zeros((6, 8), np.uint16)
    mask[0, 3] = 2  # instance 1 on the top row
    mask[2:4, 2:5] = 3  # instance 2 inside
    assert at_border(mask, [2]) and not at_border(mask, [3]) and at_border(mask, [3, 2])
    mask[5, 7] = 3
    assert at_border(mask, [3])  # the bottom-right corner

    names = ["obj_a", "obj_b"]
    inner = np.zeros((6, 8), np.uint16)
    inner[2:4, 2:5] = 1
    edge = np.zeros((6, 8), np.uint16)
    edge[:, 0] = 1
    frames = SimpleNamespace(width=480, height=640, stats=[], masks={0: inner, 42: edge},
                             instance_index=names.index)
    small, large = (SMALL_SIDE**2 - 1) / (480 * 640), 0.03
    target = {"id": 0, "goal": 0, "kind": "object", "entities": ["obj_a"], "frames": [0, 42],
              "area": [small, small], "held": [["obj_a"], ["obj_a"]]}
    other = {**target, "id": 1, "area": [large, small], "held": [["obj_a"], ["obj_a"]]}
    rec = readability_record(frames, [target, other])
    assert [t["cut"] for t in rec["targets"]] == [[False, True], [False, True]]
    seg = segmentation_figures({"ep_0": rec})
    assert seg["object_target_small"] == pytest.approx(3 / 4)
    assert seg["object_target_small_cut"] == pytest.approx(2 / 3)
    del rec["targets"][0]["cut"], rec["targets"][1]["cut"]  # a record from before the flag
    assert segmentation_figures({"ep_0": rec})["object_target_small_cut"] is None


@pytest.mark.parametrize(("damage", "field"), [
    (lambda r: r["targets"][0].update(cut=[True]), "targets[0]"),  # one flag for two frames
    (lambda r: r["frames"][1].update(largest=float("nan")), "frames[1].largest"),
    (lambda r: r.pop("width"), "width"),
])
def test_a_damaged_record_is_one_line_naming_its_field_and_the_audit_goes_on(suite, damage,
                                                                            field):
    """readability.json is suite data: a damaged one (hand-edited, truncated, another tool's)
    makes the segmentation rows n/a with the file and field, and the rest of the section is
    still measured; it used to end the whole audit after the agents' work with an internal
    error (zip() argument 2 is shorter than argument 1)."""
    frame = {"frame": 0, "objects": 0.1, "receptacles": 0.2, "largest": 0.2,
             "largest_name": "x", "object_px": 10, "textured_object_px": 10}
    for ep in ("ep_a", "ep_b"):
        rec = {"version": 1, "width": 480, "height": 640, "frames": [frame, dict(frame)],
               "targets": [{"kind": "object", "frames": [0, 42], "area": [0.03, 0.02],
                            "held": [["o"], ["o"]], "cut": [False, True]}]}
        if ep == "ep_b":
            damage(rec)
        (suite / "episodes" / ep / "readability.json").write_text(json.dumps(rec))
    sec = readability(load_suite(suite), 96)
    rows = _rows(sec)
    path = suite / "episodes" / "ep_b" / "readability.json"
    assert sec["reason"].startswith(f"1 of 2 days' readability.json damaged: {path}: {field}")
    assert rows["nothing_in_view"]["value"] is None
    assert rows["nothing_in_view"]["reason"] == sec["reason"]
    assert rows["near_identical"]["value"] is not None  # the videos are still measured
