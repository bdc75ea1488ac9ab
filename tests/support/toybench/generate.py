"""ToyBench's generator (``Benchmark.generator``): ``recallbench generate toybench --out DIR
--n N --seed S`` writes one case per item, then the suite file, through recallbench's shared
suite machinery (workers, resume, suite.json); its command is declared here (``command``), so
nothing in recallbench is edited for it."""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path
from typing import Any

from toybench.suite import FILE

from recallbench.generate.registry import Generator

FRAMES = 6


def _item_path(out_dir: Path, index: int) -> Path:
    return out_dir / "items" / f"c{index:03d}.json"


def generate_item(out_dir: Path, index: int, seed: int, knobs: dict[str, Any]) -> dict[str, Any]:
    colours = ["red", "green", "blue"] + ["grey"] * (int(knobs["frames"]) - 3)
    random.Random(seed).shuffle(colours)
    case = {"id": f"c{index:03d}", "frames": colours}
    path = _item_path(out_dir, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(case))
    return {"index": index, "id": case["id"]}


def item_summary(out_dir: Path, index: int) -> dict[str, Any] | None:
    path = _item_path(out_dir, index)
    return {"index": index, "id": json.loads(path.read_text())["id"]} if path.is_file() else None


def suite_manifest(out_dir: Path, seed: int, n: int, knobs: dict[str, Any],
                   items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"benchmark": "toybench", "seed": seed, "n": n, "knobs": knobs,
            "complete": len(items) == n, "items": items}


def finish(out_dir: Path, knobs: dict[str, Any]) -> None:
    cases = [json.loads(p.read_text()) for p in sorted((out_dir / "items").glob("c*.json"))]
    (out_dir / FILE).write_text(json.dumps({"cases": cases}))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("toybench", help="ToyBench cases (which of N frames shows a colour)")
    p.add_argument("--out", required=True, help="suite folder")
    p.add_argument("--n", type=int, default=4, help="cases (default 4)")
    p.add_argument("--seed", type=int, default=0, help="suite seed (default 0)")
    p.add_argument("--frames", type=int, default=FRAMES, help=f"frames per case ({FRAMES})")
    p.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    from recallbench.generate.suite import run_suite

    return run_suite("toybench", args.out, args.n, args.seed, {"frames": args.frames},
                     min(2, os.cpu_count() or 1))


GENERATOR = Generator(generate_item, item_summary, suite_manifest, finish=finish,
                      command="toybench.generate:register")
