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

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recallbench.benchmarks.registry import BENCHMARKS
from recallbench.errors import InputError, UsageError
from recallbench.executor.shards import Shard, parse_shard
from recallbench.io import LINK_REFUSED
from recallbench.run.manifest import read_manifest, write_manifest
from recallbench.run.runlog import RunLog, completed
from recallbench.run.runner import runner_for

RUNLOG = "runlog.jsonl"
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


def _refuse_links(out: Path) -> None:
    """A symlink planted in ``out`` is refused before anything is written (each write refuses
    it too, but then after the merge wrote its first files)."""
    if out.is_dir():
        for entry in os.scandir(out):
            if entry.is_symlink():
                raise InputError(Path(entry.path), None, LINK_REFUSED)


def merge_runs(dirs: Sequence[str | Path], out: str | Path) -> Path:
    """Write the merged run folder ``out`` (the caller scores it: ``report.runs.score_run``
    adds the scores to summary.json, as after a run)."""
    folders = [Path(d) for d in dirs]
    out = Path(out)
    if not folders:
        raise UsageError("SHARD_DIR", "give the shard run folders")
    if (out / "manifest.json").exists() or (out / RUNLOG).exists():
        raise UsageError("--out", f"{out} already holds a run: choose another folder")
    _refuse_links(out)
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
    if benchmark not in BENCHMARKS:
        raise InputError(runs[0][0] / "manifest.json", "benchmark", f"cannot merge {benchmark!r}")
    # what the benchmark's runner needs joined beyond the records (SceneMem: its results.json
    # and runner summary; FindingDory: the planned case count)
    runner_for(benchmark).merge(runs, records, manifest, out)
    out.mkdir(parents=True, exist_ok=True)
    write_manifest(out, manifest)
    with RunLog(out / RUNLOG) as log:
        for key in sorted(records):
            log.append(records[key])
    return out
