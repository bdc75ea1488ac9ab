"""``recallbench export --dataset-format findingdory-sft`` on a generated suite, read back as the
released trainer reads it: ``datasets.load_dataset`` on the folder, answers through the offline
evaluator's literal parsing, videos of exactly K frames stamped as the benchmark stamps them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import av
import numpy as np
import pytest

from recallbench.benchmarks.findingdory.annotations import load_episode
from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.benchmarks.findingdory.parse import parse_answer_lists
from recallbench.cli import main
from recallbench.generate.findingdory import subsample_answer
from recallbench.video.reader import VideoFrames
from recallbench.video.sampling import subsample_indices
from recallbench.video.stamp import stamp_frame

pytestmark = pytest.mark.slow  # a generated day exported and read back through HF datasets

datasets = pytest.importorskip("datasets")
K = 24  # a small K keeps the test fast; the default is the benchmark's 96


def _load(out: Path, tmp_path: Path, **kwargs):
    """load_dataset with a cache of the test's own: HF datasets keys its cache on the folder's
    path, so a folder path that an earlier session used could be answered from a stale cache."""
    return datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf-cache"), **kwargs)


def _export(suite: Path, out: Path, *extra: str) -> int:
    return main(["export", str(suite), "--dataset-format", "findingdory-sft", "--out", str(out),
                 "--workers", "1", *extra])


def _decode(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]


def test_rows_load_answers_parse_back_and_videos_hold_k_stamped_frames(
        findingdory_generated_suite: Path, tmp_path: Path) -> None:
    suite_dir = findingdory_generated_suite
    out = tmp_path / "sft"
    assert _export(suite_dir, out, "--frames", str(K)) == 0
    loaded = _load(out, tmp_path)
    rows = list(loaded["train"])
    suite = load_suite(suite_dir)
    assert sorted(r["id"] for r in rows) == sorted(str(c.id) for c in suite.cases)
    assert set(rows[0]) == {"ep_id", "video", "question", "answer", "task_id",
                            "high_level_category", "low_level_category", "num_interactions",
                            "id", "template"}
    by_id = {str(c.id): c for c in suite.cases}
    offered_of: dict[str, np.ndarray] = {}
    for row in rows:
        case = by_id[row["id"]]
        episode = load_episode(suite.episode_dir(case.ep_id))
        offered = subsample_indices(episode.num_frames, K)
        offered_of[row["video"]] = offered
        assert parse_answer_lists(row["answer"]) == subsample_answer(
            [list(s) for s in case.answer], offered)
        assert (row["question"], row["low_level_category"], row["template"], row["ep_id"],
                row["task_id"]) == (case.question, case.category, case.template, case.ep_id,
                                    case.task_id)
    for video, offered in offered_of.items():
        frames = _decode(out / video)
        assert len(frames) == K
        ep_dir = suite.episode_dir(rows[0]["ep_id"])
        times = load_episode(ep_dir).times
        source = VideoFrames(ep_dir / "video.mp4", offered, stamp=False).frames()
        for p in range(K):  # every frame: the stamp of its position and time of day
            right = stamp_frame(source[p], p, times[offered[p]])
            wrong = stamp_frame(source[p], p + 1, times[offered[p]])
            h = frames[p].shape[0] // 4  # the stamp's corner
            err = np.abs(frames[p][:h].astype(int) - right[:h].astype(int)).mean()
            assert err < 4.0  # codec tolerance
            assert err < np.abs(frames[p][:h].astype(int) - wrong[:h].astype(int)).mean()


def test_full_length_and_validation_split_by_episode(findingdory_generated_suite: Path,
                                                      tmp_path: Path) -> None:
    suite = load_suite(findingdory_generated_suite)
    case = suite.cases[0]
    n = load_episode(suite.episode_dir(case.ep_id)).num_frames
    out = tmp_path / "full"
    # val fraction just under 1: a one-day suite cannot be split by day, its day stays in train
    assert _export(findingdory_generated_suite, out, "--full-length",
                   "--val-fraction", "0.999999") == 0
    loaded = _load(out, tmp_path)
    assert list(loaded) == ["train"]
    row = next(r for r in loaded["train"] if r["id"] == str(case.id))
    assert parse_answer_lists(row["answer"]) == [list(s) for s in case.answer]
    with av.open(str(out / row["video"])) as c:
        assert sum(1 for _ in c.decode(c.streams.video[0])) == n


def test_export_refuses_a_day_of_an_excluded_suite_in_one_line(
        findingdory_generated_suite: Path, tmp_path: Path, capsys) -> None:
    copy = tmp_path / "eval_copy"
    shutil.copytree(findingdory_generated_suite, copy)
    out = tmp_path / "sft"
    assert _export(findingdory_generated_suite, out, "--exclude", str(copy)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--exclude" in err and "day ep_0" in err and "identical day" in err
    assert not out.exists()  # refused before any work
    # the same home and seed with other chores (another record, video and QA) is refused too
    ep = copy / "episodes" / "ep_0"
    meta = json.loads((ep / "episode.json").read_text())
    del meta["fingerprint"]  # as an older suite: rebuilt, no warning
    meta["interactions"] = meta["interactions"][:1]
    (ep / "episode.json").write_text(json.dumps(meta))
    shutil.copyfile(ep / "video_96.mp4", ep / "video.mp4")
    (ep / "qa.json").write_text("[]")
    assert _export(findingdory_generated_suite, out, "--exclude", str(copy)) == 2
    err = capsys.readouterr().err
    assert "same layout+style+seed" in err and "warning" not in err
    # and the audit reports it against the export once made
    assert _export(findingdory_generated_suite, out) == 0
    capsys.readouterr()
    assert main(["audit", str(out), "--against", str(copy)]) == 1
    assert "leak: day ep_0" in capsys.readouterr().out
    recorded = json.loads((out / "export.json").read_text())
    assert recorded["days"][0]["fingerprint"]["seed"].startswith("7/0/")  # seed/index/home


def test_options_of_the_other_format_are_refused(findingdory_generated_suite: Path,
                                                 tmp_path: Path, capsys) -> None:
    assert _export(findingdory_generated_suite, tmp_path / "x", "--no-probes") == 2
    assert "--no-probes" in capsys.readouterr().err
    assert _export(findingdory_generated_suite, tmp_path / "x", "--val-fraction", "1") == 2


def test_each_day_records_its_fingerprint_and_older_suites_rebuild_it(
        findingdory_generated_suite: Path, tmp_path: Path) -> None:
    from recallbench.generate.fingerprint import findingdory_episode_fingerprint

    manifest = json.loads((findingdory_generated_suite / "suite.json").read_text())
    recorded = manifest["items"][0]["fingerprint"]
    ep = findingdory_generated_suite / "episodes" / "ep_0"
    assert json.loads((ep / "episode.json").read_text())["fingerprint"] == recorded
    assert {"kind", "layout", "style", "seed", "objects", "digest"} <= set(recorded)
    assert recorded["objects"] and all(o.startswith("obj_") for o in recorded["objects"])
    old = tmp_path / "ep_0"  # a day generated before fingerprints were recorded
    shutil.copytree(ep, old, ignore=shutil.ignore_patterns("*.mp4", "world"))
    meta = json.loads((old / "episode.json").read_text())
    del meta["fingerprint"]
    (old / "episode.json").write_text(json.dumps(meta))
    assert findingdory_episode_fingerprint(old) == recorded


@pytest.mark.slow
def test_generate_records_the_exports_it_was_checked_against(
        findingdory_generated_suite: Path, tmp_path: Path, capsys) -> None:
    from support.findingdory_suite import GENERATE

    export = tmp_path / "train"
    assert _export(findingdory_generated_suite, export) == 0
    again = tmp_path / "eval"  # the very same day again: it overlaps the training export
    assert main([*GENERATE, "--out", str(again), "--exclude", str(export)]) == 1
    assert "leakage: day ep_0" in capsys.readouterr().err
    checked = json.loads((again / "suite.json").read_text())["checked_against"]
    assert checked[str(export.resolve())]["days"] == 1
    assert "identical day" in checked[str(export.resolve())]["overlaps"][0]


def test_a_batch_of_rows_goes_through_a_chat_formatting_step(findingdory_generated_suite: Path,
                                                              tmp_path: Path) -> None:
    from recallbench.export.findingdory_sft import chat_messages

    out = tmp_path / "sft"
    assert _export(findingdory_generated_suite, out, "--frames", str(K)) == 0
    rows = _load(out, tmp_path, split="train")
    # what a trainer's collate does: a batch of rows -> chat messages per row
    chats = rows.with_transform(lambda b: {"chat": [
        chat_messages({k: b[k][i] for k in b}, out) for i in range(len(b["id"]))]})
    batch = chats[:4]["chat"]
    assert len(batch) == 4
    for chat, row in zip(batch, rows.select(range(4)), strict=True):
        user, assistant = chat
        video = Path(user["content"][0]["video"])
        with av.open(str(video)) as c:
            assert c.streams.video[0].frames == K
        assert user["content"][1]["text"] == row["question"]
        assert parse_answer_lists(assistant["content"][0]["text"]) is not None


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "timings.jsonl"}


@pytest.mark.slow
def test_shards_into_one_folder_give_the_unsharded_export_byte_for_byte(
        findingdory_two_day_suite: Path, tmp_path: Path) -> None:
    suite = findingdory_two_day_suite
    whole, sharded = tmp_path / "whole", tmp_path / "sharded"
    assert _export(suite, whole, "--frames", str(K), "--val-fraction", "0.5") == 0
    for i in (1, 2):
        assert _export(suite, sharded, "--frames", str(K), "--val-fraction", "0.5",
                       "--shard", f"{i}/2") == 0
    assert not (sharded / "data").exists()  # the dataset is written once every day is done
    assert _export(suite, sharded, "--frames", str(K), "--val-fraction", "0.5") == 0
    a, b = _files(whole), _files(sharded)
    assert sorted(a) == sorted(b) and len([k for k in a if k.startswith("videos/")]) == 2
    assert [k for k in a if a[k] != b[k]] == []
    # another shard asking for other options is refused, naming the field
    assert _export(suite, sharded, "--frames", "12", "--shard", "1/2") == 2


def test_a_day_that_fails_is_counted_and_a_rerun_finishes_it(findingdory_generated_suite: Path,
                                                             tmp_path: Path, capsys) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(findingdory_generated_suite, suite)
    # the day's video and its 96-frame one (what the default K reads): truncated, frames missing
    videos = [suite / "episodes" / "ep_0" / name for name in ("video.mp4", "video_96.mp4")]
    good = [video.read_bytes() for video in videos]
    for video, data in zip(videos, good, strict=True):
        video.write_bytes(data[: len(data) // 3])
    out = tmp_path / "sft"
    assert _export(suite, out) == 1
    err = capsys.readouterr().err
    assert "error day ep_0" in err and "1 of 1 days not exported" in err
    assert not (out / "data").exists() and not json.loads((out / "export.json").read_text())[
        "complete"]
    for video, data in zip(videos, good, strict=True):
        video.write_bytes(data)
    assert _export(suite, out) == 0
    assert len(_load(out, tmp_path, split="train")) == len(load_suite(suite).cases)


def test_out_naming_a_file_or_a_foreign_folder_is_refused_before_work(
        findingdory_generated_suite: Path, tmp_path: Path, capsys) -> None:
    """Issue 22's rule for every --out: never a file, never a folder recallbench did not make."""
    afile = tmp_path / "notes.txt"
    afile.write_text("mine")
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_text("mine")
    for out in (afile, foreign):
        assert _export(findingdory_generated_suite, out) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--out" in err[0]
    assert afile.read_text() == "mine" and sorted(p.name for p in foreign.iterdir()) == ["cat.jpg"]


def test_a_malformed_suite_file_is_one_line_naming_it(tmp_path: Path, capsys) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.json").write_text('{"benchmark": ')
    assert _export(suite, tmp_path / "out") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "suite.json" in err[0] and "internal error" not in err[0]
