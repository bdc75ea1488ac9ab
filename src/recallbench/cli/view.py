"""``recallbench view RUN_OR_COMPARISON``: write the static case viewer (and ``--serve`` it)."""

from __future__ import annotations

import argparse
from pathlib import Path


def _handle_view(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.errors import UsageError
    from recallbench.report.viewer.site import build_viewer

    if args.serve:
        _check_port(args.port)
    if args.out:
        from recallbench.cli.outputs import check_output_folder

        check_output_folder("--out", args.out)
    if (Path(args.path) / "manifest.json").is_file():  # a run folder: unfinished is said first
        from recallbench.cli.report import warn_unfinished
        from recallbench.report.runs import score_run

        # no case recorded: no page to show, unless --serve follows the run as it records
        if warn_unfinished(score_run(args.path), args.path, "recallbench view",
                           empty_fails=not args.serve):
            return 1
    console = Console(stderr=True)
    index = build_viewer(args.path, args.out, live=args.serve,
                         progress=lambda msg: console.print(msg, highlight=False))
    print(f"viewer: {index}")
    if not args.serve:
        return 0
    from recallbench.report.viewer.serve import serve

    try:
        serve(args.path, index.parent, args.port, console=console)
    except OSError as exc:  # e.g. the port is taken
        raise UsageError("--port", f"{args.port}: {exc}") from None
    except KeyboardInterrupt:
        pass
    return 0


def _check_port(port: int) -> None:
    """A port that cannot be served on is refused before the viewer is written (a taken one
    used to leave PATH/viewer behind; 99999 used to hang)."""
    import socket
    from http.server import ThreadingHTTPServer

    from recallbench.errors import UsageError

    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if ThreadingHTTPServer.allow_reuse_address:  # as the server will bind it
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
    except OSError as exc:
        raise UsageError("--port", f"{port}: {exc.strerror or exc}") from None
    finally:
        probe.close()


def register(subparsers: argparse._SubParsersAction) -> None:
    view = subparsers.add_parser(
        "view",
        help="write (and --serve) the case viewer of a run or a comparison",
        description=(
            "Write a static viewer to RUN_OR_COMPARISON/viewer/ (open its index.html from the "
            "folder, no server needed): overview, breakdowns, a case browser with filters and "
            "search, one page per case, paired tests. --serve serves it on 127.0.0.1 and "
            "rebuilds it as the run log grows, so an open page follows a run in progress."
        ),
    )
    view.add_argument("path", metavar="RUN_OR_COMPARISON",
                      help="a run folder (manifest.json) or a comparison (comparison.json)")
    view.add_argument("--out", default=None, help="viewer folder (default: PATH/viewer)")
    view.add_argument("--serve", action="store_true", help="serve on 127.0.0.1 and refresh")
    from recallbench.cli.options import int_in

    view.add_argument("--port", type=int_in(0, 65535), default=8765,
                      help="with --serve (default 8765; 0: any free port)")
    view.set_defaults(func=_handle_view)
