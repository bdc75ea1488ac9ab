"""`recallbench list agents|transports|export-formats`: what can be named. Other listings
(suites) plug into LISTERS."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from recallbench.cli.formats import add_format_option, as_data


def _list_agents(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.agents.registry import list_agents
    from recallbench.console import fit_table

    if as_data(args):
        from recallbench.report.formats import write_records

        write_records([{"name": name, "runs_on": " ".join(info["targets"]),
                        "kind": info["kind"], "what": info["summary"], "source": info["source"]}
                       for name, info in list_agents().items()], args.format)
        return 0
    rows = [[name, ", ".join("findingdory-navigation" if r == "navigation" else r
                             for r in info["targets"]) or "-",
             info["kind"], info["summary"], info["source"]]
            for name, info in list_agents().items()]
    console = Console()
    # kind: what its score means (docs/agents.md); at 80 columns the descriptions get a table of
    # their own beside the names
    console.print(fit_table("Agents: a name means the same on every benchmark it runs on (or "
                            "give module:Class / path.py:Class)",
                            ["name", "runs on", "kind", "what it is", "source"], rows,
                            width=console.width, wrap={3, 4}))
    return 0


def _list_rows(args: argparse.Namespace, title: str, keys: tuple[str, ...],
               headers: list[str], rows: list[list[str]]) -> int:
    """A listing as records (--format json/csv, keyed by ``keys``) or a table fitted to the
    console, its last column wrapped."""
    if as_data(args):
        from recallbench.report.formats import write_records

        write_records([dict(zip(keys, row, strict=True)) for row in rows], args.format)
        return 0
    from rich.console import Console

    from recallbench.console import fit_table

    console = Console()
    console.print(fit_table(title, headers, rows, width=console.width, wrap={len(headers) - 1}))
    return 0


def _list_transports(args: argparse.Namespace) -> int:
    from recallbench.agents.transports import transports

    return _list_rows(args, "Policy transports: --policy (scenemem) or a run agent names one by "
                      "its scheme (else module:Class); plugins: entry point group "
                      "recallbench.policy_transports", ("policy", "kind", "extra", "what"),
                      ["policy", "kind", "extra", "what it is"],
                      [[t.usage, t.kind, t.extra or "-", t.doc] for t in transports()])


def _list_export_formats(args: argparse.Namespace) -> int:
    from recallbench.export.formats import ENTRY_POINT_GROUP, export_formats

    return _list_rows(args, "Export formats: recallbench export --dataset-format NAME; plugins: "
                      f"entry point group {ENTRY_POINT_GROUP}",
                      ("format", "reads", "extra", "what"),
                      ["format", "reads", "extra", "what it writes"],
                      [[f.name, f.benchmark, f.extra or "-", f.doc] for f in export_formats()])


# what -> handler; another area can add e.g. LISTERS["suites"] = its handler.
LISTERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "agents": _list_agents, "transports": _list_transports,
    "export-formats": _list_export_formats}


def _handle(args: argparse.Namespace) -> int:
    return LISTERS[args.what](args)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("list", help="list agents (and other registered things)")
    parser.add_argument("what", choices=sorted(LISTERS), help="what to list")
    add_format_option(parser)
    parser.set_defaults(func=_handle)
