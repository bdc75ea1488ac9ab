"""The FindingDory worker finds a case's agent by the spec object its chunk shares (no encoding
per case), and still builds one agent per distinct spec: a kept worker that serves one agent,
then another, then the first again (``recallbench run``) answers each case with the right one."""

from __future__ import annotations

import pickle

from recallbench.benchmarks.findingdory.data import Suite, load_suite
from recallbench.run.findingdory import _tasks
from recallbench.run.findingdory_worker import AgentSpec, answer_case
from support.shared_data import FINDINGDORY_VAL_QA


def _chunk(suite: Suite, spec: AgentSpec) -> list[dict]:
    """Payloads as a worker gets them: one pickled chunk, so they share one agent dict."""
    tasks = _tasks(suite, spec, suite.cases[:40], 96, None, False)
    return [payload for _, payload in pickle.loads(pickle.dumps(
        [(task.key, task.payload) for task in tasks]))]


def test_each_chunk_is_answered_by_its_own_agent() -> None:
    suite = load_suite(FINDINGDORY_VAL_QA)
    seed0, seed1 = AgentSpec("random", {}, 0), AgentSpec("random", {}, 1)
    first = _chunk(suite, seed0)
    assert first[0]["agent"] is first[1]["agent"]  # what the worker's look-up relies on
    answers = {}
    for name, chunk in (("a", first), ("b", _chunk(suite, seed1)), ("c", _chunk(suite, seed0))):
        answers[name] = [answer_case(p)["record"]["frame_indices"] for p in chunk]
    assert answers["a"] == answers["c"]  # the first agent again, from a new chunk
    assert answers["a"] != answers["b"]  # not the last agent asked for
