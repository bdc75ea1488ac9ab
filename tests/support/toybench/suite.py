"""A ToyBench suite is one JSON file, ``toybench.json``: ``{"cases": [{"id", "frames"}]}``, each
frame a colour name; exactly one frame of each of red, green and blue per case."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from recallbench.errors import InputError

FILE = "toybench.json"


def write_suite(folder: Path, n: int, frames: int = 6, seed: int = 0) -> Path:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        colours = ["red", "green", "blue"] + ["grey"] * (frames - 3)
        rng.shuffle(colours)
        cases.append({"id": f"c{i:03d}", "frames": colours})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE).write_text(json.dumps({"cases": cases}))
    return folder


def is_suite(path: Path) -> bool:
    return (Path(path) / FILE).is_file()


def load_suite(path: Path) -> list[dict[str, Any]]:
    file = Path(path) / FILE
    try:
        cases = json.loads(file.read_text())["cases"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(file, "cases", f"not a ToyBench suite ({exc})") from None
    if not isinstance(cases, list) or not all(
            isinstance(c, dict) and isinstance(c.get("id"), str)
            and isinstance(c.get("frames"), list) for c in cases):
        raise InputError(file, "cases", "expected a list of {id, frames}")
    return cases


def answer(case: dict[str, Any], target: str) -> int:
    return list(case["frames"]).index(target)
