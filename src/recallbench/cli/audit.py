"""``recallbench audit SUITE``: do agents without memory fail this suite?

Runs the benchmark's audit (``recallbench.audit``), writes ``audit.json`` and ``audit.png``,
prints the table and the checks. Exit 0 when the suite passes, 1 when a check fails, 2 on a user
error, among them a suite smaller than its audit judges (refused before any work, saying the
size to generate: ``audit.core.too_small``, the rule ``recallbench generate`` follows too).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from recallbench.cli.formats import add_format_option, as_data

SCORINGS = ("published", "official")
WATCH = 97.5  # percentile of val's subsets from which a passing check is still printed


def _default_out(suite: Path) -> Path:
    return suite if suite.is_dir() else Path(f"audit-{suite.stem}")


def _generic_table(report: dict[str, Any]) -> Any:
    from rich.table import Table

    t = Table(title=f"{report['benchmark']} audit: {report['n']} items")
    for col in ("agent", "rate %", "95% interval", "n"):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for name, a in report["agents"].items():
        r = a["overall"]
        interval = "-" if r["lo"] is None else f"{100 * r['lo']:.1f}-{100 * r['hi']:.1f}"
        value = "-" if r["rate"] is None else f"{100 * r['rate']:.1f}"
        t.add_row(name, value, interval, str(r["n"]))
    return t


def _crossed(c: dict[str, Any]) -> str:
    """One failed check: the value and its limit; for a calibrated check also where it falls
    among val's subsets of the suite's size."""
    if "z" not in c:
        return f"{c['name']}: {c['value']:.4f} > {c['limit']:.4f}"
    low = c.get("lower_limit")
    bound = (f"< {low:.4f}" if low is not None and c["value"] < low else f"> {c['limit']:.4f}")
    return (f"{c['name']}: {c['value']:.4f} {bound} (val subsets: mean {c['val_mean']:.4f}, "
            f"percentile {c['percentile']:.1f}, z {c['z']:.2f})")


def readability_table(section: dict[str, Any]) -> Any:
    """The readability section (``audit.readability``): each figure against its bound."""
    from rich.table import Table

    t = Table(title=f"readability of the offered frames ({section.get('days', '?')} "
              f"{section.get('unit', 'days')})")
    for col in ("figure", "value %", "bound %", "n", "verdict"):
        t.add_column(col, justify="left" if col in ("figure", "verdict") else "right")
    for r in section["rows"]:
        bound = ("<= " if r["side"] == "max" else ">= ") + f"{100 * r['bound']:g}"
        if r["value"] is None:
            t.add_row(r["label"], "n/a", bound, "-", f"n/a: {r['reason']}")
            continue
        verdict = "[green]pass[/green]" if r["passed"] else "[red]fail[/red]"
        t.add_row(r["label"], f"{100 * r['value']:.1f}", bound, str(r["n"]), verdict)
    for key, label in (("textured_object_share", "textured object pixels"),
                       ("object_target_best_view_small", "object goals small in every frame"),
                       ("object_target_small_cut", "under 32x32 and cut by the edge")):
        value = section.get(key)
        if value is not None:
            t.add_row(label, f"{100 * value:.1f}", "-", "-", "(information)")
    return t


def print_report(report: dict[str, Any], console: Any) -> None:
    from recallbench.audit.core import auditor

    module = auditor(report["benchmark"])
    console.print(module.table(report, console.width) if hasattr(module, "table")
                  else _generic_table(report))
    if report.get("readability"):
        section = report["readability"]
        console.print(readability_table(section))
        crossed = sum(r["passed"] is False for r in section["rows"])
        console.print(f"readability: {crossed} of {section['measured']} measured bounds crossed "
                      "(reported apart from the checks and the verdict)", highlight=False)
    failed = [c for c in report["checks"] if not c["passed"]]
    for c in failed:
        console.print(f"  [red]crossed[/red] {_crossed(c)}", highlight=False)
    # past what 97.5% of val's subsets reach, yet within the family-wise limit: worth a look
    for c in report["checks"]:
        if c["passed"] and c.get("side") == "upper" and (c.get("percentile") or 0) >= WATCH:
            console.print(f"  [yellow]unusual[/yellow] {c['name']}: {c['value']:.4f} (val "
                          f"subsets: mean {c['val_mean']:.4f}, percentile {c['percentile']:.1f}, "
                          f"z {c['z']:.2f})", highlight=False)
    size = report.get("calibration")
    if size:
        console.print(f"judged against {size['subsets']} subsets of the public val with "
                      f"{size['episodes']} episodes (about {size['questions']:.0f} questions): "
                      f"a check fails beyond z = {size['z_star']:.2f}, which at most "
                      f"{100 * size['family_alpha']:g}% of them reach on any check",
                      highlight=False)
    if not report["judged"]:
        verdict = (f"too small to judge ({report['n']} < {report['min_n']}): "
                   f"{len(failed)} of {len(report['checks'])} checks would be crossed")
    elif report["passed"]:
        verdict = f"[green]passes[/green] all {len(report['checks'])} checks"
    else:
        verdict = f"[red]fails[/red] {len(failed)} of {len(report['checks'])} checks"
    console.print(f"audit: {verdict}")


def small_suite(size: Any) -> str:
    """Why a suite is not audited, and the size to generate instead (``audit`` and
    ``generate`` say it alike)."""
    from recallbench.benchmarks.registry import BENCHMARKS

    title = BENCHMARKS[size.benchmark].title
    per = (f" at this suite's {size.n / size.items:.3g} {size.unit} a {size.item}"
           if size.items and size.n != size.items else "")
    unit = size.unit.removesuffix("s") if size.n == 1 else size.unit
    return (f"{size.n} {unit}, below the {size.min_n} a {title} audit judges: to audit "
            f"one, generate at least {size.min_n} {size.unit} (--n {size.items_needed}{per})")


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.audit.core import (
        auditor,
        detect_benchmark,
        run_audit,
        too_small,
        write_report,
    )

    if args.against:
        return _leakage(args)
    if args.out:
        from recallbench.cli.outputs import check_output_folder

        check_output_folder("--out", args.out)
    suite = Path(args.suite)
    benchmark = detect_benchmark(suite)  # a wrong path fails here, before any work
    small = too_small(suite)  # minutes of agents that could not end in a verdict: refused
    if small is not None:
        from recallbench.errors import InputError

        raise InputError(suite, None, small_suite(small))
    # the options its audit takes; the others keep their defaults there
    opts: dict[str, Any] = {name: getattr(args, name) for name in auditor(benchmark).OPTIONS
                            if getattr(args, name, None) is not None}
    # wide tables are split over several at the console's width (80 in a pipe), never folded
    console = Console()
    report = run_audit(suite, console=Console(stderr=True), **opts)
    json_path, png_path = write_report(report, Path(args.out) if args.out else _default_out(suite))
    if as_data(args):  # the checks as rows on stdout, for CI
        from recallbench.report.formats import write_records

        write_records(report["checks"], args.format)
        console = Console(stderr=True)
    else:
        print_report(report, console)
    console.print(f"wrote {json_path} and {png_path}", highlight=False)
    return 0 if report["passed"] else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    from recallbench.cli.options import positive_int

    p = subparsers.add_parser(
        "audit",
        help="check that agents without memory fail a suite (shortcut rates vs the public set)",
        description="Run every agent that does not use the video, and the privileged oracle, on "
        "a suite; write audit.json and audit.png; exit 1 when a check fails (FindingDory: "
        "from 2 episodes, against val's own subsets of the suite's size; SceneMem: from 40 "
        "probes). A smaller suite is refused before any work.",
    )
    p.add_argument("suite", metavar="SUITE", help="suite folder (or a FindingDory QA file)")
    p.add_argument("--out", default=None,
                   help="folder for audit.json and audit.png (default: the suite folder)")
    p.add_argument("--scoring", choices=SCORINGS, default="published",
                   help="FindingDory scoring definition (default published)")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="SceneMem: worker processes")
    add_format_option(p)
    p.add_argument("--against", action="append", default=[], metavar="DIR",
                   help="instead of the agents: report every day of SUITE (a generated suite or "
                   "an export) that is also a day of DIR (repeatable); exit 1 on any overlap")
    p.set_defaults(func=_handle)


def _leakage(args: argparse.Namespace) -> int:
    """``--against``: the leakage rule's overlaps (export.leakage), one line each."""
    from recallbench.export.leakage import days_of, excluded_days, overlaps

    days = days_of(args.suite, "SUITE")
    found = overlaps(days, excluded_days(args.against, "--against"))
    for o in found:
        print(f"leak: {o.line()}")
    print(f"{len(found)} of {len(days)} days of {args.suite} overlap "
          f"{len(args.against)} folder(s) checked")
    return 1 if found else 0
