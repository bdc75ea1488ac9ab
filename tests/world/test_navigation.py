"""Navigation on a real compiled MuJoCo model: a two-room house written here in MJCF.

Layout (metres): room A is x in [0, 5], room B x in [5, 10], y in [0, 4]. A 0.1 m wall at
x = 5 has a 1 m doorway for y in [2.5, 3.5]. Room B has a walled-off closet (x > 8, y > 2.8)
that nothing can reach. Furniture: a table rotated 30 degrees, a capsule bench lying along x, a
mesh cube rotated 45 degrees, an upright cylinder stool. Ignored: a free-jointed box, a robot
(bodies mobilebase0_/robot0_/gripper0_), a rug below the z band and a lamp above it.
"""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from recallbench.errors import InputError
from recallbench.world.geometry import relative_angle, room_of, wrap_angle
from recallbench.world.navigation import (
    DiscreteAction,
    GreedyGeodesicFollower,
    NavGrid,
    apply_discrete,
    path_length,
)

HOUSE = """
<mujoco model="two_rooms">
  <asset>
    <mesh name="cube" vertex="-.15 -.15 -.15  .15 -.15 -.15  -.15 .15 -.15  .15 .15 -.15
                              -.15 -.15 .15  .15 -.15 .15  -.15 .15 .15  .15 .15 .15"/>
  </asset>
  <worldbody>
    <geom name="floor_a" type="box" pos="2.5 2 -0.05" size="2.5 2 0.05"/>
    <geom name="floor_b" type="box" pos="7.5 2 -0.05" size="2.5 2 0.05"/>
    <geom name="wall_south" type="box" pos="5 0.05 1.25" size="5 0.05 1.25"/>
    <geom name="wall_north" type="box" pos="5 3.95 1.25" size="5 0.05 1.25"/>
    <geom name="wall_west" type="box" pos="0.05 2 1.25" size="0.05 2 1.25"/>
    <geom name="wall_east" type="box" pos="9.95 2 1.25" size="0.05 2 1.25"/>
    <geom name="wall_mid_low" type="box" pos="5 1.25 1.25" size="0.05 1.25 1.25"/>
    <geom name="wall_mid_high" type="box" pos="5 3.75 1.25" size="0.05 0.25 1.25"/>
    <geom name="closet_front" type="box" pos="9 2.85 1.25" size="1 0.05 1.25"/>
    <geom name="closet_side" type="box" pos="8.05 3.4 1.25" size="0.05 0.6 1.25"/>
    <geom name="rug" type="box" pos="3 1.5 0.005" size="0.5 0.5 0.005"/>
    <geom name="lamp" type="sphere" pos="6.5 2 2.3" size="0.2"/>
    <body name="table" pos="2 2.6 0.375" euler="0 0 30">
      <geom name="table_top" type="box" size="0.6 0.4 0.375"/>
    </body>
    <body name="bench" pos="1.5 1.0 0.4">
      <geom name="bench_seat" type="capsule" fromto="-0.5 0 0 0.5 0 0" size="0.1"/>
    </body>
    <body name="shelf" pos="3.5 3.4 0.5" euler="0 0 45">
      <geom name="shelf_mesh" type="mesh" mesh="cube"/>
    </body>
    <body name="stool" pos="7.5 3.2 0.3">
      <geom name="stool_seat" type="cylinder" size="0.2 0.3"/>
    </body>
    <body name="cardboard" pos="7 1 0.2">
      <freejoint/>
      <geom name="box_obj" type="box" size="0.2 0.2 0.2"/>
    </body>
    <body name="mobilebase0_base" pos="0.7 3.3 0.2">
      <joint name="base_x" type="slide" axis="1 0 0"/>
      <geom name="base_geom" type="box" size="0.3 0.3 0.2"/>
      <body name="robot0_link0" pos="0 0 0.5">
        <geom name="arm_geom" type="capsule" fromto="0 0 0 0.4 0 0" size="0.05"/>
        <body name="gripper0_palm" pos="0.4 0 0">
          <geom name="palm_geom" type="sphere" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

A = np.array([4.0, 1.0])
B = np.array([6.0, 1.0])
CLOSET = np.array([9.0, 3.4])


def _model() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(HOUSE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


@pytest.fixture(scope="module")
def house() -> tuple[mujoco.MjModel, mujoco.MjData]:
    return _model()


@pytest.fixture(scope="module")
def grid(house: tuple[mujoco.MjModel, mujoco.MjData]) -> NavGrid:
    return NavGrid.from_model(*house)


@pytest.fixture(scope="module")
def bare(house: tuple[mujoco.MjModel, mujoco.MjData]) -> NavGrid:
    """No inflation: navigable = on the floor and outside every footprint."""
    return NavGrid.from_model(*house, robot_radius=0.0)


def _around_corner(p: np.ndarray, c: np.ndarray, r: float) -> tuple[float, np.ndarray]:
    """Tangent length from p to the circle (c, r) and the tangent point on its upper-left or
    upper-right side (the side facing the doorway)."""
    d = np.hypot(*(p - c))
    base = math.atan2(*(p - c)[::-1])
    off = math.acos(r / d)
    cands = [base + off, base - off]
    # the tangent point above the corner's horizontal line is the one the path uses
    ang = max(cands, key=lambda a: math.sin(a))
    return math.sqrt(d * d - r * r), ang


def hand_geodesic_a_to_b(r: float) -> float:
    """A -> B over the doorway's lower jamb, by hand: the inflated jamb end is two quarter discs
    of radius r at (4.95, 2.5) and (5.05, 2.5) joined by a flat top. Path = tangent from A +
    arc up to the top + 0.1 m flat + arc down + tangent to B."""
    c1, c2 = np.array([4.95, 2.5]), np.array([5.05, 2.5])
    t1, a1 = _around_corner(A, c1, r)
    t2, a2 = _around_corner(B, c2, r)
    arc1 = r * abs(wrap_angle(a1 - math.pi / 2))
    arc2 = r * abs(wrap_angle(a2 - math.pi / 2))
    return t1 + arc1 + 0.1 + arc2 + t2


# ------------------------------------------------------------------------------ grid contents


def test_cells_round_trip(grid: NavGrid) -> None:
    for xy in ([0.013, 0.027], [4.99, 3.01], [9.5, 0.5]):
        ij = grid.to_cell(xy)
        centre = grid.to_world(ij)
        assert np.all(np.abs(centre - np.asarray(xy)) <= grid.resolution / 2 + 1e-12)
        assert grid.to_cell(centre) == ij
    assert grid.navigable.shape[0] >= round(4 / grid.resolution)
    assert grid.navigable.shape[1] >= round(10 / grid.resolution)


def test_walls_floor_edges_and_inflation(grid: NavGrid) -> None:
    assert grid.is_navigable(A) and grid.is_navigable(B)
    assert not grid.is_navigable([5.0, 1.0])  # inside the wall
    assert not grid.is_navigable([5.3, 1.0])  # within the robot radius of it
    assert grid.is_navigable([5.4, 1.0])
    assert grid.is_navigable([5.0, 3.0])  # doorway centre
    # doorway of 1.0 m minus 2 x 0.3 m leaves 0.4 m for the robot's centre
    assert not grid.is_navigable([5.0, 2.75]) and not grid.is_navigable([5.0, 3.25])
    assert grid.is_navigable([5.0, 2.85]) and grid.is_navigable([5.0, 3.15])
    assert not grid.is_navigable([11.0, 1.0])  # off the floor
    assert not grid.is_navigable([2.0, 2.6])  # table


def test_rotated_box_rasterised_with_its_rotation(bare: NavGrid) -> None:
    c, yaw = np.array([2.0, 2.6]), math.radians(30)
    u = np.array([math.cos(yaw), math.sin(yaw)])
    v = np.array([-math.sin(yaw), math.cos(yaw)])
    assert not bare.is_navigable(c + 0.55 * u)  # inside along the rotated long axis
    assert not bare.is_navigable(c + 0.35 * v)
    assert bare.is_navigable(c + 0.7 * u)
    # inside the unrotated box's extent but outside the rotated box
    assert bare.is_navigable(c + np.array([0.55, -0.35]))


def test_capsule_mesh_and_cylinder_footprints(bare: NavGrid) -> None:
    # capsule lying along x: a stadium 1.2 m long, 0.2 m wide
    assert not bare.is_navigable([2.05, 1.0]) and not bare.is_navigable([0.95, 1.0])
    assert bare.is_navigable([1.5, 1.15]) and bare.is_navigable([2.15, 1.0])
    # mesh cube, half-size 0.15, rotated 45 degrees: corner reaches 0.212 m along x
    assert not bare.is_navigable([3.5 + 0.19, 3.4])
    assert bare.is_navigable([3.5 + 0.13, 3.4 + 0.13])  # inside the AABB, outside the cube
    # upright cylinder of radius 0.2: a disc
    assert not bare.is_navigable([7.5 + 0.18, 3.2])
    assert bare.is_navigable([7.5 + 0.16, 3.2 + 0.16])


def test_ignored_geoms(house: tuple[mujoco.MjModel, mujoco.MjData], bare: NavGrid) -> None:
    assert bare.is_navigable([7.0, 1.0])  # free-jointed box
    assert bare.is_navigable([0.7, 3.3])  # robot base (mobilebase0_)
    assert bare.is_navigable([3.0, 1.5])  # rug below the z band
    assert bare.is_navigable([6.5, 2.0])  # lamp above the z band
    kept = NavGrid.from_model(
        *house, robot_radius=0.0, ignore_free_bodies=False, ignore_body_prefixes=()
    )
    assert not kept.is_navigable([7.0, 1.0])
    assert not kept.is_navigable([0.7, 3.3])
    assert not kept.is_navigable([0.7 + 0.38, 3.3])  # robot0_ arm, a child body
    low = NavGrid.from_model(*house, robot_radius=0.0, z_band=(0.0, 2.5))
    assert not low.is_navigable([3.0, 1.5]) and not low.is_navigable([6.5, 2.0])


def test_free_body_follows_its_pose(house: tuple[mujoco.MjModel, mujoco.MjData]) -> None:
    model, _ = house
    data = mujoco.MjData(model)
    jadr = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "base_x")]
    data.qpos[jadr] = 2.0  # drive the base 2 m along x; grids read data's configuration
    free_adr = model.jnt_qposadr[model.body_jntadr[model.body("cardboard").id]]
    data.qpos[free_adr : free_adr + 3] = [8.0, 1.5, 0.2]
    g = NavGrid.from_model(
        model, data, robot_radius=0.0, ignore_free_bodies=False, ignore_body_prefixes=()
    )
    assert not g.is_navigable([8.0, 1.5]) and g.is_navigable([7.0, 1.0])
    assert not g.is_navigable([2.7, 3.3]) and g.is_navigable([0.7, 3.3])


def test_no_floor_is_an_error() -> None:
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><geom name="ground" type="plane" size="5 5 .1"/></worldbody></mujoco>'
    )
    with pytest.raises(ValueError, match="floor"):
        NavGrid.from_model(model, mujoco.MjData(model))


def test_infinite_floor_plane_alone_is_an_error_but_ignored_beside_finite_floors() -> None:
    xml = (
        '<mujoco><worldbody><geom name="floor" type="plane" size="0 0 .1"/>{}</worldbody></mujoco>'
    )
    model = mujoco.MjModel.from_xml_string(xml.format(""))
    with pytest.raises(ValueError, match="infinite"):
        NavGrid.from_model(model, mujoco.MjData(model))
    room = '<geom name="floor_room" type="box" pos="1 1 -.05" size="1 1 .05"/>'
    model = mujoco.MjModel.from_xml_string(xml.format(room))
    g = NavGrid.from_model(model, mujoco.MjData(model), robot_radius=0.2)
    assert g.is_navigable([1.0, 1.0]) and not g.is_navigable([2.5, 1.0])


def test_plane_floor() -> None:
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><geom name="floor" type="plane" size="2 1 .1"/>'
        '<geom type="box" pos="0 0 .5" size=".2 .2 .5"/></worldbody></mujoco>'
    )
    g = NavGrid.from_model(model, mujoco.MjData(model), robot_radius=0.1)
    assert g.is_navigable([1.5, 0.0]) and not g.is_navigable([0.25, 0.0])
    assert not g.is_navigable([1.95, 0.0])  # too near the floor's edge
    assert g.geodesic([-1.5, 0.0], [1.5, 0.0]) > 3.0


# ------------------------------------------------------------------------------ geometry queries


def test_segment_free(grid: NavGrid) -> None:
    assert grid.segment_free(A, [4.5, 1.0])
    assert not grid.segment_free(A, B)  # through the wall
    assert grid.segment_free([4.5, 3.0], [5.5, 3.0])  # through the doorway
    assert not grid.segment_free([4.5, 3.0], [20.0, 3.0])  # leaves the grid
    assert grid.segment_free(A, A)


def test_snap(grid: NavGrid) -> None:
    assert np.array_equal(grid.snap(A), A)
    inside_table = np.array([2.0, 2.6])
    s = grid.snap(inside_table)
    assert grid.is_navigable(s)
    # nearest free point: no navigable cell centre is nearer than the snapped one
    centres = grid.to_world(np.argwhere(grid.navigable))
    best = np.min(np.hypot(*(centres - inside_table).T))
    assert np.hypot(*(s - inside_table)) <= best + 1e-9
    far = grid.snap([-3.0, -3.0])
    assert grid.is_navigable(far) and np.hypot(*(far - [0.4, 0.4])) < 0.1


# ------------------------------------------------------------------------------ geodesics


def test_distance_field_basics(grid: NavGrid) -> None:
    f = grid.distance_field(B)
    assert f.shape == grid.navigable.shape
    assert np.all(np.isinf(f[~grid.navigable]))
    assert f[grid.to_cell(B)] == 0.0
    # closet: navigable but unreachable
    assert grid.is_navigable(CLOSET) and np.isinf(f[grid.to_cell(CLOSET)])
    # never shorter than the straight line
    cells = np.argwhere(np.isfinite(f))
    eu = np.hypot(*(grid.to_world(cells) - grid.to_world(grid.to_cell(B))).T)
    assert np.all(f[cells[:, 0], cells[:, 1]] >= eu - 1e-9)
    with pytest.raises(ValueError):
        f[0, 0] = 1.0  # read-only: it is shared with the cache


def test_lattice_beats_eight_neighbours_in_open_space(grid: NavGrid) -> None:
    # Room B is open between x 5.5..7.5, y 0.5..2.3 except the (ignored) cardboard box; the
    # 8-neighbour error peaks at 22.5 degrees (8.2 %). Sweep headings from one source.
    src = grid.to_world(grid.to_cell([5.5, 0.5]))
    f = grid.distance_field(src)
    worst = 0.0
    for deg in np.linspace(0, 70, 29):
        for dist in (1.0, 1.6):
            p = src + dist * np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])
            ij = grid.to_cell(p)
            c = grid.to_world(ij)
            assert grid.segment_free(src, c)
            worst = max(worst, f[ij] / np.hypot(*(c - src)) - 1)
    assert worst < 0.015


def test_distance_field_cache_and_multi_target(grid: NavGrid) -> None:
    f1 = grid.distance_field(np.array([A, B]))
    assert grid.distance_field(np.array([B, A])) is f1  # same target set, any order
    fa, fb = grid.distance_field(A), grid.distance_field(B)
    assert np.array_equal(f1, np.minimum(fa, fb))


def test_geodesic_matches_hand_computed_doorway_path(grid: NavGrid) -> None:
    want = hand_geodesic_a_to_b(grid.robot_radius)
    assert 4.2 < want < 4.4  # 2 x (1.75 tangent + 0.353 arc) + 0.1
    got = grid.geodesic(A, B)
    assert abs(got - want) / want < 0.02
    assert abs(grid.geodesic(B, A) - want) / want < 0.02
    # the cached field alone (lattice value) is within 2 % as well
    lattice = grid.lookup(grid.distance_field(B), A)
    assert abs(lattice - want) / want < 0.02
    assert abs(grid.distance_to(B, A) - lattice) < 1e-12


def test_geodesic_edge_cases(grid: NavGrid) -> None:
    assert grid.geodesic(A, [4.5, 1.0]) == pytest.approx(0.5)  # line of sight: exact
    assert grid.geodesic(A, A) == 0.0
    assert math.isinf(grid.geodesic(A, CLOSET))
    assert math.isinf(grid.geodesic(A, [math.nan, 1.0]))  # bad input is a value, not a crash
    assert math.isinf(grid.distance_to(CLOSET, A))
    assert grid.shortest_path(A, CLOSET) is None
    # a target inside furniture is snapped to the floor
    assert math.isfinite(grid.geodesic(A, [2.0, 2.6]))


def test_shortest_path_is_free_and_short(grid: NavGrid) -> None:
    path = grid.shortest_path(A, B)
    assert path is not None and path.shape[1] == 2
    assert np.array_equal(path[0], A) and np.array_equal(path[-1], B)
    for p, q in zip(path[:-1], path[1:], strict=True):
        assert grid.segment_free(p, q)
    assert len(path) < 12  # string-pulled, not a staircase of cells
    assert path_length(path) == pytest.approx(grid.geodesic(A, B))
    assert np.max(path[:, 1]) > 2.75  # goes through the doorway


def test_random_paths_are_free_and_no_longer_than_the_lattice(grid: NavGrid) -> None:
    rng = np.random.default_rng(3)
    free = grid.to_world(np.argwhere(grid.navigable))
    pts = free[rng.choice(len(free), size=60, replace=False)]
    pts = pts + rng.uniform(-0.02, 0.02, size=pts.shape)  # off the cell centres
    for a, b in zip(pts[:30], pts[30:], strict=True):
        path = grid.shortest_path(a, b)
        lattice = grid.lookup(grid.distance_field(b), a)
        if path is None:
            assert math.isinf(lattice) and math.isinf(grid.geodesic(a, b))
            continue
        for p, q in zip(path[:-1], path[1:], strict=True):
            assert grid.segment_free(p, q)
        length = path_length(path)
        # the field is measured from b's cell centre: allow for b's offset from it
        offset = np.hypot(*(b - grid.to_world(grid.to_cell(b))))
        assert np.hypot(*(b - a)) - 1e-9 <= length <= lattice + offset + 1e-9


def test_save_load_round_trip(grid: NavGrid, tmp_path: Path) -> None:
    p = tmp_path / "grid.npz"
    grid.save(p)
    g2 = NavGrid.load(p)
    assert np.array_equal(g2.navigable, grid.navigable)
    assert np.array_equal(g2.origin, grid.origin)
    assert g2.resolution == grid.resolution and g2.robot_radius == grid.robot_radius
    assert g2.geodesic(A, B) == pytest.approx(grid.geodesic(A, B))


def test_load_errors_name_file_and_field(tmp_path: Path) -> None:
    p = tmp_path / "bad.npz"
    np.savez(p, navigable=np.ones((3, 3), bool), origin=np.zeros(2), resolution=0.05)
    with pytest.raises(InputError) as e:
        NavGrid.load(p)
    assert e.value.field == "robot_radius" and str(p) in str(e.value)
    np.savez(p, navigable=np.ones((3, 3)), origin=np.zeros(2), resolution=0.05, robot_radius=0.3)
    with pytest.raises(InputError, match="navigable"):
        NavGrid.load(p)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="junk.npz"):
        NavGrid.load(junk)


# ------------------------------------------------------------------------------ actions


def test_apply_discrete(grid: NavGrid) -> None:
    pose = np.array([4.0, 1.0, 0.0])
    moved = apply_discrete(grid, pose, DiscreteAction.MOVE_FORWARD)
    assert np.allclose(moved, [4.25, 1.0, 0.0])
    # the wall's inflated face is at x = 4.65: the move is cut short there
    p = np.array([4.5, 1.0, 0.0])
    cut = apply_discrete(grid, p, DiscreteAction.MOVE_FORWARD)
    assert 4.5 < cut[0] < 4.66 and grid.is_navigable(cut[:2]) and grid.segment_free(p[:2], cut[:2])
    again = apply_discrete(grid, cut, DiscreteAction.MOVE_FORWARD)
    assert np.allclose(again, cut, atol=1e-6)  # pressed against the wall: no further
    left = apply_discrete(grid, np.array([1, 1, math.radians(175)]), DiscreteAction.TURN_LEFT)
    assert left[2] == pytest.approx(math.radians(-175))
    right = apply_discrete(grid, pose, DiscreteAction.TURN_RIGHT, turn_deg=30)
    assert right[2] == pytest.approx(math.radians(-30)) and np.array_equal(right[:2], pose[:2])
    assert np.array_equal(apply_discrete(grid, pose, DiscreteAction.STOP), pose)


def test_random_moves_never_leave_free_space(grid: NavGrid) -> None:
    rng = np.random.default_rng(0)
    pose = np.array([4.0, 1.0, 0.0])
    cut_short = 0
    for _ in range(800):
        a = DiscreteAction(int(rng.choice([1, 1, 1, 2, 3])))
        nxt = apply_discrete(grid, pose, a)
        assert grid.is_navigable(nxt[:2]) and grid.segment_free(pose[:2], nxt[:2])
        step = float(np.hypot(*(nxt[:2] - pose[:2])))
        assert step <= 0.25 + 1e-9
        cut_short += a == DiscreteAction.MOVE_FORWARD and step < 0.249
        pose = nxt
    assert cut_short > 20  # the walk really did run into walls and furniture


def _run(
    grid: NavGrid,
    follower: GreedyGeodesicFollower,
    pose: np.ndarray,
    goal: np.ndarray,
    goal_yaw: float | None = None,
    limit: int = 400,
) -> tuple[np.ndarray, int, float]:
    travelled = 0.0
    for step in range(limit):
        a = follower.act(pose, goal, goal_yaw)
        if a == DiscreteAction.STOP:
            return pose, step, travelled
        nxt = apply_discrete(grid, pose, a)
        assert grid.is_navigable(nxt[:2]) and grid.segment_free(pose[:2], nxt[:2])
        travelled += float(np.hypot(*(nxt[:2] - pose[:2])))
        pose = nxt
    raise AssertionError(f"no STOP within {limit} steps (at {pose}, status {follower.status})")


@pytest.mark.parametrize(
    "start",
    [(4.0, 1.0, 0.0), (1.0, 2.0, 3.0), (3.0, 0.6, -1.5), (3.5, 2.2, 2.0), (0.5, 0.5, 0.8)],
)
@pytest.mark.parametrize("goal", [(6.0, 1.0), (9.0, 1.0), (7.0, 2.3)])
def test_follower_reaches_goals_through_the_doorway(
    grid: NavGrid, start: tuple[float, float, float], goal: tuple[float, float]
) -> None:
    pose, g = np.array(start), np.array(goal)
    assert grid.is_navigable(pose[:2]) and grid.is_navigable(g)
    follower = GreedyGeodesicFollower(grid)
    end, steps, travelled = _run(grid, follower, pose, g)
    assert follower.status == "arrived"
    assert grid.geodesic(end[:2], g) <= follower.goal_radius
    # it followed the geodesic, not a detour: travel within 15 % (+ one step) of optimal
    assert travelled <= 1.15 * grid.geodesic(pose[:2], g) + follower.forward_step
    assert steps > 0


def test_follower_turns_to_goal_yaw(grid: NavGrid) -> None:
    follower = GreedyGeodesicFollower(grid)
    end, _, _ = _run(grid, follower, np.array([4.0, 1.0, 0.0]), B, goal_yaw=math.radians(-120))
    assert follower.status == "arrived"
    assert abs(wrap_angle(end[2] - math.radians(-120))) <= math.radians(5) + 1e-9


def test_follower_stops_at_once_when_unreachable(grid: NavGrid) -> None:
    follower = GreedyGeodesicFollower(grid)
    assert follower.act(np.array([4.0, 1.0, 0.0]), CLOSET) == DiscreteAction.STOP
    assert follower.status == "unreachable"
    # and recovers for the next reachable goal
    assert follower.act(np.array([4.0, 1.0, 0.0]), B) != DiscreteAction.STOP
    assert follower.status == "navigating"


# ------------------------------------------------------------------------------ predicates


def test_relative_angle() -> None:
    assert relative_angle([0, 0, 0], [1, 0]) == pytest.approx(0.0)
    assert relative_angle([0, 0, 0], [0, 1]) == pytest.approx(math.pi / 2)  # left is positive
    assert relative_angle([1, 1, math.pi / 2], [0, 1]) == pytest.approx(math.pi / 2)
    assert relative_angle([0, 0, math.radians(170)], [1, -0.2]) == pytest.approx(
        wrap_angle(math.atan2(-0.2, 1) - math.radians(170))
    )
    assert abs(relative_angle([0, 0, 0], [-1, 1e-12])) == pytest.approx(math.pi)
    assert relative_angle([2, 3, 1.0], [5, 7, 1.2]) == relative_angle([2, 3, 1.0], [5, 7])
    for yaw in np.linspace(-6, 6, 13):
        assert -math.pi <= relative_angle([0, 0, yaw], [0.3, -2]) <= math.pi


def test_room_of() -> None:
    rooms = {"kitchen": (0.0, 0.0, 5.0, 4.0), "living": (5.0, 0.0, 10.0, 4.0)}
    assert room_of([1, 1], rooms) == "kitchen"
    assert room_of((7.5, 3.9), rooms) == "living"
    assert room_of([5.0, 2.0], rooms) == "kitchen"  # shared border: first listed
    assert room_of([11, 1], rooms) is None
    with pytest.raises(ValueError, match="bad"):
        room_of([0, 0], {"bad": (1.0, 0.0, 0.0, 1.0)})
