"""Tables as data: ``--format json|csv`` prints the rows a table shows, for scripts and CI.

Result tables come out tidy, one record per (table, row, metric) with the value and its 95%
interval as fractions, exactly as ``summary.json`` and ``comparison.json`` hold them; other
tables (``doctor``, ``list agents``) one record per row.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

FORMATS = ("table", "json", "csv")


def summary_records(summary: Mapping[str, Any], metrics: Sequence[str],
                    slices: Sequence[str] = ("group", "category")) -> list[dict[str, Any]]:
    """The rows ``tables.print_summary`` shows: overall, then each slice."""
    blocks = [("overall", "all", summary["overall"])]
    blocks += [(f"by {key}", name, block) for key in slices
               for name, block in (summary.get(f"by_{key}") or {}).items()]
    return [{"table": table, "name": name, "n": block.get("n"),
             **_interval(metric, block.get(metric))}
            for table, name, block in blocks for metric in metrics]


def comparison_records(comparison: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows ``report.compare.print_comparison`` shows: one per benchmark, agent, metric."""
    out = []
    for bench, block in comparison["benchmarks"].items():
        for agent in block.get("agents", []):
            for metric in block.get("metrics", []):
                out.append({"table": bench, "name": agent["agent"], "n": agent.get("n"),
                            "privileged": bool(agent.get("privileged")),
                            **_interval(metric, (agent.get("metrics") or {}).get(metric)),
                            "status": agent.get("status"), "note": agent.get("note") or ""})
    return out


def _interval(metric: str, value: Mapping[str, Any] | None) -> dict[str, Any]:
    value = value or {}
    return {"metric": metric, "value": value.get("value"), "lo": value.get("lo"),
            "hi": value.get("hi")}


def write_records(records: Iterable[Mapping[str, Any]], fmt: str,
                  stream: TextIO | None = None) -> None:
    """JSON (a list of objects) or CSV (a header of every key seen, in order) on ``stream``."""
    stream = stream or sys.stdout
    rows = list(records)
    if fmt == "json":
        json.dump(rows, stream, indent=1)
        stream.write("\n")
        return
    keys: dict[str, None] = {}
    for row in rows:
        keys.update(dict.fromkeys(row))
    writer = csv.DictWriter(stream, fieldnames=list(keys), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
