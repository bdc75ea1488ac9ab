r"""``recallbench --help``: what its imports cost, against the raw limit, the interpreter's own
start (``python -c pass``), measured in the same run; the target is under 0.15 s of imports and
no numpy (issue 24).

Each command (``python -m recallbench.cli``: the ``recallbench`` script's entry point) runs
``--repeat`` times in a child process with ``-X importtime``; the import time of a run is the
sum of its top-level imports' cumulative times, minus those of the bare interpreter (site,
encodings: what every Python program pays). Medians are printed, and the wall time of each
beside that of ``python -c pass``.

    .venv/bin/python bench/bench_help.py [--repeat 5] [--commands run,findingdory,...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

TARGET_S = 0.15
COMMANDS = ("", "run", "findingdory", "scenemem", "generate", "audit", "view", "report", "merge")


def _run(args: list[str]) -> tuple[float, float, set[str]]:
    """(wall s, import s, modules imported) of one child ``python -X importtime ARGS``."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True,
                          text=True)
    wall = time.perf_counter() - t0
    total, modules = 0.0, set()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if not cumulative.strip().isdigit():
            continue  # the header line
        modules.add(name.strip())
        if not name.startswith("  "):  # a top-level import: its cumulative time counts
            total += int(cumulative) / 1e6
    return wall, total, modules


def _median(args: list[str], repeat: int) -> tuple[float, float, set[str]]:
    runs = [_run(args) for _ in range(repeat)]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            set().union(*(r[2] for r in runs)))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="runs per command (default 5)")
    p.add_argument("--commands", default=",".join(COMMANDS),
                   help="subcommands whose --help is measured ('' is the top level)")
    args = p.parse_args()
    raw_wall, raw_imports, _ = _median(["-c", "pass"], args.repeat)
    print(f"raw limit, python -c pass: {raw_wall:.3f} s wall, {raw_imports:.3f} s imports "
          f"(median of {args.repeat})")
    worst = 0.0
    for command in args.commands.split(","):
        argv = ["-m", "recallbench.cli", *([command] if command else []), "--help"]
        wall, imports, modules = _median(argv, args.repeat)
        own = imports - raw_imports
        worst = max(worst, own)
        print(f"recallbench {command + ' ' if command else ''}--help: {own:.3f} s of imports "
              f"(target < {TARGET_S} s), wall {wall:.3f} s = {wall / raw_wall:.1f}x python -c "
              f"pass; numpy imported: {'numpy' in modules}")
    print(f"worst: {worst:.3f} s of imports, {worst / TARGET_S:.2f}x the target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
