"""A small self-contained HTML report: the comparison tables and the charts embedded as base64
PNGs, so the single file can be mailed or attached to an issue."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from recallbench.benchmarks.registry import get_benchmark
from recallbench.io import write_text_atomic
from recallbench.report.compare import (
    plot_benchmark,
    privileged_note,
    shown_metrics,
    table_rows,
    title,
)
from recallbench.report.paths import relative_paths

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th:first-child, td:first-child, th:last-child, td:last-child { text-align: left; }
.agents td:first-child { white-space: nowrap; }  /* an agent's name and its mark together */
th { background: #f3f3f3; } .meta { color: #666; font-size: 0.85em; }
img { max-width: 100%; border: 1px solid #eee; }
.warn { background: #fff4e5; border: 1px solid #f0b46c; padding: 0.5em 1em; margin: 1em 0; }
.warn ul { margin: 0.3em 0; padding-left: 1.2em; }
"""


def _table(header: list[str], rows: list[list[str]], css: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    cls = f" class='{css}'" if css else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _definitions(bench: str, metrics: list[str]) -> str:
    """Each metric's one-sentence definition, from the benchmark's seam (as the viewer shows)."""
    benchmark = get_benchmark(bench)
    labels, defs = benchmark.labels(), benchmark.definitions()
    items = "".join(f"<dt>{html.escape(labels.get(m, m))}</dt><dd>{html.escape(defs[m])}</dd>"
                    for m in metrics if m in defs)
    return f"<dl class='meta definitions'>{items}</dl>" if items else ""


def render_html(comparison: Mapping[str, Any], pngs: Mapping[str, Path],
                overview: Mapping[str, Any] | None = None) -> str:
    """``overview`` (the case viewer's, when it was built) adds breakdowns, paired tests and a
    link to the viewer."""
    from recallbench.report.viewer.summary_html import benchmark_sections, viewer_link

    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<title>recallbench comparison</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>recallbench: agent comparison</h1>",
        f"<p class='meta'>suite {html.escape(str(comparison.get('suite')))} &middot; "
        f"{html.escape(str(comparison.get('created')))} &middot; intervals are 95% percentile "
        "bootstrap intervals over instances (2,000 resamples)</p>",
    ]
    warnings = comparison.get("warnings") or []
    if warnings:  # partial failure is shown first, with counts, never only in a log
        items = "".join(f"<li>{html.escape(w)}</li>" for w in warnings)
        parts.append(f"<div class='warn'><strong>{len(warnings)} warning"
                     f"{'s' if len(warnings) > 1 else ''}</strong><ul>{items}</ul></div>")
    if overview is not None:
        parts.append(viewer_link("viewer/index.html"))
    for bench, block in comparison["benchmarks"].items():
        header, rows = table_rows(bench, block)
        parts.append(f"<h2>{html.escape(title(bench))}</h2>")
        parts.append(f"<p class='meta'>{html.escape(block['suite'])}</p>")
        parts.append(_table(header, rows, "agents"))
        if note := privileged_note(block):  # the console's mark, explained the same way
            parts.append(f"<p class='meta'>{html.escape(note)}</p>")
        parts.append(_definitions(bench, shown_metrics(block)))
        targets = [f"{a['agent']} = {a['target']}" for a in block["agents"] if a.get("target")]
        if targets:
            parts.append("<p class='meta'>ran as: " + html.escape("; ".join(targets)) + "</p>")
        if bench in pngs:
            data = base64.b64encode(Path(pngs[bench]).read_bytes()).decode("ascii")
            parts.append(f"<img alt='{html.escape(bench)} chart' "
                         f"src='data:image/png;base64,{data}'>")
        viewed = (overview or {}).get("benchmarks", {}).get(bench)
        if viewed and not viewed.get("empty"):
            parts.append(benchmark_sections(bench, viewed, overview["agents"]))  # type: ignore[index]
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(comparison: Mapping[str, Any], pngs: Mapping[str, Path], path: Path,
               overview: Mapping[str, Any] | None = None) -> Path:
    """Write through a temp file and rename, so a reader never sees half a report."""
    path = Path(path)
    # paths as seen from the page (its suite, the agents' files), none of this machine's
    shown = relative_paths(comparison, path.parent)
    return write_text_atomic(path, render_html(shown, pngs, overview))


def write_report(comparison: Mapping[str, Any], out: str | Path) -> dict[str, Path]:
    """The PNG per benchmark and ``report.html``; returns {name: path}. When the case viewer
    was built in ``out/viewer``, the report adds its breakdowns and paired tests."""
    from recallbench.report.viewer.site import VIEWER_DIR, read_overview

    out = Path(out)
    written: dict[str, Path] = {}
    pngs: dict[str, Path] = {}
    shown = relative_paths(comparison, out)  # a chart's agent names are a page's too
    for bench, block in shown["benchmarks"].items():
        png = plot_benchmark(bench, block, out / f"{bench}_comparison.png")
        if png is not None:
            pngs[bench] = png
            written[f"{bench}_png"] = png
    overview = read_overview(out / VIEWER_DIR)
    written["html"] = write_html(comparison, pngs, out / "report.html", overview)
    return written
