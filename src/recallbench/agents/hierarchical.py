"""The hierarchical SceneMem agent: a memory module picks the fixture, a scripted controller
drives there, opens it and stays close.

The controller (``agents.fixture_controller``) is the generator's oracle
(``world.skills.Oracle``): its skills (``open_door``/``turn_sink``, ``approach``,
``navigate_to``) are generators of 12-dim actions, handed out one ``get_action`` at a time, so
the agent acts through the normal action interface only. It needs the built-in world
(``HomeEnv``: navigation grid, fixture metadata); on robosuite/RoboCasa envs it has no
controller.

Memory modules (``FixtureChooser``) see the instruction, the three videos and the fixtures of
the live world, and return a fixture name (or None: then the agent idles):

- ``privileged``: reads the answer from the scenario's ``eval_spec.json`` (the ceiling);
- ``random``: a uniformly random fixture with a door (the chance floor of the memory choice);
- ``subtasks``: text memory over the scenario's ``videos/subtasks.json`` captions, answered by
  keyword match or, with ``answerer="embedding"``, MiniLM retrieval (offline either way);
- ``vlm``: frames of the videos sent to any OpenAI-compatible server, JSON answer.

Policies for ``recallbench scenemem`` are built without arguments, so each configuration is also
a zero-argument subclass (``HierarchicalPrivileged``, ``HierarchicalSubtasks``, ...).
``HierarchicalVLM`` reads its server settings from ``RECALLBENCH_VLM_*`` environment variables,
which the worker processes inherit.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from recallbench.agents.fixture_controller import (
    FixtureSearch,
    SkillDriver,
    idle_action,
    open_fixture,
)
from recallbench.benchmarks.scenemem.policy import BasePolicy

# "Show me where the {category} is placed." / "Put the {category} back where it was."
_CATEGORY = re.compile(r"(?:where the|put the)\s+(.+?)\s+(?:is placed|back where)", re.I)


@dataclass
class Choice:
    """What a memory module decided, and why (kept on the agent as ``last_choice``). ``joint``
    names the door to open when the module knows it (the privileged one does); else the first."""

    fixture: str | None
    info: dict[str, Any] = field(default_factory=dict)
    joint: str | None = None
    # fixtures memory could not tell from ``fixture`` (a caption's "cabinet", two cabinets)
    ties: list[str] = field(default_factory=list)


class FixtureChooser(Protocol):
    def choose(
        self, instruction: str, video_paths: Sequence[str], fixtures: Sequence[dict[str, Any]]
    ) -> Choice: ...


def door_fixtures(fixtures: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fixtures with something to open (a door, drawer or handle joint)."""
    return [f for f in fixtures if f.get("doors")]


def instruction_category(instruction: str) -> str | None:
    m = _CATEGORY.search(instruction)
    return m.group(1).strip().lower() if m else None


def scenario_root(video_paths: Sequence[str]) -> Path | None:
    """The scenario folder: videos live in ``<scenario>/videos/``."""
    if not video_paths:
        return None
    return Path(video_paths[0]).resolve().parent.parent


# --------------------------------------------------------------------------- memory modules
class PrivilegedChooser:
    """Knows the answer: the fixture of the spec's test with this instruction (first if several
    tests share it, which the card's templates make possible only for one category twice)."""

    def choose(
        self, instruction: str, video_paths: Sequence[str], fixtures: Sequence[dict[str, Any]]
    ) -> Choice:
        from recallbench.benchmarks.scenemem.spec import parse_eval_spec

        root = scenario_root(video_paths)
        if root is None:
            return Choice(None, {"error": "no video paths: cannot find the scenario"})
        spec = parse_eval_spec(root / "eval_spec.json")
        matches = [t.fixture for t in spec.tests if t.instruction == instruction]
        if not matches:
            return Choice(None, {"error": f"no test of {root.name} has this instruction"})
        names = [f.name for f in matches]
        return Choice(names[0], {"candidates": names}, joint=matches[0].joint_names[0])


class RandomChooser:
    """A uniformly random fixture with a door. Uses NumPy's global generator, which the SceneMem
    worker reseeds from each test's seed, so choices are reproducible per test."""

    def choose(
        self, instruction: str, video_paths: Sequence[str], fixtures: Sequence[dict[str, Any]]
    ) -> Choice:
        names = [f["name"] for f in door_fixtures(fixtures)]
        if not names:
            return Choice(None, {"error": "the world has no fixture with a door"})
        return Choice(names[int(np.random.randint(len(names)))], {"candidates": len(names)})


def _words(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9]+", " ", str(text).lower()).strip() + " "


def mention(text: str, fixture: dict[str, Any]) -> tuple[int, int]:
    """(end, length) of the last place the text names the fixture (by name or type), or
    (-1, 0). Captions name the destination last ("from the fridge and place it in the
    microwave"), so the latest-ending mention wins, and the longer name on a tie ("toaster
    oven" over "oven")."""
    text = _words(text)
    best = (-1, 0)
    for alias in {fixture["name"], fixture.get("type", "")}:
        words = _words(alias)
        at = text.rfind(words) if words.strip() else -1
        if at >= 0:
            best = max(best, (at + len(words), len(words)))
    return best


def read_subtask_captions(path: Path) -> list[str]:
    """Caption strings from a ``subtasks.json``: a list (or ``{"tasks": [...]}``) of strings
    or of objects whose text is in one of the usual fields. Video order is kept."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = data.get("tasks", data.get("subtasks", data.get("segments", [])))
    captions = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, str):
            captions.append(item)
        elif isinstance(item, dict):
            for key in ("caption", "description", "instruction", "lang", "text", "task"):
                if isinstance(item.get(key), str):
                    captions.append(item[key])
                    break
    return captions


class SubtaskTextChooser:
    """Text memory over the scenario's subtask captions (privileged captions of the video).

    ``answerer="keyword"``: the last caption naming the queried category wins;
    ``answerer="embedding"``: the caption most similar to the instruction (MiniLM), as the
    FindingDory text-memory agent does. The fixture is the one that caption names.
    """

    def __init__(self, answerer: str = "keyword", embedder: Any = None) -> None:
        if answerer not in ("keyword", "embedding"):
            raise ValueError(f"answerer must be 'keyword' or 'embedding', got {answerer!r}")
        self.answerer = answerer
        self.embedder = embedder

    def _best_caption(self, instruction: str, captions: list[str]) -> tuple[int | None, dict]:
        if self.answerer == "embedding":
            if self.embedder is None:
                from recallbench.agents.embeddings import MiniLMEmbedder

                self.embedder = MiniLMEmbedder()
            vecs = np.asarray(self.embedder.embed([instruction, *captions]), dtype=float)
            sims = vecs[1:] @ vecs[0] / (
                np.linalg.norm(vecs[1:], axis=1) * np.linalg.norm(vecs[0]) + 1e-12
            )
            return int(np.argmax(sims)), {"similarities": [round(float(s), 4) for s in sims]}
        category = instruction_category(instruction)
        if category is None:
            return None, {"error": "instruction names no category"}
        hits = [i for i, c in enumerate(captions) if category in c.lower()]
        return (hits[-1] if hits else None), {"category": category, "hits": hits}

    def choose(
        self, instruction: str, video_paths: Sequence[str], fixtures: Sequence[dict[str, Any]]
    ) -> Choice:
        root = scenario_root(video_paths)
        path = root / "videos" / "subtasks.json" if root else None
        if path is None or not path.is_file():
            return Choice(None, {"error": "no videos/subtasks.json to caption the video with"})
        captions = read_subtask_captions(path)
        if not captions:
            return Choice(None, {"error": f"{path}: no captions"})
        best, info = self._best_caption(instruction, captions)
        if best is None:
            return Choice(None, info)
        ranked = sorted(((mention(captions[best], f), f["name"]) for f in fixtures), reverse=True)
        info["caption"] = captions[best]
        if not ranked or ranked[0][0][0] < 0:
            return Choice(None, {**info, "error": "the chosen caption names no fixture"})
        ties = [name for score, name in ranked[1:] if score == ranked[0][0]]
        return Choice(ranked[0][1], info, ties=ties)


class VLMChooser:
    """Frames of the three videos sent to an OpenAI-compatible server with the fixture list; the
    JSON answer ``{"chain_of_thought": str, "fixture": str}`` is parsed without eval."""

    PROMPT = (
        "These frames come from videos of a robot working in a kitchen (left, right and "
        "wrist cameras, in time order). Fixtures you may choose from: {fixtures}.\n"
        "Instruction: {instruction}\n"
        'Answer with JSON only: {{"chain_of_thought": "...", "fixture": "<one fixture name>"}}'
    )

    def __init__(self, model: str, base_url: str = "http://localhost:8000/v1",
                 api_key_env: str | None = None, frames_per_video: int = 8,
                 image_size: int = 256, cache_dir: str | None = None,
                 timeout: float = 120.0, max_retries: int = 5) -> None:
        from recallbench.agents.chat_settings import ChatSettings
        from recallbench.agents.openai_client import ChatClient

        settings = ChatSettings(model=model, base_url=base_url, api_key_env=api_key_env,
                                timeout=timeout, max_retries=max_retries)
        self.client = ChatClient(settings, cache_dir=cache_dir)
        self.frames_per_video = int(frames_per_video)
        self.image_size = image_size

    def _images(self, video_paths: Sequence[str]) -> list[np.ndarray]:
        from recallbench.agents.vlm_images import parse_image_size, resize_frame
        from recallbench.video.reader import VideoFrames, count_frames
        from recallbench.video.sampling import subsample_indices

        size = parse_image_size(self.image_size)
        out: list[Any] = []
        for path in video_paths:
            offered = subsample_indices(count_frames(path), self.frames_per_video).tolist()
            frames = VideoFrames(path, offered, stamp=True).frames()
            out.extend(resize_frame(f, size) for f in frames)
        return out

    def choose(
        self, instruction: str, video_paths: Sequence[str], fixtures: Sequence[dict[str, Any]]
    ) -> Choice:
        from recallbench.agents.vlm_images import image_parts

        names = [f["name"] for f in door_fixtures(fixtures)]
        text = self.PROMPT.format(fixtures=", ".join(names), instruction=instruction)
        content = [*image_parts(self._images(video_paths)), {"type": "text", "text": text}]
        result = self.client.complete([{"role": "user", "content": content}])
        info: dict[str, Any] = {"latency_s": result.latency_s, "cache_hit": result.cache_hit}
        if not result.ok:
            return Choice(None, {**info, "failure_mode": "request_error", "error": result.error})
        fixture, error = parse_fixture_answer(result.text or "", names)
        if error:
            return Choice(None, {**info, "failure_mode": "response_error", "error": error})
        return Choice(fixture, info)


def parse_fixture_answer(text: str, names: Sequence[str]) -> tuple[str | None, str | None]:
    """(fixture, None) or (None, why not). JSON only; a fenced block is unwrapped first."""
    body = text.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.S)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg}"
    if not isinstance(data, dict) or not isinstance(data.get("fixture"), str):
        return None, "no string field 'fixture'"
    if data["fixture"] not in names:
        return None, f"unknown fixture {data['fixture']!r}"
    return data["fixture"], None


MEMORY_MODULES: dict[str, type] = {
    "privileged": PrivilegedChooser,
    "random": RandomChooser,
    "subtasks": SubtaskTextChooser,
    "vlm": VLMChooser,
}


def make_chooser(memory: str | FixtureChooser, **kwargs: Any) -> FixtureChooser:
    if not isinstance(memory, str):
        return memory
    if memory not in MEMORY_MODULES:
        raise ValueError(f"memory must be one of {sorted(MEMORY_MODULES)}, got {memory!r}")
    return MEMORY_MODULES[memory](**kwargs)


# --------------------------------------------------------------------------- the agent
class HierarchicalAgent(BasePolicy):
    """Memory module -> fixture; scripted controller -> drive there, open it, stay close.

    The memory module is asked at the first ``get_action`` of a rollout (it needs the live
    world's fixture list); its decision is kept as ``last_choice``. With ``search_after``, once
    the chosen fixture is open (or when memory has no answer) the agent goes on opening the
    other fixtures, those the memory could not tell apart from its choice first, then nearest
    first, as memoryless search does; without it, it stays by its choice."""

    def __init__(self, memory: str | FixtureChooser = "privileged", search_after: bool = False,
                 **memory_kwargs: Any) -> None:
        self.memory_name = memory if isinstance(memory, str) else type(memory).__name__
        self.chooser = make_chooser(memory, **memory_kwargs)
        self.search_after = search_after
        self._search: FixtureSearch | None = None
        self.instruction = ""
        self.video_paths: list[str] = []
        self.last_choice: Choice | None = None
        self._driver: SkillDriver | None = None

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.instruction = instruction
        self.video_paths = list(video_paths)
        self.last_choice = None
        self._driver = None  # the env (and its model) may be rebuilt between rollouts
        self._search = None

    def get_action(self, env: Any) -> np.ndarray:
        if self._driver is None:
            self._driver = SkillDriver(env)
            fixtures = env.world_meta["fixtures"]
            self.last_choice = self.chooser.choose(self.instruction, self.video_paths, fixtures)
            choice = self.last_choice
            if choice.fixture is not None:
                self._driver.start(open_fixture(self._driver.oracle, choice.fixture, choice.joint))
            if self.search_after:
                rest = [f for f in door_fixtures(fixtures) if f["name"] != choice.fixture]
                self._search = FixtureSearch(self._driver, rest, first=choice.ties)
        if self._search is not None:
            return self._search.next_action(env)
        action = self._driver.step()
        return idle_action() if action is None else action

    def rollout_info(self) -> dict[str, Any]:
        """The memory module's decision, for the run log (the SceneMem runner asks after each
        rollout)."""
        choice = self.last_choice
        if choice is None:
            return {"memory": self.memory_name, "fixture": None}
        searched = self._search.visited if self._search is not None else []
        return {"memory": self.memory_name, "fixture": choice.fixture, "joint": choice.joint,
                **({"ties": choice.ties} if choice.ties else {}),
                **({"searched": searched} if searched else {}), **choice.info}


class HierarchicalPrivileged(HierarchicalAgent):
    """The ceiling: the right fixture and door, the scripted controller. The generator verifies
    every probe with it: a probe it cannot solve is dropped."""

    def __init__(self) -> None:
        super().__init__("privileged")


class HierarchicalRandom(HierarchicalAgent):
    """A random fixture, the scripted controller: chance level of the memory choice."""

    def __init__(self) -> None:
        super().__init__("random")


class HierarchicalSubtasks(HierarchicalAgent):
    """Text memory over subtask captions with keyword matching (offline); searches on when its
    choice was wrong or it has none (a probe about an object no caption mentions)."""

    def __init__(self) -> None:
        super().__init__("subtasks", search_after=True, answerer="keyword")


class HierarchicalSubtasksEmbedding(HierarchicalAgent):
    """Text memory over subtask captions with MiniLM retrieval (needs the embeddings extra);
    searches on as ``HierarchicalSubtasks``."""

    def __init__(self) -> None:
        super().__init__("subtasks", search_after=True, answerer="embedding")


class HierarchicalVLM(HierarchicalAgent):
    """VLM memory; server from RECALLBENCH_VLM_MODEL, _BASE_URL, _API_KEY_ENV, _CACHE_DIR."""

    def __init__(self) -> None:
        model = os.environ.get("RECALLBENCH_VLM_MODEL")
        if not model:
            raise ValueError("HierarchicalVLM: set RECALLBENCH_VLM_MODEL (and _BASE_URL)")
        super().__init__(
            "vlm",
            model=model,
            base_url=os.environ.get("RECALLBENCH_VLM_BASE_URL", "http://localhost:8000/v1"),
            api_key_env=os.environ.get("RECALLBENCH_VLM_API_KEY_ENV") or None,
            cache_dir=os.environ.get("RECALLBENCH_VLM_CACHE_DIR") or None,
        )
