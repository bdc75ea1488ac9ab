"""How noisy are the FindingDory audit's thresholds at the size they are judged from?

Cuts the public validation annotations into random subsets of ``--episodes`` episodes (18 make
about 1,060 questions, the size of a 1,000-question generated suite), audits each subset as if
it were a generated suite (agents fitted on the subset, leave-one-episode-out) against the
shipped val reference, and prints how many subsets pass every check and which checks fail
most. A suite drawn from val itself is as val-like as a suite can be, so the share of subsets
that fail a check is the false-alarm rate of that check at this size.

    python scripts/audit_val_subsets.py [--val ../shared/data/findingdory-val-qa.json]
        [--subsets 20] [--episodes 18] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from recallbench.audit.findingdory import checks, load_reference, suite_figures
from recallbench.benchmarks.findingdory.data import load_suite


def audit_subsets(
    val: Path, subsets: int, episodes: int, seed: int
) -> tuple[int, Counter[str], list[float]]:
    """(subsets passing every check, failures per check, blind's overall rate per subset)."""
    rows = json.loads(val.read_text())
    ep_ids = sorted({r["ep_id"] for r in rows})
    if episodes > len(ep_ids):
        raise SystemExit(f"--episodes: the val file has only {len(ep_ids)} episodes")
    reference = load_reference()
    rng = np.random.default_rng(seed)
    passing, failures, blind = 0, Counter[str](), list[float]()
    for k in range(subsets):
        chosen = set(rng.choice(ep_ids, size=episodes, replace=False).tolist())
        subset = [r for r in rows if r["ep_id"] in chosen]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "qa.json"
            path.write_text(json.dumps(subset))
            figures = suite_figures(load_suite(path))
        failed = [c["name"] for c in checks(figures, reference) if not c["passed"]]
        blind.append(figures["agents"]["blind"]["overall"]["rate"])
        passing += not failed
        failures.update(failed)
        print(f"subset {k}: {len(subset)} questions, blind {blind[-1]:.3f}, "
              f"{len(failed)} checks fail", flush=True)
    return passing, failures, blind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--val", type=Path, default=Path("../shared/data/findingdory-val-qa.json"))
    parser.add_argument("--subsets", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=18)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not args.val.is_file():
        raise SystemExit(f"--val: no such file: {args.val}")
    if args.subsets < 1 or args.episodes < 2:
        raise SystemExit("--subsets must be >= 1 and --episodes >= 2")
    passing, failures, blind = audit_subsets(args.val, args.subsets, args.episodes, args.seed)
    print(f"subsets passing every check: {passing} of {args.subsets}")
    val_blind = load_reference()["agents"]["blind"]["overall"]["rate"]
    print(f"blind overall: min {min(blind):.3f}, median {np.median(blind):.3f}, "
          f"max {max(blind):.3f} (val: {val_blind:.3f})")
    for name, count in failures.most_common():
        print(f"  {count:3d} x {name}")


if __name__ == "__main__":
    main()
