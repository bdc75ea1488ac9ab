"""Object skills: pick an object from a fixture or receptacle and place it in/on another."""

from __future__ import annotations

import numpy as np

from recallbench.world.skills.core import Skill, SkillResult
from recallbench.world.skills.doors import DoorSkills


class Oracle(DoorSkills):
    """The scripted oracle: every skill (navigate, approach, open/close doors, turn the sink,
    pick, place) driving a ``HomeEnv``. ``on_step(env)`` is called after every env step."""

    # ------------------------------------------------------------------ objects
    def object_pos(self, name: str) -> np.ndarray:
        return self.body_pos(self.env.object(name)["body_name"])

    def _location(self, name: str) -> tuple[str, dict]:
        for f in self.env.world_meta["fixtures"]:
            if f["name"] == name:
                return "fixture", f
        for r in self.env.world_meta["receptacles"]:
            if r["name"] == name:
                return "receptacle", r
        raise KeyError(f"no fixture or receptacle {name!r}")

    def where_is(self, obj: str) -> str | None:
        """The fixture interior or receptacle top the object is in/on now, else None."""
        p = self.object_pos(obj)
        for f in self.env.world_meta["fixtures"]:
            if self._in_site(p, f["interior_site"], margin=0.03, below=0.06):
                return f["name"]
        for r in self.env.world_meta["receptacles"]:
            if self._in_site(p, r["top_site"], margin=0.05, below=0.1):
                return r["name"]
        return None

    def _in_site(self, p: np.ndarray, site: str, margin: float, below: float) -> bool:
        sid = self.model.site(site).id
        rot = self.env.data.site_xmat[sid].reshape(3, 3)
        local = rot.T @ (p - self.env.data.site_xpos[sid])
        half = self.model.site_size[sid]
        return bool(abs(local[0]) <= half[0] + margin and abs(local[1]) <= half[1] + margin
                    and -half[2] - below <= local[2] <= half[2] + margin)

    def pick(self, obj: str) -> Skill[SkillResult]:
        """Drive to the object, reach it from the front, grasp, lift, pull back to carry."""
        start = self.frame
        meta = self.env.object(obj)
        body = self.model.body(meta["body_name"]).id
        where = self.where_is(obj)
        info = {"object": obj, "from": where}
        if where is None:
            return self._done("pick", False, start, "object is not on a known surface", **info)
        kind, loc = self._location(where)
        p = self.object_pos(obj)
        if kind == "fixture":
            f = self._front(loc)
            path = [p + np.array([f[0] * 0.35, f[1] * 0.35, 0.02]), p + np.array([0, 0, 0.02])]
            lift = [p + np.array([0, 0, 0.03]),
                    p + np.array([f[0] * 0.45, f[1] * 0.45, 0.03])]
        else:
            path = [p + np.array([0, 0, 0.15]), p.copy()]
            lift = [p + np.array([0, 0, 0.2])]
        pose = self.work_pose(loc["approach_pose"], [*path, *lift], self._open_door_boxes(loc)
                              if kind == "fixture" else ())
        if pose is None:
            return self._done("pick", False, start, "no base pose reaches it", **info)
        yield from self.carry_pose()
        if not (yield from self.navigate_to(pose)).success:
            return self._done("pick", False, start,
                              f"could not drive there {self.last_nav_error}", **info)
        p = self.object_pos(obj)  # it may have settled since planning
        path[-1] = p + (np.array([0, 0, 0.02]) if kind == "fixture" else 0.0)
        yield from self.move_grip_path(path)
        yield from self.act(grip=1.0)
        if self.env.held_body() != body:
            yield from self.act(grip=-1.0)
            yield from self.carry_pose()
            return self._done("pick", False, start, "grasp missed", **info)
        yield from self.move_grip_path(lift)
        yield from self.carry_pose()
        ok = self.env.held_body() == body and self.where_is(obj) is None
        return self._done("pick", bool(ok), start, "", **info)

    def place_target(self, obj: str, target: str) -> tuple[str, dict, np.ndarray]:
        """World point where the object's origin should rest in/on ``target``."""
        kind, loc = self._location(target)
        meta = self.env.object(obj)
        site = loc["interior_site"] if kind == "fixture" else loc["top_site"]
        sid = self.model.site(site).id
        c = self.env.data.site_xpos[sid].copy()
        half = self.model.site_size[sid]
        rot = self.env.data.site_xmat[sid].reshape(3, 3)
        bottom = c - rot[:, 2] * half[2]
        x_off = 0.0
        y_off = 0.0
        if kind == "fixture":
            x_off = self._free_side(loc, half[0])
            y_off = min(0.08, 0.4 * half[1])  # toward the opening: shorter reach in
        else:
            bottom = c - rot[:, 2] * half[2] if half[2] > 0 else c
            # spread objects along the top so they do not land on each other
            x_off = self._free_spot(loc, c, rot, half)
        up = meta["half_height"] + 0.01
        p = bottom + rot[:, 0] * x_off + rot[:, 1] * y_off + rot[:, 2] * up
        return kind, loc, p

    def _free_side(self, fx: dict, half_x: float) -> float:
        """Lateral offset in the interior away from any opened side-hinged door panel."""
        for d in fx["doors"]:
            if d["kind"] != "hinge" or self.joint_q(d["joint"]) < 0.3:
                continue
            axis = self.model.jnt_axis[self.model.joint(d["joint"]).id]
            if abs(axis[2]) > 0.5:  # side hinge: +z axis hinges on the left, -z on the right
                return 0.45 * half_x if axis[2] > 0 else -0.45 * half_x
        return 0.0

    def _free_spot(self, rec: dict, c: np.ndarray, rot: np.ndarray, half: np.ndarray) -> float:
        others = [self.object_pos(o["name"]) for o in self.env.world_meta["objects"]]
        best, best_d = 0.0, -1.0
        for x in np.linspace(-0.6, 0.6, 7) * half[0]:
            p = c + rot[:, 0] * x
            d = min((float(np.linalg.norm((q - p)[:2])) for q in others), default=9.0)
            if d > best_d + 1e-9:
                best, best_d = float(x), d
        return best

    def place(self, obj: str, target: str) -> Skill[SkillResult]:
        """Carry the held object to ``target`` (fixture interior or receptacle top), set it
        down, let go and pull the arm back out."""
        start = self.frame
        body = self.model.body(self.env.object(obj)["body_name"]).id
        info = {"object": obj, "to": target}
        if self.env.held_body() != body:
            return self._done("place", False, start, "not holding it", **info)
        kind, loc, p = self.place_target(obj, target)
        # a sink's lever is no door: the basin is open whichever way the handle points
        doors = [d for d in loc.get("doors", []) if d["body"] != d["handle_body"]
                 and d.get("hinge") != "lever"]
        if doors and max(self.joint_q(d["joint"]) for d in doors) < 0.3:
            return self._done("place", False, start, "the door is closed", **info)
        if kind == "fixture" and loc["type"] == "sink":
            # an open basin below the counter top: lower the object in from above
            path = [p + [0, 0, 0.3], p + [0, 0, 0.02]]
            back = [p + [0, 0, 0.32]]
            avoid = []
        elif kind == "fixture":
            f = self._front(loc)
            out = np.array([f[0], f[1], 0.0])
            path = [p + out * 0.45 + [0, 0, 0.04], p + [0, 0, 0.04]]
            back = [p + out * 0.45 + [0, 0, 0.02]]
            avoid = self._open_door_boxes(loc)
        else:
            path = [p + [0, 0, 0.15], p + [0, 0, 0.01]]
            back = [p + [0, 0, 0.18]]
            avoid = []
        pose = self.work_pose(loc["approach_pose"], [*path, *back], avoid)
        if pose is None:
            return self._done("place", False, start, "no base pose reaches the target", **info)
        yield from self.carry_pose()
        if not (yield from self.navigate_to(pose)).success:
            return self._done("place", False, start, "could not drive there", **info)
        # the held object sits below the grip site by a fixed offset: aim the object, not it
        offset = self.grip_pos() - self.object_pos(obj)
        yield from self.move_grip_path([q + offset for q in path])
        yield from self.act(grip=-1.0)
        for _ in range(8):
            yield from self.act()
        yield from self.move_grip_path([q + offset for q in back])
        yield from self.carry_pose()
        for _ in range(10):
            yield from self.act()
        ok = self.where_is(obj) == target and self.env.held_body() is None
        return self._done("place", bool(ok), start, f"now in {self.where_is(obj)}", **info)

