"""The world FindingDory's LL phase is judged in: an episode's end-of-day world
(``episodes/<ep>/world/``), loaded once per episode and restored before every case, and the goal
predicate checked live at the robot's stop poses (``EpisodeWorld.check``: the measurement that
wrote the stored per-frame arrays, ``ground_truth.annotate_day``, at those poses)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recallbench.benchmarks.findingdory.annotations import EpisodeAnnotations, predicate_matrix
from recallbench.benchmarks.findingdory.data import Suite
from recallbench.benchmarks.findingdory.evaluate import EpisodeCache
from recallbench.errors import InputError

DEFAULT_SIZE = (480, 640)  # the paper's portrait head camera, when episode.json has no knobs


@dataclass
class LiveCheck:
    """The predicate's inputs and verdict at some poses: arrays (P, E) over the entities."""

    distance: np.ndarray
    coverage: np.ndarray
    satisfied: np.ndarray


class EpisodeWorld:
    """One episode's end-of-day world, loaded once and restored before every case."""

    def __init__(self, episode_dir: Path, episode: EpisodeAnnotations) -> None:
        from recallbench.world.gl import select_backend

        select_backend()
        from recallbench.world.io import load_world

        self.dir = Path(episode_dir)
        self.episode = episode
        self.env = load_world(self.dir / "world", cameras=())
        self.start = self.env.base_pose().copy()  # the oracle's final pose
        self._state = self.env.sim.full_state().copy()
        self.size = _render_size(self.dir / "episode.json")

    def restore(self) -> None:
        self.env.sim.set_state_from_flattened(self._state)
        self.env.sim.forward()

    def check(self, poses: np.ndarray) -> LiveCheck:
        """Judge the goal predicate of every entity at each pose, live in this world."""
        from recallbench.benchmarks.findingdory.ground_truth import StillPoses, annotate_day

        poses = np.asarray(poses, dtype=np.float64).reshape(-1, 3)
        self.restore()
        # No interactions: at the end of the day every object is where the world shows it.
        live = annotate_day(self.env, StillPoses(poses), *self.size)
        self.restore()
        ids = [e.id for e in live.entities]
        if ids != [e.id for e in self.episode.entities]:
            raise InputError(
                self.dir / "entities.json", None, "entities differ from the saved world's"
            )
        return LiveCheck(live.distance, live.coverage, predicate_matrix(live))

    def close(self) -> None:
        self.env.close()


class WorldCache:
    """The last episode's world, kept open: cases come episode by episode, and loading a world
    and building its grids costs a few tenths of a second (one cache per worker process)."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.episodes = EpisodeCache(suite)
        self._ep: str | None = None
        self._world: EpisodeWorld | None = None

    def get(self, ep_id: str) -> EpisodeWorld:
        if self._ep != ep_id or self._world is None:
            self.close()
            episode = self.episodes.get(ep_id)
            wdir = self.suite.episode_dir(ep_id) / "world"
            if episode is None or not (wdir / "model.xml").is_file():
                raise InputError(wdir, None, "episode has no saved world: cannot run the LL phase")
            self._world, self._ep = EpisodeWorld(self.suite.episode_dir(ep_id), episode), ep_id
        return self._world

    def close(self) -> None:
        if self._world is not None:
            self._world.close()
        self._world, self._ep = None, None


def _render_size(path: Path) -> tuple[int, int]:
    # Coverage is a pixel fraction: judge at the size the ground truth was rendered at.
    if not path.is_file():
        return DEFAULT_SIZE
    knobs = json.loads(path.read_text()).get("knobs") or {}
    return int(knobs.get("width", DEFAULT_SIZE[0])), int(knobs.get("height", DEFAULT_SIZE[1]))
