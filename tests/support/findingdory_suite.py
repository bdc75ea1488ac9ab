"""A small FindingDory suite in the generated format: two episodes of per-frame annotations with
real mp4 videos (each entity drawn in its own colour while in view) and six questions each."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from recallbench.benchmarks.findingdory.annotations import Entity, EpisodeAnnotations, save_episode
from recallbench.video import VideoWriter

F = 200  # frames per episode
SIZE = 64
# entity -> (kind, colour drawn while it is in view, start distance, position on a line)
ENTITIES = {
    "mug": ("object", (0, 255, 0), 4.0, 4.0),
    "table": ("receptacle", (255, 0, 0), 2.0, -2.0),
    "sofa": ("receptacle", (0, 0, 255), 6.0, 6.0),
    "kitchen": ("room", None, 1.0, 1.0),
}


def episode_arrays(shift: int) -> EpisodeAnnotations:
    names = list(ENTITIES)
    dist = np.full((F, 4), 9.0, np.float32)
    ang = np.full((F, 4), 3.0, np.float32)
    cov = np.zeros((F, 4), np.float32)
    room = np.zeros((F, 4), bool)

    def view(e: int, lo: int, hi: int, d: float, c: float) -> None:
        dist[lo + shift : hi + shift, e] = d
        ang[lo + shift : hi + shift, e] = 0.0
        cov[lo + shift : hi + shift, e] = c

    view(0, 30, 40, 1.0, 0.0)  # mug close but hidden: DTG only
    view(0, 40, 60, 1.5, 0.05)  # mug: full predicate
    view(0, 60, 70, 2.5, 0.05)  # mug seen from too far: SC only
    view(1, 100, 120, 0.05, 0.05)  # table viewpoint
    view(2, 150, 170, 0.05, 0.05)  # sofa viewpoint
    room[0 + shift : 100 + shift, 3] = True  # kitchen
    pos = np.array([v[3] for v in ENTITIES.values()])
    return EpisodeAnnotations(
        pose=np.zeros((F, 3), np.float32),
        times=[
            f"{6 + (i * 16 * 60 // F) // 60:02d}:{(i * 16 * 60 // F) % 60:02d}" for i in range(F)
        ],
        entities=[Entity(n, ENTITIES[n][0], n, n, {}) for n in names],
        distance=dist,
        angle=ang,
        coverage=cov,
        in_room=room,
        start_distance=np.array([v[2] for v in ENTITIES.values()], np.float32),
        entity_distance=np.abs(pos[:, None] - pos[None]).astype(np.float32),
        events=[
            {"start": 40 + shift, "end": 59 + shift, "kind": "pick", "object": "mug"},
            {"start": 150 + shift, "end": 169 + shift, "kind": "place", "object": "mug"},
        ],
    )


def write_video(path: Path, ann: EpisodeAnnotations) -> None:
    with VideoWriter(path, fps=10, width=SIZE, height=SIZE) as writer:
        for f in range(F):
            frame = np.full((SIZE, SIZE, 3), 90, np.uint8)
            for e, (_, colour, _, _) in enumerate(ENTITIES.values()):
                if colour is not None and ann.coverage[f, e] >= 0.001:
                    frame[30:54, 20:44] = colour  # the entity fills the view
            writer.write(frame)


QUESTIONS = [  # (question, category, group, subgoals, ordered)
    ("Navigate to a mug.", "Object Recall", "Single-Goal Spatial Tasks", [["mug"]], False),
    ("Navigate to any receptacle you interacted with.", "Interaction",
     "Single-Goal Spatial Tasks", [["table", "sofa"]], False),
    ("Revisit all the receptacles you interacted with yesterday.", "Unordered Revisitation",
     "Multi-Goal Tasks", [["table"], ["sofa"]], False),
    ("Revisit all the receptacles you placed objects on yesterday in specific order. The order "
     "to revisit them is: second, first.", "Ordered Revisitation", "Multi-Goal Tasks",
     [["sofa"], ["table"]], True),
    ("Navigate to a room that you did not visit yesterday.", "Room Visitation",
     "Single-Goal Spatial Tasks", [[]], False),
    ("Navigate to the room where you picked the mug from.", "Room Visitation",
     "Single-Goal Spatial Tasks", [["kitchen"]], False),
]  # fmt: skip


def build_suite(root: Path) -> Path:
    """Writes the suite (qa.json, episodes/, videos/) into root and returns root."""
    rows = []
    for ep_id, shift in (("ep_a", 0), ("ep_b", 10)):
        ann = episode_arrays(shift)
        save_episode(root / "episodes" / ep_id, ann)
        write_video(root / "videos" / f"{ep_id}.mp4", ann)
        sat = ann.satisfied("full")
        for n, (q, cat, group, subgoals, ordered) in enumerate(QUESTIONS):
            answer = []
            for sub in subgoals:
                cols = [ann.entity_index(e) for e in sub]
                frames = np.flatnonzero(sat[:, cols].any(1)).tolist() if cols else []
                answer.append(frames or [-1])
            rows.append({
                "id": f"{ep_id}-{n}", "question": f"The robot's goal is: {q}",
                "video": f"videos/{ep_id}.mp4", "answer": answer,
                "high_level_category": group, "low_level_category": cat, "ep_id": ep_id,
                "subgoals": subgoals, "ordered": ordered, "answer_frames": None, "num_frames": F,
            })  # fmt: skip
    (root / "qa.json").write_text(json.dumps(rows, indent=1))
    return root


# A tiny FindingDory suite: one one-room day with two interactions, recorded by the real generator.
GENERATE = [
    "generate", "findingdory", "--n", "1", "--seed", "7", "--workers", "1",
    "--interactions", "2", "--steps", "600", "--rooms", "1", "--width", "120",
    "--height", "160", "--distractors", "4", "--revisits", "1",
]  # fmt: skip
