"""A generated SceneMem scenario's memory probes: which probes a recorded day offers
(``candidate_probes``), and which of them the privileged policy solves through the SceneMem
runner's own rollout code (``verify_probes``), so only verified probes are written."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS
from recallbench.generate.scenemem_day import Day

PROBE = "Show me where the {category} is placed."  # the card's template


def _probe_fixture(f: dict) -> dict[str, Any]:
    joints = [d["joint"] for d in f["doors"]]
    return {"name": f["name"], "type": f["type"], "body_name": f["body_name"],
            "joint_names": joints}


def candidate_probes(day: Day, max_steps: int) -> list[dict[str, Any]]:
    """find_target for each object put into a door fixture that is still there; then
    find_distractor for unique objects that sat in such a fixture all along."""
    o = day.o
    tests: list[Any] = []
    used: set[Any] = set()
    for t in day.tasks:
        if t.kind != "pick_place" or not t.success:
            continue
        obj, dest = t.fields["object"], t.fields["to"]
        if o.where_is(obj) != dest:
            continue
        f = day.fixtures[dest]
        used.add(t.fields["category"])
        cat = t.fields["category"].replace("_", " ")
        tests.append({"test_id": f"target_{len(tests):02d}_{t.fields['category']}",
                      "object": obj, "category": cat, "instruction": PROBE.format(category=cat),
                      "fixture": _probe_fixture(f), "task": "find_target",
                      "max_steps": max_steps, "placed_frame": t.fields.get("placed_frame"),
                      "subtask": day.tasks.index(t)})
    for meta in day.env.world_meta["objects"]:
        name, cat = meta["name"], meta["category"]
        where = day.start_place.get(name)
        if (name in day.moved or name not in day.unique or cat in used or where is None
                or where not in day.fixtures or o.where_is(name) != where):
            continue
        f = day.fixtures[where]
        if f["type"] not in day.knobs.destinations or not day._probe_place(where):
            continue
        words = cat.replace("_", " ")
        tests.append({"test_id": f"distractor_{len(tests):02d}_{cat}", "object": name,
                      "category": words, "instruction": PROBE.format(category=words),
                      "fixture": _probe_fixture(f),
                      "task": "find_distractor", "max_steps": max_steps})
    return tests


def verify_probes(root: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run every probe of the folder with the privileged policy through the SceneMem rollout;
    returns (kept, dropped) test dicts. Also drops probes a do-nothing start already passes."""
    from recallbench.agents.hierarchical import HierarchicalPrivileged
    from recallbench.benchmarks.scenemem.backend import load_start, make_scenario_env
    from recallbench.benchmarks.scenemem.rollout import run_rollout
    from recallbench.benchmarks.scenemem.spec import load_scenario
    from recallbench.benchmarks.scenemem.success import Thresholds, measure

    scenario = load_scenario(root)
    args = json.loads(json.dumps(scenario.env_args))
    args.setdefault("env_kwargs", {})["use_camera_obs"] = False  # the policy needs no pixels
    scenario = replace(scenario, env_args=args)
    env = make_scenario_env(scenario)
    spec = json.loads((root / "eval_spec.json").read_text())
    kept, dropped = [], []
    try:
        for raw, test in zip(spec["tests"], scenario.spec.tests, strict=True):
            load_start(env, scenario)
            fx = test.fixture
            if measure(env.sim, fx.body_name, fx.joint_names, Thresholds()).success:
                dropped.append({**raw, "dropped": "already satisfied at the start"})
                continue
            policy = HierarchicalPrivileged()
            out = run_rollout(env, policy, scenario, test, test.max_steps or DEFAULT_MAX_STEPS,
                              Thresholds())
            if out.memory:
                kept.append({**raw, "verified_steps": out.steps})
            else:
                why = out.error or f"privileged policy failed ({out.failed})"
                dropped.append({**raw, "dropped": why})
    finally:
        env.close()
    return kept, dropped
