"""Where a FindingDory suite's audit figures fall among val's own subsets of the same size.

Each check's statistic (a no-video agent's HL-SR in a slice, a category's valid-window width,
the category mix's distance from val's, the unsolvable share, a category's best constant
answer, the share of a day's questions of a category that repeat an answer) is compared with its
distribution over random subsets of the public validation annotations with as many episodes as
the suite (agents fitted on each subset, leave-one-episode-out, exactly as on the suite).

The rule (docs/audit.md): a check's z-score is ``(value - mean) / sd`` over those subsets (``sd``
floored at the binomial sd of its slice, so a statistic val never moves is not infinitely
strict). A check fails when its z-score passes ``z_star``: the (1 - FAMILY_ALPHA) quantile, over
the same subsets, of the largest z-score among all their checks (Westfall-Young max-T). So at
most FAMILY_ALPHA of val's own subsets fail any check: the multiple-comparison correction is
family-wise over every check of the audit. One-sided checks (a shortcut makes them higher) use
z, two-sided ones (widths) |z|.

The distributions are computed once (``calibrate``, run by ``scripts/audit_val_subsets.py
--calibrate``) and ship as ``findingdory_val_calibration.json``: per size, per check, the mean,
the sd, a few quantiles (for the percentile reported) and ``z_star``. A suite is judged at the
largest calibrated size not above its episode count (smaller subsets spread wider, so this errs
towards passing); above the largest size (half of val's 100 episodes: larger subsets would
overlap so much they understate the spread) it is judged there.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.agents.registry import NO_MEMORY_KINDS, names_of_kind

CALIBRATION_PATH = Path(__file__).with_name("findingdory_val_calibration.json")
SIZES = (1, 2, 3, 4, 6, 9, 13, 18, 25)  # episodes
SUBSETS = 300
FAMILY_ALPHA = 0.02  # < 5%: fresh val subsets fail more often than the ones calibrated on
QUANTILES = (0.0, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 97.5, 99.0, 100.0)
SHARE_SD_FLOOR = 0.005  # widths and the mix distance: half a point
# the agents without memory, by their registry kind: blind, recency, random, time-prior, ...
AGENTS = names_of_kind("findingdory", NO_MEMORY_KINDS)
AUDITED_AGENTS = (*AGENTS, *names_of_kind("findingdory", ("privileged",)))  # + the ceiling
# the shift each check's power is reported against: the fixed margins the audit used before
AGENT_SHIFT = 0.03  # overall and per group
CATEGORY_SHIFT = 0.10
WIDTH_SHIFT = 0.25  # relative to val's width
MIX_SHIFT = 0.05
UNSOLVABLE_SHIFT = 0.03


@dataclass(frozen=True)
class Stat:
    """One check's statistic on one suite: ``side`` "upper" or "both"; ``n`` the questions (or
    pairs) behind a rate, None for a statistic that is not a rate; ``shift`` the shortcut size
    its power is reported against."""

    value: float
    side: str
    n: int | None
    shift: float


def statistics(fig: dict[str, Any], ref: dict[str, Any]) -> dict[str, Stat]:
    """Every checked statistic of one suite's figures (``findingdory.suite_figures``)."""
    out: dict[str, Stat] = {}
    for name in AGENTS:
        a = fig["agents"][name]
        out[f"{name} overall"] = _rate(a["overall"], AGENT_SHIFT)
        for kind, shift in (("groups", AGENT_SHIFT), ("categories", CATEGORY_SHIFT)):
            for label, r in a[kind].items():
                out[f"{name} {label}"] = _rate(r, shift)
    for cat, c in fig["categories"].items():
        w = ref["categories"].get(cat, {}).get("width") or c["width"]
        out[f"valid-window width {cat}"] = Stat(c["width"], "both", None, WIDTH_SHIFT * w)
        if c.get("constant_position") is not None:
            out[f"constant position {cat}"] = Stat(
                c["constant_position"], "upper", c["n"], CATEGORY_SHIFT)
        if c.get("repeated_answer") is not None:
            out[f"repeated answer {cat}"] = Stat(c["repeated_answer"], "upper", c["n"],
                                                 CATEGORY_SHIFT)
    shares = {cat: c["share"] for cat, c in fig["categories"].items()}
    ref_shares = {cat: c["share"] for cat, c in ref["categories"].items()}
    out["category mix TV distance"] = Stat(_tv(shares, ref_shares), "upper", None, MIX_SHIFT)
    out[f"unsolvable share at K={fig['k']}"] = Stat(fig["unsolvable"], "upper", fig["n"],
                                                    UNSOLVABLE_SHIFT)
    return out


def _rate(r: dict[str, Any], shift: float) -> Stat:
    return Stat(float(r["rate"]), "upper", int(r["n"]), shift)


def _tv(a: dict[str, float], b: dict[str, float]) -> float:
    return 0.5 * sum(abs(a.get(c, 0.0) - b.get(c, 0.0)) for c in set(a) | set(b))


# --- calibration (slow: run by the script, shipped as JSON) --------------------------------


def _sd_floor(mean: float, n: float | None) -> float:
    if n is None or n <= 0:
        return SHARE_SD_FLOOR
    p = min(max(mean, 1.0 / n), 0.5)
    return math.sqrt(p * (1 - p) / n)


def _summarise(values: dict[str, list[float]], stats: dict[str, list[Stat]]) -> dict[str, Any]:
    checks: dict[str, Any] = {}
    for name, v in values.items():
        arr = np.asarray(v, dtype=float)
        first = stats[name][0]
        ns = [s.n for s in stats[name] if s.n is not None]
        n_mean = float(np.mean(ns)) if ns else None
        sd = max(float(arr.std(ddof=1)) if len(arr) > 1 else 0.0,
                 _sd_floor(float(arr.mean()), n_mean))
        checks[name] = {
            "side": first.side,
            "mean": round(float(arr.mean()), 6),
            "sd": round(sd, 6),
            "count": len(arr),
            "n": None if n_mean is None else round(n_mean, 1),
            "quantiles": [round(float(q), 6) for q in np.percentile(arr, QUANTILES)],
        }
    return checks


def z_score(value: float, entry: dict[str, Any]) -> float:
    z = (value - entry["mean"]) / entry["sd"]
    return abs(z) if entry["side"] == "both" else z


def episode_subset(suite: Any, episodes: int, rng: np.random.Generator) -> Any:
    """A random subset of a loaded suite's episodes, as a suite."""
    ep_ids = sorted({c.ep_id for c in suite.cases})
    chosen = set(rng.choice(ep_ids, size=episodes, replace=False).tolist())
    return dataclasses.replace(suite, cases=tuple(c for c in suite.cases if c.ep_id in chosen))


def calibrate_size(
    suite: Any,
    episodes: int,
    subsets: int,
    rng: np.random.Generator,
    figures: Callable[[Any], dict[str, Any]],
    ref: dict[str, Any],
) -> dict[str, Any]:
    """The per-check distributions and ``z_star`` over ``subsets`` random val subsets."""
    per_subset: list[dict[str, Stat]] = []
    questions = []
    for _ in range(subsets):
        subset = episode_subset(suite, episodes, rng)
        questions.append(len(subset.cases))
        per_subset.append(statistics(figures(subset), ref))
    values: dict[str, list[float]] = {}
    stats: dict[str, list[Stat]] = {}
    for st in per_subset:
        for name, s in st.items():
            values.setdefault(name, []).append(s.value)
            stats.setdefault(name, []).append(s)
    checks = _summarise(values, stats)
    max_z = [max(z_score(s.value, checks[name]) for name, s in st.items()) for st in per_subset]
    return {
        "episodes": episodes,
        "subsets": subsets,
        "questions": round(float(np.mean(questions)), 1),
        "z_star": round(float(np.quantile(max_z, 1 - FAMILY_ALPHA)), 4),
        # each subset's largest z-score, so another family-wise level needs no recomputation
        "max_z": sorted(round(float(z), 3) for z in max_z),
        "checks": checks,
    }


def calibrate(
    suite: Any,
    figures: Callable[[Any], dict[str, Any]],
    ref: dict[str, Any],
    *,
    sizes: Iterable[int] = SIZES,
    subsets: int = SUBSETS,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The shipped calibration, recomputed from the loaded public val suite. Each size draws
    from its own stream (``seed``, size), so sizes can be computed apart and merged."""
    out: dict[str, Any] = {
        "source": {"file": suite.path.name, "sha256": suite.sha256},
        "seed": seed, "family_alpha": FAMILY_ALPHA, "scoring": ref["scoring"], "sizes": {},
    }  # fmt: skip
    for size in sizes:
        rng = np.random.default_rng([seed, size])
        out["sizes"][str(size)] = calibrate_size(suite, size, subsets, rng, figures, ref)
        if progress:
            progress(f"{size} episodes: z* {out['sizes'][str(size)]['z_star']}")
    return out


# --- judging a suite -----------------------------------------------------------------------


def load_calibration(path: Path = CALIBRATION_PATH) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def merge_calibration(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``new``'s sizes over ``old``'s when both come from the same val file and rule; else
    ``new`` alone."""
    same = all(old.get(k) == new[k] for k in ("source", "seed", "family_alpha", "scoring"))
    if not same:
        return new
    sizes = {**old["sizes"], **new["sizes"]}
    return {**new, "sizes": {k: sizes[k] for k in sorted(sizes, key=int)}}


def size_for(episodes: int, calibration: dict[str, Any]) -> dict[str, Any]:
    """The calibrated size a suite of ``episodes`` episodes is judged at."""
    sizes = sorted(int(s) for s in calibration["sizes"])
    fit = [s for s in sizes if s <= episodes] or sizes[:1]
    return calibration["sizes"][str(fit[-1])]


def percentile(value: float, entry: dict[str, Any]) -> float:
    """Where ``value`` falls among the val subsets, in percent (from the stored quantiles)."""
    q = np.asarray(entry["quantiles"])
    if value <= q[0]:
        return 0.0
    if value >= q[-1]:
        return 100.0
    # the upper end of a run of equal quantiles: a value val reaches often is not its tail
    idx = int(np.searchsorted(q, value, side="right"))
    lo, hi = q[idx - 1], q[idx]
    frac = 1.0 if hi == lo else (value - lo) / (hi - lo)
    return float(QUANTILES[idx - 1] + frac * (QUANTILES[idx] - QUANTILES[idx - 1]))


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def judge_stat(name: str, stat: Stat, entry: dict[str, Any] | None, z_star: float) -> dict:
    """One check: the value, its z-score and val percentile, the limit(s) it must stay within,
    the power at this size against a shortcut of ``stat.shift`` (normal approximation), and the
    verdict. A statistic val's subsets never had (a category val lacks) is reported, not judged."""
    if entry is None:
        return {"name": name, "value": stat.value, "limit": None, "passed": True,
                "calibrated": False}  # fmt: skip
    sd = entry["sd"]
    z = z_score(stat.value, entry)
    upper = entry["mean"] + z_star * sd
    lower = entry["mean"] - z_star * sd if entry["side"] == "both" else None
    power = _normal_sf(z_star - stat.shift / sd)
    return {
        "name": name,
        "value": stat.value,
        "limit": upper,
        "lower_limit": lower,
        "side": entry["side"],
        "val_mean": entry["mean"],
        "z": round(z, 3),
        "percentile": round(percentile(stat.value, entry), 1),
        "power": round(power, 3),
        "shift": stat.shift,
        "passed": bool(z <= z_star),
        "calibrated": True,
    }


def judge_figures(
    fig: dict[str, Any], ref: dict[str, Any], calibration: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every check of one suite against val's subsets of its size, and the size used."""
    size = size_for(int(fig["episodes"]), calibration)
    checks = [
        judge_stat(name, stat, size["checks"].get(name), size["z_star"])
        for name, stat in statistics(fig, ref).items()
    ]
    used = {k: size[k] for k in ("episodes", "subsets", "questions", "z_star")}
    return checks, {**used, "family_alpha": calibration["family_alpha"]}
