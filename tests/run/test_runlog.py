"""The append-only run log: durable records, torn-tail repair, no loss, no double counting."""

from __future__ import annotations

import json
import math

import pytest

from recallbench.run.runlog import RunLog, completed, read_records


def test_records_are_on_disk_as_soon_as_appended(tmp_path):
    path = tmp_path / "log.jsonl"
    log = RunLog(path)
    log.append({"key": "s/a", "memory": True})
    # read back through a separate handle before close: flushed, one JSON object per line
    lines = path.read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == ["s/a"]
    log.close()


def test_torn_tail_is_ignored_then_cut_and_appending_continues(tmp_path):
    path = tmp_path / "log.jsonl"
    with RunLog(path) as log:
        log.append({"key": "s/a", "memory": True})
        log.append({"key": "s/b", "memory": False})
    with open(path, "a") as f:  # a process died half way through a record
        f.write('{"key": "s/c", "mem')
    assert list(completed(path)) == ["s/a", "s/b"]
    with RunLog(path) as log:
        log.append({"key": "s/c", "memory": True})
    records = list(read_records(path))
    assert [r["key"] for r in records] == ["s/a", "s/b", "s/c"]
    assert records[2]["memory"] is True


def test_completed_keeps_the_last_record_per_key(tmp_path):
    path = tmp_path / "log.jsonl"
    with RunLog(path) as log:
        log.append({"key": "k", "v": 1})
        log.append({"key": "k", "v": 2})
    assert completed(path) == {"k": {"key": "k", "v": 2}}


def test_records_need_a_key_and_finite_numbers(tmp_path):
    with RunLog(tmp_path / "log.jsonl") as log:
        with pytest.raises(ValueError, match="key"):
            log.append({"memory": True})
        with pytest.raises(ValueError):
            log.append({"key": "k", "d": math.nan})
    assert list(read_records(tmp_path / "log.jsonl")) == []


def test_numpy_values_are_stored_as_plain_json(tmp_path):
    np = pytest.importorskip("numpy")
    with RunLog(tmp_path / "log.jsonl") as log:
        log.append({"key": "k", "d": np.float64(0.25), "v": np.arange(3)})
    assert completed(tmp_path / "log.jsonl")["k"] == {"key": "k", "d": 0.25, "v": [0, 1, 2]}


def test_group_commit_fsyncs_a_burst_once_then_its_tail_without_another_append(
    tmp_path, monkeypatch
):
    import os
    import time

    path = tmp_path / "log.jsonl"
    synced: list[int] = []  # the file's size at each fsync of the log
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        real_fsync(fd)
        if os.path.realpath(f"/proc/self/fd/{fd}") == str(path):
            synced.append(os.fstat(fd).st_size)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    log = RunLog(path)  # the default interval, a few hundred milliseconds
    for i in range(200):
        log.append({"key": f"k{i}"})
    assert len(path.read_text().splitlines()) == 200  # every record flushed as it was appended
    assert len(synced) <= 2  # not one fsync per record
    deadline = time.monotonic() + 5
    while (not synced or synced[-1] != path.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert synced[-1] == path.stat().st_size  # the tail reached the disk within the interval
    log.append({"key": "last"})
    log.close()
    assert synced[-1] == path.stat().st_size  # and close syncs what is left
