"""``--format table|json|csv`` for every command that prints a table (``report.formats``)."""

from __future__ import annotations

import argparse

from recallbench.report.formats import FORMATS


def add_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="table (default, fits any width), or the tables' rows as json or "
                        "csv on stdout (everything else goes to stderr)")


def as_data(args: argparse.Namespace) -> bool:
    """True when the tables go out as json/csv rows instead."""
    return getattr(args, "format", "table") != "table"
