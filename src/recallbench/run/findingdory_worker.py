"""The task a worker process runs for one FindingDory case: decode its frames, ask the agent.

The agent under evaluation runs here, never in the runner's process, so an agent that crashes,
calls ``os._exit``, segfaults or hangs costs its own case only (the executor records why and
replaces the worker). Per worker the agent is built once from its ``AgentSpec`` (name, settings,
seed; fitted on the suite when it needs training), as the runner's process built it, so its
answers are those an in-process run would give. The runner stays the only writer of the run log.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.protocol import FrameAnswer, FrameQuery, TransientError
from recallbench.errors import InputError
from recallbench.executor.results import STORED_TEXT_CAP, encode_result

# The executor's handler for one case ("module:function"); `recallbench findingdory` starts
# its workers with it before loading the suite (``executor.prestart``).
ANSWER_HANDLER = "recallbench.run.findingdory_worker:answer_case"


@dataclass(frozen=True)
class AgentSpec:
    """How to build the agent in a worker: a registry name or ``module:Class``, its settings."""

    spec: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


# The longest response kept in the run log (the VLM client's reply cap): every `score` parses it
# again, so a longer one is cut here, once, and the cut recorded. The executor bounds the rest
# of a case's result (its info, error texts) with the same cap (``results.cap_result``).
RESPONSE_CAP = STORED_TEXT_CAP
# No frame index has more digits; a longer integer is kept as text for the parser to reject.
_MAX_INDEX = 10**18


def answer_record(answer: Any) -> dict[str, Any]:
    """The run-log fields of an agent's answer; anything odd is kept as text, never coerced."""
    if not isinstance(answer, FrameAnswer):
        raise TypeError(f"agent returned {type(answer).__name__}, expected FrameAnswer")
    info = loggable(answer.info)
    fi = answer.frame_indices
    if fi is not None:
        fi = list(fi)
        if not all(type(i) is int and abs(i) < _MAX_INDEX for i in fi):
            # Keep what was said, but as a response for the parser to reject (never coerce).
            return {"frame_indices": None, "response": _shown(fi), "info": info}
    response = str.__str__(answer.response) if isinstance(answer.response, str) else None
    if response is not None and len(response) > RESPONSE_CAP:
        info = {**info, "response_chars": len(response)}
        response = response[:RESPONSE_CAP]
    return {"frame_indices": fi, "response": response, "info": info}


def _shown(value: list[Any]) -> str:
    """A short text of an odd answer: repr of a huge integer would raise, and an object's own
    ``__repr__`` is its code."""
    return "[" + ", ".join(
        f"<{len(str(i)) if type(i) is int and i.bit_length() < 14_000 else 'many'}-digit integer>"
        if type(i) is int else f"<{type(i).__name__}>" if not isinstance(i, (bool, float, str))
        else repr(i)[:100] for i in value[:50]) + "]"


def loggable(info: Any) -> dict[str, Any]:
    # The run log is strict JSON (no NaN); an agent's odd info must not crash the whole run.
    if type(info) is dict and not info:  # most agents' (a cheap case's round trip is µs)
        return {}
    try:
        return dict(json.loads(encode_info(info)))
    except (TypeError, ValueError, AttributeError, RecursionError):
        try:  # in the worker, where the agent's own code runs anyway
            shown = repr(info)[:2000]
        except Exception:  # a __repr__ that raises, or a structure too deep to show
            shown = f"<{type(info).__name__} that is not strict JSON>"
        return {"unloggable_info": str.__str__(shown) if isinstance(shown, str) else "?"}


def encode_info(info: Any) -> str:
    if not isinstance(info, dict):
        raise TypeError("info is not a dict")
    text, error = encode_result(info)
    if error is not None:
        raise ValueError(error)
    return text


_agents: dict[str, Any] = {}
_sources: dict[str, Any] = {}
# The last spec object asked for and its agent: a chunk's cases arrive sharing one spec object
# (pickled once per chunk), so a case finds its agent by identity, not by encoding the spec.
_last: list[Any] = [None, None]


def _agent(spec: dict[str, Any], suite: str | None, trusted: bool) -> Any:
    if spec is _last[0]:
        return _last[1]
    key = json.dumps(spec, sort_keys=True, default=str)
    if key not in _agents:
        from recallbench.agents.registry import construct_seeded, resolve

        agent = construct_seeded(resolve(spec["spec"], "findingdory"), spec["kwargs"], spec["seed"])
        if getattr(agent, "needs_training_suite", False) and suite is not None:
            from recallbench.benchmarks.findingdory.data import load_suite

            agent.fit(load_suite(suite, trusted=trusted).cases)
        _agents[key] = agent
    _last[:] = [spec, _agents[key]]
    return _agents[key]


def _frames(video: str, offered: list[int], times: tuple[str, ...] | None) -> Any:
    if "cache" not in _sources:
        from recallbench.benchmarks.findingdory.evaluate import SourceCache

        _sources["cache"] = SourceCache()
    return _sources["cache"].get(Path(video), offered, times)


def answer_case(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: agent (AgentSpec as a dict), suite, trusted, query, video.

    Returns ``{"record": ...}`` (the answer's run-log fields, or the agent's error),
    ``{"transient": kind, "message": ...}`` (nothing to record: --resume asks again) or
    ``{"stop": [path, field, message]}`` (the run cannot go on, e.g. the server is down).
    """
    query: FrameQuery = payload["query"]
    try:
        agent = _agent(payload["agent"], payload.get("suite"), payload.get("trusted", False))
        video = payload.get("video")
        frames = None if video is None else _frames(video, list(query.offered_frames),
                                                    query.times_of_day)
        return {"record": answer_record(agent.select_frames(query, frames))}
    except TransientError as exc:
        return {"transient": exc.kind, "message": str(exc)[:2000]}
    except InputError as exc:
        return {"stop": [exc.path, exc.field, exc.message]}
    except BaseException as exc:  # SystemExit, KeyboardInterrupt too: this case fails, only
        return {"record": {"frame_indices": None, "response": None,
                           "agent_error": repr(exc)[:2000]}}


def spec_dict(spec: AgentSpec) -> dict[str, Any]:
    return asdict(spec)


_ll_phases: dict[str, Any] = {}


def act_out_episode(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: suite, trusted, policy ([name or module:Class, kwargs]), scoring, max_steps,
    ep_id, items ([case id, HL record]). Returns ``{"records": [...]}`` (each HL record plus its
    ``ll`` outcome) or ``{"stop": [path, field, message]}`` (the episode cannot be acted out).

    Per worker the suite is loaded and the policy built once, and the last episode's world is
    kept open (cases come episode by episode), as the in-process LL phase does."""
    key = json.dumps([payload["suite"], payload["policy"], payload["scoring"],
                      payload["max_steps"]], sort_keys=True)
    try:
        if key not in _ll_phases:
            from recallbench.agents.ll_policies import load_ll_policy
            from recallbench.benchmarks.findingdory.data import load_suite
            from recallbench.benchmarks.findingdory.ll_rollout import LLPhase

            for old in _ll_phases.values():
                old.worlds.close()
            _ll_phases.clear()
            ref, kwargs = payload["policy"]
            suite = load_suite(payload["suite"], trusted=payload.get("trusted", False))
            _ll_phases[key] = LLPhase(suite, load_ll_policy(ref, **kwargs),
                                      scoring=payload["scoring"], max_steps=payload["max_steps"])
        phase = _ll_phases[key]
        cases = {case.id: case for case in phase.suite.cases}
        items = [(cases[case_id], record) for case_id, record in payload["items"]]
        return {"records": phase.run_episode(payload["ep_id"], items)}
    except InputError as exc:
        return {"stop": [exc.path, exc.field, exc.message]}
