"""Fuzzing every loader and `score`/`view` with generated garbage (issue 21): random bytes, deep
nesting, huge numbers, wrong types, symlinks. Seeded and bounded in count, so a failure replays.

What must hold: a loader raises ``InputError`` (one line naming the file) or loads; `score` and
`view` exit 0 (the bad case is its own failure) or 2 with one line naming the file; never a
traceback or an internal error, never a write outside the run folder, never a lost record.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from support.fault_support import squash

SEED = 21
LOADER_ROUNDS = 12  # garbage values per loader
RUN_ROUNDS = 20  # damaged run folders, each scored and viewed


def _deep(rng: random.Random) -> str:
    n = rng.choice([50, 2_000, 200_000])
    return rng.choice(["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, "[" * n])


def _huge(rng: random.Random) -> str:
    return rng.choice(["9" * 5000, "-" + "1" * 4301, "1e999999", "NaN", "-Infinity",
                       "1" + "0" * 400 + ".5"])


WRONG = [None, True, "text", 1.5, -1, 0, [], {}, [[1, 2]], {"a": {"b": None}}, 10**30, "\x00\x1b",
         [None], ["1"], -(10**19)]


def garbage(rng: random.Random) -> bytes:
    """One generated bad file body."""
    kind = rng.randrange(7)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
    if kind == 1:
        return _deep(rng).encode()
    if kind == 2:
        return f'{{"x": {_huge(rng)}}}'.encode()
    if kind == 3:
        return json.dumps(rng.choice(WRONG)).encode()
    if kind == 4:
        return b"\xef\xbb\xbf" + b'{"a": 1}' if rng.random() < 0.5 else '{"a": "é"}'.encode(
            "utf-16")
    if kind == 5:
        return b""
    return b'{"a": [1, 2' * rng.randrange(1, 50)


def wrong_value(rng: random.Random) -> object:
    kind = rng.randrange(4)
    if kind == 0:
        return rng.choice(WRONG)
    if kind == 1:
        return json.loads("[" * 50 + "]" * 50)
    if kind == 2:  # a reply text: huge numbers, deep nesting, a parse bomb
        return rng.choice(['{"frame_indices": [' + _huge(rng) + "]}",
                           '{"frame_indices": ' + _deep(rng) + "}",
                           ('{"a":[' + "0," * 300) * 300])
    return "x" * rng.choice([1, 70_000])


class Outside:
    """Files outside every run folder that a planted symlink points at: must never change."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()
        (root / "victim.json").write_text('{"keep": true}\n')
        (root / "victim.jsonl").write_text('{"key": "victim"}\n')
        (root / "dir").mkdir()
        self.before = self.state()

    def state(self) -> dict[str, bytes]:
        return {str(p.relative_to(self.root)): p.read_bytes() if p.is_file() else b"<dir>"
                for p in sorted(self.root.rglob("*"))}

    def target(self, rng: random.Random) -> Path:
        return self.root / rng.choice(["victim.json", "victim.jsonl", "dir", "missing"])


def _symlink(path: Path, target: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    path.symlink_to(target)


def _replace(path: Path, rng: random.Random, outside: Outside) -> None:
    """A file of the suite or run replaced by garbage, a folder or a symlink out."""
    roll = rng.random()
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    if roll < 0.7:
        path.write_bytes(garbage(rng))
    elif roll < 0.8:
        path.mkdir()
    else:
        path.symlink_to(outside.target(rng))


def _only_input_errors(load: Callable[[], object]) -> None:
    from recallbench.errors import InputError

    try:
        load()
    except InputError as exc:
        assert str(exc).count("\n") == 0 and exc.path, exc


# ------------------------------------------------------------------------------ loaders
def test_every_loader_refuses_garbage_with_one_line(tmp_path):
    from recallbench.benchmarks.findingdory.annotations import load_episode
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.scenemem.spec import load_scenario
    from recallbench.run.manifest import read_manifest
    from recallbench.run.runlog import completed
    from support.findingdory_suite import build_suite
    from support.scenemem_fixtures.build import mini_scenario, mini_test

    rng = random.Random(SEED)
    outside = Outside(tmp_path / "outside")
    fd = build_suite(tmp_path / "fd")
    scen = mini_scenario(tmp_path / "sm" / "combo_1", [mini_test("t", "bowl")])
    (scen / "videos" / "subtasks.json").write_text("{}")
    pristine_fd, pristine_sm = tmp_path / "fd0", tmp_path / "sm0"
    shutil.copytree(fd, pristine_fd, symlinks=True)
    shutil.copytree(scen, pristine_sm, symlinks=True)
    episodes = [p.parent for p in fd.rglob("entities.json")]
    run = tmp_path / "run"
    run.mkdir()
    targets: list[tuple[Path, Callable[[], object]]] = [
        (fd / "qa.json", lambda: load_suite(fd)),
        (run / "runlog.jsonl", lambda: completed(run / "runlog.jsonl")),
        (run / "manifest.json", lambda: read_manifest(run)),
        *[(scen / name, lambda: load_scenario(scen))
          for name in ("eval_spec.json", "env/env_args.json", "env/ep_meta.json",
                       "videos/subtasks.json", "env/unified_model.xml",
                       "env/start_state.npy")],
    ]
    for ep in episodes[:1]:
        for name in ("entities.json", "events.json"):
            targets.append((ep / name, lambda ep=ep: load_episode(ep)))
    for path, load in targets:
        for _ in range(LOADER_ROUNDS):
            _replace(path, rng, outside)
            _only_input_errors(load)
        for pristine, live in ((pristine_fd, fd), (pristine_sm, scen)):  # the next target's
            shutil.rmtree(live)                                             # neighbours are good
            shutil.copytree(pristine, live, symlinks=True)
    assert outside.state() == outside.before


# -------------------------------------------------------------------- score and view on runs
@pytest.fixture(scope="module", params=["findingdory", "scenemem"])
def pristine_run(request, tmp_path_factory) -> Path:
    from recallbench.cli import main
    from support.findingdory_suite import build_suite
    from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

    root = tmp_path_factory.mktemp("fuzz")
    if request.param == "scenemem":
        mini_scenario(root / "data" / "combo_1", [mini_test("t", "bowl"), mini_test("u", "cup")])
        assert main(["scenemem", "--data_dir", str(root / "data"), "--policy", "do-nothing",
                     "--out", str(root / "r.json"), "--workers", "1", "--max_steps", "3",
                     "--env_factory", MINI_FACTORY]) == 0
        return root / "r_run"
    suite = build_suite(root / "suite")
    run = root / "run"
    assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(run), "--limit", "5"]) == 0
    return run


FIELDS = ("frame_indices", "response", "offered_frames", "info", "ll", "agent_error", "seconds",
          "key", "category", "task", "fixture_type", "memory", "steps", "error", "failed",
          "trace", "opened", "policy_info", "test_id", "fixtures_opened_before_success",
          "first_open_success", "scenario")


def _damage_run(run: Path, rng: random.Random, outside: Outside) -> str:
    log = run / "runlog.jsonl"
    roll = rng.randrange(6)
    if roll <= 2:  # one record's field gets a wrong, huge or deep value
        lines = log.read_text().splitlines()
        i = rng.randrange(len(lines))
        record = json.loads(lines[i])
        field = rng.choice(FIELDS)
        record[field] = wrong_value(rng)
        lines[i] = json.dumps(record)
        log.write_text("\n".join(lines) + "\n")
        return f"runlog field {field}"
    if roll == 3:  # one line of the log is garbage
        lines = log.read_bytes().splitlines(keepends=True)
        lines.insert(rng.randrange(len(lines) + 1), garbage(rng).replace(b"\n", b" ") + b"\n")
        log.write_bytes(b"".join(lines))
        return "runlog line"
    name = rng.choice(["manifest.json", "summary.json", "runlog.jsonl", "viewer", ".lock",
                       "summary.json.tmp", "viewer/index.html"])
    (run / "viewer").mkdir(exist_ok=True)
    if roll == 4:
        _symlink(run / name, outside.target(rng))
    else:
        _replace(run / name, rng, outside)
    return name


@pytest.mark.slow
def test_score_and_view_survive_damaged_run_folders(pristine_run, tmp_path, capsys):
    from recallbench.cli import main

    rng = random.Random(SEED)
    outside = Outside(tmp_path / "outside")
    for round_ in range(RUN_ROUNDS):
        run = tmp_path / f"run{round_}"
        shutil.copytree(pristine_run, run, symlinks=True)
        what = _damage_run(run, rng, outside)
        log = run / "runlog.jsonl"
        kept = log.read_bytes() if log.is_file() and not log.is_symlink() else None
        for command in ("score", "view"):
            capsys.readouterr()
            code = main([command, str(run)])
            out = "".join(capsys.readouterr())
            context = (round_, what, command, out[-600:])
            # 1: a run with no case left to score (the damage emptied its log) achieved nothing
            assert code in (0, 1, 2), context
            assert "internal error" not in out and "Traceback" not in out, context
            if code in (1, 2):
                errors = [line for line in out.splitlines() if ": error: " in line]
                assert len(errors) == 1 and str(run) in squash(errors[0]), context
            if kept is not None:  # never a lost record
                assert log.read_bytes() == kept, context
        assert outside.state() == outside.before, (round_, what)


@pytest.mark.slow
def test_merge_survives_damaged_shards(tmp_path, capsys):
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    shards = {}
    for i in (1, 2):
        shards[i] = tmp_path / f"pristine{i}"
        assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                     "--out", str(shards[i]), "--shard", f"{i}/2"]) == 0
    rng = random.Random(SEED)
    outside = Outside(tmp_path / "outside")
    for round_ in range(8):
        live = []
        for i in (1, 2):
            live.append(tmp_path / f"r{round_}s{i}")
            shutil.copytree(shards[i], live[-1], symlinks=True)
        what = _damage_run(live[rng.randrange(2)], rng, outside)
        capsys.readouterr()
        code = main(["merge", *map(str, live), "--out", str(tmp_path / f"merged{round_}")])
        out = "".join(capsys.readouterr())
        context = (round_, what, out[-600:])
        assert code in (0, 2) and "internal error" not in out, context
        if code == 2:
            assert len([line for line in out.splitlines() if ": error: " in line]) == 1, context
        assert outside.state() == outside.before, context
