"""The SceneMem suite audit: do policies without memory solve the suite?

Runs, through the SceneMem runner (its executor, workers and run log), the memoryless search
policy (opens fixture after fixture, never looks at the videos), the random-fixture policy (one
random fixture with a door, opened with the scripted controller), the do-nothing policy and the
privileged oracle on every probe, with each probe's own step budget (the card's 1,500 when the
spec gives none). It reports per fixture type the card's ``memory_success`` and recallbench's
strict ``first_open_success`` (benchmarks.scenemem.openings), each with a Wilson 95% interval,
the fixtures opened before success, and the fixture-type mix.

Checks (judged on suites of at least ``MIN_N`` probes, on the suite's primary metric): every
no-memory policy at most ``SHORTCUT_LIMIT``, the oracle at least ``ORACLE_FLOOR``.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from recallbench.agents.registry import NO_MEMORY_KINDS, known_kind
from recallbench.audit.core import check, judge, rate
from recallbench.audit.readability import scenemem_readability
from recallbench.benchmarks.scenemem.metrics import BY_NAME, METRIC_NAMES
from recallbench.benchmarks.scenemem.openings import primary_metric
from recallbench.errors import InputError

AGENTS = {
    "memoryless-search": "recallbench.agents.scenemem_baselines:MemorylessSearchPolicy",
    "random-fixture": "recallbench.agents.hierarchical:HierarchicalRandom",
    "do-nothing": "recallbench.agents.scenemem_baselines:DoNothingPolicy",
    "oracle": "recallbench.agents.hierarchical:HierarchicalPrivileged",
}
# the policies without memory (checked against the shortcut limit) and the privileged ceiling,
# told by the registry's kind of each one's class
SHORTCUTS = tuple(name for name, t in AGENTS.items() if known_kind(t) in NO_MEMORY_KINDS)
ORACLE = next(name for name, t in AGENTS.items() if known_kind(t) == "privileged")
OPTIONS = ("workers",)  # the command-line options audit() takes (audit.core)
MIN_N = 40  # probes: below it a rate's interval is too wide for the limits below to judge
UNIT = "probes"
ITEM = "scenario"  # what `generate --n` counts
SHORTCUT_LIMIT = 0.25
ORACLE_FLOOR = 0.95


def suite_size(suite_dir: Path) -> tuple[int, int]:
    """(probes, scenarios) of a suite, from its specs (audit.core.too_small)."""
    from recallbench.benchmarks.scenemem.spec import discover_scenarios, parse_eval_spec

    roots = discover_scenarios(Path(suite_dir))
    probes = 0
    for root in roots:
        try:
            probes += len(parse_eval_spec(root / "eval_spec.json").tests)
        except InputError:
            continue  # the audit's run reports a broken scenario
    return probes, len(roots)


def _values(records: list[dict[str, Any]], metric: str) -> list[float]:
    return [v for v in map(BY_NAME[metric].value, records) if v is not None]


def _metric_block(records: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault(str(r.get("fixture_type")), []).append(r)
    return {"overall": rate(_values(records, metric)),
            "groups": {g: rate(_values(rs, metric)) for g, rs in sorted(groups.items())}}


def agent_block(records: list[dict[str, Any]], primary: str) -> dict[str, Any]:
    """One policy's figures: ``overall``/``groups`` on the primary metric, both metrics in full,
    the mean number of other fixtures opened before success, and errored tests."""
    blocks = {m: _metric_block(records, m) for m in METRIC_NAMES}
    before = [r["fixtures_opened_before_success"] for r in records
              if r.get("memory") and r.get("fixtures_opened_before_success") is not None]
    return {
        **blocks[primary],
        **blocks,
        "fixtures_opened_before_success": {
            "mean": sum(before) / len(before) if before else None, "n": len(before)},
        "errors": sum(1 for r in records if r.get("error")),
    }


def _run_policy(suite_dir: Path, target: str, run_dir: Path, workers: int,
                console: Any) -> list[dict[str, Any]]:
    from recallbench.benchmarks.scenemem.options import ScenememConfig
    from recallbench.executor import ExecutorSettings
    from recallbench.run.runlog import RUN_LOG, completed
    from recallbench.run.runner import Planned, RunContext
    from recallbench.run.scenemem_runner import RUNNER

    # prepare -> run, as `recallbench scenemem` runs one policy into its --out and --run-dir
    config = ScenememConfig(data_dir=str(suite_dir), out=str(run_dir.with_suffix(".json")),
                            run_dir=str(run_dir), camera_obs=False)
    prepared = RUNNER.prepare(suite_dir, config)
    # resume=None: an audit folder kept from before (it has a run log) is finished
    RUNNER.run(prepared, Planned(target, target=target), run_dir,
               RunContext(execution=ExecutorSettings("local", workers), console=console))
    return list(completed(run_dir / RUN_LOG).values())


def audit(suite_dir: Path, *, console: Any = None, workers: int = 1,
          run_root: Path | None = None) -> dict[str, Any]:
    """Run the four policies on every probe of ``suite_dir`` and judge the checks.

    ``run_root`` keeps each policy's run folder (resumable); by default they go to a temporary
    folder removed afterwards."""
    from rich.console import Console

    suite_dir = Path(suite_dir)
    if not suite_dir.is_dir() or not any(p.is_dir() for p in suite_dir.glob("combo_*")):
        raise InputError(suite_dir, None, "no combo_* scenario folders: not a SceneMem suite")
    if workers < 1:
        raise InputError("--workers", None, f"must be >= 1, got {workers}")
    console = console or Console(stderr=True)
    quiet = Console(quiet=True)  # the runner's own tables would bury the audit's
    primary = primary_metric(suite_dir)
    runs: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="scenemem_audit_") as tmp:
        root = Path(run_root) if run_root is not None else Path(tmp)
        for name, target in AGENTS.items():
            console.print(f"audit: {name} on {suite_dir.name} ...", highlight=False)
            runs[name] = _run_policy(suite_dir, target, root / name, workers, quiet)
    reference = runs[ORACLE]
    mix = Counter(str(r.get("fixture_type")) for r in reference)
    report: dict[str, Any] = {
        "benchmark": "scenemem", "suite": str(suite_dir.resolve()), "n": len(reference),
        "min_n": MIN_N, "metric": primary, "metrics": list(METRIC_NAMES),
        "agents": {name: agent_block(records, primary) for name, records in runs.items()},
        "fixture_mix": {t: {"n": c, "share": c / len(reference)} for t, c in sorted(mix.items())},
        "max_steps": sorted({r.get("max_steps") for r in reference if r.get("max_steps")}),
    }
    report["oracle_ceiling"] = report["agents"][ORACLE]["overall"]
    checks = []
    for name in SHORTCUTS:
        value = report["agents"][name]["overall"]["rate"] or 0.0
        checks.append(check(f"{name} {primary} <= {SHORTCUT_LIMIT:.0%}", value, SHORTCUT_LIMIT,
                            value <= SHORTCUT_LIMIT))
    value = report["oracle_ceiling"]["rate"] or 0.0
    checks.append(check(f"{ORACLE} {primary} >= {ORACLE_FLOOR:.0%}", value, ORACLE_FLOOR,
                        value >= ORACLE_FLOOR))
    report["checks"] = checks
    report["readability"] = scenemem_readability(suite_dir)  # apart from checks (docs/audit.md)
    return judge(report)


def _cell(r: dict[str, Any]) -> str:
    if r["rate"] is None:
        return "-"
    return f"{100 * r['rate']:.1f} [{100 * r['lo']:.0f}-{100 * r['hi']:.0f}]"


def table(report: dict[str, Any], width: int = 80) -> Any:
    """Rows: each policy overall and per fixture type; columns: both metrics with intervals and
    the fixtures opened before success (split over two tables, policy first, at 80 columns)."""
    from recallbench.console import fit_table

    rows = []
    for name, a in report["agents"].items():
        before = a["fixtures_opened_before_success"]["mean"]
        rows.append([name, "all", str(a["memory_success"]["overall"]["n"]),
                     _cell(a["memory_success"]["overall"]),
                     _cell(a["first_open_success"]["overall"]),
                     "-" if before is None else f"{before:.2f}"])
        for group, r in a["memory_success"]["groups"].items():
            rows.append(["", group, str(r["n"]), _cell(r),
                         _cell(a["first_open_success"]["groups"][group]), ""])
    header = ["policy", "fixture type", "n", "memory_success\n% [95%]",
              "first_open_success\n% [95%]", "opened before\nsuccess"]
    return fit_table(f"SceneMem audit: {report['n']} probes (primary metric {report['metric']})",
                     header, rows, width=width, keys=3, right={2, 3, 4, 5})


def plot(report: dict[str, Any], png: Path) -> None:
    """Both metrics per policy (overall, 95% intervals) beside the primary metric per fixture
    type, with the shortcut limit and the oracle floor drawn in."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    agents = list(report["agents"])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5.2), width_ratios=[1, 1.6])
    x = np.arange(len(agents))
    for k, metric in enumerate(report["metrics"]):
        rs = [report["agents"][a][metric]["overall"] for a in agents]
        vals = np.array([100 * (r["rate"] or 0.0) for r in rs])
        # an interval's end can sit a rounding error past its rate (0 or 1): never negative
        err = np.maximum(0.0, np.array([[100 * ((r["rate"] or 0) - (r["lo"] or 0)) for r in rs],
                                        [100 * ((r["hi"] or 0) - (r["rate"] or 0)) for r in rs]]))
        ax1.bar(x + (k - 0.5) * 0.38, vals, 0.38, yerr=err, capsize=3, label=metric)
    ax1.axhline(100 * SHORTCUT_LIMIT, color="tab:red", ls="--", lw=1, label="shortcut limit")
    ax1.axhline(100 * ORACLE_FLOOR, color="tab:green", ls=":", lw=1, label="oracle floor")
    ax1.set_xticks(x, agents, rotation=15)
    ax1.set_ylim(0, 105)
    ax1.set_ylabel("% of probes (95% CI)")
    ax1.set_title(f"overall, n={report['n']}")
    ax1.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    groups = list(report["fixture_mix"])
    gx = np.arange(len(groups))
    width = 0.8 / len(agents)
    for k, a in enumerate(agents):
        by_group = [100 * (report["agents"][a]["groups"].get(g, {}).get("rate") or 0.0)
                    for g in groups]
        ax2.bar(gx + (k - (len(agents) - 1) / 2) * width, by_group, width, label=a)
    ax2.axhline(100 * SHORTCUT_LIMIT, color="tab:red", ls="--", lw=1)
    labels = [f"{g}\n(n={report['fixture_mix'][g]['n']})" for g in groups]
    ax2.set_xticks(gx, labels, fontsize=8)
    ax2.set_ylim(0, 105)
    ax2.set_title(f"{report['metric']} by fixture type")
    ax2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=len(agents))
    verdict = ("too small to judge" if not report["judged"]
               else "passes" if report["passed"] else "fails")
    fig.suptitle(f"SceneMem audit of {Path(report['suite']).name}: {verdict}")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
