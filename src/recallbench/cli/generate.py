"""``recallbench generate scenemem|findingdory``: record benchmark suites in the built-in world.

Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS
from recallbench.cli.errors import Parser

DEFAULT_N = 2
# A strip a person reads: one frame on the way in and one out at least; at most 32 (a PNG of
# 32 x 164 px columns is 5,500 px wide; 5,000 frames made one 820,000 px wide).
MAX_STRIP_FRAMES = 32
# The world's offscreen buffer (world/builder.py: offwidth/offheight): a larger frame cannot be
# rendered (--size 100000 used to start, then fail allocating a 28 GiB frame).
MAX_FRAME_SIZE = 1280


def frame_size(text: str) -> int:
    """An argparse ``type``: an even frame side in 16..MAX_FRAME_SIZE (the video encoder needs
    even sides), refused at parsing naming the flag."""
    from recallbench.cli.options import int_in

    value = int_in(16, MAX_FRAME_SIZE)(text)
    if value % 2:
        raise argparse.ArgumentTypeError(f"must be even, got {value}")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    from recallbench.cli.options import positive_int

    p.add_argument("--out", required=True, help="suite folder (created; reruns resume it)")
    p.add_argument("--n", type=int, default=DEFAULT_N, help=f"items (default {DEFAULT_N})")
    from recallbench.benchmarks.options import seed

    p.add_argument("--seed", type=seed, default=0, help="suite seed (default 0)")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="worker processes (default: one per core)")
    p.add_argument("--distractors", type=int, default=None, help="extra objects in the home")
    p.add_argument("--revisits", type=int, default=None,
                   help="extra visits to places the robot already used")
    p.add_argument("--rooms", type=int, default=None,
                   help="scenemem: 1 (kitchen), 4 or 6 (home); findingdory: rooms with chores")
    p.add_argument("--no-audit", action="store_true",
                   help="do not audit the suite afterwards (run `recallbench audit OUT` later); "
                   "a suite too small for the audit to judge is never audited here")
    p.add_argument("--exclude", action="append", default=[], metavar="DIR",
                   help="a training export (or suite) no day of this suite may overlap; "
                   "checked after generation and recorded in suite.json (repeatable)")
    from recallbench.cli.execution import add_execution_options

    add_execution_options(p)


class _GenerateParser(Parser):
    """`recallbench generate`'s parser: each registered benchmark's generator adds its
    subcommand (``Generator.command``) on first use. The installed distributions are scanned
    for plugin benchmarks only when the word after ``generate`` is not a built-in's (so
    ``generate --help`` lists the built-ins', and ``generate <plugin>`` finds the plugin)."""

    _commands: argparse._SubParsersAction | None = None

    def load_commands(self, plugins: bool) -> None:
        """Add the generators' subcommands now (once); what parsing does on first use."""
        if self._commands is not None:
            add_generator_commands(self._commands, plugins=plugins)
            self._commands = None

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        from recallbench.benchmarks.registry import BUILTIN

        word = next(iter(args or []), "-")
        self.load_commands(plugins=not word.startswith("-") and word not in BUILTIN)
        return super().parse_known_args(args, namespace)


def add_generator_commands(sub: argparse._SubParsersAction, plugins: bool) -> None:
    """``generate <benchmark>`` for every benchmark whose generator names a command, built-ins
    first (``plugins``: the entry points' too)."""
    from recallbench.benchmarks.registry import declared_generators
    from recallbench.loader import load_attr

    for ref in declared_generators(plugins=plugins).values():
        command = load_attr(ref).command
        if command:
            load_attr(command)(sub)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "generate",
        help="record SceneMem or FindingDory suites with a scripted robot in the built-in world",
        description="Generate a benchmark suite: deterministic in --seed, parallel over items, "
        "resumable (rerun the same command to finish a killed generation).",
    )
    sub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    p.__class__ = _GenerateParser
    p._commands = sub  # type: ignore[attr-defined]


def scenemem_command(sub: argparse._SubParsersAction) -> None:
    """``generate scenemem`` and ``generate strip`` (SceneMem's generator's command)."""
    s = sub.add_parser("scenemem", help="SceneMem scenarios (combo_* folders)")
    _common(s)
    from recallbench.cli.options import int_in, positive_int

    s.add_argument("--tasks", type=positive_int, default=None,
                   help="tasks per scenario (default 5..7)")
    s.add_argument("--pick-place", type=int, default=3,
                   help="pick-and-place tasks among them (default 3)")
    s.add_argument("--idle", type=int, default=0,
                   help="steps the robot waits after each task (longer videos)")
    s.add_argument("--size", type=frame_size, default=256,
                   help=f"video frame size, even, 16..{MAX_FRAME_SIZE} (default 256)")
    s.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS,
                   help=f"steps per probe in eval_spec (the card's {DEFAULT_MAX_STEPS:,})")
    s.add_argument("--destinations", default=None,
                   help="comma-separated fixture types to put objects into")
    s.add_argument("--no-verify", action="store_true", help="write probes unverified")
    s.add_argument("--no-camera-obs", action="store_true",
                   help="env_args: use_camera_obs false (faster evaluation of blind policies)")
    s.set_defaults(func=_scenemem)

    t = sub.add_parser("strip", help="frame strip PNG of a generated SceneMem scenario")
    t.add_argument("scenario", help="combo_* folder")
    t.add_argument("--out", default=None, help="PNG path (default <scenario>/strip.png)")
    t.add_argument("--cameras", default="robot0_agentview_left,robot0_eye_in_hand",
                   help="comma-separated views, one line of frames each")
    t.add_argument("--frames", type=int_in(2, MAX_STRIP_FRAMES), default=6,
                   help=f"frames per probe, 2..{MAX_STRIP_FRAMES} (default 6)")
    t.set_defaults(func=_strip)


def findingdory_command(sub: argparse._SubParsersAction) -> None:
    """``generate findingdory`` (FindingDory's generator's command)."""
    f = sub.add_parser("findingdory", help="FindingDory episodes and QA files")
    _common(f)
    from recallbench.cli.options import int_in, positive_int
    from recallbench.generate.findingdory_knobs import MAX_INTERACTIONS, MIN_INTERACTIONS

    f.add_argument("--interactions", type=int_in(MIN_INTERACTIONS, MAX_INTERACTIONS),
                   default=None,
                   help="pick-and-place per day (default: 2..11 drawn per day, as in val)")
    f.add_argument("--steps", type=positive_int, default=None,
                   help="frames in the day, at least --subsample (default 4000)")
    f.add_argument("--width", type=frame_size, default=None)
    f.add_argument("--height", type=frame_size, default=None)
    f.add_argument("--subsample", type=positive_int, default=None,
                   help="frames of the subsampled video")
    f.set_defaults(func=_findingdory)


def _check_out(args: argparse.Namespace) -> None:
    from recallbench.cli.outputs import check_output_folder

    check_output_folder("--out", args.out)  # a suite folder (reruns resume it), never another


def _scenemem(args: argparse.Namespace) -> int:
    from recallbench.generate.scenemem import DESTINATION_TYPES, ScenememKnobs
    from recallbench.generate.suite import run_suite

    _check_out(args)
    try:
        knobs = ScenememKnobs(
            tasks=args.tasks, pick_place=args.pick_place if args.tasks is None
            else min(args.pick_place, args.tasks), idle=args.idle,
            revisits=args.revisits or 0, distractors=args.distractors or 0,
            rooms=args.rooms or 1, size=args.size, max_steps=args.max_steps,
            destinations=tuple(args.destinations.split(",")) if args.destinations
            else DESTINATION_TYPES, use_camera_obs=not args.no_camera_obs,
            verify=not args.no_verify)
    except ValueError as exc:
        return _fail(str(exc))
    excluded = _excluded(args)
    status = run_suite("scenemem", args.out, args.n, args.seed, knobs.to_dict(),
                       args.workers or os.cpu_count() or 1, **_execution(args))
    return check_leakage(args.out, excluded, audit_suite(args.out, status, skip=args.no_audit))


def _strip(args: argparse.Namespace) -> int:
    from recallbench.errors import InputError
    from recallbench.generate.strip import render_strip

    if args.out:  # the default (inside the scenario) is the strip's own file
        from recallbench.cli.outputs import check_output_file

        check_output_file("--out", args.out)
    try:
        path = render_strip(args.scenario, args.out, tuple(args.cameras.split(",")),
                            args.frames)
    except InputError as exc:
        return _fail(str(exc))
    print(path)
    return 0


def _findingdory(args: argparse.Namespace) -> int:
    try:
        from recallbench.generate.findingdory_knobs import FindingDoryKnobs
    except ImportError as exc:  # built by another part of the project
        return _fail(f"FindingDory generation is not available: {exc}")
    from recallbench.generate.suite import run_suite

    _check_out(args)
    given = {k: getattr(args, k) for k in ("interactions", "steps", "distractors", "revisits",
                                           "rooms", "width", "height", "subsample")}
    if args.interactions is not None:  # asked for a count: every day has exactly that many
        given["interactions_spread"] = 0
    try:
        knobs = FindingDoryKnobs(**{k: v for k, v in given.items() if v is not None})
    except ValueError as exc:
        return _fail(str(exc))
    if knobs.steps < knobs.subsample:  # --steps 3 used to try 8 homes for minutes, then fail
        from recallbench.errors import UsageError

        raise UsageError("--steps", f"a day of {knobs.steps} frames is shorter than its "
                                    f"subsampled video (--subsample {knobs.subsample})")
    excluded = _excluded(args)
    status = run_suite("findingdory", args.out, args.n, args.seed, knobs.to_dict(),
                       args.workers or os.cpu_count() or 1, **_execution(args))
    return check_leakage(args.out, excluded, audit_suite(args.out, status, skip=args.no_audit))


def _execution(args: argparse.Namespace) -> dict:
    from recallbench.cli.execution import execution_settings, shard_of

    return {"execution": execution_settings(args, args.workers), "shard": shard_of(args)}


def _excluded(args: argparse.Namespace) -> dict:
    """The training exports' days, read before any generation (a bad folder is one line)."""
    from recallbench.export.leakage import excluded_days

    return excluded_days(args.exclude)


def check_leakage(out: str, excluded: dict, status: int) -> int:
    """Record in suite.json which training exports the suite was checked against, and with
    what result; a day that overlaps one is an error line and exit status 1."""
    import json
    from pathlib import Path

    from rich.console import Console

    from recallbench.export.leakage import days_of, overlaps
    from recallbench.generate.suite import SUITE_FILE
    from recallbench.io import write_json_atomic

    path = Path(out).resolve() / SUITE_FILE
    if not excluded or not path.is_file():
        return status
    found = overlaps(days_of(path.parent), excluded)
    manifest = json.loads(path.read_text())
    manifest["checked_against"] = {
        where: {"days": len(days), "overlaps": [o.line() for o in found if o.suite == where]}
        for where, days in excluded.items()}
    write_json_atomic(path, manifest)
    console = Console(stderr=True)
    for o in found:
        console.print(f"[red]leakage[/red]: {o.line()}", highlight=False, soft_wrap=True)
    return 1 if found else status


def audit_suite(out: str, status: int, skip: bool = False) -> int:
    """Audit the suite just written (``recallbench audit``) and record the verdict in its
    suite.json; the generation's own exit status stands (a failed audit is a warning).

    Skipped, with one line, under ``--no-audit`` (saying how to run it) and when the suite is
    smaller than its audit judges (``audit.core.too_small``, as ``recallbench audit`` refuses
    it; saying the size to generate instead)."""
    import json
    from pathlib import Path

    from rich.console import Console

    from recallbench.audit.core import run_audit, summary, too_small, write_report
    from recallbench.errors import InputError, print_problem
    from recallbench.generate.suite import SUITE_FILE
    from recallbench.io import write_json_atomic

    folder = Path(out).resolve()
    if not (folder / SUITE_FILE).is_file():
        return status
    console = Console(stderr=True)
    if skip:
        console.print(f"audit: skipped (--no-audit); run it with: recallbench audit {out}",
                      highlight=False, soft_wrap=True)
        return status
    try:
        small = too_small(folder)
    except InputError as exc:  # nothing usable was generated: said by the generation itself
        print_problem(f"audit not run: {exc}", console=console)
        return status
    if small is not None:
        from recallbench.cli.audit import small_suite

        console.print(f"audit: not run ({small_suite(small)})", highlight=False,
                      soft_wrap=True)
        return status
    try:
        report = run_audit(folder)
    except Exception as exc:  # noqa: BLE001 - the suite stays usable; the audit is a report
        print_problem(f"audit not run: {exc}", console=console)
        return status
    write_report(report, folder)
    manifest = json.loads((folder / SUITE_FILE).read_text())
    manifest["audit"] = summary(report)
    write_json_atomic(folder / SUITE_FILE, manifest)
    verdict = ("too small to judge" if not report["judged"]
               else "passes" if report["passed"] else "FAILS (see audit.json)")
    console.print(f"audit: {verdict}; {folder}/audit.json, audit.png", highlight=False)
    return status


def _fail(message: str) -> int:
    from recallbench.errors import UsageError

    raise UsageError("", message)
