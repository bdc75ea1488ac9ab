"""Waits hold only headings whose view is readable (``findingdory_views``, ``readable_stops``).

A wait holds each heading for up to a stride of the offered frames, so a heading showing one
colour (a dark shelf front filling the frame up close, a bare wall) or nothing of the home's
things was an offered frame of that kind: on a default seed-0 day 11.5% of the offered frames
were over 80% one colour, most of them waits facing a shelf.
"""

from __future__ import annotations

import math

import numpy as np

from recallbench.generate.findingdory_look import readable_stops


def test_only_readable_stops_are_held_else_the_nearest_readable_heading_each_side():
    walls = {-1, 0, 1, 2, -2, 3}  # a shelf front fills the view from -20 to +30 deg
    readable = lambda s: s not in walls  # noqa: E731
    assert readable_stops([-2, -1, 1, 2], readable) == [-3, 4]
    assert readable_stops([-1, 0, 1, 5], readable) == [5]
    assert readable_stops([-1, 1], lambda s: False) == [-1, 1]  # nothing better: as they were
    assert readable_stops([-1, 1], readable, span=2) == [-1, 1]


def test_the_small_view_check_agrees_with_the_audits_definitions_at_full_size():
    """Every other heading at the start pose of a real home: the check at 48x64 says what the
    audit's definitions say of a 120x160 frame, and leaves the simulator as it was."""
    from recallbench.generate.findingdory_views import ViewCheck
    from recallbench.generate.frame_readability import (
        IN_VIEW,
        ONE_COLOUR,
        dominant_colour_share,
        instances,
    )
    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=2, style=0, kind="home", cameras=[])
    check = ViewCheck(env)
    pose = env.base_pose()
    qpos, xpos = env.data.qpos.copy(), env.data.xpos.copy()
    small = [check.readable(pose, k) for k in range(0, 36, 2)]
    assert np.array_equal(env.data.qpos, qpos) and np.array_equal(env.data.xpos, xpos)
    geom_inst = instances(env)[1]
    full = []
    for k in range(0, 36, 2):
        env.teleport((pose[0], pose[1], pose[2] + k * math.radians(10)), for_render=True)
        rgb = env.render_camera("robot0_head", 120, 160)
        geom = env.renders.geom_segmentation(env.data, "robot0_head", 120, 160)
        inst = np.where(geom >= 0, geom_inst[np.maximum(geom, 0)], -1)
        counts = np.bincount(inst.ravel() + 1)[1:]
        seen = counts.size > 0 and counts.max() / inst.size >= IN_VIEW
        full.append(bool(seen and dominant_colour_share(rgb) <= ONE_COLOUR))
    assert 0 < sum(full) < 18  # the start pose sees both kinds of view
    assert sum(a == b for a, b in zip(small, full, strict=True)) >= 17
