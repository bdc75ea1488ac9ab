"""Load FindingDory QA rows: the public validation file, the official HF rows, generated suites.

Accepted inputs:
- a ``.json`` file holding a list of rows (public val format, or HF rows whose ``answer`` is a
  string), or a ``.jsonl`` file with one row per line;
- a generated suite directory holding ``qa.json`` (same rows plus ``subgoals``, ``ordered``,
  ``answer_frames``) and ``episodes/<ep_id>/`` annotation files (see ``annotations.py``).

Every bad row raises ``InputError`` naming the file, the row id and the field.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.benchmarks.findingdory.templates import (
    CATEGORY_GROUP,
    is_multi_goal,
    is_ordered,
    template_of,
)
from recallbench.errors import InputError
from recallbench.io import parse_json, read_bytes_regular

# the public file's answers index the video subsampled to the published K
PUBLIC_ANSWER_FRAMES = DEFAULT_FRAMES


@dataclass(frozen=True)
class QACase:
    """One FindingDory question.

    ``answer`` holds one valid-frame list per goal. ``answer_frames`` is the frame budget K the
    answer indices live in (96 for the public file), or None when they index the original video.
    ``subgoals`` (generated suites) lists the entity ids that satisfy each goal.
    """

    id: str
    question: str
    answer: tuple[tuple[int, ...], ...]
    high_level_category: str
    low_level_category: str
    ep_id: str
    template: str
    ordered: bool
    video: str | None = None
    task_id: str | None = None
    num_interactions: int | None = None
    answer_frames: int | None = PUBLIC_ANSWER_FRAMES
    subgoals: tuple[tuple[str, ...], ...] | None = None
    num_frames: int | None = None

    @property
    def group(self) -> str:
        return self.high_level_category

    @property
    def category(self) -> str:
        return self.low_level_category

    @property
    def num_targets(self) -> int:
        """Indices the agent must return: 1 for single-goal tasks, one per sub-goal otherwise."""
        return len(self.answer) if is_multi_goal(self.low_level_category) else 1

    @property
    def solvable(self) -> bool:
        """False when some goal has no valid frame ([-1] or empty): no frame choice can succeed."""
        return all(sub and -1 not in sub for sub in self.answer)


@dataclass(frozen=True)
class Suite:
    path: Path  # the file or directory loaded
    root: Path  # directory that relative video / episode paths resolve against
    cases: tuple[QACase, ...]
    sha256: str  # of the QA file, recorded in run manifests
    generated: bool = False
    trusted: bool = False  # --trust-suite: videos may lie outside the suite folder

    def episode_dir(self, ep_id: str) -> Path:
        return self.root / "episodes" / ep_id  # ep_id is a plain name (parse_row checks it)


def _require(row: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path, rid: str):
    if key not in row:
        raise InputError(path, f"row {rid}: {key}", "missing")
    value = row[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(path, f"row {rid}: {key}", f"expected {kind}, got {type(value).__name__}")
    return value


def _parse_answer(value: Any, path: Path, rid: str) -> tuple[tuple[int, ...], ...]:
    field = f"row {rid}: answer"
    if isinstance(value, str):  # HF rows store the answer as text; JSON, never eval
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InputError(path, field, f"answer string is not JSON: {exc.msg}") from None
    if not isinstance(value, list) or not value:
        raise InputError(path, field, "expected a non-empty list of frame-index lists")
    out = []
    for j, sub in enumerate(value):
        if not isinstance(sub, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and i >= -1 for i in sub
        ):
            raise InputError(path, f"{field}[{j}]", "expected a list of frame indices (>= -1)")
        out.append(tuple(sub))
    return tuple(out)


def _check_ep_id(ep_id: str, path: Path, rid: str) -> None:
    # An episode folder is episodes/<ep_id>: a name with a separator or ".." would leave it.
    if not ep_id or ep_id in (".", "..") or any(c in ep_id for c in "/\\\0"):
        raise InputError(path, f"row {rid}: ep_id", f"{ep_id!r} is not a plain episode name")


def _check_video_path(video: str, path: Path, rid: str, trusted: bool) -> None:
    """A video path stays inside the suite: relative, without climbing out with '..'."""
    if trusted:
        return
    if Path(video).is_absolute() or os.path.normpath(video).split(os.sep)[0] == "..":
        raise InputError(
            path,
            f"row {rid}: video",
            f"{video!r} is outside the suite folder (--trust-suite or --videos allow it)",
        )


def _positive_int(row: dict[str, Any], key: str, path: Path, rid: str) -> int | None:
    value = row.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise InputError(path, f"row {rid}: {key}", f"expected a positive integer, got {value!r}")
    return value


def parse_row(
    row: Any, path: Path, position: int, *, generated: bool = False, trusted: bool = False
) -> QACase:
    rid = _row_id(row, path, position)
    question = _require(row, "question", str, path, rid)
    answer = _parse_answer(row.get("answer"), path, rid) if "answer" in row else None
    if answer is None:
        raise InputError(path, f"row {rid}: answer", "missing")
    low, high = _parse_categories(row, path, rid)
    ep_id = str(_require(row, "ep_id", (str, int), path, rid))
    _check_ep_id(ep_id, path, rid)
    video = _parse_video(row, path, rid, trusted)
    ni = row.get("num_interactions")
    if ni is not None and (not isinstance(ni, int) or isinstance(ni, bool)):
        raise InputError(path, f"row {rid}: num_interactions", "expected an integer")
    ordered = row.get("ordered", is_ordered(low))
    if not isinstance(ordered, bool):
        raise InputError(path, f"row {rid}: ordered", "expected true or false")
    answer_frames = _parse_answer_frames(row, path, rid, generated)
    subgoals = _parse_subgoals(row.get("subgoals"), answer, path, rid)
    if not is_multi_goal(low) and len(answer) != 1:
        raise InputError(path, f"row {rid}: answer", "single-goal task with several answer lists")
    num_frames = _positive_int(row, "num_frames", path, rid)
    _check_answer_range(answer, answer_frames, num_frames, path, rid)
    template = row.get("template") or template_of(question, low) or f"(unmatched) {low}"
    task_id = row.get("task_id")
    return QACase(
        id=rid,
        question=question,
        answer=answer,
        high_level_category=high,
        low_level_category=low,
        ep_id=ep_id,
        template=template,
        ordered=ordered,
        video=video,
        task_id=None if task_id is None else str(task_id),
        num_interactions=ni,
        answer_frames=answer_frames,
        subgoals=subgoals,
        num_frames=num_frames,
    )


def _row_id(row: Any, path: Path, position: int) -> str:
    """The row's id as text; the row must be an object that has one."""
    if not isinstance(row, dict):
        raise InputError(path, f"row #{position}", "expected an object")
    if "id" not in row:
        raise InputError(path, f"row #{position}: id", "missing")
    return str(row["id"])


def _parse_categories(row: dict[str, Any], path: Path, rid: str) -> tuple[str, str]:
    """(low-level, high-level) category: a known low one, and the group that contains it."""
    low = _require(row, "low_level_category", str, path, rid)
    if low not in CATEGORY_GROUP:
        raise InputError(path, f"row {rid}: low_level_category", f"unknown category {low!r}")
    high = row.get("high_level_category", CATEGORY_GROUP[low])
    if high != CATEGORY_GROUP[low]:
        raise InputError(
            path,
            f"row {rid}: high_level_category",
            f"{high!r} does not contain category {low!r} (expected {CATEGORY_GROUP[low]!r})",
        )
    return low, high


def _parse_video(row: dict[str, Any], path: Path, rid: str, trusted: bool) -> str | None:
    """The row's video path, if any: a string that stays inside the suite unless trusted."""
    video = row.get("video")
    if video is not None and not isinstance(video, str):
        raise InputError(path, f"row {rid}: video", "expected a path string")
    if video:
        _check_video_path(video, path, rid, trusted)
    return video


def _parse_answer_frames(row: dict[str, Any], path: Path, rid: str, generated: bool) -> int | None:
    """Frames the answer indices count in: the row's (null or a positive int), else the
    published K for a public row (PUBLIC_ANSWER_FRAMES) and None for a generated one."""
    if "answer_frames" in row:
        answer_frames = row["answer_frames"]
        if answer_frames is not None and (not isinstance(answer_frames, int) or answer_frames < 1):
            raise InputError(path, f"row {rid}: answer_frames", "expected null or a positive int")
        return answer_frames
    return None if generated else PUBLIC_ANSWER_FRAMES


def _parse_subgoals(
    sg: Any, answer: Any, path: Path, rid: str
) -> tuple[tuple[str, ...], ...] | None:
    if sg is None:
        return None
    if not isinstance(sg, list) or not all(
        isinstance(s, list) and all(isinstance(e, str) for e in s) for s in sg
    ):
        raise InputError(path, f"row {rid}: subgoals", "expected a list of entity-id lists")
    if len(sg) != len(answer):
        raise InputError(
            path, f"row {rid}: subgoals", f"{len(sg)} sub-goals but {len(answer)} answer lists"
        )
    return tuple(tuple(s) for s in sg)


def _check_answer_range(answer: Any, answer_frames: int | None, num_frames: int | None,
                        path: Path, rid: str) -> None:
    """Answers index the subsampled space when it is given, else the whole video."""
    limit = answer_frames if answer_frames is not None else num_frames
    if limit is None:
        return
    for j, sub in enumerate(answer):
        if any(i >= limit for i in sub):
            space = "answer space" if answer_frames is not None else "video (num_frames)"
            raise InputError(
                path, f"row {rid}: answer[{j}]", f"index beyond the {limit}-frame {space}"
            )


def _read_rows(path: Path) -> list[Any]:
    data = read_bytes_regular(path)  # a folder or a FIFO: one line, never a hang
    if path.suffix == ".jsonl":
        return [parse_json(line, path, f"line {n}")
                for n, line in enumerate(data.splitlines(), 1) if line.strip()]
    data = parse_json(data, path)
    if isinstance(data, dict) and isinstance(data.get("rows"), list):
        data = data["rows"]
    if not isinstance(data, list):
        raise InputError(path, None, "expected a list of QA rows")
    return data


def load_suite(path: str | Path, trusted: bool = False) -> Suite:
    """Load a QA file or a generated suite directory, validating every row.

    ``trusted`` (--trust-suite) lets rows name videos outside the suite folder."""
    path = Path(path)
    generated = path.is_dir()
    qa_path = path / "qa.json" if generated else path
    if not qa_path.is_file():
        raise InputError(qa_path, None, "QA file not found")
    rows = _read_rows(qa_path)
    if not rows:
        raise InputError(qa_path, None, "no QA rows: nothing to evaluate")
    cases = []
    seen: set[str] = set()
    episodes = path / "episodes" if generated and (path / "episodes").is_dir() else None
    for n, row in enumerate(rows):
        case = parse_row(row, qa_path, n, generated=generated, trusted=trusted)
        if episodes is not None and not (episodes / case.ep_id).is_dir():
            raise InputError(qa_path, f"row {case.id}: ep_id", f"no folder episodes/{case.ep_id}")
        if case.id in seen:
            raise InputError(qa_path, f"row {case.id}: id", "duplicate id")
        seen.add(case.id)
        cases.append(case)
    digest = hashlib.sha256(qa_path.read_bytes()).hexdigest()
    return Suite(
        path=path,
        root=path if generated else path.parent,
        cases=tuple(cases),
        sha256=digest,
        generated=generated,
        trusted=trusted,
    )


def resolve_video(suite: Suite, case: QACase, videos_dir: str | Path | None = None) -> Path | None:
    """The case's video on disk, or None when absent (the public file ships without videos).

    Relative paths resolve against ``videos_dir`` when given (also trying just the file name),
    else against the data file's directory.
    """
    if not case.video:
        return None
    rel = Path(case.video)
    candidates: Sequence[Path]
    if rel.is_absolute():
        candidates = [rel]
    elif videos_dir is not None:
        candidates = [Path(videos_dir) / rel, Path(videos_dir) / rel.name]
    else:
        candidates = [suite.root / rel]
    # Symlinks included: the file actually read must lie under the folder it resolved against.
    base = Path(videos_dir) if videos_dir is not None else suite.root
    for c in candidates:
        if c.is_file():
            if not (suite.trusted or rel.is_absolute()) and not c.resolve().is_relative_to(
                base.resolve()
            ):
                raise InputError(c, "video", "resolves outside the suite folder (a symlink?)")
            return c
    return None
