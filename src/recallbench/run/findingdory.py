"""The FindingDory runner: ask an agent about every case, then (``--ll``) act its choices out.

Layout of a run directory: ``manifest.json`` (settings that move the numbers), ``runlog.jsonl``
(one run-log record per case: what the agent answered, never a score; the LL phase appends the
same record plus ``ll``, and later records win) and ``summary.json`` (written by
``recallbench.report.runs.score_run``). A frame-budget sweep writes one such directory per K
under ``RUN/K<k>/``. A crash loses at most the case in flight; ``resume`` finishes the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from recallbench.agents.registry import agent_kind
from recallbench.benchmarks.findingdory.data import QACase, Suite, resolve_video
from recallbench.benchmarks.findingdory.evaluate import EpisodeCache, build_query, offered_for
from recallbench.benchmarks.findingdory.ll import MAX_STEPS
from recallbench.benchmarks.findingdory.ll_rollout import LLPhase
from recallbench.benchmarks.findingdory.metrics import Scoring
from recallbench.benchmarks.findingdory.parse import MAX_FRAME_INDICES, too_many_indices
from recallbench.benchmarks.findingdory.protocol import LowLevelPolicy  # not agents': no scipy
from recallbench.benchmarks.findingdory.seam import planned_cases
from recallbench.errors import InputError, UsageError
from recallbench.executor import ExecutorSettings, Task, TaskResult, executor_for
from recallbench.executor.shards import Shard
from recallbench.run.findingdory_worker import ANSWER_HANDLER, AgentSpec, spec_dict
from recallbench.run.limits import DEFAULT_CASE_TIMEOUT
from recallbench.run.lock import clear_run_folder, run_folder_lock
from recallbench.run.manifest import build_manifest, read_manifest, write_manifest
from recallbench.run.runlog import RUN_LOG, RunLog, completed
from recallbench.video.reader import check_video

# Wall-clock seconds one case may take (a VLM request with its retries fits many times over);
# a hung agent then costs its case, not the run. --case-timeout overrides it.
WORKER_HANDLER = ANSWER_HANDLER
LL_HANDLER = "recallbench.run.findingdory_worker:act_out_episode"


def run_cases(
    suite: Suite,
    agent: AgentSpec,
    *,
    budget: int,
    run_dir: Path,
    limit: int | None = None,
    resume: bool = False,
    videos_dir: Path | None = None,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None = None,
    privileged: bool = False,
    workers: int = 1,
    case_timeout: float | None = DEFAULT_CASE_TIMEOUT,
    execution: ExecutorSettings | None = None,
    shard: Shard | None = None,
) -> Path:
    """Ask the agent about every case not yet recorded (of ``shard``'s part, if given), in
    workers (``execution``, default ``workers`` local processes); append one record per case.
    Raises ``TransientCases`` after recording the rest when some got no answer."""
    execution = execution or ExecutorSettings("local", workers)
    log_path = run_dir / RUN_LOG
    if log_path.exists() and not resume:
        raise InputError(log_path, None, "run already has records; pass --resume to finish it")
    with run_folder_lock(run_dir):
        done = completed(log_path) if resume else {}
        cases = planned_cases(suite, limit, shard)
        tasks = _tasks(suite, agent, [c for c in cases if c.id not in done], budget, videos_dir,
                       privileged)  # every input error surfaces here, before any agent call
        executor = executor_for(execution, WORKER_HANDLER, timeout=case_timeout,
                                log_path=run_dir / "workers.log")
        for task in tasks:
            executor.submit(task)
        offered = {task.key: list(task.payload["query"].offered_frames) for task in tasks}
        with RunLog(log_path) as log, executor:
            results: Iterable[TaskResult] = executor.results()
            if progress:
                results = progress(results, len(tasks))
            left = _record_results(results, log, offered)
    if left:
        raise TransientCases(left)
    return log_path


class TransientCases(Exception):
    """Some cases got no answer for reasons that may pass; the others are recorded."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
        super().__init__(
            f"{sum(counts.values())} case(s) not answered ({kinds}); nothing was recorded for "
            "them: --resume asks again"
        )


def _tasks(
    suite: Suite,
    agent: AgentSpec,
    todo: list[QACase],
    budget: int,
    videos_dir: Path | None,
    privileged: bool,
) -> list[Task]:
    episodes = EpisodeCache(suite)
    tasks = []
    checked: dict[Path, int] = {}
    agent_dict = spec_dict(agent)  # once: pickled once per chunk, not per case
    videos: dict[str | None, Path | None] = {}  # one lookup per video, not per question
    for case in todo:
        episode = episodes.get(case.ep_id)
        if case.video not in videos:
            videos[case.video] = resolve_video(suite, case, videos_dir)
        video = videos[case.video]
        if video is not None and video not in checked:  # garbage or truncated: before work
            checked[video] = check_video(video, f"row {case.id}: video")
        if video is not None and case.answer_frames is None and case.num_frames is None:
            _check_answer_in_video(suite, case, checked[video])
        offered = offered_for(case, budget, video, episode)
        query = build_query(case, offered, episode, video, privileged)
        payload = {"agent": agent_dict, "suite": str(suite.path), "trusted": suite.trusted,
                   "query": query, "video": str(video) if video else None}
        tasks.append(Task(case.id, payload))
    # Grouped by video (first appearance order): a video's questions run back to back, so its
    # prepared frames are reused and a prefix-caching server sees the same images in a row.
    first: dict[str | None, int] = {}
    for i, task in enumerate(tasks):
        first.setdefault(task.payload["video"], i)
    return sorted(tasks, key=lambda task: first[task.payload["video"]])


def _check_answer_in_video(suite: Suite, case: QACase, frames: int) -> None:
    for j, sub in enumerate(case.answer):
        if any(i >= frames for i in sub):
            raise InputError(
                suite.path, f"row {case.id}: answer[{j}]", f"index beyond the {frames}-frame video"
            )


def _record_results(
    results: Iterable[TaskResult], log: RunLog, offered: dict[str, list[int]]
) -> dict[str, int]:
    """Append each answered case; count the ones left for --resume; stop on a fatal error."""
    left: dict[str, int] = {}
    for result in results:
        outcome = result.value or {}
        if result.lost:  # its machine kept vanishing: nothing said about the agent
            left["lost to infrastructure"] = left.get("lost to infrastructure", 0) + 1
            continue
        if "stop" in outcome:
            raise InputError(*outcome["stop"])
        if "transient" in outcome:  # not an answer: left unrecorded for --resume
            left[outcome["transient"]] = left.get(outcome["transient"], 0) + 1
            continue
        record: dict[str, Any] = {"key": result.key, "offered_frames": offered[result.key]}
        if result.error is not None:  # the agent killed or hung its worker: fails this case
            record.update(frame_indices=None, response=None, agent_error=result.error)
        else:
            record.update(outcome["record"])
            _cap_indices(record)
        record["seconds"] = round(result.wall_time, 6)
        log.append(record)
    return left


def _cap_indices(record: dict[str, Any]) -> None:
    """An answer of more frame indices than any case has goals by far (``MAX_FRAME_INDICES``)
    fails its case with the reason, rather than every later `score` and `view` walking it."""
    fi = record.get("frame_indices")
    if isinstance(fi, list) and len(fi) > MAX_FRAME_INDICES:
        record.update(frame_indices=None, agent_error=f"answered {too_many_indices(len(fi))}")


def agent_manifest(agent: Any) -> dict[str, Any] | None:
    """What the agent says moves its answers (model id, prompt hash, settings), or None."""
    describe = getattr(agent, "manifest", None)
    return describe() if callable(describe) else None


# Settings of the LL phase: a resume may add the phase to a run that had none (or leave it out),
# but never act it out with other settings than the run recorded.
LL_PHASE_KEYS = ("ll_policy", "ll_policy_kwargs")


def start_run(run_dir: Path, *, resume: bool = True, overwrite: bool = False,
              must_match: tuple[str, ...] = (), **settings: Any) -> dict[str, Any]:
    """Write the manifest, or check an existing run matches on the ``must_match`` settings. A
    run folder is never reused silently, and a refusal says what to do (``--resume``,
    ``--overwrite`` or another ``--out``)."""
    manifest_path = run_dir / "manifest.json"
    if manifest_path.exists() and overwrite:  # as every command's --overwrite: under the lock,
        clear_run_folder(run_dir)  # the whole folder (a stale viewer/ too), links never followed
    if manifest_path.exists():
        old = read_manifest(run_dir)
        if not resume:
            raise UsageError("--out", f"{run_dir} already holds a run: pass --resume to finish "
                                      "it, --overwrite to start again, or choose another --out")
        added = {key: settings[key] for key in LL_PHASE_KEYS
                 if key in settings and old.get(key) is None and settings[key] is not None}
        if added:  # the LL phase joins a run that had none: what it runs is recorded now
            old.update(added)
            write_manifest(run_dir, old)
        for key in must_match:
            if key in LL_PHASE_KEYS and settings.get(key) is None:
                continue  # this command runs no LL phase: nothing of it to mix
            if key in settings and old.get(key) != settings[key]:
                raise InputError(
                    manifest_path,
                    key,
                    f"the run used {old.get(key)!r}, this command {settings[key]!r}: resume with "
                    "the same settings, pass --overwrite to start again, or choose another --out",
                )
        if any(key in settings and old.get(key) != settings[key] for key in ("limit", "cases")):
            # a resume may extend (or narrow) the cases run; what is planned now is recorded
            old.update(limit=settings.get("limit"), cases=settings.get("cases"))
            write_manifest(run_dir, old)
        if "executor" in settings:  # provenance of each resume; results never depend on it
            old.setdefault("resumes", []).append({"executor": settings["executor"]})
            write_manifest(run_dir, old)
        return old
    if "agent" in settings and "agent_kind" not in settings:
        # what its score means (agents.registry.KINDS); an instance built privileged (recency
        # with use_events) is recorded as what it ran as
        settings["agent_kind"] = ("privileged" if settings.get("agent_privileged")
                                  else agent_kind(str(settings["agent"])))
    manifest = build_manifest(**settings)
    write_manifest(run_dir, manifest)
    return manifest


def run_ll(
    suite: Suite,
    run_dir: Path,
    policy: LowLevelPolicy | None,
    *,
    scoring: Scoring = "published",
    limit: int | None = None,
    max_steps: int = MAX_STEPS,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None = None,
    policy_spec: tuple[str, dict[str, Any]] | None = None,
    execution: ExecutorSettings | None = None,
) -> Path:
    """Add an ``ll`` outcome to every recorded case that lacks one (episode by episode).

    With ``policy_spec`` (name or ``module:Class``, constructor arguments) each episode is acted
    out by the executor's workers (``execution``; default one local process), each building
    its own policy; else by ``policy`` in this process. Raises ``TransientCases`` after
    recording the rest when an episode's worker died (its cases are redone by ``--resume``)."""
    log_path = run_dir / RUN_LOG
    records = completed(log_path)
    cases = list(suite.cases[:limit] if limit else suite.cases)
    by_episode: dict[str, list[tuple[QACase, dict[str, Any]]]] = {}
    for case in cases:
        rec = records.get(case.id)
        if rec is not None and "ll" not in rec and case.subgoals is not None:
            by_episode.setdefault(case.ep_id, []).append((case, rec))
    if policy_spec is not None:
        return _run_ll_tasks(suite, run_dir, by_episode, policy_spec, scoring, max_steps,
                             progress, execution or ExecutorSettings())
    assert policy is not None
    phase = LLPhase(suite, policy, scoring=scoring, max_steps=max_steps)
    try:
        with run_folder_lock(run_dir), RunLog(log_path) as log:
            eps = list(by_episode)
            for ep_id in progress(eps, len(eps)) if progress else eps:
                for rec in phase.run_episode(ep_id, by_episode[ep_id]):
                    log.append(rec)
    finally:
        phase.worlds.close()
    if phase.lost:  # the rest is recorded; --resume drives these again
        raise TransientCases({f"LL: {phase.lost[0]}": len(phase.lost)})
    return log_path


def _run_ll_tasks(
    suite: Suite,
    run_dir: Path,
    by_episode: dict[str, list[tuple[QACase, dict[str, Any]]]],
    policy_spec: tuple[str, dict[str, Any]],
    scoring: Scoring,
    max_steps: int,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None,
    execution: ExecutorSettings,
) -> Path:
    log_path = run_dir / RUN_LOG
    executor = executor_for(execution, LL_HANDLER, log_path=run_dir / "workers.log")
    for ep_id, items in by_episode.items():
        executor.submit(Task(ep_id, {
            "suite": str(suite.path), "trusted": suite.trusted,
            "policy": list(policy_spec), "scoring": scoring, "max_steps": max_steps,
            "ep_id": ep_id, "items": [[case.id, rec] for case, rec in items]}))
    failed: dict[str, int] = {}
    with run_folder_lock(run_dir), RunLog(log_path) as log, executor:
        results = executor.results()
        for result in progress(results, len(by_episode)) if progress else results:
            outcome = result.value or {}
            if "stop" in outcome:
                raise InputError(*outcome["stop"])
            if result.error is not None or result.lost:  # nothing recorded: --resume redoes it
                kind = "LL episodes lost to infrastructure" if result.lost else \
                    f"LL episodes whose worker failed ({result.error})"
                failed[kind] = failed.get(kind, 0) + 1
                continue
            for rec in outcome["records"]:
                log.append(rec)
    if failed:
        raise TransientCases(failed)
    return log_path
