"""Parsing model text into frame indices: JSON only, every failure named."""

from __future__ import annotations

import json
import time

import pytest

from recallbench.benchmarks.findingdory.parse import parse_frame_indices, parse_official


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


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


@pytest.mark.parametrize(
    "reply",
    [
        # prose full of braces, a broken object every few characters (quadratic before: the
        # error of a failed raw_decode counted every line before it)
        'see {"frame" 1 and {3} ' * 110_000,
        # a long unterminated chain of thought holding object-like text, then nothing usable
        '{"chain_of_thought": "' + '{"frame": 1, ' * 200_000,
        # objects nested beyond the decoder's recursion limit (a traceback before)
        '{"a": ' * 30_000 + "1",
    ],
    ids=["braces", "unterminated", "deep"],
)
@pytest.mark.slow
def test_multi_megabyte_replies_parse_in_about_linear_time(reply: str) -> None:
    """Issue 14: 18 s on a 2.4 MB reply. Measured against a plain json.loads of a valid
    document of the same size, in the same run (a ratio, not an absolute time)."""
    # a valid document of the same size and a similar shape: many small objects
    valid = json.dumps([{"frame": i, "note": "seen"} for i in range(len(reply) // 30)])
    baseline = min(_timed(json.loads, valid) for _ in range(3))
    for parse in (parse_frame_indices, parse_official):
        took = min(_timed(parse, reply) for _ in range(2))
        assert parse(reply).frame_indices is None
        assert took < 100 * baseline + 1.0, (parse.__name__, took, baseline)
    if reply.startswith("see"):  # an answer after all that prose is still found
        assert parse_frame_indices(reply + '{"frame_indices": [4]}').frame_indices == [4]
        assert parse_official(reply + '{"frame_indices": [4]}').frame_indices is None  # cut
