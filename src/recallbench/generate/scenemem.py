"""Generate SceneMem scenarios: a scripted robot does 5-7 kitchen tasks back to back while three
cameras record; the end-of-video world and the memory probes are written in the card's format.

One scenario folder ``combo_<id>_L<layout>_S<style>_<seed>/``:

- ``videos/{robot0_agentview_left,robot0_agentview_right,robot0_eye_in_hand}.mp4`` (20 fps,
  H.264, short GOP) and ``videos/subtasks.json`` (each task's frame segment and instruction);
- ``eval_spec.json``: the probes that passed verification (``find_target``: objects the robot
  put into a fixture with a door; ``find_distractor``: objects that sat in such a fixture all
  along);
- ``env/{unified_model.xml, env_args.json, ep_meta.json, start_state.npy}``: the end-of-video
  world, rebuilt by the card's five loading steps (env_args.json names the built-in env);
- ``generation.json``: seeds, attempts, frame count, probe counts (what ``suite.json`` sums).

The folder is written under ``.tmp_combo_<id>`` and renamed when complete, so a killed
generation leaves no half scenario and a rerun skips finished ones. Every probe is verified
before it is written: the privileged policy must reach memory_success through the env's normal
actions in the SceneMem runner's own rollout code, and a do-nothing start must not already
succeed; failing probes are dropped and counted.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.generate.recorder import SCENEMEM_VIEWS
from recallbench.io import write_json_atomic

GENERATOR_VERSION = 1
FPS = 20
# SceneMem's eight destination fixture types (a sink's probe is passed by turning its handle)
DESTINATION_TYPES = ("microwave", "cabinet", "toaster_oven", "freezer", "fridge", "oven",
                     "dishwasher", "sink")
ALL_DESTINATION_TYPES = DESTINATION_TYPES
# fixtures whose contents do not move with a door (drawers carry theirs along)
SOURCE_EXCLUDE = ("drawer",)
ROOM_COUNTS = (1, 4, 6)
PROBE = "Show me where the {category} is placed."  # the card's template


@dataclass(frozen=True)
class ScenememKnobs:
    """Difficulty knobs (recorded in suite.json and every generation.json).

    ``tasks``: tasks per scenario (None: 5..7 drawn per scenario); ``pick_place``: how many of
    them put an object into a fixture (the rest are auxiliary: open/close a door, move an object
    between counters); ``idle``: steps the robot stands still after each task (a longer video
    with the same content); ``revisits``: extra tasks that open and close a fixture the robot
    filled earlier (the object is seen again); ``distractors``: objects added to the world's
    default count; ``rooms``: 1 for a kitchen alone, 4 or 6 for a kitchen-centred home.
    """

    tasks: int | None = None
    pick_place: int = 3
    idle: int = 0
    revisits: int = 0
    distractors: int = 0
    rooms: int = 1
    size: int = 256
    max_steps: int = 600
    destinations: tuple[str, ...] = DESTINATION_TYPES
    use_camera_obs: bool = True
    verify: bool = True
    attempts: int = 5

    def __post_init__(self) -> None:
        if self.tasks is not None and self.tasks < 1:
            raise ValueError(f"tasks must be >= 1, got {self.tasks}")
        if self.pick_place < 1:
            raise ValueError(f"pick_place must be >= 1, got {self.pick_place}")
        if self.tasks is not None and self.pick_place > self.tasks:
            raise ValueError(f"pick_place ({self.pick_place}) exceeds tasks ({self.tasks})")
        for name in ("idle", "revisits", "distractors"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.rooms not in ROOM_COUNTS:
            raise ValueError(f"rooms must be one of {ROOM_COUNTS}, got {self.rooms}")
        if self.size < 16 or self.size % 2:
            raise ValueError(f"size must be even and >= 16, got {self.size}")
        bad = [d for d in self.destinations if d not in ALL_DESTINATION_TYPES]
        if bad or not self.destinations:
            raise ValueError(f"destinations must be among {ALL_DESTINATION_TYPES}, got {bad}")
        if self.attempts < 1 or self.max_steps < 1:
            raise ValueError("attempts and max_steps must be >= 1")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["destinations"] = list(self.destinations)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScenememKnobs:
        d = dict(d)
        if "destinations" in d:
            d["destinations"] = tuple(d["destinations"])
        return cls(**d)


class AttemptFailed(RuntimeError):
    """This world/plan did not give a clean scenario; the next attempt draws another."""


@dataclass
class Task:
    kind: str  # pick_place | open_close | move | revisit
    instruction: str
    start_frame: int = 0
    end_frame: int = 0
    success: bool = False
    fields: dict[str, Any] = field(default_factory=dict)
    skills: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, index: int) -> dict[str, Any]:
        return {"index": index, "kind": self.kind, "instruction": self.instruction,
                "start_frame": self.start_frame, "end_frame": self.end_frame,
                "success": self.success, **self.fields, "skills": self.skills}


# ---------------------------------------------------------------------------------- naming
def scenario_prefix(index: int) -> str:
    return f"combo_{index:04d}_"


def scenario_name(index: int, layout: int, style: int, seed: int) -> str:
    return f"{scenario_prefix(index)}L{layout}_S{style}_{seed}"


def find_complete(out_dir: Path, index: int) -> Path | None:
    """The finished folder of scenario ``index``, if any (only complete ones are renamed)."""
    found = sorted(p for p in Path(out_dir).glob(f"{scenario_prefix(index)}*") if p.is_dir())
    return found[0] if found else None


def _describe(name: str, kind: str) -> str:
    """Words for a fixture or receptacle in an instruction."""
    if kind == "cabinet":
        return "cabinet"
    return name.replace("_", " ").rstrip("0123456789 ") if kind != "counter" else "counter"


def _room_count(layout_seed: int) -> int:
    from recallbench.world.layout import plan_layout

    # the same first draw build_world makes for a home (rng seeded with [seed, kind index 0])
    return len(plan_layout(np.random.default_rng([layout_seed, 0])).rooms)


def draw_world(rng: np.random.Generator, rooms: int) -> tuple[int, int]:
    """(layout seed, style) for one attempt; for homes, a layout with ``rooms`` rooms."""
    style = int(rng.integers(0, 5))
    for _ in range(200):
        layout = int(rng.integers(0, 10000))
        if rooms == 1 or _room_count(layout) == rooms:
            return layout, style
    raise ValueError(f"no home with {rooms} rooms found in 200 draws")


# ---------------------------------------------------------------------------------- the day
class _Day:
    """Plans and runs the tasks of one scenario on a live env, recording every step."""

    def __init__(self, env: Any, oracle: Any, rng: np.random.Generator, knobs: ScenememKnobs):
        self.env, self.o, self.rng, self.knobs = env, oracle, rng, knobs
        meta = env.world_meta
        self.fixtures = {f["name"]: f for f in meta["fixtures"]}
        self.receptacles = {r["name"]: r for r in meta["receptacles"]}
        cats = [o["category"] for o in meta["objects"]]
        # probes name a category, so only objects whose category is unique can be asked about
        self.unique = {o["name"] for o in meta["objects"] if cats.count(o["category"]) == 1}
        self.start_place = {o["name"]: oracle.where_is(o["name"]) for o in meta["objects"]}
        self.moved: set[str] = set()
        self.filled: list[str] = []  # destination fixtures, in order
        self.tasks: list[Task] = []

    # -- helpers
    def words(self, place: str) -> str:
        """A fixture or receptacle in words; counters by the appliance they stand beside."""
        if place in self.fixtures:
            return _describe(place, self.fixtures[place]["type"])
        rec = self.receptacles[place]
        if rec["type"] != "counter":
            return _describe(place, rec["type"])
        xy = np.asarray(rec["pos"][:2], float)
        beside = [(float(np.linalg.norm(np.asarray(f["pos"][:2], float) - xy)), f["type"])
                  for f in self.fixtures.values()
                  if f["type"] in ("fridge", "sink", "oven", "microwave", "dishwasher")]
        # the unit under the counter top shares its position: skip it, name the next one
        beside = sorted(b for b in beside if b[0] > 0.2)
        return f"counter by the {beside[0][1]}" if beside else "counter"

    def _door_fixture(self, name: str | None) -> bool:
        """A fixture with a door to open before reaching in (a sink's lever is no door)."""
        return name in self.fixtures and any(
            d["body"] != d["handle_body"] and d.get("hinge") != "lever"
            for d in self.fixtures[name]["doors"])

    def _probe_place(self, name: str | None) -> bool:
        """Where a memory probe can point: behind a door, or in a sink (turn its handle)."""
        return self._door_fixture(name) or (name in self.fixtures
                                            and self.fixtures[name]["type"] == "sink")

    def _run(self, task: Task, skill_name: str, *args: Any) -> bool:
        r = self.o.run(getattr(self.o, skill_name)(*args))
        task.skills.append({"skill": r.skill, "success": r.success, "start_frame": r.start_frame,
                            "end_frame": r.end_frame, "detail": r.detail})
        return r.success

    def _cleanup(self, task: Task) -> None:
        """After a failed task: put down what is held, close every door; else give up."""
        held = self.env.held_body()
        if held is not None:
            name = self.env.model.body(held).name
            for target in ("counter_1", "counter_2", "kitchen_table"):
                if target in self.receptacles and self._run(task, "place", name, target):
                    break
            if self.env.held_body() is not None:
                raise AttemptFailed(f"could not put down {name}")
        for f in self.fixtures.values():
            for d in f["doors"]:
                if d["body"] == d["handle_body"] or self.o.joint_q(d["joint"]) < 0.05:
                    continue
                if not self._run(task, "close_door", f["name"], d["name"]):
                    raise AttemptFailed(f"could not close {d['joint']}")

    def _execute(self, task: Task, steps: list[tuple[Any, ...]]) -> None:
        task.start_frame = self.o.frame
        ok = True
        for step in steps:
            if not self._run(task, *step):
                ok = False
                break
        if not ok:
            self._cleanup(task)
        task.success = ok
        if self.knobs.idle:
            self.o.run(self.o.idle(self.knobs.idle))
        task.end_frame = self.o.frame
        self.tasks.append(task)

    # -- task kinds
    def pick_place(self) -> bool:
        dests = [f for f in self.fixtures.values()
                 if f["type"] in self.knobs.destinations and f["name"] not in self.filled]
        objs = [o for o in self.env.world_meta["objects"]
                if o["name"] in self.unique and o["name"] not in self.moved]
        cands = []
        for o in objs:
            src = self.o.where_is(o["name"])
            if src is None or (src in self.fixtures
                               and self.fixtures[src]["type"] in SOURCE_EXCLUDE + ("sink",)):
                continue
            # the object must fit under the interior's ceiling (a kettle is no toaster-oven food)
            cands.extend((o, src, d) for d in dests if d["name"] != src
                         and 2 * o["half_height"] + 0.01 <= 2 * d["interior_half_extents"][2])
        if not cands:
            return False
        # prefer destination types not used yet, so a suite covers the eight types
        used = {self.fixtures[n]["type"] for n in self.filled}
        fresh = [c for c in cands if c[2]["type"] not in used]
        o, src, dest = (fresh or cands)[int(self.rng.integers(len(fresh or cands)))]
        cat, obj = o["category"].replace("_", " "), o["name"]
        instruction = (f"Pick the {cat} from the {self.words(src)} and place it in the "
                       f"{_describe(dest['name'], dest['type'])}.")
        task = Task("pick_place", instruction,
                    fields={"object": obj, "category": o["category"], "from": src,
                            "to": dest["name"], "to_type": dest["type"]})
        steps: list[tuple[Any, ...]] = []
        if self._door_fixture(dest["name"]):
            steps.append(("open_door", dest["name"]))
        if self._door_fixture(src):
            steps.append(("open_door", src))
        steps += [("pick", obj), ("place", obj, dest["name"])]
        if self._door_fixture(dest["name"]):
            steps.append(("close_door", dest["name"]))
        if self._door_fixture(src):
            steps.append(("close_door", src))
        self.moved.add(obj)
        self._execute(task, steps)
        if task.success:
            self.filled.append(dest["name"])
            place = [s for s in task.skills if s["skill"] == "place"][-1]
            task.fields["placed_frame"] = place["end_frame"] - 1
        return True

    def open_close(self) -> bool:
        names = sorted(n for n in self.fixtures if self._door_fixture(n))
        name = names[int(self.rng.integers(len(names)))]
        f = self.fixtures[name]
        word = "drawer" if f["type"] == "drawer" else f"{_describe(name, f['type'])} door"
        task = Task("open_close", f"Open the {word} and close it again.", fields={"fixture": name})
        self._execute(task, [("open_door", name), ("close_door", name)])
        return True

    def move(self) -> bool:
        kitchen = [r for r in self.receptacles.values() if r["room"] == "kitchen"]
        objs = [o for o in self.env.world_meta["objects"]
                if o["name"] not in self.moved and self.o.where_is(o["name"]) in
                {r["name"] for r in kitchen}]
        if len(kitchen) < 2 or not objs:
            return False
        o = objs[int(self.rng.integers(len(objs)))]
        src = self.o.where_is(o["name"])
        to = [r["name"] for r in kitchen if r["name"] != src]
        dest = to[int(self.rng.integers(len(to)))]
        cat = o["category"].replace("_", " ")
        task = Task("move", f"Move the {cat} from the {self.words(src)} to the "
                    f"{self.words(dest)}.",
                    fields={"object": o["name"], "category": o["category"], "from": src,
                            "to": dest})
        self.moved.add(o["name"])
        self._execute(task, [("pick", o["name"]), ("place", o["name"], dest)])
        return True

    def revisit(self) -> bool:
        filled = [n for n in self.filled if self._door_fixture(n)]  # sinks have no door
        if not filled:
            return False
        name = filled[int(self.rng.integers(len(filled)))]
        f = self.fixtures[name]
        task = Task("revisit", f"Open the {_describe(name, f['type'])} door, look inside and "
                    "close it.", fields={"fixture": name})
        self._execute(task, [("open_door", name), ("idle", 10), ("close_door", name)])
        return True

    def run(self) -> None:
        k = self.knobs
        n = k.tasks if k.tasks is not None else int(self.rng.integers(5, 8))
        n_pp = min(max(k.pick_place, 1), n)
        kinds = ["pick_place"] * n_pp + [str(self.rng.choice(["open_close", "move"]))
                                         for _ in range(n - n_pp)]
        kinds = [kinds[i] for i in self.rng.permutation(len(kinds))]
        # revisits go after the first pick-and-place, spread over the rest of the day
        first = kinds.index("pick_place")
        for _ in range(k.revisits):
            kinds.insert(int(self.rng.integers(first + 1, len(kinds) + 1)), "revisit")
        placed = 0
        for kind in kinds:
            if kind == "pick_place":
                tries = 0
                while tries < 3:  # a failed pick-and-place is replaced by another
                    tries += 1
                    if not self.pick_place():
                        break
                    if self.tasks[-1].success:
                        placed += 1
                        break
            elif not getattr(self, kind)():
                self.open_close()
        if placed < min(n_pp, 1):
            raise AttemptFailed("no pick-and-place task succeeded")
        self.o.run(self.o.idle(10))


# ---------------------------------------------------------------------------------- probes
def _probe_fixture(f: dict) -> dict[str, Any]:
    joints = [d["joint"] for d in f["doors"]]
    return {"name": f["name"], "type": f["type"], "body_name": f["body_name"],
            "joint_names": joints}


def candidate_probes(day: _Day, max_steps: int) -> list[dict[str, Any]]:
    """find_target for each object put into a door fixture that is still there; then
    find_distractor for unique objects that sat in such a fixture all along."""
    o, tests, used = day.o, [], set()
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
            out = run_rollout(env, policy, scenario, test, test.max_steps or 1500, Thresholds())
            if out.memory:
                kept.append({**raw, "verified_steps": out.steps})
            else:
                why = out.error or f"privileged policy failed ({out.failed})"
                dropped.append({**raw, "dropped": why})
    finally:
        env.close()
    return kept, dropped


# ---------------------------------------------------------------------------------- writing
def _write_env(env: Any, root: Path, layout: int, style: int, knobs: ScenememKnobs,
               index: int, seed: int) -> None:
    env_dir = root / "env"
    env_dir.mkdir(parents=True, exist_ok=True)
    (env_dir / "unified_model.xml").write_text(env.xml)
    env_name = "RecallbenchKitchen" if env.kind == "kitchen" else "RecallbenchHome"
    write_json_atomic(env_dir / "env_args.json", {
        "env_name": env_name,
        "env_kwargs": {"seed": layout, "style": style, "n_objects": len(env.world_meta["objects"]),
                       "camera_names": list(SCENEMEM_VIEWS), "camera_widths": knobs.size,
                       "camera_heights": knobs.size, "use_camera_obs": knobs.use_camera_obs,
                       "control_freq": FPS},
    })
    ep_meta = env.get_ep_meta()
    ep_meta["generator"] = {"name": "recallbench", "version": GENERATOR_VERSION,
                            "suite_seed": seed, "index": index}
    write_json_atomic(env_dir / "ep_meta.json", ep_meta)
    np.save(env_dir / "start_state.npy", env.sim.get_state().flatten())


def _attempt(tmp: Path, index: int, seed: int, attempt: int, knobs: ScenememKnobs
             ) -> dict[str, Any]:
    from recallbench.generate.recorder import FrameRecorder
    from recallbench.world.builder import build_world
    from recallbench.world.env import HomeEnv
    from recallbench.world.skills import Oracle

    rng = np.random.default_rng(np.random.SeedSequence([seed, index, attempt]))
    layout, style = draw_world(rng, knobs.rooms)
    kind = "kitchen" if knobs.rooms == 1 else "home"
    n_default = 10 if kind == "kitchen" else 16
    n_objects = n_default + knobs.distractors
    built = build_world(layout, style, kind, n_objects)
    env = HomeEnv(layout, style, kind, n_objects=n_objects, xml=built.xml, world_meta=built.meta)
    if len(built.meta["rooms"]) != knobs.rooms:
        env.close()
        raise AttemptFailed(f"layout {layout} has {len(built.meta['rooms'])} rooms, not "
                            f"{knobs.rooms}")
    item_seed = int(rng.integers(0, 2**31 - 1))
    size = (knobs.size, knobs.size)
    try:
        with FrameRecorder(tmp / "videos", SCENEMEM_VIEWS, size, FPS) as rec:
            oracle = Oracle(env, on_step=rec.capture, on_event=lambda r: rec.note(
                r.skill, success=r.success, start_frame=r.start_frame, detail=r.detail))
            day = _Day(env, oracle, np.random.default_rng(item_seed), knobs)
            day.run()
            tests = candidate_probes(day, knobs.max_steps)
            frames = rec.frames
        if not tests:
            raise AttemptFailed("no probe candidates")
        name = scenario_name(index, layout, style, item_seed)
        write_json_atomic(tmp / "videos" / "subtasks.json", {
            "fps": FPS, "num_frames": frames, "frame_convention":
            "frame i shows the state after control step i+1; segments are [start, end)",
            "tasks": [t.to_dict(i) for i, t in enumerate(day.tasks)],
            "events": rec.events,  # every skill (navigate included) as it ended
        })
        np.save(tmp / "videos" / "base_poses.npy", np.round(rec.pose_array(), 6))
        _write_env(env, tmp, layout, style, knobs, index, seed)
    finally:
        env.close()
    spec = {"scenario": name, "tests": tests}
    write_json_atomic(tmp / "eval_spec.json", spec)
    dropped: list[dict[str, Any]] = []
    if knobs.verify:
        tests, dropped = verify_probes(tmp)
        if not tests:
            raise AttemptFailed(f"all {len(dropped)} probes failed verification")
        write_json_atomic(tmp / "eval_spec.json", {"scenario": name, "tests": tests})
    return {
        "name": name, "index": index, "suite_seed": seed, "attempt": attempt,
        "layout": layout, "style": style, "kind": kind, "rooms": knobs.rooms,
        "objects": len(built.meta["objects"]), "seed": item_seed, "frames": frames,
        "tasks": len(day.tasks), "tasks_failed": sum(not t.success for t in day.tasks),
        "pick_place": sum(t.kind == "pick_place" and t.success for t in day.tasks),
        "probes": len(tests), "probes_by_task": _count(tests, "task"),
        "probes_by_fixture": _count([t["fixture"] for t in tests], "type"),
        "dropped_probes": len(dropped),
        "dropped": [{"test_id": d["test_id"], "reason": d["dropped"]} for d in dropped],
    }


def _count(items: list[dict[str, Any]], key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        out[it[key]] = out.get(it[key], 0) + 1
    return dict(sorted(out.items()))


def generate_scenario(out_dir: str | Path, index: int, seed: int,
                      knobs: ScenememKnobs | dict[str, Any] | None = None) -> dict[str, Any]:
    """Write scenario ``index`` of the suite at ``out_dir``; returns its generation summary.

    Deterministic in (seed, index, knobs). A complete scenario already there is returned as is.
    """
    from recallbench.world.gl import select_backend

    select_backend()
    if not isinstance(knobs, ScenememKnobs):
        knobs = ScenememKnobs.from_dict(knobs or {})
    out_dir = Path(out_dir)
    done = find_complete(out_dir, index)
    if done is not None:
        return json.loads((done / "generation.json").read_text())
    tmp = out_dir / f".tmp_{scenario_prefix(index)}"
    failures = []
    for attempt in range(knobs.attempts):
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        try:
            summary = _attempt(tmp, index, seed, attempt, knobs)
        except AttemptFailed as exc:
            failures.append(f"attempt {attempt}: {exc}")
            continue
        summary["failed_attempts"] = failures
        write_json_atomic(tmp / "generation.json", summary)
        os.replace(tmp, out_dir / summary["name"])  # complete: appears atomically
        return summary
    shutil.rmtree(tmp, ignore_errors=True)
    raise RuntimeError(f"scenario {index}: no clean scenario in {knobs.attempts} attempts: "
                       + "; ".join(failures))


def suite_manifest(out_dir: Path, seed: int, n: int, knobs: ScenememKnobs,
                   items: list[dict[str, Any]]) -> dict[str, Any]:
    """suite.json: knobs, seed, versions and per-scenario summaries (no clock: deterministic)."""
    import platform
    import sys

    from recallbench.versions import package_versions

    probes = sum(i["probes"] for i in items)
    return {
        "benchmark": "scenemem", "generator": "recallbench", "generator_version":
        GENERATOR_VERSION, "seed": seed, "n": n, "knobs": knobs.to_dict(),
        "python": sys.version.split()[0], "platform": platform.machine(),
        "packages": package_versions(), "mujoco_gl": os.environ.get("MUJOCO_GL"),
        "complete": len(items) == n,
        "totals": {"scenarios": len(items), "probes": probes,
                   "dropped_probes": sum(i["dropped_probes"] for i in items),
                   "frames": sum(i["frames"] for i in items),
                   "minutes_of_video": round(sum(i["frames"] for i in items) / FPS / 60, 2)},
        "items": sorted(items, key=lambda i: i["index"]),
    }

