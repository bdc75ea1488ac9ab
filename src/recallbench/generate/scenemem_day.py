"""One scenario's day for the SceneMem generator: plan 5-7 kitchen tasks (pick-and-place into
fixtures, open/close, move, revisits), run them with the scripted oracle while the recorder
films, clean up after a failed task, and end the day somewhere random in the kitchen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# fixtures whose contents do not move with a door (drawers carry theirs along)
SOURCE_EXCLUDE = ("drawer",)


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


def describe(name: str, kind: str) -> str:
    """Words for a fixture or receptacle in an instruction."""
    if kind == "cabinet":
        return "cabinet"
    return name.replace("_", " ").rstrip("0123456789 ") if kind != "counter" else "counter"


class Day:
    """Plans and runs the tasks of one scenario on a live env, recording every step."""

    def __init__(self, env: Any, oracle: Any, rng: np.random.Generator, knobs: Any):
        # knobs: a generate.scenemem.ScenememKnobs (not imported: that module imports this one)
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
            return describe(place, self.fixtures[place]["type"])
        rec = self.receptacles[place]
        if rec["type"] != "counter":
            return describe(place, rec["type"])
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
        cands: list[Any] = []
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
                       f"{describe(dest['name'], dest['type'])}.")
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
        word = "drawer" if f["type"] == "drawer" else f"{describe(name, f['type'])} door"
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
        task = Task("revisit", f"Open the {describe(name, f['type'])} door, look inside and "
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
        self.wander_off()
        self.o.run(self.o.idle(10))

    def wander_off(self) -> None:
        """End the day somewhere random in the kitchen: a robot left beside the fixture it filled
        last would hand memoryless search (nearest fixture first) that probe for free."""
        grid = self.env.nav_grid
        kitchen = next(r for r in self.env.world_meta["rooms"] if r["name"] == "kitchen")
        x0, y0, x1, y1 = kitchen["bounds"]
        here = self.env.base_pose()[:2]
        for _ in range(200):
            xy = self.rng.uniform((x0, y0), (x1, y1))
            if grid.is_navigable(xy) and np.isfinite(grid.geodesic(here, xy)):
                yaw = float(self.rng.uniform(-np.pi, np.pi))
                self.o.run(self.o.navigate_to((float(xy[0]), float(xy[1]), yaw)))
                return
