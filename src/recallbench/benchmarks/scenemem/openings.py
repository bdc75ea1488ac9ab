"""Which fixtures a rollout opened, in order: the record behind recallbench's strict memory metric.

The card's ``memory_success`` is checked after every step, so a policy that opens fixture after
fixture succeeds the first time it opens the right one: with the card's 1,500 steps, searching
can stand in for remembering. recallbench's own, stricter metric, ``first_open_success``, also
requires the first fixture the agent opened past the card's threshold to be the target; and
``fixtures_opened_before_success`` counts the other fixtures it opened before succeeding. Neither
changes the card's rule or when it is checked.

A fixture counts as opened at the first step where any of its joints reaches the threshold
(``|qpos| >= open_qpos``) having been below it at the step before; one already open at the start
counts only once it is closed and opened again. The fixtures watched are every probe fixture of
the scenario plus, in the built-in world, every fixture with a door (``env.world_meta``);
robosuite/RoboCasa scenes list only the probes' fixtures.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.metrics import METRIC_NAMES
from recallbench.benchmarks.scenemem.success import qpos_addresses


def watched_fixtures(env: Any, tests: Iterable[Any]) -> dict[str, list[str]]:
    """{fixture name: joint names} of every probe fixture and every built-in fixture with doors."""
    out: dict[str, list[str]] = {}
    for t in tests:
        out.setdefault(t.fixture.name, list(t.fixture.joint_names))
    meta = getattr(env, "world_meta", None)
    for f in (meta or {}).get("fixtures", []) if isinstance(meta, dict) else []:
        if not isinstance(f, dict) or not f.get("name"):
            continue
        doors = [d for d in f.get("doors") or [] if isinstance(d, dict) and d.get("joint")]
        if doors:
            out.setdefault(str(f["name"]), [str(d["joint"]) for d in doors])
    return out


class OpeningLog:
    """Call ``update(step)`` after every step; ``opened`` lists (fixture, step) in order.

    Every watched joint's qpos addresses are resolved once, so a step is one array read of all
    of them (a Python check per joint per step was a third of the rollout loop's overhead). A
    sim that cannot tell addresses (a custom env with only ``data.get_joint_qpos``) is read
    joint by joint, with the same result."""

    def __init__(self, sim: Any, fixtures: Mapping[str, list[str]], open_qpos: float) -> None:
        self.sim = sim
        self.threshold = open_qpos
        self.fixtures = {name: list(joints) for name, joints in fixtures.items()}
        self.opened: list[tuple[str, int]] = []
        self._names = list(self.fixtures)
        addresses: list[int] = []
        starts: list[int] = []
        fast: list[int] = []
        self._slow: list[int] = []  # fixtures read joint by joint
        for i, name in enumerate(self._names):
            found = qpos_addresses(sim, self.fixtures[name])
            if found:
                fast.append(i)
                starts.append(len(addresses))
                addresses.extend(found)
            elif self.fixtures[name]:
                self._slow.append(i)
        self._fast = np.asarray(fast, dtype=np.intp)
        self._addresses = np.asarray(addresses, dtype=np.intp)
        self._starts = np.asarray(starts, dtype=np.intp)
        self._data: Any = None
        self._qpos: Any = None
        self._past = self._joints_past()
        self._was_open = self._open_now(self._past)

    def _joints_past(self) -> list[bool]:
        """One bool per watched coordinate: |qpos| at or past the threshold. A list: for the
        dozen coordinates watched, Python compares and tests equality faster than numpy."""
        if not self._addresses.size:
            return []
        data = self.sim.data
        if data is not self._data:  # qpos is a view of a buffer the MjData keeps for life
            self._qpos, self._data = data.qpos, data
        threshold = self.threshold
        return [abs(v) >= threshold for v in self._qpos[self._addresses].tolist()]

    def _open_now(self, past: list[bool]) -> np.ndarray:
        """One bool per fixture: any of its joints past the threshold."""
        now = np.zeros(len(self._names), dtype=bool)
        if self._fast.size:
            now[self._fast] = np.logical_or.reduceat(np.asarray(past, dtype=bool), self._starts)
        for i in self._slow:
            now[i] = self._is_open(self._names[i])
        return now

    def _is_open(self, name: str) -> bool:
        try:
            return any(float(np.max(np.abs(np.atleast_1d(self.sim.data.get_joint_qpos(j)))))
                       >= self.threshold for j in self.fixtures[name])
        except Exception:  # a joint this model lacks: that fixture is never watched
            self.fixtures[name] = []
            return False

    def update(self, step: int) -> None:
        past = self._joints_past()
        if not self._slow and past == self._past:
            return  # no joint crossed the threshold: no fixture opened or closed
        self._past = past
        now = self._open_now(past)
        for i in np.flatnonzero(now & ~self._was_open):
            self.opened.append((self._names[i], step))
        self._was_open = now


def strict_outcome(opened: list[tuple[str, int]], target: str, success: bool,
                   success_step: int | None) -> dict[str, Any]:
    """The strict metric's record fields from the openings of one rollout.

    ``first_open_success``: success, and the first fixture opened is the target;
    ``fixtures_opened_before_success``: other fixtures opened before the success step (None when
    the rollout did not succeed); ``opened``: fixture names in order (the first opening each)."""
    names: list[str] = []
    for name, _ in opened:
        if name not in names:
            names.append(name)
    before = None
    if success:
        at = success_step if success_step is not None else float("inf")
        before = len({n for n, s in opened if s <= at and n != target})
    return {
        "first_open_success": bool(success and names[:1] == [target]),
        "fixtures_opened_before_success": before,
        "opened": names,
    }




def primary_metric(suite_dir: Path) -> str:
    """The suite's primary SceneMem metric: ``suite.json``'s ``primary_metric`` when it names one
    of the declared metrics (generated suites), else the card's ``memory_success``."""
    try:
        value = json.loads((Path(suite_dir) / "suite.json").read_text()).get("primary_metric")
    except (OSError, ValueError, AttributeError):
        return "memory_success"
    return value if value in METRIC_NAMES else "memory_success"
