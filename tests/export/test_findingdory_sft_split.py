"""The FindingDory SFT export's split by day and its frame count, checked without a suite: the
released trainer (findingdory-train @acb30f2 ``sft_video_llm.py``) loads ``split="validation"``
unconditionally, and its video sampler (qwen-vl-utils 0.0.14 ``smart_nframes``) takes an even
number of frames, at most 768."""

from __future__ import annotations

from pathlib import Path

import pytest

from recallbench.cli import main

pytest.importorskip("datasets")


def test_two_days_or_more_always_give_both_splits_and_one_day_gives_train() -> None:
    from recallbench.export.findingdory_sft import DEFAULT_VAL_FRACTION, validation_days

    for n in (2, 3, 5, 40, 400):
        days = [f"ep_{i}" for i in range(n)]
        val = validation_days(days, DEFAULT_VAL_FRACTION)
        assert 0 < len(val) < n, n
        # by the days' names alone, whatever order (or shard) they come in
        assert val == validation_days(list(reversed(days)), DEFAULT_VAL_FRACTION)
    big = validation_days([f"ep_{i}" for i in range(4000)], DEFAULT_VAL_FRACTION)
    assert 150 < len(big) < 250  # about 5%
    assert validation_days(["ep_0"], DEFAULT_VAL_FRACTION) == set()
    assert validation_days(["ep_0", "ep_1"], 0.0) == set()  # asked for none
    assert len(validation_days(["ep_0", "ep_1"], 0.999999)) == 1  # never all


@pytest.mark.parametrize("frames", ["25", "770"])
def test_frames_the_trainer_would_not_all_see_are_refused_in_one_line(
        frames: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["export", str(tmp_path / "suite"), "--dataset-format", "findingdory-sft", "--out",
                 str(out), "--frames", frames]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--frames" in err[0] and "smart_nframes" in err[0]
    assert not out.exists()
