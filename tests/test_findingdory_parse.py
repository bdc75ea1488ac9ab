"""Parsing model text into frame indices: JSON only, every failure named."""

from __future__ import annotations

import pytest

from recallbench.benchmarks.findingdory.parse import parse_frame_indices


@pytest.mark.parametrize(
    ("text", "indices"),
    [
        ('{"chain_of_thought": "saw it", "frame_indices": [3, 40]}', [3, 40]),
        ('```json\n{"chain_of_thought": "x", "frame_indices": [7]}\n```', [7]),
        ('Sure. ```\n{"frame_indices": [0]}\n``` hope that helps', [0]),
        ('Reasoning {"note": 1} ... final: {"frame_indices": [12, 5]} done', [12, 5]),
        ('{"frame_indices": []}', []),
        ('{"frame_indices": [-3]}', [-3]),  # parses; the range check reports it later
    ],
)
def test_parses_json_answers(text: str, indices: list[int]) -> None:
    result = parse_frame_indices(text)
    assert result.ok and result.frame_indices == indices


def test_keeps_chain_of_thought() -> None:
    result = parse_frame_indices('{"chain_of_thought": "the mug at 9:41", "frame_indices": [2]}')
    assert result.chain_of_thought == "the mug at 9:41"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (None, "empty"),
        ("   ", "empty"),
        ('{"frame_indices": [1, 2, ...]}', "ellipsis"),
        ("frames 1, 2, \u2026", "ellipsis"),
        ('{"frame_indices": [1.0]}', "non-integer"),
        ('{"frame_indices": ["3"]}', "non-integer"),
        ('{"frame_indices": [true]}', "non-integer"),
        ('{"frame_indices": 4}', "not a list"),
        ("[1, 2]", "no JSON object"),
        ("frame_indices = [__import__('os').getpid()]", "no JSON object"),
    ],
)
def test_rejects_with_reason(text: str | None, error: str) -> None:
    result = parse_frame_indices(text)
    assert not result.ok and result.frame_indices is None
    assert error in (result.error or "")
