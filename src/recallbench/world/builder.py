"""Build a home from (seed, style): layout, kitchen run, furniture, objects, robot -> MJCF + JSON.

The seed fixes the floor plan, furniture and objects; the style only recolours. Same inputs,
same XML bytes (numbers are rounded before they reach the spec; settling is deterministic).
The kitchen run is built in ``kitchen``, the furniture in ``furnish``, objects in ``slots``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from recallbench.world import fixtures as fx
from recallbench.world import furniture as fu
from recallbench.world.asset_store import use_store
from recallbench.world.finishes import (
    WHITE,
    Finishes,
    add_furniture_materials,
    choose_finishes,
    dress_backsplash,
    floor_material,
    wall_box,
    wall_material,
)
from recallbench.world.furnish import furnish
from recallbench.world.kitchen import KitchenRun, Placed, build_kitchen, fixture_y, fixture_z
from recallbench.world.layout import WALL_HEIGHT, WALL_THICKNESS, Layout, Room, plan_layout
from recallbench.world.mjcf import STATIC, box, make_directional, r4
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
from recallbench.world.slots import Slot, local_to_world, place_objects
from recallbench.world.styles import Style, get_style

WORLD_VERSION = 1
KINDS = ("home", "kitchen")
TIMESTEP = 0.016667  # 3 physics steps per 20 Hz control step (1/60 s)
SETTLE_STEPS = 100
GRASP_USERDATA = 9  # [eq id or -1, relpos(3), relquat(4), torquescale]


@dataclass
class BuiltWorld:
    xml: str
    meta: dict


def _setup(spec: mujoco.MjSpec, st: Style) -> None:
    """Model options, rendering quality, sky and sun."""
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
    # no multisampling: Mesa's CPU rasteriser only offers 4x, which made a 480x640 head frame
    # ~2.3x slower (measured 63 vs 27 ms); textured rooms hide the slightly harder edges and
    # pay for their texture sampling out of the saving
    spec.visual.quality.offsamples = 0
    # a modest headlight (surfaces facing the camera read brighter) under two directional lights
    # from different sides, so each wall orientation, the floor and furniture faces get their own
    # shade (MuJoCo lights per vertex: orientation is what gives depth)
    spec.visual.headlight.ambient = [0.38, 0.38, 0.38]
    spec.visual.headlight.diffuse = [0.3, 0.3, 0.3]
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
    light = spec.worldbody.add_light(name="sun", pos=[0, 0, 10], dir=[0.5, 0.1, -0.86],
                                     castshadow=True)
    make_directional(light)
    light.diffuse = [0.5, 0.5, 0.47]
    light.specular = [0.05, 0.05, 0.05]
    fill = spec.worldbody.add_light(name="fill", pos=[0, 0, 10], dir=[-0.3, -0.7, -0.65],
                                    castshadow=False)
    make_directional(fill)
    fill.diffuse = [0.2, 0.21, 0.24]
    fill.specular = [0.0, 0.0, 0.0]


def _rooms_and_walls(spec: mujoco.MjSpec, layout: Layout, st: Style, fin: Finishes) -> None:
    """One textured floor box per room, one textured (turned) box per wall segment."""
    world = spec.worldbody
    for room in layout.rooms:
        x0, y0, x1, y1 = room.bounds
        box(
            world,
            f"floor_{room.name}",
            ((x0 + x1) / 2, (y0 + y1) / 2, -0.01),
            ((x1 - x0) / 2, (y1 - y0) / 2, 0.01),
            WHITE,
            STATIC,
            material=floor_material(spec, fin.floors[room.name]),
        )
    wall_mat = wall_material(spec, fin.wall)
    for k, seg in enumerate(layout.walls):
        wall_box(world, f"wall_{k}", seg, WALL_THICKNESS, WALL_HEIGHT, wall_mat, st.wall)


def _grasp_welds(spec: mujoco.MjSpec, targets: list[str]) -> None:
    """One inactive weld per graspable body (objects, handles): the magic gripper turns it on."""
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
    fin = choose_finishes(seed, style, [(r.name, r.type) for r in layout.rooms])
    spec = mujoco.MjSpec()
    _setup(spec, st)
    _rooms_and_walls(spec, layout, st, fin)
    add_furniture_materials(spec, fin)
    slots: list[Slot] = []
    fixtures: list[fx.FixtureInfo] = []
    recs: list[Placed] = []
    run = build_kitchen(spec, rng, layout, st, slots, fixtures, recs)
    dress_backsplash(spec, fin.backsplash)
    # the whole run plus a working lane in front counts as occupied for furniture placement
    c0, c1 = run.at((0, 0, 0)), run.at((run.length, 0.62 + 1.9, 0))
    block = (min(c0[0], c1[0]), min(c0[1], c1[1]), max(c0[0], c1[0]), max(c0[1], c1[1]))
    furnish(spec, rng, layout, st, slots, recs, block, home=kind == "home")
    slots.extend(_fixture_slot(f, run) for f in fixtures)
    n = n_objects if n_objects is not None else (10 if kind == "kitchen" else 16)
    objects = place_objects(spec, rng, slots, n)
    build_robot(spec)
    handles = [d["handle_body"] for f in fixtures for d in f.doors]
    _grasp_welds(spec, [o["body_name"] for o in objects] + handles)
    start_local = (run.length / 2 + float(rng.uniform(-0.5, 0.5)), 0.62 + 1.3)
    sx, sy, _ = run.at((*start_local, 0))
    start_pose = r4((sx, sy, _wrap(run.yaw - math.pi / 2)))
    meta = _world_meta(seed, style, st.name, kind, n, layout, run, objects, start_pose)
    meta["fixtures"].extend(_fixture_entry(f, run) for f in fixtures)
    meta["receptacles"].extend(_receptacle_entry(*placed) for placed in recs)
    xml = _settle_and_key(spec, start_pose)
    return BuiltWorld(xml=xml, meta=meta)


def _fixture_root(f: fx.FixtureInfo, run: KitchenRun) -> tuple[float, float, float]:
    """World position of a fixture's root body."""
    return run.at((run.local_x[f.name], fixture_y(f.name), fixture_z(f.name)))


def _fixture_slot(f: fx.FixtureInfo, run: KitchenRun) -> Slot:
    """A fixture's interior as a surface objects can be put on."""
    return Slot(
        "fixture",
        f.name,
        "kitchen",
        local_to_world(_fixture_root(f, run), run.yaw, f.interior_local),
        run.yaw,
        (f.interior_half_extents[0], f.interior_half_extents[1]),
        f.interior_half_extents[2] - 0.005,
    )


def _fixture_entry(f: fx.FixtureInfo, run: KitchenRun) -> dict[str, Any]:
    """A fixture's metadata entry: its record plus pose and the base pose to approach it from."""
    d = f.to_dict()
    ax, ay, _ = run.at((*f.approach_local, 0))
    d["pos"] = r4(_fixture_root(f, run))
    d["yaw"] = round(run.yaw, 6)
    d["approach_pose"] = r4((ax, ay, _wrap(run.yaw - math.pi / 2)))
    return d


def _receptacle_entry(rec: fu.ReceptacleInfo, pos: Sequence[float], ryaw: float) -> dict[str, Any]:
    """A receptacle's metadata entry: its record plus pose and the base pose to approach it."""
    d = rec.to_dict()
    w, dep, _, _ = fu.SIZES.get(rec.type, (0, 0.62, 0, True))
    front = dep + (0.35 if rec.type != "dining_table" else 0.6) + BASE_RADIUS
    ax, ay, _ = local_to_world(pos, ryaw, (0, front, 0))
    d["pos"] = r4(pos)
    d["yaw"] = round(ryaw, 6)
    d["approach_pose"] = r4((ax, ay, _wrap(ryaw - math.pi / 2)))
    return d


def _world_meta(
    seed: int,
    style: int,
    style_name: str,
    kind: str,
    n: int,
    layout: Layout,
    run: KitchenRun,
    objects: list[dict],
    start_pose: list[float],
) -> dict[str, Any]:
    """The world's metadata, fixtures and receptacles still empty (the caller fills them)."""
    return {
        "version": WORLD_VERSION,
        "seed": seed,
        "style": style,
        "style_name": style_name,
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
            "origin": r4(run.origin[:2]),
            "yaw": round(run.yaw, 6),
            "length": round(run.length, 4),
            "room": layout.room("kitchen").name,
        },
        "fixtures": [],
        "receptacles": [],
        "objects": objects,
        "robot": _robot_meta(start_pose),
    }


def _robot_meta(start_pose: list[float]) -> dict[str, Any]:
    """The robot's part of the metadata: bodies, joints, cameras, where it starts."""
    return {
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
    }


def _wrap(a: float) -> float:
    """Angle wrapped to [-pi, pi)."""
    return (a + math.pi) % (2 * math.pi) - math.pi


def _settle_and_key(spec: mujoco.MjSpec, start_pose: Sequence[float]) -> str:
    """Compile, put the robot at its start pose, let objects settle, store that as keyframe
    'start' (so mj_resetDataKeyframe gives the ready world), and return the XML."""
    use_store(spec)
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


def _apply_robot_home(
    model: mujoco.MjModel, data: mujoco.MjData, start_pose: Sequence[float]
) -> None:
    """Base at its start pose, arm at home, with matching actuator targets."""
    for jn, v in zip(BASE_JOINTS, start_pose, strict=True):
        data.qpos[model.joint(jn).qposadr[0]] = v
    for jn, v in ARM_HOME.items():
        data.qpos[model.joint(jn).qposadr[0]] = v
        data.ctrl[model.actuator(jn.replace("joint", "act")).id] = v
    for jn in BASE_JOINTS:
        data.ctrl[model.actuator(jn.replace("joint", "act")).id] = 0.0


__all__ = ["build_world", "BuiltWorld", "KINDS", "Room"]
