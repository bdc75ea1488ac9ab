"""A privileged captioner for generated FindingDory suites: chunk captions from the episode's
ground truth instead of a VLM, so the text-memory agent runs fully offline.

What a chunk's caption says, from ``frames.npz`` / ``annotations.npz`` / ``events.json`` beside
the episode's video: the room(s) the robot is in, every pick or place event that overlaps the
chunk ("At frame 12 the robot picks up the red mug from the sofa in the living room."), and the
objects and receptacles in view (FindingDory's goal predicate). Frame numbers are the stamped
positions, which the embedding answerer reads back as the chosen frame.

Use: ``TextMemoryAgent(answerer="embedding",
captioner="recallbench.agents.annotation_captions:AnnotationCaptioner")``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.agents.captioning import CaptionError, Chunk
from recallbench.benchmarks.findingdory.protocol import FrameSource

MAX_SEEN = 6  # entities named per chunk, most visible first (captions stay short)


def describe(entity: Any) -> str:
    """An entity in words: colour + name for objects ("red mug"), the name otherwise."""
    color = (entity.attributes or {}).get("color") if entity.kind == "object" else None
    return f"{color} {entity.name}" if color else str(entity.name)


class AnnotationCaptioner:
    """Captions from the ground truth of the episode a chunk's video belongs to."""

    def __init__(self) -> None:
        self._episodes: dict[Path, Any] = {}
        self._lock = threading.Lock()

    def _episode(self, video_path: str | None) -> Any:
        from recallbench.benchmarks.findingdory.annotations import load_episode

        if video_path is None:
            raise CaptionError("annotation captioner: the case has no video path")
        video = Path(video_path).resolve()
        # generated suites keep the video in its episode folder; other layouts keep videos in
        # <suite>/videos/<ep>.mp4 beside <suite>/episodes/<ep>/
        candidates = (video.parent, video.parent.parent / "episodes" / video.stem)
        directory = next((d for d in candidates if (d / "frames.npz").is_file()), None)
        if directory is None:
            raise CaptionError(f"{video}: no frames.npz beside it or in ../episodes/{video.stem}")
        with self._lock:
            if directory not in self._episodes:
                self._episodes[directory] = load_episode(directory)
            return self._episodes[directory]

    def caption(self, chunk: Chunk, frames: FrameSource | None) -> str:
        ann = self._episode(chunk.video_path)
        idx = np.asarray(chunk.frame_indices, dtype=int)
        idx = idx[(idx >= 0) & (idx < ann.num_frames)]
        if idx.size == 0:
            return "Nothing recorded."
        names = {e.id: describe(e) for e in ann.entities}
        kinds = np.array([e.kind for e in ann.entities])
        parts = []
        rooms = [ann.entities[j].name for j in np.flatnonzero(kinds == "room")
                 if ann.in_room[idx, j].any()]
        if rooms:
            parts.append("The robot is in the " + " and the ".join(rooms) + ".")
        parts.extend(self._events(ann, chunk, names))
        sat = ann.satisfied()[idx]  # (chunk frames, entities)
        seen = [j for j in np.flatnonzero(sat.any(axis=0)) if kinds[j] != "room"]
        seen.sort(key=lambda j: -float(ann.coverage[idx, j].max()))
        if seen:
            parts.append("It sees the " + ", the ".join(describe(ann.entities[j])
                                                        for j in seen[:MAX_SEEN]) + ".")
        return " ".join(parts) or "The robot moves around."

    @staticmethod
    def _events(ann: Any, chunk: Chunk, names: dict[str, str]) -> list[str]:
        out = []
        first, last = min(chunk.frame_indices), max(chunk.frame_indices)
        for ev in ann.events or []:
            if ev["end"] < first or ev["start"] > last:
                continue
            # the stamped position showing the moment of contact: pick start, place end (the
            # first frame from the place's end on, where the object is at its new place)
            moment = ev["start"] if ev.get("kind") == "pick" else ev["end"]
            after = [i for i, f in enumerate(chunk.frame_indices) if f >= moment]
            nearest = int(np.argmin([abs(f - moment) for f in chunk.frame_indices]))
            pos = chunk.positions[after[0] if ev.get("kind") != "pick" and after else nearest]
            obj = names.get(str(ev.get("object")), str(ev.get("object")))
            rec = names.get(str(ev.get("receptacle")), str(ev.get("receptacle")))
            room = str(ev.get("room") or "").replace("_", " ")
            where = f"{rec} in the {room}" if room else rec
            verb = "picks up the {} from the {}" if ev.get("kind") == "pick" else \
                "places the {} on the {}"
            out.append(f"At frame {pos} the robot " + verb.format(obj, where) + ".")
        return out

    def manifest(self) -> dict[str, Any]:
        return {"captioner": "annotations (privileged)"}
