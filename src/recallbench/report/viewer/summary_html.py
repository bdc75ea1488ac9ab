"""The sections report.html adds from the viewer's overview: privileged agents, breakdowns per
category / group / fixture type or template, paired tests and gains over the memoryless
baseline, and a link to the viewer. Plain HTML tables, so report.html stays one file."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

MAX_ROWS = 60  # a breakdown with more rows (templates) is cut here; the viewer has them all


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}"


def _ci(s: Mapping[str, Any] | None) -> str:
    if not s or s.get("value") is None:
        return "–"
    return f"{_pct(s['value'])} [{_pct(s['lo'])}, {_pct(s['hi'])}] n={s['n']}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _p(v: float | None) -> str:
    return "–" if v is None else f"{v:.3g}"


def benchmark_sections(bench: str, block: Mapping[str, Any],
                       agents: list[Mapping[str, Any]]) -> str:
    parts = []  # (privileged agents: marked in the report's table, explained under it)
    names = list(block.get("agents") or {})
    label = block["labels"][block["primary"]]
    for field, title in block["slices"].items():
        cells = block["breakdowns"][field]
        rows = [[name, *(_ci(cells[name].get(a)) for a in names)]
                for name in list(cells)[:MAX_ROWS]]
        parts.append(f"<h3>{html.escape(label)} % by {html.escape(title)} [95% CI]</h3>")
        parts.append(_table([title, *names], rows))
        if len(cells) > MAX_ROWS:
            parts.append(f"<p class='meta'>first {MAX_ROWS} of {len(cells)}; all in the "
                         "viewer</p>")
    paired = block["paired"]
    parts.append(f"<h3>Paired tests on {html.escape(label)}</h3>")
    parts.append(f"<p class='meta'>{html.escape(paired['test'])}; difference: "
                 f"{html.escape(paired['interval'])}; over the cases both agents have.</p>")
    rows = [[r["a"], r["b"], str(r["n"]), _pct(r.get("mean_a")), _pct(r.get("mean_b")),
             f"{_pct(r.get('diff'))} [{_pct(r.get('lo'))}, {_pct(r.get('hi'))}]",
             str(r.get("only_a", "–")), str(r.get("only_b", "–")), _p(r.get("p"))]
            for r in paired["pairs"] if r.get("n")]
    parts.append(_table(["A", "B", "n", "A %", "B %", "A - B (pp) [95% CI]", "only A",
                         "only B", "McNemar p"], rows))
    if paired.get("baseline"):
        base = paired["baseline"]
        parts.append(f"<h3>Gain over the memoryless baseline ({html.escape(base)})</h3>")
        rows = [[g["agent"], str(g["n"]), _pct(g.get("mean_a")), _pct(g.get("mean_b")),
                 f"{_pct(g.get('diff'))} [{_pct(g.get('lo'))}, {_pct(g.get('hi'))}]",
                 _p(g.get("p"))] for g in paired["gains"] if g.get("n")]
        parts.append(_table(["agent", "n", "agent %", f"{base} %", "gain (pp) [95% CI]",
                             "McNemar p"], rows))
    return "\n".join(parts)


def viewer_link(href: str) -> str:
    return (f"<p><a href='{html.escape(href)}'>Open the case viewer</a>: every case with its "
            "frames, the failure modes, transcripts and trajectories.</p>")
