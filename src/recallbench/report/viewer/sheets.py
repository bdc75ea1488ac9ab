"""A generated day's contact sheets on the viewer's FindingDory case pages.

``generate`` writes two sheets per episode (``generate/contact_sheet.py``): the K offered frames,
and every question target at its valid offered frames with its instance outlined. The viewer
copies them beside its pages (``sheets/<suite key>-<ep_id>-<name>.jpg``, copied once and
reused while the suite's file keeps its size and time), so a page moved or published with its
run still shows them, and each case page of that day links them.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from recallbench.io import replace_atomic

SHEET_DIR = "sheets"
# the files generate writes (generate.contact_sheet.SHEETS; report may not import generate)
SHEETS = {"frames": "sheet_frames.jpg", "targets": "sheet_targets.jpg"}


def _name(suite: Any, ep_id: str, kind: str) -> str:
    key = hashlib.sha1(str(Path(suite.path).resolve()).encode()).hexdigest()[:8]
    return f"{key}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', ep_id)}-{kind}.jpg"


def _copy(src: Path, dst: Path, root: Path) -> None:
    stat = src.stat()
    if dst.is_file() and dst.stat().st_size == stat.st_size and \
            dst.stat().st_mtime >= stat.st_mtime:
        return
    data = src.read_bytes()
    replace_atomic(dst, lambda f: f.write(data), root=root)


def episode_sheets(suite: Any, ep_id: str, thumbs: Any) -> dict[str, str] | None:
    """Relative URLs of a generated day's sheets in the viewer (``thumbs``: the viewer's
    ``Thumbnailer``, whose folder and write root the copies share), or None when the suite
    has none (the public QA, suites generated before the sheets)."""
    if not getattr(suite, "generated", False):
        return None
    folder = suite.episode_dir(ep_id)
    urls: dict[str, str] = {}
    for kind, file in SHEETS.items():
        src = folder / file
        # a suite's files stay inside it: a planted link to elsewhere is not shown
        if not src.is_file() or not src.resolve().is_relative_to(Path(suite.root).resolve()):
            continue
        name = _name(suite, ep_id, kind)
        _copy(src, Path(thumbs.out) / SHEET_DIR / name, Path(thumbs.root))
        urls[kind] = f"{SHEET_DIR}/{name}"
    return urls or None
