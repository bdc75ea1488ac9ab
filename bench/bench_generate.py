"""Generation throughput: recorded frames per second against the raw render limit, measured in
the same run.

raw limit: the three SceneMem cameras (256x256) rendered with a plain ``mujoco.Renderer`` on the
same model, no physics, no encoding: frames/s = 1 / (time for the three renders).
generation: the scripted oracle doing a pick-and-place (open the microwave, pick an object,
place it inside, close the door) while ``FrameRecorder`` renders the same three cameras every
control step and encodes them to H.264; the skill log is the annotation. Wall time covers
everything (planning, physics, rendering, encoding), frames/s = recorded frames / wall time.

Blocks alternate (raw, generation, raw, ...) so both see the same machine load; the script
prints the medians, their ratio and the overhead 1 - ratio (target: < 40%).
With ``--scenario`` it also times one whole ``generate_scenario`` (3 tasks, probe verification
included) and reports its frames/s against the same raw limit.

    .venv/bin/python bench/bench_generate.py [--repeats 3] [--size 256] [--scenario]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import recallbench.world  # noqa: F401  (picks the headless GL backend before MuJoCo loads)

CAMERAS = ("robot0_agentview_left", "robot0_agentview_right", "robot0_eye_in_hand")


def raw_fps(model, data, size: int, frames: int) -> float:
    import mujoco

    r = mujoco.Renderer(model, height=size, width=size)
    r.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False  # the env renders without shadows
    r.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
    for cam in CAMERAS:  # warm-up
        r.update_scene(data, camera=cam)
        r.render()
    t0 = time.perf_counter()
    for _ in range(frames):
        for cam in CAMERAS:
            r.update_scene(data, camera=cam)
            r.render()
    dt = time.perf_counter() - t0
    r.close()
    return frames / dt


def generation_fps(size: int, out: Path) -> tuple[float, int, object, object]:
    from recallbench.generate.recorder import FrameRecorder
    from recallbench.world.env import make_env
    from recallbench.world.skills import Oracle

    env = make_env("RecallbenchKitchen", seed=0)
    env.renders.rgb(env.data, CAMERAS[0], size, size)  # GL context up before the clock starts
    t0 = time.perf_counter()
    with FrameRecorder(out, CAMERAS, (size, size)) as rec:
        oracle = Oracle(env, on_step=rec.capture)
        for skill in (oracle.open_door("microwave"), oracle.pick("obj_mug_1"),
                      oracle.place("obj_mug_1", "microwave"), oracle.close_door("microwave")):
            result = oracle.run(skill)
            rec.note(result.skill, success=result.success)
    dt = time.perf_counter() - t0
    frames = rec.frames
    model, data = env.model, env.data
    env.close()
    if not all(e["success"] for e in rec.events):
        raise SystemExit(f"a skill failed: {rec.events}")
    return frames / dt, frames, model, data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--scenario", action="store_true", help="also time a whole scenario")
    args = ap.parse_args()
    raw, gen, ratios = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeats):
            fps, frames, model, data = generation_fps(args.size, Path(tmp) / f"g{k}")
            lim = raw_fps(model, data, args.size, min(frames, 200))
            gen.append(fps)
            raw.append(lim)
            ratios.append(fps / lim)
            print(f"  repeat {k}: recorded {frames} frames at {fps:.1f} fps; raw limit "
                  f"{lim:.1f} fps; ratio {fps / lim:.2f}", flush=True)
        med_raw, med_gen, med_ratio = (statistics.median(x) for x in (raw, gen, ratios))
        print(f"raw render limit (3 cameras {args.size}x{args.size}, mujoco.Renderer): "
              f"median {med_raw:.1f} frames/s")
        print(f"generation (oracle + physics + render + H.264 + annotation): "
              f"median {med_gen:.1f} frames/s")
        print(f"ratio generation / raw: median {med_ratio:.2f}  ->  overhead "
              f"{1 - med_ratio:.0%} (target < 40%)")
        if args.scenario:
            from recallbench.generate.scenemem import ScenememKnobs, generate_scenario

            knobs = ScenememKnobs(tasks=3, pick_place=3, size=args.size)
            t0 = time.perf_counter()
            summary = generate_scenario(Path(tmp) / "suite", 0, 0, knobs)
            dt = time.perf_counter() - t0
            fps = summary["frames"] / dt
            print(f"whole scenario ({summary['frames']} frames, {summary['probes']} probes "
                  f"verified, {len(summary['failed_attempts'])} failed attempts): {dt:.1f} s, "
                  f"{fps:.1f} frames/s, ratio to raw {fps / med_raw:.2f}")


if __name__ == "__main__":
    main()
