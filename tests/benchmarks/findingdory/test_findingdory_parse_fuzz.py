"""The reply parsers stay linear in every shape (issue 35): a fuzz over nested-opening prefixes.

``'{"' * n`` made the published parser try a decode every 2 characters, each cheap in characters
but not in time (4 MB: 93 s). Every shape here must cost time proportional to its length (n
against 4n) and stay within a budget measured against a plain ``json.loads`` of a valid document
of the same size, in the same process (a ratio, not an absolute time: the machine is shared).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

import pytest

from recallbench.benchmarks.findingdory.parse import (
    MAX_FRAME_INDICES,
    parse_frame_indices,
    parse_official,
)

SIZE = 1_000_000  # characters of the larger reply (the smaller is a quarter of it)
BUDGET_RATIO = 40  # x json.loads of a valid document as long (the old parser: 70-230x)
LINEAR_RATIO = 8  # t(4n) / t(n); linear is 4
OPENERS = ['{"', "[", '{"a":', '{"":0', '"', "{", " ", "\\", "```", '{"a":"', "}", ":", ","]
SHAPES = ['{"', "[", '{"a":', '{"a":[', "{}", '{"":0', '{"a":1}', '{"a":"', '{"a":{"',
          '{"":""{"":"', '{"":{"":0 ', '[{"', '```json\n{"', '{ "a" : {"b":[']


def _mixed(seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(OPENERS) for _ in range(rng.randrange(3, 12)))


UNITS = SHAPES + [_mixed(seed) for seed in range(6)]


def _timed(fn: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    fn(text)
    return time.perf_counter() - start


@pytest.fixture(scope="module")
def baseline() -> float:
    valid = json.dumps([{"frame": i, "note": "seen"} for i in range(SIZE // 30)])
    return min(_timed(json.loads, valid) for _ in range(3))


@pytest.mark.parametrize("unit", UNITS, ids=[f"u{i}" for i in range(len(UNITS))])
def test_nested_opening_prefixes_parse_in_linear_time_within_the_budget(unit, baseline):
    small = unit * (SIZE // 4 // len(unit))
    large = unit * (SIZE // len(unit))
    for parse in (parse_frame_indices, parse_official):
        t_small = min(_timed(parse, small) for _ in range(2))
        t_large = min(_timed(parse, large) for _ in range(2))
        assert parse(large).frame_indices is None
        assert t_large < BUDGET_RATIO * baseline + 0.25, (parse.__name__, unit, t_large, baseline)
        assert t_large < LINEAR_RATIO * max(t_small, 0.02), (parse.__name__, unit, t_small,
                                                              t_large)


def test_prefixes_do_not_hide_a_real_answer_in_short_replies():
    """The stricter object start still finds what a model writes (spaces, escapes in keys)."""
    for text, want in [('{ "frame_indices" : [3, 1] }', [3, 1]),
                       ('{"a": "x"} then {"fr\\u0061me_indices": [2]}', [2]),
                       ('{"k\\"ey": {"frame_indices": [5]}}', [5]),
                       ('{"' * 50 + '{"frame_indices": [4]}', [4])]:
        assert parse_frame_indices(text).frame_indices == want, text


def test_an_answer_of_more_indices_than_the_cap_is_a_response_error():
    many = json.dumps({"frame_indices": [0] * (MAX_FRAME_INDICES + 1)})
    for parse in (parse_frame_indices, parse_official):
        result = parse(many)
        assert result.frame_indices is None and "more than the" in (result.error or "")
    assert parse_frame_indices(json.dumps({"frame_indices": [1] * 3})).frame_indices == [1] * 3
