"""Build a home from (seed, style): layout, kitchen run, furniture, objects, robot -> MJCF + JSON.

The seed fixes the floor plan, furniture and objects; the style only recolours. Same inputs,
same XML bytes (numbers are rounded before they reach the spec; settling is deterministic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from recallbench.world import fixtures as fx
from recallbench.world import furniture as fu
from recallbench.world.layout import WALL_HEIGHT, WALL_THICKNESS, Layout, Room, plan_layout
from recallbench.world.mjcf import STATIC, box, make_directional, r4, rotate_xy
from recallbench.world.objects import CATEGORIES, ROOM_CATEGORIES, add_object
from recallbench.world.robot import (
    ARM_HOME,
    BASE_JOINTS,
    BASE_RADIUS,
    CAMERAS,
    EEF_BODY,
    EEF_SITE,
    HEAD_SIZE,
    build_robot,
    head_fovy_deg,
)
from recallbench.world.styles import get_style

WORLD_VERSION = 1
KINDS = ("home", "kitchen")
TIMESTEP = 0.016667  # 3 physics steps per 20 Hz control step (1/60 s)
SETTLE_STEPS = 100
GRASP_USERDATA = 9  # [eq id or -1, relpos(3), relquat(4), torquescale]
COUNTER_Z = 0.9
MICROWAVE_Y = 0.12
TOASTER_Y = 0.2


@dataclass
class BuiltWorld:
    xml: str
    meta: dict


@dataclass
class _Slot:
    """A surface objects can be put on: world pose of its centre and local half extents."""

    kind: str  # "fixture" | "receptacle"
    name: str
    room: str
    center: tuple[float, float, float]  # world, z = surface height
    yaw: float
    half: tuple[float, float]
    max_half_height: float


def _to_world(origin, yaw: float, local) -> tuple[float, float, float]:
    dx, dy = rotate_xy(local[0], local[1], yaw)
    return (origin[0] + dx, origin[1] + dy, origin[2] + (local[2] if len(local) > 2 else 0.0))


def _setup(spec: mujoco.MjSpec, st) -> None:
    spec.modelname = "recallbench_home"
    spec.compiler.degree = False  # joint ranges in radians
    spec.option.timestep = TIMESTEP
    spec.nuserdata = GRASP_USERDATA  # the active grasp's weld pose, so states are complete
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    # elliptic friction cones: fewer constraint rows per contact than pyramids (~1.5x faster)
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    spec.visual.global_.offwidth = 1280
    spec.visual.global_.offheight = 1280
    spec.visual.quality.shadowsize = 2048
    # coarser primitive meshes: on a CPU rasteriser vertex work dominates (measured ~5x faster
    # frames with 16 slices / 8 stacks / 1 quad per box face than with the defaults)
    spec.visual.quality.numslices = 16
    spec.visual.quality.numstacks = 8
    spec.visual.quality.numquads = 1
    spec.visual.headlight.ambient = [0.45, 0.45, 0.45]
    spec.visual.headlight.diffuse = [0.35, 0.35, 0.35]
    spec.visual.headlight.specular = [0.0, 0.0, 0.0]
    spec.visual.map.znear = 0.01
    spec.stat.extent = 10.0
    tex = spec.add_texture(
        name="skybox",
        type=mujoco.mjtTexture.mjTEXTURE_SKYBOX,
        builtin=mujoco.mjtBuiltin.mjBUILTIN_GRADIENT,
        width=64,
        height=64,
    )
    tex.rgb1 = [0.85, 0.9, 0.95]
    tex.rgb2 = [0.6, 0.65, 0.7]
    light = spec.worldbody.add_light(name="sun", pos=[0, 0, 10], dir=[0.3, 0.2, -1.0],
                                     castshadow=True)
    make_directional(light)
    light.diffuse = [0.55, 0.55, 0.52]
    light.specular = [0.05, 0.05, 0.05]


def _rooms_and_walls(spec: mujoco.MjSpec, layout: Layout, st) -> None:
    world = spec.worldbody
    for room in layout.rooms:
        x0, y0, x1, y1 = room.bounds
        rgba = st.floors.get(room.type, (0.6, 0.6, 0.6, 1))
        box(
            world,
            f"floor_{room.name}",
            ((x0 + x1) / 2, (y0 + y1) / 2, -0.01),
            ((x1 - x0) / 2, (y1 - y0) / 2, 0.01),
            rgba,
            STATIC,
        )
    h = WALL_THICKNESS / 2
    for k, (x0, y0, x1, y1) in enumerate(layout.walls):
        hx = (x1 - x0) / 2 + h
        hy = (y1 - y0) / 2 + h
        box(
            world,
            f"wall_{k}",
            ((x0 + x1) / 2, (y0 + y1) / 2, WALL_HEIGHT / 2),
            (hx, hy, WALL_HEIGHT / 2),
            st.wall,
            STATIC,
        )


def _kitchen(spec, rng, layout: Layout, st, slots: list[_Slot], fixtures: list, recs: list):
    world = spec.worldbody
    room = layout.room("kitchen")
    x0, y0, x1, y1 = room.bounds
    inner = WALL_THICKNESS / 2
    if layout.kitchen_wall == "south":
        origin, yaw = (x0 + inner + 0.05, y0 + inner, 0.0), 0.0
    else:
        origin, yaw = (x1 - inner - 0.05, y1 - inner, 0.0), math.pi
    units = [str(u) for u in rng.permutation(["drawer", "dishwasher", "sink", "oven", "counter"])]
    units = ["fridge", *units] if rng.random() < 0.5 else [*units, "fridge"]
    widths = {
        "fridge": 0.8,
        "drawer": 0.6,
        "dishwasher": 0.6,
        "sink": 0.9,
        "oven": 0.76,
        "counter": 1.3,
    }
    spans: dict[str, tuple[float, float]] = {}
    cursor = 0.0
    for u in units:
        spans[u] = (cursor, cursor + widths[u])
        cursor += widths[u]
    run_len = cursor

    def at(local):
        return _to_world(origin, yaw, local)

    def mid(u):
        return (spans[u][0] + spans[u][1]) / 2

    name = "kitchen"
    fixtures.extend(fx.fridge_tower(world, name, at((mid("fridge"), 0, 0)), yaw, st))
    fixtures.append(
        fx.drawer_unit(
            world, "drawer_1", name, at((mid("drawer"), 0, 0)), yaw, st, widths["drawer"]
        )
    )
    fixtures.append(
        fx.dishwasher(world, "dishwasher", name, at((mid("dishwasher"), 0, 0)), yaw, st)
    )
    fixtures.append(fx.sink(world, "sink", name, at((mid("sink"), 0, 0)), yaw, st, widths["sink"]))
    fixtures.append(fx.oven(world, "oven", name, at((mid("oven"), 0, 0)), yaw, st))
    fx.base_counter(world, "counter_base", at((mid("counter"), 0, 0)), yaw, st, widths["counter"])
    cm = mid("counter")
    fixtures.append(
        fx.microwave(world, "microwave", name, at((cm - 0.33, MICROWAVE_Y, COUNTER_Z)), yaw, st)
    )
    fixtures.append(
        fx.toaster_oven(
            world, "toaster_oven", name, at((cm + 0.36, TOASTER_Y, COUNTER_Z + 0.02)), yaw, st
        )
    )
    # counter tops (receptacles) over the drawer, dishwasher and appliance counter
    for k, u in enumerate(("drawer", "dishwasher", "counter"), start=1):
        w = widths[u]
        body = world.add_body(
            name=f"counter_{k}_main",
            pos=r4(at((mid(u), 0, 0))),
            quat=r4([math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)]),
        )
        box(body, f"counter_{k}_g", (0, 0.31, COUNTER_Z - 0.02), (w / 2, 0.31, 0.02), st.counter)
        if u == "counter":
            continue  # the appliances take this top
        half = (w / 2 - 0.08, 0.2)
        top = (0.0, 0.34, COUNTER_Z)
        body.add_site(
            name=f"counter_{k}_top",
            pos=r4((0, 0.34, COUNTER_Z + 0.05)),
            size=r4((half[0], half[1], 0.05)),
            type=mujoco.mjtGeom.mjGEOM_BOX,
            rgba=[0, 0, 1, 0.2],
            group=4,
        )
        rec = fu.ReceptacleInfo(
            f"counter_{k}", "counter", name, body.name, f"counter_{k}_top", top, half
        )
        recs.append((rec, at((mid(u), 0, 0)), yaw))
        slots.append(
            _Slot("receptacle", rec.name, name, at((mid(u), 0.34, COUNTER_Z)), yaw, half, 0.15)
        )
    # upper cabinets: the double over the sink or counter, the single elsewhere, not overlapping
    b2 = str(rng.choice(["sink", "counter"]))
    c2 = (mid(b2) - 0.45, mid(b2) + 0.45)
    choices = [
        u
        for u in ("drawer", "dishwasher", "oven", "sink", "counter")
        if u != b2 and (mid(u) + 0.3 < c2[0] - 0.02 or mid(u) - 0.3 > c2[1] + 0.02)
    ]
    b1 = str(rng.choice(choices))
    fixtures.append(fx.cabinet(world, "cab_1", name, at((mid(b1), 0, 1.45)), yaw, st, 0.6, False))
    fixtures.append(fx.cabinet(world, "cab_2", name, at((mid(b2), 0, 1.45)), yaw, st, 0.9, True))
    # backsplash
    bs = world.add_body(
        name="backsplash",
        pos=r4(at((run_len / 2, 0, 0))),
        quat=r4([math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)]),
    )
    box(bs, None, (0, 0.004, 1.17), (run_len / 2, 0.004, 0.27), (0.92, 0.92, 0.9, 1), (0, 0))
    # fixture slots and approach poses
    local_x = {
        "fridge": mid("fridge"),
        "freezer": mid("fridge"),
        "drawer_1": mid("drawer"),
        "dishwasher": mid("dishwasher"),
        "sink": mid("sink"),
        "oven": mid("oven"),
        "microwave": cm - 0.33,
        "toaster_oven": cm + 0.36,
        "cab_1": mid(b1),
        "cab_2": mid(b2),
    }
    for f in fixtures:
        f.approach_local = (local_x[f.name], 0.62 + 0.4 + BASE_RADIUS)
    return origin, yaw, run_len, at, local_x


def _footprint(kind: str, pos, yaw: float) -> tuple[float, float, float, float]:
    w, d, _, _ = fu.SIZES[kind]
    extra = 0.6 if kind == "dining_table" else 0.0
    corners = [rotate_xy(x, y, yaw) for x in (-w / 2, w / 2) for y in (-extra, d + extra)]
    xs = [pos[0] + c[0] for c in corners]
    ys = [pos[1] + c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _overlaps(a, b, margin: float = 0.0) -> bool:
    return not (
        a[2] + margin <= b[0]
        or b[2] + margin <= a[0]
        or a[3] + margin <= b[1]
        or b[3] + margin <= a[1]
    )


def _doorway_zones(layout: Layout) -> list[tuple[float, float, float, float]]:
    zones = []
    for d in layout.doorways:
        cx, cy = d.center
        hw = d.width / 2 + 0.3
        if d.wall_axis == "x":
            zones.append((cx - hw, cy - 1.1, cx + hw, cy + 1.1))
        else:
            zones.append((cx - 1.1, cy - hw, cx + 1.1, cy + hw))
    return zones


def _furnish(spec, rng, layout: Layout, st, slots, recs, kitchen_block) -> None:
    world = spec.worldbody
    zones = _doorway_zones(layout)
    counts: dict[str, int] = {}
    for room in layout.rooms:
        placed = [kitchen_block] if room.type == "kitchen" and kitchen_block else []
        x0, y0, x1, y1 = room.bounds
        inner = WALL_THICKNESS / 2 + 0.02
        for kind in fu.ROOM_FURNITURE.get(room.type, ()):
            w, d, h, wall = fu.SIZES[kind]
            for _ in range(60):
                if wall:
                    side = int(rng.integers(0, 4))
                    yaw = (0.0, math.pi / 2, math.pi, -math.pi / 2)[side]
                    if side == 0:  # against the south wall, facing north
                        pos = (rng.uniform(x0 + inner + w / 2, x1 - inner - w / 2), y0 + inner)
                    elif side == 1:  # against the east wall, facing west
                        pos = (x1 - inner, rng.uniform(y0 + inner + w / 2, y1 - inner - w / 2))
                    elif side == 2:
                        pos = (rng.uniform(x0 + inner + w / 2, x1 - inner - w / 2), y1 - inner)
                    else:
                        pos = (x0 + inner, rng.uniform(y0 + inner + w / 2, y1 - inner - w / 2))
                else:
                    cx, cy = room.center
                    yaw = float(rng.choice([0.0, math.pi / 2]))
                    dx, dy = rotate_xy(0, d / 2, yaw)
                    pos = (cx + rng.uniform(-0.6, 0.6) - dx, cy + rng.uniform(-0.5, 0.5) - dy)
                pos = (round(float(pos[0]), 4), round(float(pos[1]), 4))
                fp = _footprint(kind, pos, yaw)
                if fp[0] < x0 or fp[1] < y0 or fp[2] > x1 or fp[3] > y1:
                    continue
                # keep a 0.7 m lane in front of everything so the robot can reach it
                lane = _footprint(kind, pos, yaw)
                fdx, fdy = rotate_xy(0, 0.7, yaw)
                lane = (
                    min(lane[0], lane[0] + fdx),
                    min(lane[1], lane[1] + fdy),
                    max(lane[2], lane[2] + fdx),
                    max(lane[3], lane[3] + fdy),
                )
                if any(_overlaps(fp, z) for z in zones):
                    continue
                if any(_overlaps(lane, p, 0.05) for p in placed):
                    continue
                placed.append(lane)
                counts[kind] = counts.get(kind, 0) + 1
                name = kind if kind.startswith(room.type) else f"{room.name}_{kind}"
                if counts[kind] > 1:
                    name = f"{name}_{counts[kind]}"
                rec = fu.build(world, kind, name, room.name, (pos[0], pos[1], 0.0), yaw, st)
                recs.append((rec, (pos[0], pos[1], 0.0), yaw))
                c = _to_world((pos[0], pos[1], 0.0), yaw, rec.top_local)
                slots.append(
                    _Slot(
                        "receptacle",
                        name,
                        room.name,
                        c,
                        yaw,
                        rec.top_half,
                        0.25 if kind != "shelf" else 0.18,
                    )
                )
                break
        counts.clear()


def _place_objects(spec, rng, slots: list[_Slot], n_objects: int) -> list[dict]:
    world = spec.worldbody
    fixture_slots = [s for s in slots if s.kind == "fixture"]
    rec_slots = [s for s in slots if s.kind == "receptacle"]
    n_fix = min(len(fixture_slots), max(1, n_objects // 2))
    chosen = [fixture_slots[i] for i in rng.permutation(len(fixture_slots))[:n_fix]]
    while len(chosen) < n_objects and rec_slots:
        chosen.append(rec_slots[int(rng.integers(0, len(rec_slots)))])
    occupied: dict[str, list[tuple[float, float, float]]] = {}
    per_cat: dict[str, int] = {}
    objects = []
    for slot in chosen:
        room_type = slot.room.rstrip("_0123456789") if slot.room != "kitchen" else "kitchen"
        cats = [
            c
            for c in ROOM_CATEGORIES.get(room_type, ROOM_CATEGORIES["kitchen"])
            if CATEGORIES[c].half_height <= slot.max_half_height
            and CATEGORIES[c].radius <= min(slot.half) + 0.03
        ]
        if not cats:
            continue
        fresh = [c for c in cats if c not in per_cat]  # prefer variety
        cat = CATEGORIES[str(rng.choice(fresh or cats))]
        for _ in range(20):
            lx = rng.uniform(-1, 1) * max(0.0, slot.half[0] - cat.radius * 0.5)
            ly = rng.uniform(-1, 1) * max(0.0, slot.half[1] - cat.radius * 0.5)
            if all(
                math.hypot(lx - ox, ly - oy) > cat.radius + orad + 0.02
                for ox, oy, orad in occupied.get(slot.name, [])
            ):
                break
        else:
            continue
        occupied.setdefault(slot.name, []).append((lx, ly, cat.radius))
        per_cat[cat.name] = per_cat.get(cat.name, 0) + 1
        name = f"obj_{cat.name}_{per_cat[cat.name]}"
        pos = _to_world(slot.center, slot.yaw, (lx, ly, cat.half_height + 0.003))
        entry = add_object(world, name, cat.name, pos, float(rng.uniform(-math.pi, math.pi)), rng)
        entry["initial_location"] = {"kind": slot.kind, "name": slot.name, "room": slot.room}
        objects.append(entry)
    return objects


def _grasp_welds(spec: mujoco.MjSpec, targets: list[str]) -> None:
    for body in targets:
        eq = spec.add_equality(
            name=f"grasp_{body}",
            type=mujoco.mjtEq.mjEQ_WELD,
            objtype=mujoco.mjtObj.mjOBJ_BODY,
            name1=EEF_BODY,
            name2=body,
            active=False,
        )
        # relpose (anchor 0, relpos, relquat, torquescale) is written at grasp time
        eq.data[:11] = [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
        eq.solref = [0.01, 1.0]


def build_world(
    seed: int, style: int = 0, kind: str = "home", n_objects: int | None = None
) -> BuiltWorld:
    """Generate the world for (seed, style, kind). Returns the MJCF text and its metadata."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    st = get_style(style)
    layout = plan_layout(rng, kitchen_only=(kind == "kitchen"))
    spec = mujoco.MjSpec()
    _setup(spec, st)
    _rooms_and_walls(spec, layout, st)
    slots: list[_Slot] = []
    fixtures: list[fx.FixtureInfo] = []
    recs: list = []
    origin, yaw, run_len, at, local_x = _kitchen(spec, rng, layout, st, slots, fixtures, recs)
    # the whole run plus a working lane in front counts as occupied for furniture placement
    c0, c1 = at((0, 0, 0)), at((run_len, 0.62 + 1.9, 0))
    block = (min(c0[0], c1[0]), min(c0[1], c1[1]), max(c0[0], c1[0]), max(c0[1], c1[1]))
    _furnish(spec, rng, layout, st, slots, recs, block)
    for f in fixtures:
        site_local = _interior_local(f)
        root = at((local_x[f.name], _fixture_y(f.name), _fixture_z(f.name)))
        slots.append(
            _Slot(
                "fixture",
                f.name,
                "kitchen",
                _to_world(root, yaw, site_local),
                yaw,
                tuple(f.interior_half_extents[:2]),
                f.interior_half_extents[2] - 0.005,
            )
        )
    n = n_objects if n_objects is not None else (10 if kind == "kitchen" else 16)
    objects = _place_objects(spec, rng, slots, n)
    build_robot(spec)
    handles = [d["handle_body"] for f in fixtures for d in f.doors]
    _grasp_welds(spec, [o["body_name"] for o in objects] + handles)
    krun = layout.room("kitchen")
    start_local = (run_len / 2 + float(rng.uniform(-0.5, 0.5)), 0.62 + 1.3)
    sx, sy, _ = at((*start_local, 0))
    start_pose = r4((sx, sy, _wrap(yaw - math.pi / 2)))
    meta = {
        "version": WORLD_VERSION,
        "seed": seed,
        "style": style,
        "style_name": st.name,
        "kind": kind,
        "n_objects": n,
        "timestep": TIMESTEP,
        "rooms": [
            {
                "name": r.name,
                "type": r.type,
                "bounds": list(r.bounds),
                "floor_geom": f"floor_{r.name}",
            }
            for r in layout.rooms
        ],
        "doorways": [
            {
                "rooms": list(d.rooms),
                "center": list(d.center),
                "width": d.width,
                "wall_axis": d.wall_axis,
            }
            for d in layout.doorways
        ],
        "walls": [list(w) for w in layout.walls],
        "kitchen_run": {
            "origin": r4(origin[:2]),
            "yaw": round(yaw, 6),
            "length": round(run_len, 4),
            "room": krun.name,
        },
        "fixtures": [],
        "receptacles": [],
        "objects": objects,
        "robot": {
            "base_body": "mobilebase0_base",
            "support_body": "mobilebase0_support",
            "base_joints": list(BASE_JOINTS),
            "radius": BASE_RADIUS,
            "eef_body": EEF_BODY,
            "eef_site": EEF_SITE,
            "start_pose": start_pose,
            "cameras": list(CAMERAS),
            "head_camera": {
                "name": "robot0_head",
                "width": HEAD_SIZE[0],
                "height": HEAD_SIZE[1],
                "hfov_deg": 43.0,
                "fovy_deg": round(head_fovy_deg(), 4),
                "tilt_deg": 30.0,
                "height_m": 1.31,
            },
        },
    }
    for f in fixtures:
        d = f.to_dict()
        ax, ay, _ = at((*f.approach_local, 0))
        d["pos"] = r4(at((local_x[f.name], _fixture_y(f.name), _fixture_z(f.name))))
        d["yaw"] = round(yaw, 6)
        d["approach_pose"] = r4((ax, ay, _wrap(yaw - math.pi / 2)))
        meta["fixtures"].append(d)
    for rec, pos, ryaw in recs:
        d = rec.to_dict()
        w, dep, _, _ = fu.SIZES.get(rec.type, (0, 0.62, 0, True))
        front = dep + (0.35 if rec.type != "dining_table" else 0.6) + BASE_RADIUS
        ax, ay, _ = _to_world(pos, ryaw, (0, front, 0))
        d["pos"] = r4(pos)
        d["yaw"] = round(ryaw, 6)
        d["approach_pose"] = r4((ax, ay, _wrap(ryaw - math.pi / 2)))
        meta["receptacles"].append(d)
    xml = _settle_and_key(spec, start_pose)
    return BuiltWorld(xml=xml, meta=meta)


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _fixture_y(name: str) -> float:
    """Distance of a fixture's root from the wall (appliances stand forward on the counter)."""
    return {"microwave": MICROWAVE_Y, "toaster_oven": TOASTER_Y}.get(name, 0.0)


def _fixture_z(name: str) -> float:
    return {
        "freezer": 1.26,
        "microwave": COUNTER_Z,
        "toaster_oven": COUNTER_Z + 0.02,
        "cab_1": 1.45,
        "cab_2": 1.45,
    }.get(name, 0.0)


def _interior_local(f: fx.FixtureInfo) -> tuple[float, float, float]:
    # Interior sites are created at known local offsets; recover them from the spec-free record.
    return f.interior_local


def _settle_and_key(spec: mujoco.MjSpec, start_pose) -> str:
    """Compile, put the robot at its start pose, let objects settle, store that as keyframe
    'start' (so mj_resetDataKeyframe gives the ready world), and return the XML."""
    model = spec.compile()
    data = mujoco.MjData(model)
    _apply_robot_home(model, data, start_pose)
    mujoco.mj_forward(model, data)
    mujoco.mj_step(model, data, nstep=SETTLE_STEPS)
    data.qvel[:] = 0.0
    _apply_robot_home(model, data, start_pose)
    qpos = np.round(data.qpos, 5)
    key = spec.add_key(name="start", qpos=qpos.tolist(), ctrl=np.round(data.ctrl, 5).tolist())
    key.time = 0.0
    return spec.to_xml()


def _apply_robot_home(model: mujoco.MjModel, data: mujoco.MjData, start_pose) -> None:
    for jn, v in zip(BASE_JOINTS, start_pose, strict=True):
        data.qpos[model.joint(jn).qposadr[0]] = v
    for jn, v in ARM_HOME.items():
        data.qpos[model.joint(jn).qposadr[0]] = v
        data.ctrl[model.actuator(jn.replace("joint", "act")).id] = v
    for jn in BASE_JOINTS:
        data.ctrl[model.actuator(jn.replace("joint", "act")).id] = 0.0


__all__ = ["build_world", "BuiltWorld", "KINDS", "Room"]
