r"""The leakage rule's cost: every day's fingerprint recomputed from its files (``days_of``, what
``export --exclude``, ``audit --against`` and ``generate --exclude`` pay per suite) against the raw
limit measured in the same run, a plain sha256 of the same files' bytes, and against reading the
recorded fingerprints (what the rule did before it recomputed them).

    .venv/bin/python bench/bench_leakage.py SUITE [--repeat 20]
    .venv/bin/python bench/bench_leakage.py --generate 4 [--steps 2000]   # a suite of its own
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _raw(files: list[Path]) -> None:
    for f in files:
        hashlib.sha256(f.read_bytes()).hexdigest()


def measure(suite: Path, repeat: int) -> None:
    from recallbench.export.leakage import days_of
    from recallbench.generate.fingerprint import findingdory_episode_fingerprint

    days = days_of(suite)
    folders = [suite / "episodes" / name for name, _ in days]
    if not all(f.is_dir() for f in folders):
        folders = [suite / name for name, _ in days]
    hashed = ("video.mp4", "qa.json", "events.json", "episode.json", "entities.json")
    files = [f / n for f in folders for n in hashed if (f / n).is_file()]
    files += [p for f in folders for p in (f / "videos").glob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    recompute = _best(lambda: days_of(suite), repeat)
    raw = _best(lambda: _raw(files), repeat)
    print(f"{len(days)} days, {size / 1e6:.2f} MB of day files read")
    print(f"recomputed fingerprints (days_of): {recompute * 1e3:.2f} ms, "
          f"{recompute / len(days) * 1e3:.2f} ms per day")
    print(f"raw limit, sha256 of the same files: {raw * 1e3:.2f} ms "
          f"(recompute = {recompute / raw:.2f}x the raw limit)")
    if (suite / "episodes").is_dir():
        recorded = _best(lambda: [findingdory_episode_fingerprint(f) for f in folders], repeat)
        print(f"recorded fingerprints read (the old rule): {recorded * 1e3:.2f} ms "
              f"(recompute costs {(recompute - recorded) / len(days) * 1e3:.2f} ms more a day)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("suite", nargs="?", help="a generated suite")
    p.add_argument("--generate", type=int, default=0, help="generate a FindingDory suite of N days")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=20)
    args = p.parse_args()
    if args.suite:
        measure(Path(args.suite), args.repeat)
        return 0
    os.environ.setdefault("MUJOCO_GL", "egl")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        subprocess.run([sys.executable, "-m", "recallbench.cli", "generate", "findingdory",
                        "--out", str(suite), "--n", str(args.generate or 2), "--seed", "0",
                        "--steps", str(args.steps), "--interactions", "3", "--workers", "1",
                        "--no-audit"], check=True,
                       stdout=subprocess.DEVNULL)
        measure(suite, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
