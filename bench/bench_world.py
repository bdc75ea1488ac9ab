"""Speed of the built-in world against its raw limits, measured in the same run.

Prints medians and ratios, each beside its target:
  1. env.step (20 Hz control, no cameras)  vs  the raw mj_step calls it wraps (same model);
  2. one camera frame through the env      vs  a raw mujoco.Renderer render (same camera/model):
     (a) the same picture (the raw Renderer with shadows and reflections off, as the env
     renders), and (b) the raw Renderer as it comes (its default shadows and reflections);
  3. env.step, and the raw mj_step calls it wraps (the limit of any wrapper), vs robosuite's
     Door env with PandaOmron (when robosuite is importable).
Targets: (1) <= 1.5x, (2) <= 0.7x, (3) >= 50x faster.

With ``--old-src DIR`` (e.g. /work/base/src, a checkout of the code before a change) it runs
instead a camera frame side by side with that code: ``--pairs`` pairs of child processes, one
per tree (``PYTHONPATH=DIR`` for the old one), the order alternating pair by pair; each child
builds the same world, turns the robot at its start pose through 8 headings and renders blocks
of env frames alternating with raw ``mujoco.Renderer`` frames of the same model and poses (its
raw limit, same run). It prints each pair and the medians: new / old env frame (median of
the paired ratios; issue 38's target <= 1.5x) and each tree's env frame / its raw frame.

Times are process CPU seconds by default (``--clock cpu``; all threads, Mesa's included), so
other jobs on a shared machine do not count; ``--clock wall`` for wall time. BLAS runs on one
thread, as in a recallbench worker (``executor.threads``): with a thread per core, OpenBLAS's
threads spin on after each of robosuite's matrix calls, and a CPU clock charges the spin to
whatever is timed next (it made our env.step look 2x slower beside robosuite, and robosuite's
own step 1.7x slower).

    .venv/bin/python bench/bench_world.py [--seed 0] [--kind home] [--repeats 11]
    nice -n 10 .venv/bin/python bench/bench_world.py --old-src /work/base/src \
        --camera robot0_head --width 240 --height 320 [--pairs 3] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from recallbench.executor.threads import worker_threads

os.environ.update(worker_threads())  # before numpy loads: BLAS reads it once, at load

import recallbench.world  # noqa: E402, F401  (picks the headless GL backend before MuJoCo loads)

FRAME_TARGET = 0.7  # an env camera frame / a raw mujoco.Renderer frame
OLD_FRAME_TARGET = 1.5  # an env camera frame / the old code's (issue 38)
ROBOSUITE_TARGET = 50  # robosuite PandaOmron step / env.step


_CLOCK = [time.process_time]  # --clock picks it


def _paired(
    raw: Callable[[], None],
    ours: Callable[[], None],
    calls: int,
    repeats: int,
    ours_calls: int | None = None,
) -> tuple[float, float, float]:
    """Alternate blocks of raw and our calls (so both see the same machine load; give the
    blocks similar wall time via ``ours_calls``); return the median per-call seconds of each and
    the median of the per-pair ratios ours / raw."""
    (t_raw, t_ours), rounds = _blocks([(raw, calls), (ours, ours_calls or calls)], repeats)
    return t_raw, t_ours, _ratio(rounds[1], rounds[0])


def _blocks(
    fns: list[tuple[Callable[[], None], int]], repeats: int
) -> tuple[list[float], list[list[float]]]:
    """Run a block of each (fn, calls) in turn, ``repeats`` rounds; return each one's median
    per-call seconds and its per-round per-call seconds."""
    for fn, _ in fns:
        fn()  # warm-up (first render allocates the context)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for (fn, n), out in zip(fns, times, strict=True):
            clock = _CLOCK[0]
            t0 = clock()
            for _ in range(n):
                fn()
            out.append((clock() - t0) / n)
    return [statistics.median(t) for t in times], times


def _ratio(a: list[float], b: list[float]) -> float:
    """Median over rounds of a / b (blocks of one round ran under the same load)."""
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def _frame_child(args: argparse.Namespace, width: int, height: int) -> None:
    """In this process (whichever tree PYTHONPATH picks): per-call seconds of an env camera
    frame and of a raw ``mujoco.Renderer`` frame (shadows and reflections off, as the env
    renders) of the same model and poses, the start pose turned through 8 headings; one JSON
    line. Uses only what both trees have (``HomeEnv``, ``base_pose``, ``teleport``,
    ``render_camera``)."""
    import mujoco
    import numpy as np

    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=args.seed, kind=args.kind)
    m, cam = env.model, args.camera
    raw = mujoco.Renderer(m, height=height, width=width)
    raw.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
    raw.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
    x, y, yaw = (float(v) for v in env.base_pose())
    poses = [(x, y, yaw + k * np.pi / 4) for k in range(8)]
    per_pose = max(1, args.frames // len(poses))

    def raw_frame() -> None:
        raw.update_scene(env.data, camera=cam)
        raw.render()

    def env_frame() -> None:
        env.render_camera(cam, width, height)

    times: dict[str, list[float]] = {"raw": [], "env": []}
    raw_frame()  # warm-up (the first render allocates the context)
    env_frame()
    for _ in range(args.repeats):
        spent = {"raw": 0.0, "env": 0.0}
        for pose in poses:
            env.teleport(pose, for_render=True)
            for kind, fn in (("raw", raw_frame), ("env", env_frame)):
                t0 = _CLOCK[0]()
                for _ in range(per_pose):
                    fn()
                spent[kind] += _CLOCK[0]() - t0
        for kind, t in spent.items():
            times[kind].append(t / (per_pose * len(poses)))
    raw.close()
    env.close()
    print(json.dumps({**times, "ngeom": m.ngeom, "ntex": m.ntex}))


def _side_by_side(args: argparse.Namespace, width: int, height: int) -> None:
    """``--pairs`` pairs of children (this tree, the ``--old-src`` tree), order alternating."""
    here = os.path.abspath(__file__)
    trees = {"new": os.path.join(os.path.dirname(os.path.dirname(here)), "src"),
             "old": os.path.abspath(args.old_src)}
    cmd = [sys.executable, here, "--frame-child", "--seed", str(args.seed), "--kind", args.kind,
           "--camera", args.camera, "--width", str(width), "--height", str(height),
           "--frames", str(args.frames), "--repeats", str(args.repeats), "--clock", args.clock]
    print(f"camera frame, this code vs {trees['old']}: {args.camera} {width}x{height}, seed "
          f"{args.seed} {args.kind}, start pose x 8 headings; clock {args.clock}; "
          f"{args.pairs} pairs of children, {args.repeats} blocks each")
    got: dict[str, list[dict]] = {"new": [], "old": []}
    for k in range(args.pairs):
        for tree in ("new", "old") if k % 2 == 0 else ("old", "new"):
            env = {**os.environ, "PYTHONPATH": trees[tree]}
            done = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"{tree} child failed:\n{done.stderr[-2000:]}")
            got[tree].append(json.loads(done.stdout.strip().splitlines()[-1]))
        new, old = (statistics.median(got[t][k]["env"]) for t in ("new", "old"))
        print(f"  pair {k}: env frame new {new * 1e3:.2f} ms, old {old * 1e3:.2f} ms -> "
              f"{new / old:.3f}x", flush=True)

    def med(tree: str, kind: str) -> float:
        return statistics.median(statistics.median(r[kind]) for r in got[tree])

    def own_ratio(tree: str) -> float:
        return statistics.median(_ratio(r["env"], r["raw"]) for r in got[tree])

    ratio = statistics.median(
        statistics.median(n["env"]) / statistics.median(o["env"])
        for n, o in zip(got["new"], got["old"], strict=True))
    for tree in ("new", "old"):
        r = got[tree][0]
        print(f"{tree}: env frame {med(tree, 'env') * 1e3:.2f} ms, raw Renderer frame "
              f"{med(tree, 'raw') * 1e3:.2f} ms (same model, same run) -> env / raw "
              f"{own_ratio(tree):.3f}x   [{r['ngeom']} geoms, {r['ntex']} textures]")
    print(f"env frame new / old: {ratio:.3f}x (median of {args.pairs} paired ratios; target "
          f"<= {OLD_FRAME_TARGET}x)")


def main() -> None:
    import mujoco
    import numpy as np

    from recallbench.world.env import HomeEnv

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kind", default="home", choices=("home", "kitchen"))
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--steps", type=int, default=100, help="env steps per block")
    ap.add_argument("--frames", type=int, default=30, help="frames per block")
    ap.add_argument("--camera", default="robot0_agentview_left")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--width", type=int, help="frame width (default --size)")
    ap.add_argument("--height", type=int, help="frame height (default --size)")
    ap.add_argument("--no-robosuite", action="store_true")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    ap.add_argument("--old-src", help="only a camera frame, side by side with the code here")
    ap.add_argument("--pairs", type=int, default=3, help="with --old-src: child pairs")
    ap.add_argument("--frame-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    _CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    width, height = args.width or args.size, args.height or args.size
    if args.frame_child:
        return _frame_child(args, width, height)
    if args.old_src:
        return _side_by_side(args, width, height)
    print(f"clock: {args.clock} (medians of {args.repeats} paired blocks); BLAS threads "
          f"{os.environ['OPENBLAS_NUM_THREADS']}")

    env = HomeEnv(seed=args.seed, kind=args.kind)
    m = env.model
    print(
        f"world seed={args.seed} kind={args.kind}: nbody={m.nbody} ngeom={m.ngeom} "
        f"nv={m.nv} substeps/step={env.n_substeps} timestep={m.opt.timestep}"
    )
    rng = np.random.default_rng(0)
    actions = rng.uniform(-0.3, 0.3, (args.steps, 12))
    actions[:, 6] = 0.0
    k = [0]

    # Both loops replay the same episode of len(actions) steps from the start keyframe: the env
    # its actions, the raw loop the controls the env computed from them (env.step gives plain
    # mj_step's bits), so both do the same physics, contacts included.
    def env_step() -> None:
        i = k[0] % len(actions)
        if i == 0:
            env.reset()
        env.step(actions[i])
        k[0] += 1

    ctrls = []
    env.reset()
    for a in actions:
        env.step(a)
        ctrls.append(env.data.ctrl.copy())
    final_qpos = env.data.qpos.copy()
    raw_data = mujoco.MjData(m)
    n = env.n_substeps
    j = [0]

    def raw_step() -> None:
        i = j[0] % len(ctrls)
        if i == 0:
            mujoco.mj_resetDataKeyframe(m, raw_data, 0)
            mujoco.mj_forward(m, raw_data)
        raw_data.ctrl[:] = ctrls[i]
        j[0] += 1
        mujoco.mj_step(m, raw_data, nstep=n)

    for _ in ctrls:
        raw_step()
    if not np.array_equal(raw_data.qpos, final_qpos):
        raise SystemExit("the raw loop does not replay the env's physics")
    j[0] = 0
    t_raw, t_env, ratio = _paired(raw_step, env_step, args.steps, args.repeats)
    print(
        f"[1] raw mj_step x{n}: {t_raw * 1e3:.3f} ms   env.step: {t_env * 1e3:.3f} ms   "
        f"ratio {ratio:.3f}x (target <= 1.5x)"
    )

    cam = args.camera
    env.reset()
    raw = mujoco.Renderer(m, height=height, width=width)
    raw.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
    raw.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
    rdata = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, rdata, 0)
    mujoco.mj_forward(m, rdata)

    naive = mujoco.Renderer(m, height=height, width=width)  # its default scene flags
    pixels = np.empty((height, width, 3), dtype=np.uint8)

    def raw_frame() -> None:
        raw.update_scene(rdata, camera=cam)
        raw.render(out=pixels)

    def naive_frame() -> None:
        naive.update_scene(rdata, camera=cam)
        naive.render(out=pixels)

    def env_frame() -> None:
        env.render_camera(cam, width, height)

    (f_raw, f_env, f_naive), rounds = _blocks(
        [(raw_frame, args.frames), (env_frame, args.frames), (naive_frame, args.frames // 3)],
        args.repeats,
    )
    fratio, nratio = _ratio(rounds[1], rounds[0]), _ratio(rounds[1], rounds[2])
    print(
        f"[2a] raw Renderer {cam} {width}x{height}, the same picture (no shadows/reflections): "
        f"{f_raw * 1e3:.2f} ms   env frame: {f_env * 1e3:.2f} ms   ratio {fratio:.3f}x "
        f"(target <= {FRAME_TARGET}x)"
    )
    print(
        f"[2b] raw Renderer at its defaults (shadows, reflections): {f_naive * 1e3:.2f} ms   "
        f"env frame / it {nratio:.3f}x (median of paired ratios; target <= {FRAME_TARGET}x)"
    )
    raw.close()
    naive.close()
    env.close()

    if args.no_robosuite:
        return
    try:
        import robosuite
    except ImportError:
        print("[3] robosuite not importable: skipped")
        return
    t0 = time.perf_counter()
    rs = robosuite.make(
        "Door",
        robots="PandaOmron",
        has_renderer=False,
        has_offscreen_renderer=False,
        use_camera_obs=False,
        control_freq=20,
    )
    rs.reset()
    print(
        f"    robosuite Door/PandaOmron make+reset {time.perf_counter() - t0:.1f} s, "
        f"action_dim={rs.action_dim}"
    )
    low, high = rs.action_spec
    rs_actions = rng.uniform(low, high, (20, rs.action_dim)) * 0.3
    r = [0]  # its own count: env_step's must keep replaying whole episodes from a reset

    def rs_step() -> None:
        rs.step(rs_actions[r[0] % len(rs_actions)])
        r[0] += 1

    k[0] = j[0] = 0  # both replay the same episodes from their start again
    # robosuite, our step and the raw mj_step calls alternate under the same load, with
    # blocks of similar wall time (robosuite is ~30-60x slower per step)
    (t_rs, t_env2, t_raw2), rounds = _blocks(
        [(rs_step, 10), (env_step, 250), (raw_step, 250)], args.repeats
    )
    r_env, r_raw = _ratio(rounds[1], rounds[0]), _ratio(rounds[2], rounds[0])
    print(
        f"[3] robosuite step: {t_rs * 1e3:.2f} ms   env.step: {t_env2 * 1e3:.3f} ms   "
        f"env is {1 / r_env:.1f}x faster (median of paired ratios; target >= "
        f"{ROBOSUITE_TARGET}x)   raw mj_step x{n}: {t_raw2 * 1e3:.3f} ms, {1 / r_raw:.1f}x "
        f"faster (the limit)"
    )
    rs.close()


if __name__ == "__main__":
    main()
