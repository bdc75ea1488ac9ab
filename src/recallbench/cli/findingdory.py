"""`recallbench findingdory ...`: run an agent on a FindingDory suite, or score predictions.

Heavy imports (PyAV, numpy-based scoring) happen inside the handlers so `--help` stays instant.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from recallbench.agents.registry import DEFAULT_LL_POLICY
from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.cli.formats import add_format_option, as_data
from recallbench.cli.report import show_summary
from recallbench.run.limits import DEFAULT_CASE_TIMEOUT


def _build_agent(args: argparse.Namespace) -> Any:
    """The agent, built before any work: a bad name or argument is a one-line error."""
    from recallbench.agents.registry import NoMeaning, resolve
    from recallbench.cli.checks import construct_agent, parse_key_values, valid_names
    from recallbench.errors import UsageError

    try:
        factory = resolve(args.agent, "findingdory")
    except NoMeaning as exc:
        raise UsageError("--agent", f"{exc}; see `recallbench list agents`") from None
    except (ValueError, ImportError) as exc:
        if ":" in args.agent:
            raise UsageError("--agent", str(exc)) from None
        raise UsageError("--agent", f"unknown agent {args.agent!r}: use one of "
                                    f"{', '.join(valid_names('findingdory'))}, module:Class or "
                                    "path/to/file.py:Class") from None
    extra = parse_key_values("--agent-arg", args.agent_arg)
    return construct_agent(args.agent, factory, extra, args.seed, "--agent-arg")


def _run_one(args: argparse.Namespace, suite: Any, agent: Any, ll_policy: Any, budget: int,
             run_dir: Path, warnings: list[str]) -> dict[str, Any]:
    from recallbench.run.lock import run_folder_lock

    with run_folder_lock(run_dir):  # a second writer is refused before the manifest
        return _run_locked(args, suite, agent, ll_policy, budget, run_dir, warnings)


def _run_locked(args: argparse.Namespace, suite: Any, agent: Any, ll_policy: Any, budget: int,
                run_dir: Path, warnings: list[str]) -> dict[str, Any]:
    from rich.progress import track

    from recallbench.cli.checks import parse_key_values
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.report.runs import score_run
    from recallbench.run.findingdory import (
        TransientCases,
        agent_manifest,
        planned_cases,
        run_cases,
        start_run,
    )
    from recallbench.run.findingdory_worker import AgentSpec

    # Built before any work (for its manifest and to fail fast); it answers in worker
    # processes (run_cases), each building its own from the same spec.
    extra = parse_key_values("--agent-arg", args.agent_arg)
    shard = shard_of(args)
    execution = execution_settings(args, args.workers)
    cases = len(planned_cases(suite, args.limit, shard))
    start_run(
        run_dir,
        benchmark="findingdory",
        data=str(Path(args.data).resolve()),
        data_sha256=suite.sha256,
        videos=str(Path(args.videos).resolve()) if args.videos else None,
        agent=args.agent,
        agent_kwargs=extra,
        agent_privileged=bool(getattr(agent, "privileged", False)),
        agent_manifest=agent_manifest(agent),
        frames=budget,
        seed=args.seed,
        scoring=args.scoring,
        limit=args.limit,
        cases=cases,
        shard=str(shard) if shard else None,
        executor=execution.manifest(),
        ll_policy=args.ll_policy if args.ll else None,
        ll_policy_kwargs=parse_key_values("--ll-policy-arg", args.ll_policy_arg)
        if args.ll else None,
        resume=args.resume,
        overwrite=args.overwrite,
    )
    try:
        run_cases(
            suite,
            AgentSpec(args.agent, extra, args.seed),
            privileged=bool(getattr(agent, "privileged", False)),
            execution=execution,
            shard=shard,
            case_timeout=args.case_timeout,
            budget=budget,
            run_dir=run_dir,
            limit=args.limit,
            resume=args.resume,
            videos_dir=Path(args.videos) if args.videos else None,
            progress=lambda it, n: track(it, total=n, description=f"{args.agent} K={budget}"),
        )
    except TransientCases as exc:  # the rest is recorded and scored; --resume finishes
        warnings.append(f"K={budget}: {exc}")
    if ll_policy is not None:
        try:
            _run_ll(args, suite, run_dir, ll_policy, execution)
        except TransientCases as exc:  # the rest is recorded and scored; --resume finishes
            warnings.append(f"K={budget} LL: {exc}")
    return score_run(run_dir, scoring=args.scoring, suite=suite)


def _ll_policy(args: argparse.Namespace, suite: Any) -> Any:
    """Check the suite can be acted out and load the LL policy, before any agent call."""
    from recallbench.agents.ll_policies import load_ll_policy
    from recallbench.cli.checks import parse_key_values
    from recallbench.errors import InputError, UsageError

    if not suite.generated:
        raise InputError(
            args.data, "--ll", "the LL phase needs a generated suite with episode worlds"
        )
    from recallbench.agents.remote import RemoteLLPolicy, check_server, is_remote_policy

    if is_remote_policy(args.ll_policy):  # served by `recallbench serve-policy`
        try:
            check_server(args.ll_policy, "ll", "--ll-policy")
        except ValueError as exc:
            raise UsageError("", str(exc)) from None
        return RemoteLLPolicy(args.ll_policy)
    try:
        return load_ll_policy(args.ll_policy, **parse_key_values("--ll-policy-arg",
                                                                 args.ll_policy_arg))
    except (ValueError, TypeError, ImportError) as exc:
        raise UsageError("--ll-policy", str(exc)) from None


def _run_ll(args: argparse.Namespace, suite: Any, run_dir: Path, policy: Any,
            execution: Any) -> None:
    """The low-level phase: act every recorded frame choice out in its episode's world, in the
    executor's workers (each builds the policy from its name and arguments); a served policy
    (``--ll-policy ws://...``) is driven from here, its server doing the work."""
    from rich.progress import track

    from recallbench.agents.remote import is_remote_policy
    from recallbench.cli.checks import parse_key_values
    from recallbench.run.findingdory import run_ll

    served = is_remote_policy(args.ll_policy)
    run_ll(
        suite,
        run_dir,
        policy,
        scoring=args.scoring,
        limit=args.limit,
        progress=lambda it, n: track(it, total=n, description=f"LL {args.ll_policy}"),
        policy_spec=None if served else (args.ll_policy,
                                         parse_key_values("--ll-policy-arg", args.ll_policy_arg)),
        execution=execution,
    )


def _handle_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.scoring import METRICS
    from recallbench.cli.checks import (
        check_agent_server,
        check_frames,
        check_positive,
        check_videos,
    )
    from recallbench.cli.errors import print_warning, run_exit_status
    from recallbench.errors import UsageError
    from recallbench.report.tables import fmt

    missing = [f for f, v in (("--data", args.data), ("--agent", args.agent), ("--out", args.out))
               if not v]
    if missing:
        raise UsageError(", ".join(missing), "required")
    for flag, value in (("--limit", args.limit), ("--case-timeout", args.case_timeout),
                        ("--workers", args.workers)):
        check_positive(flag, value)
    from recallbench.cli.outputs import check_output_folder

    check_output_folder("--out", args.out)  # README.md, someone's folder: before any work
    from recallbench.cli.execution import execution_settings, shard_of

    execution_settings(args, args.workers)  # a bad --executor/--address/--shard: before work
    shard_of(args)
    budgets = [args.frames]
    if args.frames_sweep:
        try:
            budgets = [int(k) for k in args.frames_sweep.split(",") if k.strip()]
        except ValueError:
            raise UsageError("--frames-sweep", f"expected numbers like 24,48,{DEFAULT_FRAMES}, got "
                                               f"{args.frames_sweep!r}") from None
    suite = load_suite(args.data, trusted=args.trust_suite)
    for k in budgets:
        check_frames(k, suite.cases, "--frames-sweep" if args.frames_sweep else "--frames")
    agent = _build_agent(args)
    check_videos(args.agent, agent, suite, suite.cases[: args.limit] if args.limit
                 else suite.cases, args.videos)
    ll_policy = _ll_policy(args, suite) if args.ll else None
    check_agent_server(args.agent, agent)
    console = Console(stderr=as_data(args))
    out = Path(args.out)
    dirs = {k: out / f"K{k}" for k in budgets} if args.frames_sweep else {args.frames: out}
    warnings: list[str] = []
    summaries = {k: _run_one(args, suite, agent, ll_policy, k, d, warnings)
                 for k, d in dirs.items()}
    if args.frames_sweep and as_data(args):
        from recallbench.report.formats import summary_records, write_records

        write_records([{"frames": k, **r} for k, s in summaries.items()
                       for r in summary_records(s, METRICS, ())], args.format)
    elif args.frames_sweep:
        for k, summary in summaries.items():
            console.print(f"K={k}: HL-SR {fmt(summary['overall']['hl_sr'])}")
    else:
        show_summary(args, summaries[args.frames], METRICS, console, ("group", "category"))
    for warning in warnings:  # cases left for --resume (a server or input that may recover)
        print_warning(warning)
    status = max(run_exit_status(summaries[k], dirs[k]) for k in dirs)
    return max(status, 1 if warnings else 0)


def read_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """JSONL of {"id", "frame_indices"} or {"id", "response"} (optionally "offered_frames")."""
    from recallbench.errors import InputError

    preds: dict[str, dict[str, Any]] = {}
    lines: dict[str, int] = {}
    if not path.is_file():
        raise InputError(path, None, "predictions file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text (a binary file?)") from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"line {n}", f"invalid JSON: {exc.msg}") from None
        if not isinstance(row, dict) or "id" not in row:
            raise InputError(path, f"line {n}: id", "missing")
        if "frame_indices" not in row and "response" not in row:
            raise InputError(path, f"line {n}", "needs frame_indices or response")
        fi = row.get("frame_indices")
        if fi is not None and not isinstance(fi, list):
            raise InputError(path, f"line {n}: frame_indices", "expected a list")
        offered = row.get("offered_frames")
        if offered is not None and not (isinstance(offered, list) and all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in offered
        )):
            raise InputError(
                path, f"line {n}: offered_frames", "expected a list of frame indices (ints >= 0)"
            )
        rid = str(row["id"])
        if rid in preds:  # keeping either silently would score an arbitrary one
            raise InputError(path, f"line {n}: id", f"duplicate id {rid!r} (line {lines[rid]})")
        preds[rid], lines[rid] = row, n
    return preds


def _handle_score(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.findingdory.data import load_suite, resolve_video
    from recallbench.benchmarks.findingdory.evaluate import (
        EpisodeCache,
        offered_for,
        score_records,
    )
    from recallbench.benchmarks.findingdory.scoring import METRICS, NA_REASONS
    from recallbench.cli.checks import check_frames
    from recallbench.cli.errors import print_warning
    from recallbench.errors import InputError
    from recallbench.io import write_json_atomic
    from recallbench.report.aggregate import summarize
    from recallbench.report.runs import _finite

    if args.out:
        from recallbench.cli.outputs import check_output_file, is_summary_file

        check_output_file("--out", args.out, replace=is_summary_file(Path(args.out)),
                          hint=" (it is not a summary this command wrote)")
    console = Console(stderr=as_data(args))
    suite = load_suite(args.score_data)
    check_frames(args.frames, suite.cases)
    preds = read_predictions(Path(args.predictions))
    if not preds:
        raise InputError(args.predictions, None, "no predictions in the file")
    unknown = sorted(set(preds) - {c.id for c in suite.cases})
    if unknown:
        raise InputError(args.predictions, "id", f"ids not in the data: {unknown[:5]}")
    episodes = EpisodeCache(suite)
    records = {}
    for case in suite.cases:
        if case.id not in preds:
            continue  # scored as a failure (missing) unless --subset
        p = preds[case.id]
        offered = p.get("offered_frames")
        if offered is None:
            video = resolve_video(suite, case, None)
            offered = offered_for(case, args.frames, video, episodes.get(case.ep_id))
        records[case.id] = {
            "key": case.id,
            "offered_frames": offered,
            "frame_indices": p.get("frame_indices"),
            "response": p.get("response"),
        }
    rows = score_records(suite, records, scoring=args.scoring, subset=args.subset)
    summary = summarize(rows, METRICS, na_reasons=NA_REASONS)
    missing = len(suite.cases) - len(records)
    summary.update(
        scoring=args.scoring,
        frames=args.frames,
        cases_total=len(suite.cases),
        cases_recorded=len(records),
        cases_scored=len(rows),
        missing=missing,
        subset=args.subset,
        predictions=str(args.predictions),
    )
    show_summary(args, summary, METRICS, console, ("group", "category"))
    if missing:
        how = (
            "not scored (--subset)"
            if args.subset
            else "counted as failures (--subset scores only predicted cases)"
        )
        print_warning(f"{missing} of {len(suite.cases)} cases have no prediction: {how}")
    if args.out:
        write_json_atomic(args.out, _finite(summary))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "findingdory",
        help="run a frame-selection agent on FindingDory QA (or `findingdory score`)",
        description="Run an agent over a FindingDory suite: records each answer, then scores.",
    )
    parser.add_argument("--data", help="QA file (.json/.jsonl) or generated suite directory")
    parser.add_argument("--agent", help="agent name (`recallbench list agents`) or module:Class")
    parser.add_argument(
        "--agent-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="constructor argument for the agent (JSON value), repeatable",
    )
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frame budget K")
    parser.add_argument("--frames-sweep",
                        help=f"comma-separated budgets, one run each: 24,48,{DEFAULT_FRAMES}")
    parser.add_argument("--out", help="run directory")
    parser.add_argument("--videos", help="directory that video paths resolve against")
    parser.add_argument("--limit", type=int, help="only the first N cases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="finish an interrupted run")
    parser.add_argument("--overwrite", action="store_true",
                        help="start --out again, discarding a run recorded there")
    parser.add_argument(
        "--case-timeout",
        type=float,
        default=DEFAULT_CASE_TIMEOUT,
        help="wall-clock seconds per case before its agent is stopped and the case failed "
        f"(default {DEFAULT_CASE_TIMEOUT:.0f})",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="agent worker processes (default 1: in order)"
    )
    parser.add_argument(
        "--trust-suite",
        action="store_true",
        help="let QA rows name videos outside the suite folder (absolute or ../ paths)",
    )
    parser.add_argument(
        "--scoring",
        choices=("published", "official"),
        default="published",
        help="published definitions (default) or the official code's behaviour",
    )
    parser.add_argument(
        "--ll",
        action="store_true",
        help="after frame selection, act the choices out in each episode's world (LL-SR, LL-SPL)",
    )
    parser.add_argument(
        "--ll-policy",
        default=DEFAULT_LL_POLICY,
        help=f"low-level policy: a navigation name (`recallbench list agents`; default "
        f"{DEFAULT_LL_POLICY}) or module:Class",
    )
    parser.add_argument(
        "--ll-policy-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="constructor argument for the LL policy (JSON value), e.g. goal_radius=0.25",
    )
    from recallbench.cli.execution import add_execution_options

    add_execution_options(parser)
    add_format_option(parser)
    # an interrupted run finishes with --resume (cli.resume_command), never --overwrite
    parser.set_defaults(func=_handle_run, resume_flag="--resume", fresh_flag="--overwrite")
    _register_score(parser)


def _register_score(parser: argparse.ArgumentParser) -> None:
    """``recallbench findingdory score``: predictions made elsewhere, scored here."""
    sub = parser.add_subparsers(dest="findingdory_command", metavar="{score}", title="subcommand")
    score = sub.add_parser("score", help="score predictions made elsewhere (JSONL)")
    score.add_argument("--data", dest="score_data", required=True)
    score.add_argument(
        "--predictions",
        required=True,
        help='JSONL of {"id", "frame_indices"} or {"id", "response"}',
    )
    score.add_argument(
        "--frames",
        type=int,
        default=DEFAULT_FRAMES,
        help=f"K the predictions' positions refer to (default {DEFAULT_FRAMES})",
    )
    score.add_argument("--scoring", choices=("published", "official"), default="published")
    score.add_argument(
        "--subset",
        action="store_true",
        help="score only the cases that have a prediction (default: a missing one fails)",
    )
    score.add_argument("--out", help="write the summary JSON here")
    add_format_option(score)
    score.set_defaults(func=_handle_score, resume_flag=None)
