"""``recallbench view --serve``: serve the viewer on 127.0.0.1 and rebuild it as runs progress.

A watcher thread compares the run logs' sizes and modification times every ``interval`` s and
rebuilds the viewer's data when one changed; open pages poll ``data/stamp.json`` and reload
when it changes. Only 127.0.0.1 is bound: the viewer shows prompts and answers.
"""

from __future__ import annotations

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.errors import print_problem
from recallbench.report.viewer.site import build_viewer
from recallbench.report.viewer.sources import load_source

# What a browser on this machine sends as the Host of a loopback server ([::1] is IPv6's).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class _Handler(SimpleHTTPRequestHandler):
    """Static files of the viewer folder only: a request must name this server by its loopback
    address (a page of another site reaching it through DNS rebinding names its own host), a
    symlink inside the folder is never followed (it would serve any file of the machine), and no
    folder is listed."""

    def send_head(self) -> Any:
        if not self._host_ok():
            self.send_error(421, "Misdirected Request: use http://127.0.0.1, localhost or [::1]")
            return None
        if not self._inside(self.translate_path(self.path)):
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        address = self.server.server_address
        port = address[1] if isinstance(address, tuple) else ""
        return host in {f"{name}{suffix}" for name in LOOPBACK_NAMES for suffix in ("", f":{port}")}

    def list_directory(self, path: Any) -> Any:
        """No folder listings: a page names the files it loads; a listing would show them all."""
        self.send_error(404, "File not found")
        return None

    def _inside(self, path: str) -> bool:
        root = os.path.realpath(self.directory)
        real = os.path.realpath(path)
        if real != root and not real.startswith(root + os.sep):
            return False
        # no component between the folder and the file may be a symlink
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(self.directory))
        current = os.path.abspath(self.directory)
        for part in Path(rel).parts:
            current = os.path.join(current, part)
            if os.path.islink(current):
                return False
        return True

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a refreshed build is seen at once
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


def _logs_state(path: Path) -> tuple:
    """(path, size, mtime) of every run log the source names: what a refresh depends on."""
    out = []
    for run in load_source(path).runs:
        if run.run_dir is None:
            continue
        log = run.run_dir / "runlog.jsonl"
        if log.is_file():
            st = log.stat()
            out.append((str(log), st.st_size, st.st_mtime_ns))
    return tuple(out)


def watch(path: Path, viewer: Path, stop: threading.Event, console: Console,
          interval: float = 1.0) -> None:
    state = _logs_state(path)
    while not stop.wait(interval):
        try:
            now = _logs_state(path)
            if now != state:
                build_viewer(path, viewer, live=True)
                state = now
                console.print("viewer refreshed from the run log", highlight=False)
        except Exception as exc:  # a half-written comparison: try again at the next tick
            print_problem(f"refresh failed: {exc}", console=console)


def serve(path: str | Path, viewer: Path, port: int, console: Console | None = None,
          ready: threading.Event | None = None, stop: threading.Event | None = None) -> None:
    """Serve until interrupted (or ``stop`` is set); ``ready`` is set once listening."""
    console = console or Console(stderr=True)
    stop = stop or threading.Event()
    handler = functools.partial(_Handler, directory=str(viewer))
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as httpd:
        watcher = threading.Thread(target=watch, args=(Path(path), viewer, stop, console),
                                   daemon=True)
        watcher.start()
        host, bound = httpd.server_address[:2]
        console.print(f"serving http://{host!s}:{bound}/ (Ctrl-C stops)", highlight=False)
        if ready is not None:
            ready.port = bound  # type: ignore[attr-defined]
            ready.set()
        server = threading.Thread(target=httpd.serve_forever, daemon=True)
        server.start()
        try:
            while not stop.wait(0.5):
                pass
        finally:
            stop.set()
            httpd.shutdown()
