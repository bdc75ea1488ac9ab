"""Join shard run folders (``--shard i/N``) into the one folder the unsharded run would write.

Refused, naming the folder and field, before anything is written: a folder that is not a run, a
run that is not a shard, shards of other benchmarks, settings or versions, a suite that differs
(FindingDory: its sha256; SceneMem: the scenarios each shard ran are not its part of the data
folder), a shard given twice and a shard missing. The merged folder holds the union of the run
logs (sorted by key) and a manifest naming its shards; results.json (SceneMem) and summary.json
are rebuilt from the records by the same code a run uses (scores added by the report layer), so
they equal the unsharded run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recallbench.errors import InputError, UsageError
from recallbench.executor.shards import Shard, parse_shard
from recallbench.io import read_json, write_json_atomic
from recallbench.run.manifest import read_manifest, write_manifest
from recallbench.run.runlog import RunLog, completed

RUNLOG = "runlog.jsonl"
SUMMARY = "summary.json"
# Manifest fields that say where and when a shard ran, not what it computed.
PROVENANCE = {"command", "started", "resumes", "executor", "workers", "platform", "shard",
              "cases", "scenarios", "merged_from"}
# SceneMem config fields that differ between shards of one run.
CONFIG_PER_SHARD = {"shard", "out"}


def _shard_runs(dirs: Sequence[Path]) -> list[tuple[Path, dict[str, Any], Shard]]:
    runs = []
    for d in dirs:
        if not (d / "manifest.json").is_file():
            raise InputError(d / "manifest.json", None, "not a run folder (no manifest)")
        manifest = read_manifest(d)
        text = manifest.get("shard") or (manifest.get("config") or {}).get("shard")
        if not text:
            raise InputError(d / "manifest.json", "shard", "not a shard (run without --shard)")
        shard = parse_shard(text, f"{d / 'manifest.json'}: shard")
        assert shard is not None  # text is set
        runs.append((d, manifest, shard))
    return runs


def _settings(manifest: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in manifest.items() if k not in PROVENANCE}
    if isinstance(out.get("config"), dict):
        out["config"] = {k: v for k, v in out["config"].items() if k not in CONFIG_PER_SHARD}
    return out


def check_shards(runs: list[tuple[Path, dict[str, Any], Shard]]) -> None:
    """Same settings, the same number of shards, each exactly once."""
    first_dir, first, first_shard = runs[0]
    reference = _settings(first)
    seen: dict[int, Path] = {}
    for d, manifest, shard in runs:
        if shard.count != first_shard.count:
            raise InputError(d / "manifest.json", "shard",
                             f"{shard} is not one of {first_shard.count} shards ({first_dir} is "
                             f"{first_shard})")
        if shard.index in seen:
            raise UsageError("SHARD_DIR", f"{seen[shard.index]} and {d} are both shard {shard}")
        seen[shard.index] = d
        settings = _settings(manifest)
        for key in sorted(set(reference) | set(settings)):
            if settings.get(key) != reference.get(key):
                field = key
                if key == "config":
                    a, b = reference["config"], settings.get("config") or {}
                    field = "config." + next(k for k in sorted(set(a) | set(b))
                                             if a.get(k) != b.get(k))
                raise InputError(d / "manifest.json", field,
                                 f"differs from {first_dir}'s: shards of one run must share "
                                 "their settings, suite and versions")
    missing = [f"{i}/{first_shard.count}" for i in range(1, first_shard.count + 1)
               if i not in seen]
    if missing:
        raise UsageError("SHARD_DIR", f"shard(s) {', '.join(missing)} missing")


def merge_runs(dirs: Sequence[str | Path], out: str | Path) -> Path:
    """Write the merged run folder ``out`` (the caller scores it: ``report.runs.score_run``
    adds the scores to summary.json, as after a run)."""
    folders = [Path(d) for d in dirs]
    out = Path(out)
    if not folders:
        raise UsageError("SHARD_DIR", "give the shard run folders")
    if (out / "manifest.json").exists() or (out / RUNLOG).exists():
        raise UsageError("--out", f"{out} already holds a run: choose another folder")
    runs = _shard_runs(folders)
    check_shards(runs)
    benchmark = runs[0][1].get("benchmark")
    records: dict[str, dict[str, Any]] = {}
    for d, _, _ in runs:
        records.update(completed(d / RUNLOG))
    manifest = dict(runs[0][1])
    manifest.pop("shard", None)
    manifest.pop("resumes", None)
    manifest["merged_from"] = [{"dir": str(d.resolve()), "shard": str(s),
                                "executor": m.get("executor")} for d, m, s in runs]
    if benchmark not in MERGERS:
        raise InputError(runs[0][0] / "manifest.json", "benchmark", f"cannot merge {benchmark!r}")
    MERGERS[benchmark](runs, records, manifest, out)
    out.mkdir(parents=True, exist_ok=True)
    write_manifest(out, manifest)
    with RunLog(out / RUNLOG) as log:
        for key in sorted(records):
            log.append(records[key])
    return out


def _runner_summary(d: Path) -> dict[str, Any]:
    path = d / SUMMARY
    if not path.is_file():
        raise InputError(path, None, "missing: the shard never finished (finish it with "
                                     "--resume first)")
    summary = read_json(path)
    if not isinstance(summary, dict):
        raise InputError(path, None, "must be a JSON object")
    return summary


def _merge_scenemem(runs: list[tuple[Path, dict[str, Any], Shard]],
                    records: dict[str, dict[str, Any]], manifest: dict[str, Any],
                    out: Path) -> None:
    """results.json (the card's schema) and the runner's summary.json, as ``_finish`` writes
    them: each scenario is in exactly one shard, so its card entry is taken whole."""
    from recallbench.benchmarks.scenemem.results import breakdown
    from recallbench.benchmarks.scenemem.spec import discover_scenarios

    config = dict(manifest["config"])
    roots = discover_scenarios(config["data_dir"], config.get("filter"))
    entries: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    missing: list[str] = []
    scenarios: list[str] = []
    for d, m, shard in runs:
        summary = _runner_summary(d)
        ran = set(m.get("scenarios") or []) | set(summary.get("scenario_errors") or {})
        if ran != {r.name for r in roots if shard.picks(r.name)}:
            raise InputError(d / "manifest.json", "scenarios",
                             f"not shard {shard}'s part of {config['data_dir']} (the suite "
                             "changed since this shard ran?)")
        results_path = Path(m["config"]["out"])
        if not results_path.is_file():
            raise InputError(results_path, None, "missing: finish the shard with --resume")
        card = read_json(results_path)
        listed = card.get("results") if isinstance(card, dict) else None
        if not isinstance(listed, list) or not all(
                isinstance(e, dict) and isinstance(e.get("scenario"), str)
                and isinstance(e.get("tests"), list) for e in listed):
            raise InputError(results_path, "results", "not the card's results.json (a list of "
                                                      "scenarios with their tests)")
        for entry in listed:
            entries[entry["scenario"]] = entry
        errors.update(summary.get("scenario_errors") or {})
        missing += summary.get("missing_tests") or []
        scenarios += m.get("scenarios") or []
    results = [entries[name] for name in sorted(entries)]
    kept = [records[k] for k in sorted(records)]  # a run's card lists every recorded test
    config.update(out=str((out / "results.json").resolve()), shard=None)
    manifest.update(config=config, scenarios=sorted(scenarios))
    total = sum(len(e["tests"]) for e in results)
    memory = sum(t["memory"] for e in results for t in e["tests"])
    write_json_atomic(out / "results.json",
                      {"results": results, "summary": {"total": total, "memory": memory}})
    write_json_atomic(out / SUMMARY, {
        "by_fixture_type": breakdown(kept, "fixture_type"),
        "by_task": breakdown(kept, "task"),
        "scenario_errors": dict(sorted(errors.items())),
        "missing_tests": sorted(missing),
    })


def _merge_findingdory(runs: list[Any], records: dict[str, dict[str, Any]],
                       manifest: dict[str, Any], out: Path) -> None:
    manifest["cases"] = sum(m.get("cases") or 0 for _, m, _ in runs)


# What each benchmark's runner needs joined beyond the records (registered per benchmark, like
# run.compare.RUNNERS): SceneMem's runner summary, FindingDory's planned case count.
MERGERS = {"scenemem": _merge_scenemem, "findingdory": _merge_findingdory}
