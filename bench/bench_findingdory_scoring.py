"""Scoring all 5,876 public validation questions: median time and per-question cost.

Raw limit, measured in the same run: the least work any scorer must do, one Python set
membership test per question (first sub-list only). Also times the aggregation (overall, 3
groups, 11 categories, 59 templates, each with a 2,000-resample bootstrap interval).

    .venv/bin/python bench/bench_findingdory_scoring.py [--data FILE] [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from recallbench.agents.baselines import RandomAgent
from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.benchmarks.findingdory.evaluate import build_query, score_records
from recallbench.benchmarks.findingdory.scoring import METRICS, NA_REASONS
from recallbench.report.aggregate import summarize

# ../shared beside the project root, as in the workspace; RECALLBENCH_SHARED overrides.
SHARED = Path(os.environ.get("RECALLBENCH_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data" / "findingdory-val-qa.json"


def timed(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    suite = load_suite(args.data)
    n = len(suite.cases)
    agent = RandomAgent(seed=0)
    offered = list(range(96))
    records = {}
    for case in suite.cases:
        answer = agent.select_frames(build_query(case, offered, None, None, False), None)
        records[case.id] = {"offered_frames": offered, "frame_indices": answer.frame_indices}
    picks = [(records[c.id]["frame_indices"][0], c.answer[0]) for c in suite.cases]

    def raw() -> int:
        return sum(p in set(a) for p, a in picks)

    raw_s, _ = timed(raw, args.repeats)
    score_s, rows = timed(lambda: score_records(suite, records), args.repeats)
    agg_s, _ = timed(lambda: summarize(rows, METRICS, na_reasons=NA_REASONS), args.repeats)
    print(f"{n} questions, median of {args.repeats} runs")
    print(f"{'step':34s} {'median ms':>10s} {'us/question':>12s} {'x raw':>8s}")
    for name, s in (
        ("raw limit (set membership)", raw_s),
        ("score_records (all metrics)", score_s),
        ("summarize (bootstrap, all slices)", agg_s),
        ("score + summarize", score_s + agg_s),
    ):
        print(f"{name:34s} {s * 1e3:10.1f} {s / n * 1e6:12.2f} {s / raw_s:8.1f}")


if __name__ == "__main__":
    main()
