"""Frame strips: one PNG per generated SceneMem scenario showing, for every find_target probe,
frames of the recorded video from the moment the robot carries the object to the fixture until
the door is shut again, each frame labelled with its number.

A person checks a generated suite with it: the question on the left, the object going into the
fixture along the row. ``recallbench generate strip SCENARIO_DIR`` writes ``strip.png`` beside
the spec (see ``cli.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from recallbench.errors import InputError, UsageError
from recallbench.generate.scenemem_probes import PROBE
from recallbench.video.reader import VideoFrames

CAPTION_W = 300
STRIP_CAMERAS = ("robot0_agentview_left", "robot0_eye_in_hand")
PAD = 4


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def probe_frames(task: dict, per_probe: int) -> list[int]:
    """Frames across the place skill (object carried in, released) and the door closing."""
    skills = task.get("skills", [])
    place = [s for s in skills if s["skill"] == "place" and s["success"]]
    if not place:
        return list(np.linspace(task["start_frame"], task["end_frame"] - 1, per_probe, dtype=int))
    start = place[-1]["start_frame"]
    end = task["end_frame"] - 1
    release = task.get("placed_frame", place[-1]["end_frame"] - 1)
    # half the frames on the way in (up to the release), the rest until the door is shut
    k_in = max(2, per_probe // 2 + 1)
    first = np.linspace(start + (release - start) // 3, release, k_in, dtype=int)
    rest = np.linspace(release, end, per_probe - k_in + 1, dtype=int)[1:]
    return [int(f) for f in np.concatenate([first, rest])]


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        if len(line) + len(w) + 1 > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return [*lines, line] if line else lines


Row = tuple[dict, dict, list[int]]  # (test, its subtask, the frames to show)


def render_strip(scenario: str | Path, out: str | Path | None = None,
                 cameras: tuple[str, ...] = STRIP_CAMERAS, per_probe: int = 6,
                 thumb: int = 160) -> Path:
    """Write the strip PNG (default ``<scenario>/strip.png``) and return its path.

    One row per find_target probe, one line of frames per camera (the agent view shows the
    counter-height fixtures, the wrist camera also the high cabinets)."""
    root = Path(scenario)
    spec_path, sub_path = root / "eval_spec.json", root / "videos" / "subtasks.json"
    for p in (spec_path, sub_path):
        if not p.is_file():
            raise InputError(p, None, "file is missing")
    spec = json.loads(spec_path.read_text())
    tasks = json.loads(sub_path.read_text())["tasks"]
    rows = _probe_rows(spec_path, spec, tasks, per_probe)
    decoded = _decode(root, cameras, rows, thumb)
    sheet = _draw_sheet(root.name, spec, rows, decoded, cameras, per_probe, thumb)
    out_path = Path(out) if out is not None else root / "strip.png"
    sheet.save(out_path)
    return out_path


def _probe_rows(spec_path: Path, spec: dict, tasks: list[dict], per_probe: int) -> list[Row]:
    """Each find_target probe with its subtask and the frames to show."""
    rows = []
    for i, test in enumerate(spec.get("tests", [])):
        if test.get("task", "find_target") != "find_target":
            continue
        k = test.get("subtask")
        if not isinstance(k, int) or not 0 <= k < len(tasks):
            raise InputError(spec_path, f"tests[{i}].subtask", "no subtask index for this probe")
        frames = probe_frames(tasks[k], per_probe)
        if len(set(frames)) < len(frames):  # the probe's part of the video is shorter
            raise UsageError("--frames", f"{per_probe} frames per probe, but tests[{i}] in "
                                         f"{spec_path} spans {max(frames) - min(frames) + 1} "
                                         f"frames of its video ({min(frames)}-{max(frames)}): "
                                         "ask for fewer")
        rows.append((test, tasks[k], frames))
    if not rows:
        raise InputError(spec_path, "tests", "no find_target probe to show")
    return rows


def _decode(root: Path, cameras: tuple[str, ...], rows: list[Row],
            thumb: int) -> dict[tuple[str, int], np.ndarray]:
    """Every shown frame of every camera, as a thumb x thumb image, decoded once."""
    wanted = sorted({f for _, _, frames in rows for f in frames})
    decoded = {}
    for cam in cameras:
        video = root / "videos" / f"{cam}.mp4"
        if not video.is_file():
            raise InputError(video, None, "video file is missing")
        got = VideoFrames(video, wanted, stamp=False, size=(thumb, thumb)).frames()
        decoded.update({(cam, f): img for f, img in zip(wanted, got, strict=True)})
    return decoded


def _draw_sheet(title: str, spec: dict, rows: list[Row],
                decoded: dict[tuple[str, int], np.ndarray], cameras: tuple[str, ...],
                per_probe: int, thumb: int) -> Image.Image:
    """The heading, then per probe its caption on the left and its frames along the row."""
    font, small = _font(15), _font(13)
    row_h = len(cameras) * (thumb + PAD) + PAD + 18
    header = 28
    width = CAPTION_W + per_probe * (thumb + PAD) + PAD
    sheet = Image.new("RGB", (width, header + row_h * len(rows)), (250, 250, 250))
    draw = ImageDraw.Draw(sheet)
    others = [t for t in spec["tests"] if t.get("task") == "find_distractor"]
    draw.text((PAD, 6), f"{title}  ({', '.join(cameras)}; {len(rows)} find_target, "
              f"{len(others)} "
              f"find_distractor probes)", fill=(0, 0, 0), font=font)
    for r, (test, task, frames) in enumerate(rows):
        y = header + r * row_h
        draw.line([(0, y), (width, y)], fill=(180, 180, 180))
        ty = y + PAD
        for line in _caption(test, task):
            for part in _wrap(line, 38):
                draw.text((PAD, ty), part, fill=(0, 0, 0), font=small)
                ty += 16
        for j, f in enumerate(frames):
            x = CAPTION_W + j * (thumb + PAD)
            for c, cam in enumerate(cameras):
                sheet.paste(Image.fromarray(decoded[(cam, f)]), (x, y + PAD + c * (thumb + PAD)))
            draw.text((x + 2, y + row_h - 18), f"frame {f}", fill=(0, 0, 0), font=small)
    return sheet


def _caption(test: dict, task: dict) -> list[str]:
    """A probe's caption lines: the question, the answer fixture, the subtask it shows."""
    fx = test["fixture"]
    question = test.get("instruction") or PROBE.format(category=test["category"])
    return [f"Q: {question}",
            f"A: {fx['name']} ({fx['type']})", "",
            f"task {test['subtask']}: {task['instruction']}",
            f"frames {task['start_frame']}-{task['end_frame'] - 1}"]
