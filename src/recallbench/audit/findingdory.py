"""The FindingDory suite audit: do agents without memory fail it as they fail the public set?

Every agent that never looks at the video (blind, recency, random, time-prior, question-only)
and the privileged oracle answer every question with K = 96 offered frames; the existing scorer
(``benchmarks.findingdory.evaluate.score_records``, published definition unless told) scores
them. Beside the rates (Wilson 95% intervals) per group and category the audit reports the
category mix, the valid-window widths (share of the K offered frames valid for a goal, averaged
over a question's goals) and the unsolvable share (a goal without a valid offered frame), all
side by side with the same figures for the public validation annotations, which ship with the
package (``findingdory_val_reference.json``, made by ``compute_reference``).

Checks (``findingdory_calibration``): each statistic (every no-video agent's rate overall, per
group and per category; each category's width, best constant answer and repeated
answers within a day; the category mix's distance from val's; the unsolvable share) against
its distribution over val's own subsets with as many episodes as the suite, failing only what
at most 2.5% of those subsets reach on any check (family-wise). Every suite of at least
``MIN_N`` episodes gets a verdict.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.agents.registry import construct_seeded, resolve
from recallbench.audit.core import judge, rate
from recallbench.audit.findingdory_calibration import AGENTS as CHECKED_AGENTS
from recallbench.audit.findingdory_calibration import (
    AUDITED_AGENTS,
    judge_figures,
    load_calibration,
)
from recallbench.audit.readability import readability
from recallbench.benchmarks.findingdory.data import QACase, Suite, load_suite
from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.benchmarks.findingdory.evaluate import build_query, offered_for, score_records
from recallbench.benchmarks.findingdory.metrics import Scoring
from recallbench.benchmarks.findingdory.templates import is_multi_goal

K = DEFAULT_FRAMES  # the published budget the val reference was made with
SEED = 0  # the random agent's
REFERENCE_PATH = Path(__file__).with_name("findingdory_val_reference.json")
OPTIONS = ("scoring",)  # the command-line options audit() takes (audit.core)
# Judged from two episodes (audit.core): blind, question-only and time-prior learn from the
# other episodes (leave-one-episode-out); on one day they have none and answer by no prior.
MIN_N = 2
UNIT = "episodes"
ITEM = "episode"  # what `generate --n` counts


def make_agents(
    suite: Suite, seed: int = SEED, names: tuple[str, ...] | None = None
) -> dict[str, Any]:
    """The audit's agents (all, or the named ones), fitted (leave-one-episode-out) on the suite
    itself where they learn."""
    agents = {}
    for name in AUDITED_AGENTS:
        if names is None or name in names:
            agent = construct_seeded(resolve(name, "findingdory"), {}, seed)
            if getattr(agent, "needs_training_suite", False):  # as the evaluator fits it
                agent.fit(suite.cases)
            agents[name] = agent
    return agents


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


def valid_positions(case: QACase) -> list[frozenset[int]]:
    """Per goal: the positions of the K offered frames valid for it."""
    offered = _offered(case)
    if case.answer_frames is not None:  # answers already index the offered list
        return [frozenset(i for i in sub if 0 <= i < len(offered)) for sub in case.answer]
    where = {f: p for p, f in enumerate(offered)}
    return [frozenset(where[i] for i in sub if i in where) for sub in case.answer]


def valid_shares(case: QACase) -> list[float]:
    """Per goal: the share of the K offered frames valid for it."""
    return [len(sub) / K for sub in valid_positions(case)]


def constant_position(cases: list[QACase]) -> float | None:
    """HL-SR of the best constant answer: the one offered position valid for most single-goal
    questions of ``cases`` (a category), always answered, whatever the template ("always answer
    position 2"). Per template, the same answer fitted on the other episodes is the blind
    agent. None without single-goal questions."""
    hits = np.zeros(K)
    n = 0
    for case in cases:
        if is_multi_goal(case.low_level_category):
            continue
        n += 1
        hits[sorted(valid_positions(case)[0])] += 1
    return float(hits.max() / n) if n else None


def repeated_answer(cases: list[QACase]) -> float | None:
    """Share of pairs of questions of one category in one episode whose valid positions are the
    same (a day whose questions share one answer, e.g. every room question the start room).
    By category, not template: val asks each template about once per episode. Questions with
    no valid position are left out; None without such pairs."""
    groups: dict[tuple[str, str], list[tuple[frozenset[int], ...]]] = defaultdict(list)
    for case in cases:
        answer = tuple(valid_positions(case))
        if any(answer):
            groups[(case.category, case.ep_id)].append(answer)
    same = pairs = 0
    for answers in groups.values():
        counts = Counter(answers)
        pairs += len(answers) * (len(answers) - 1) // 2
        same += sum(c * (c - 1) // 2 for c in counts.values())
    return same / pairs if pairs else None


def suite_figures(
    suite: Suite,
    scoring: Scoring = "published",
    seed: int = SEED,
    agents: tuple[str, ...] | None = None,
) -> dict:
    """Every figure the audit compares, for one suite (generated or the public file); only
    the named ``agents`` when given."""
    rates = {}
    for name, agent in make_agents(suite, seed, agents).items():
        rows = score_records(suite, answer_all(suite, agent), scoring=scoring)
        rates[name] = _rates(rows)
    counts = Counter(c.category for c in suite.cases)
    widths: dict[str, list[float]] = defaultdict(list)
    unsolvable: dict[str, list[float]] = defaultdict(list)
    by_category: dict[str, list[QACase]] = defaultdict(list)
    for case in suite.cases:
        shares = valid_shares(case)
        widths[case.category].append(float(np.mean(shares)))
        unsolvable[case.category].append(float(min(shares) == 0.0))
        by_category[case.category].append(case)
    n = len(suite.cases)
    categories = {
        cat: {
            "n": counts[cat],
            "share": counts[cat] / n,
            "width": float(np.mean(widths[cat])),
            "unsolvable": float(np.mean(unsolvable[cat])),
            "constant_position": constant_position(by_category[cat]),
            "repeated_answer": repeated_answer(by_category[cat]),
        }
        for cat in sorted(counts)
    }
    return {
        "n": n,
        "episodes": len({c.ep_id for c in suite.cases}),
        "k": K,
        "scoring": scoring,
        "seed": seed,
        "agents": rates,
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


def calibration_figures(suite: Suite) -> dict[str, Any]:
    """The figures the checks read, without the oracle (the calibration's subsets)."""
    return suite_figures(suite, agents=CHECKED_AGENTS)


def checks(
    fig: dict[str, Any], ref: dict[str, Any], calibration: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every check of one suite's figures, judged against val's subsets of its size."""
    return judge_figures(fig, ref, calibration or load_calibration())[0]


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
    judged, size = judge_figures(fig, ref, load_calibration())
    report = {
        "benchmark": "findingdory",
        "suite": str(suite_dir),
        "n": fig["n"],
        "episodes": fig["episodes"],
        "min_n": MIN_N,  # episodes; judged against val's subsets of the suite's size
        "calibration": size,
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
        "checks": judged,
        # what a perceiving model can read: judged against its own bounds, apart from `checks`
        "readability": readability(suite, K),
    }
    return judge(report, size=fig["episodes"])


def suite_size(suite_dir: Path) -> tuple[int, int]:
    """(episodes, episodes) of a suite (audit.core.too_small)."""
    episodes = len({c.ep_id for c in load_suite(suite_dir).cases})
    return episodes, episodes


def plot(report: dict[str, Any], png_path: Path) -> Path:
    from recallbench.audit.findingdory_plot import plot_rates

    return plot_rates(report, png_path)


def table(report: dict[str, Any], width: int = 80) -> Any:
    from recallbench.audit.findingdory_plot import rates_table

    return rates_table(report, width)


__all__ = ["audit", "compute_reference", "plot", "suite_figures", "table"]
