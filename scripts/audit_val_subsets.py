"""How often does the FindingDory audit fail val's own subsets? (And the shipped calibration.)

Cuts the public validation annotations into random subsets of ``--episodes`` episodes, audits
each as if it were a generated suite (agents fitted on the subset, leave-one-episode-out)
against the shipped val reference and calibration, and prints how many subsets fail any check
and which checks fail most. A suite drawn from val itself is as val-like as a suite can be, so
the share of subsets failing is the audit's false-failure rate at that size. Use a ``--seed``
other than the calibration's (0) so the subsets are fresh draws.

``--calibrate`` instead recomputes the shipped per-size distributions
(``recallbench/audit/findingdory_val_calibration.json``; about 10 minutes on one core).

    python scripts/audit_val_subsets.py [--val ../shared/data/findingdory-val-qa.json]
        [--subsets 200] [--episodes 4 18] [--seed 1]
    python scripts/audit_val_subsets.py --calibrate [--subsets 300] [--episodes 18 25]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.audit.findingdory import calibration_figures, checks, load_reference
from recallbench.audit.findingdory_calibration import (
    CALIBRATION_PATH,
    SIZES,
    SUBSETS,
    calibrate,
    episode_subset,
    load_calibration,
    merge_calibration,
    size_for,
)
from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.io import write_json_atomic


def audit_subsets(
    val: Any, subsets: int, episodes: int, seed: int
) -> tuple[int, Counter[str], list[float]]:
    """(subsets failing any check, failures per check, blind's overall rate per subset)."""
    n_eps = len({c.ep_id for c in val.cases})
    if episodes > n_eps:
        raise SystemExit(f"--episodes: the val file has only {n_eps} episodes")
    reference, calibration = load_reference(), load_calibration()
    rng = np.random.default_rng(seed)
    failing, failures, blind = 0, Counter[str](), list[float]()
    for _ in range(subsets):
        figures = calibration_figures(episode_subset(val, episodes, rng))
        failed = [c["name"] for c in checks(figures, reference, calibration) if not c["passed"]]
        blind.append(figures["agents"]["blind"]["overall"]["rate"])
        failing += bool(failed)
        failures.update(failed)
    return failing, failures, blind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--val", type=Path, default=Path("../shared/data/findingdory-val-qa.json"))
    parser.add_argument("--subsets", type=int, default=None,
                        help=f"subsets per size (default 200; {SUBSETS} with --calibrate)")
    parser.add_argument("--episodes", type=int, nargs="+", default=None,
                        help="subset sizes (default 4 18; with --calibrate the shipped sizes, "
                             "merged into the shipped file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calibrate", action="store_true",
                        help=f"recompute {CALIBRATION_PATH.name} (seed 0)")
    args = parser.parse_args()
    if args.subsets is None:
        args.subsets = SUBSETS if args.calibrate else 200
    if args.episodes is None:
        args.episodes = list(SIZES) if args.calibrate else [4, 18]
    if not args.val.is_file():
        raise SystemExit(f"--val: no such file: {args.val}")
    if args.subsets < 1 or min(args.episodes) < 1:
        raise SystemExit("--subsets and --episodes must be >= 1")
    if args.calibrate:
        result = calibrate(load_suite(args.val), calibration_figures, load_reference(),
                           sizes=args.episodes, subsets=args.subsets, seed=0,
                           progress=lambda line: print(line, flush=True))
        if CALIBRATION_PATH.is_file():
            result = merge_calibration(load_calibration(), result)
        write_json_atomic(CALIBRATION_PATH, result)
        print(f"wrote {CALIBRATION_PATH}")
        return
    calibration, val = load_calibration(), load_suite(args.val)
    for episodes in args.episodes:
        failing, failures, blind = audit_subsets(val, args.subsets, episodes, args.seed)
        size = size_for(episodes, calibration)
        print(f"{episodes} episodes (judged at {size['episodes']}, z* {size['z_star']}): "
              f"{failing} of {args.subsets} val subsets fail a check "
              f"({100 * failing / args.subsets:.1f}%); blind overall "
              f"{min(blind):.3f}-{max(blind):.3f}, median {np.median(blind):.3f}")
        for name, count in failures.most_common(8):
            print(f"  {count:3d} x {name}")


if __name__ == "__main__":
    main()
