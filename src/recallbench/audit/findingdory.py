"""The FindingDory suite audit: do agents without memory fail it as they fail the public set?

Every agent that never looks at the video (blind, recency, random, time-prior, question-only)
and the privileged oracle answer every question with K = 96 offered frames; the existing scorer
(``benchmarks.findingdory.evaluate.score_records``, published definition unless told) scores
them. Beside the rates (Wilson 95% intervals) per group and category the audit reports the
category mix, the valid-window widths (share of the K offered frames valid for a goal, averaged
over a question's goals) and the unsolvable share (a goal without a valid offered frame), all
side by side with the same figures for the public validation annotations, which ship with the
package (``findingdory_val_reference.json``, made by ``compute_reference``).

Checks (judged from ``MIN_N`` questions on): every no-video agent at most 3 points above its
validation rate overall and in every group, and at most 10 points in every category; widths per
category within 25% of validation's; category mix within a total-variation distance of 0.05;
unsolvable share no higher than validation's.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.agents.baselines import BlindAgent, OracleAgent, RandomAgent, RecencyAgent
from recallbench.agents.shortcuts import QuestionOnlyAgent, TimePriorAgent
from recallbench.audit.core import check, judge, rate
from recallbench.benchmarks.findingdory.data import QACase, Suite, load_suite
from recallbench.benchmarks.findingdory.evaluate import build_query, offered_for, score_records
from recallbench.benchmarks.findingdory.metrics import Scoring

MIN_N = 1000  # questions: below this the checks are reported, not judged
K = 96
SEED = 0  # the random agent's
SHORTCUT_AGENTS = ("blind", "recency", "random", "time-prior", "question-only")
REFERENCE_PATH = Path(__file__).with_name("findingdory_val_reference.json")
# thresholds (issue 13)
AGENT_MARGIN = 0.03  # overall and per group, over the validation rate
CATEGORY_MARGIN = 0.10
WIDTH_TOLERANCE = 0.25  # relative
MAX_TV = 0.05


def make_agents(suite: Suite, seed: int = SEED) -> dict[str, Any]:
    """The audit's agents, fitted (leave-one-episode-out) on the suite itself where they learn."""
    return {
        "blind": BlindAgent().fit(suite.cases),
        "recency": RecencyAgent(),
        "random": RandomAgent(seed=seed),
        "time-prior": TimePriorAgent().fit(suite.cases),
        "question-only": QuestionOnlyAgent().fit(suite.cases),
        "oracle": OracleAgent(),
    }


def _offered(case: QACase) -> list[int]:
    return offered_for(case, K, None, None)


def answer_all(suite: Suite, agent: Any) -> dict[str, dict[str, Any]]:
    records = {}
    for case in suite.cases:
        offered = _offered(case)
        query = build_query(case, offered, None, None, bool(agent.privileged))
        picks = agent.select_frames(query, None).frame_indices
        records[case.id] = {"offered_frames": offered, "frame_indices": picks}
    return records


def _rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by: dict[str, dict[str, list[float]]] = {"groups": defaultdict(list),
                                              "categories": defaultdict(list)}
    for r in rows:
        by["groups"][r["group"]].append(r["hl_sr"])
        by["categories"][r["category"]].append(r["hl_sr"])
    return {
        "overall": rate([r["hl_sr"] for r in rows]),
        **{kind: {name: rate(v) for name, v in sorted(d.items())} for kind, d in by.items()},
    }


def valid_shares(case: QACase) -> list[float]:
    """Per goal: the share of the K offered frames valid for it."""
    offered = _offered(case)
    if case.answer_frames is not None:  # answers already index the offered list
        return [len({i for i in sub if i >= 0}) / len(offered) for sub in case.answer]
    positions = np.asarray(offered)
    return [float(np.isin(positions, [i for i in sub if i >= 0]).mean()) for sub in case.answer]


def suite_figures(suite: Suite, scoring: Scoring = "published", seed: int = SEED) -> dict:
    """Every figure the audit compares, for one suite (generated or the public file)."""
    agents = {}
    for name, agent in make_agents(suite, seed).items():
        rows = score_records(suite, answer_all(suite, agent), scoring=scoring)
        agents[name] = _rates(rows)
    counts = Counter(c.category for c in suite.cases)
    widths: dict[str, list[float]] = defaultdict(list)
    unsolvable: dict[str, list[float]] = defaultdict(list)
    for case in suite.cases:
        shares = valid_shares(case)
        widths[case.category].append(float(np.mean(shares)))
        unsolvable[case.category].append(float(min(shares) == 0.0))
    n = len(suite.cases)
    categories = {
        cat: {
            "n": counts[cat],
            "share": counts[cat] / n,
            "width": float(np.mean(widths[cat])),
            "unsolvable": float(np.mean(unsolvable[cat])),
        }
        for cat in sorted(counts)
    }
    return {
        "n": n,
        "k": K,
        "scoring": scoring,
        "seed": seed,
        "agents": agents,
        "categories": categories,
        "unsolvable": float(np.mean([u for v in unsolvable.values() for u in v])),
    }


def compute_reference(val_path: Path, scoring: Scoring = "published") -> dict[str, Any]:
    """The shipped validation figures, recomputed from the public annotations file."""
    val_path = Path(val_path)
    figures = suite_figures(load_suite(val_path), scoring=scoring)
    source = {"file": val_path.name, "sha256": hashlib.sha256(val_path.read_bytes()).hexdigest()}
    # through JSON so a recomputation compares equal to the file it was written to
    return json.loads(json.dumps({"source": source, **figures}))


def load_reference(path: Path = REFERENCE_PATH) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def tv_distance(a: dict[str, float], b: dict[str, float]) -> float:
    """Total-variation distance of two category mixes (shares summing to 1)."""
    return 0.5 * sum(abs(a.get(c, 0.0) - b.get(c, 0.0)) for c in set(a) | set(b))


def _agent_checks(fig: dict[str, Any], ref: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name in SHORTCUT_AGENTS:
        mine, theirs = fig["agents"][name], ref["agents"][name]
        slices = [("overall", mine["overall"], theirs["overall"], AGENT_MARGIN)]
        for kind, margin in (("groups", AGENT_MARGIN), ("categories", CATEGORY_MARGIN)):
            for slice_name, r in mine[kind].items():
                if slice_name in theirs[kind]:
                    slices.append((slice_name, r, theirs[kind][slice_name], margin))
        for label, r, v, margin in slices:
            limit = v["rate"] + margin
            out.append(check(f"{name} {label}", r["rate"], limit, r["rate"] <= limit))
    return out


def checks(fig: dict[str, Any], ref: dict[str, Any]) -> list[dict[str, Any]]:
    out = _agent_checks(fig, ref)
    for cat, c in fig["categories"].items():
        if cat in ref["categories"]:
            w = ref["categories"][cat]["width"]
            off = abs(c["width"] - w) / w if w else 0.0
            out.append(check(f"valid-window width {cat} (relative to val)", off,
                             WIDTH_TOLERANCE, off <= WIDTH_TOLERANCE))
    shares = {cat: c["share"] for cat, c in fig["categories"].items()}
    tv = tv_distance(shares, {cat: c["share"] for cat, c in ref["categories"].items()})
    out.append(check("category mix TV distance", tv, MAX_TV, tv <= MAX_TV))
    out.append(check(f"unsolvable share at K={K}", fig["unsolvable"], ref["unsolvable"],
                     fig["unsolvable"] <= ref["unsolvable"]))
    return out


def audit(
    suite_dir: Path,
    *,
    console: Any = None,
    scoring: Scoring = "published",
    reference: Path | None = None,
    **_: Any,
) -> dict[str, Any]:
    """Audit a generated suite folder (or any FindingDory QA file) against the public val."""
    suite = load_suite(suite_dir)
    if console is not None:
        console.print(f"auditing {len(suite.cases)} FindingDory questions ({scoring} scoring)")
    ref = load_reference(reference or REFERENCE_PATH)
    fig = suite_figures(suite, scoring=scoring)
    report = {
        "benchmark": "findingdory",
        "suite": str(suite_dir),
        "n": fig["n"],
        "min_n": MIN_N,
        "scoring": scoring,
        "k": K,
        "seed": SEED,
        "agents": fig["agents"],
        "categories": fig["categories"],
        "unsolvable": fig["unsolvable"],
        "category_tv": tv_distance(
            {c: v["share"] for c, v in fig["categories"].items()},
            {c: v["share"] for c, v in ref["categories"].items()},
        ),
        "reference": ref,
        "checks": checks(fig, ref),
    }
    return judge(report)


def plot(report: dict[str, Any], png_path: Path) -> Path:
    from recallbench.audit.findingdory_plot import plot_rates

    return plot_rates(report, png_path)


def table(report: dict[str, Any]) -> Any:
    from recallbench.audit.findingdory_plot import rates_table

    return rates_table(report)


__all__ = ["audit", "compute_reference", "plot", "suite_figures", "table"]
