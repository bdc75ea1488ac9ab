"""SceneMem scenario folders: the eval_spec.json schema and loading with file-and-field errors.

The card does not publish the eval_spec.json schema; this one carries what the card names and
accepts unknown extra fields, so richer real specs still load. See docs/scenemem.md.
"""

from __future__ import annotations

import errno
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from recallbench.benchmarks.limits import MAX_CAMERA_SIDE, MAX_WORLD_LIST, MAX_WORLD_OBJECTS
from recallbench.errors import InputError, SuiteRefusal
from recallbench.io import read_bytes_regular, read_json, validated

VIDEO_NAMES = ("robot0_agentview_left.mp4", "robot0_agentview_right.mp4", "robot0_eye_in_hand.mp4")
ENV_FILES = ("unified_model.xml", "env_args.json", "ep_meta.json", "start_state.npy")
PROBE_TEMPLATES = {
    "find_target": "Show me where the {category} is placed.",
    "find_distractor": "Show me where the {category} is placed.",
    "restore": "Put the {category} back where it was.",
}
Task = Literal["find_target", "find_distractor", "restore"]
# A rollout this long would run for days; a larger value is a typo (or 1e30), refused at load.
MAX_STEPS_LIMIT = 1_000_000
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


class Fixture(BaseModel):
    """The destination fixture the robot must reach and open."""

    model_config = ConfigDict(extra="allow")
    name: str
    type: str
    body_name: str
    joint_names: list[str] = Field(min_length=1)


class TestSpec(BaseModel):
    """One memory probe. ``instruction`` defaults to the card's template for the task."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="allow")
    test_id: str = Field(min_length=1)
    object: str
    category: str
    instruction: str | None = None
    fixture: Fixture
    task: Task = "find_target"
    # strict: JSON's true is not a step count
    max_steps: int | None = Field(default=None, gt=0, le=MAX_STEPS_LIMIT, strict=True)
    # restore only: the object's body and the position it must be brought back to.
    object_body_name: str | None = None
    target_pos: list[FiniteFloat] | None = Field(default=None, min_length=3, max_length=3)

    @model_validator(mode="after")
    def _fill_and_check(self) -> TestSpec:
        if self.instruction is None:
            self.instruction = PROBE_TEMPLATES[self.task].format(category=self.category)
        if self.task == "restore" and (self.object_body_name is None or self.target_pos is None):
            raise ValueError("task 'restore' needs object_body_name and target_pos")
        return self


class EvalSpec(BaseModel):
    model_config = ConfigDict(extra="allow")
    scenario: str | None = None
    tests: list[TestSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> EvalSpec:
        seen: set[str] = set()
        for test in self.tests:
            if test.test_id in seen:
                raise ValueError(f"duplicate test_id {test.test_id!r}")
            seen.add(test.test_id)
        return self


@dataclass(frozen=True)
class Scenario:
    """A validated scenario folder. Paths are absolute so worker processes can reopen them."""

    name: str
    root: Path
    spec: EvalSpec
    env_args: dict[str, Any]
    ep_meta: dict[str, Any]
    # Set by the caller (command line), never by the suite: the env factory ``module:function``
    # and whether the suite's files may reference paths outside its folder (--trust-suite).
    env_factory: str | None = None
    trusted: bool = False

    @property
    def video_paths(self) -> list[str]:
        return [str(self.root / "videos" / name) for name in VIDEO_NAMES]

    @property
    def xml_path(self) -> Path:
        return self.root / "env" / "unified_model.xml"

    @property
    def start_state_path(self) -> Path:
        return self.root / "env" / "start_state.npy"

    def test(self, test_id: str) -> TestSpec:
        for test in self.spec.tests:
            if test.test_id == test_id:
                return test
        raise KeyError(test_id)


def discover_scenarios(data_dir: str | Path, filter_substr: str | None = None) -> list[Path]:
    """Scenario folders (any sub-folder holding eval_spec.json or env/), sorted by name.

    A folder with env/ but no eval_spec.json is still returned, so loading reports it instead
    of silently dropping it; so is a link that leads nowhere (a loop, a dangling link).
    """
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        what = "is a file, not a folder" if data_dir.exists() else "does not exist"
        raise InputError(data_dir, None, f"data directory (--data-dir) {what}")
    found = [
        p
        for p in sorted(data_dir.iterdir())
        if (p.is_dir() and ((p / "eval_spec.json").exists() or (p / "env").is_dir()))
        or (p.is_symlink() and not p.exists())
    ]
    if filter_substr:
        found = [p for p in found if filter_substr in p.name]
    return found


def _read_json(path: Path) -> Any:
    return read_json(path)  # not UTF-8, too deep, a folder: one line naming the file


def parse_eval_spec(path: Path) -> EvalSpec:
    return validated(EvalSpec, _read_json(path), path)


# The card's door rule reads |qpos| in rad (hinge) or m (slide); other joints have no opening.
DOOR_JOINT_TYPES = ("hinge", "slide")


def xml_names(xml_path: Path) -> tuple[set[str], dict[str, str]]:
    """Body names and joint name -> type declared in an MJCF file (no compile: assets may not
    resolve here). A joint without a type attribute is a hinge unless a default class says
    otherwise; the compiled model is checked again when the env is built."""
    try:
        root = ET.fromstring(read_bytes_regular(xml_path))
    except (ET.ParseError, RecursionError) as exc:
        raise InputError(xml_path, None, f"malformed XML: {exc}") from None
    bodies = {e.get("name") for e in root.iter("body") if e.get("name")}
    joints: dict[str, str] = {}
    for e in root.iter("joint"):
        if e.get("name"):
            joints[e.get("name", "")] = e.get("type", "hinge")
    for e in root.iter("freejoint"):
        if e.get("name"):
            joints[e.get("name", "")] = "free"
    return {b for b in bodies if b}, joints


def load_scenario(
    root: str | Path, env_factory: str | None = None, trusted: bool = False
) -> Scenario:
    """Load and check everything that can be checked without building the simulator.

    Names and the start-state size are checked again against the compiled model when the env is
    built (backend.check_against_model), since only the model knows nq/nv. ``env_factory`` comes
    from the command line; a suite may only name a registered factory (see check_env_factory).
    """
    root = _scenario_folder(Path(root), trusted)
    spec_path = root / "eval_spec.json"
    _within(root, spec_path, None, trusted)
    spec = parse_eval_spec(spec_path)
    for i, name in enumerate(VIDEO_NAMES):
        if not (root / "videos" / name).is_file():
            raise InputError(root / "videos" / name, f"videos[{i}]", "video file is missing")
        _within(root, root / "videos" / name, f"videos[{i}]", trusted)
    subtasks = root / "videos" / "subtasks.json"
    if subtasks.exists():  # optional; only its JSON is checked (the card leaves its fields open)
        _within(root, subtasks, None, trusted)
        _read_json(subtasks)
    for name in ENV_FILES:
        if not (root / "env" / name).is_file():
            raise InputError(root / "env" / name, None, "file is missing")
        _within(root, root / "env" / name, None, trusted)
    env_args = _read_json(root / "env" / "env_args.json")
    env_args_path = root / "env" / "env_args.json"
    if not isinstance(env_args, dict):
        raise InputError(env_args_path, "<root>", "must be a JSON object")
    kwargs = env_args.get("env_kwargs", {})
    if not isinstance(kwargs, dict):
        raise InputError(env_args_path, "env_kwargs", "must be a JSON object")
    if not isinstance(kwargs.get("env_name", env_args.get("env_name")), str):
        raise InputError(env_args_path, "env_name", "field required (string)")
    if not trusted:
        check_env_kwargs(kwargs, env_args_path)
    check_env_factory(env_args, env_args_path)
    ep_meta = _read_json(root / "env" / "ep_meta.json")
    if not isinstance(ep_meta, dict):
        raise InputError(root / "env" / "ep_meta.json", "<root>", "must be a JSON object")
    check_world_size(ep_meta, kwargs, root / "env")
    _check_start_state(root / "env" / "start_state.npy")
    bodies, joints = xml_names(root / "env" / "unified_model.xml")
    check_fixture_names(spec, spec_path, bodies.__contains__, joints.get)
    return Scenario(root.name, root, spec, env_args, ep_meta, env_factory, trusted)


def _scenario_folder(given: Path, trusted: bool) -> Path:
    """The scenario folder, resolved: a link that loops or dangles is refused, and (untrusted)
    one that leads out of the suite folder."""
    try:
        os.stat(given)
    except OSError as exc:
        if given.is_symlink():  # discover_scenarios lists these so that they are reported
            what = "a symlink loop" if exc.errno == errno.ELOOP else "a link that leads nowhere"
            raise InputError(given, None, f"{what}, not a scenario folder") from None
    root = given.resolve()
    if not trusted and not root.is_relative_to(given.parent.resolve()):
        raise SuiteRefusal(given, None, "the scenario folder links outside the suite folder "
                                        "(--trust-suite allows it)")
    return root


def _within(root: Path, path: Path, field: str | None, trusted: bool) -> None:
    """A file the scenario reads is its own (untrusted): a symlink out of its folder is not."""
    if not trusted and not Path(os.path.realpath(path)).is_relative_to(root):
        raise SuiteRefusal(path, field, "links outside the scenario folder (--trust-suite "
                                        "allows it)")


# What the built-in world builds from a scenario (world.env: ep_meta.json's recallbench_world
# on reset, env_kwargs on construction); the bounds: benchmarks.limits.
WORLD_KEY = "recallbench_world"
_CAMERA_KEYS = ("camera_width", "camera_height", "camera_widths", "camera_heights")


def check_world_size(ep_meta: dict[str, Any], kwargs: dict[str, Any], env_dir: Path) -> None:
    """One ``InputError`` naming the file and field when a world-size field is not a bounded
    count: a world that large would make every test of the scenario run to its timeout."""
    meta_path, args_path = env_dir / "ep_meta.json", env_dir / "env_args.json"
    world = ep_meta.get(WORLD_KEY)
    if world is not None:
        if not isinstance(world, dict):
            raise InputError(meta_path, WORLD_KEY, "must be a JSON object")
        _count(world.get("n_objects"), MAX_WORLD_OBJECTS, meta_path, f"{WORLD_KEY}.n_objects")
        for key, value in world.items():
            if isinstance(value, list) and len(value) > MAX_WORLD_LIST:
                raise InputError(meta_path, f"{WORLD_KEY}.{key}",
                                 f"{len(value)} entries; at most {MAX_WORLD_LIST}")
    _count(kwargs.get("n_objects"), MAX_WORLD_OBJECTS, args_path, "env_kwargs.n_objects")
    for key in _CAMERA_KEYS:
        value = kwargs.get(key)
        for i, side in enumerate(value if isinstance(value, list) else [value]):
            field = f"env_kwargs.{key}" + (f"[{i}]" if isinstance(value, list) else "")
            _count(side, MAX_CAMERA_SIDE, args_path, field)


def _count(value: Any, bound: int, path: Path, field: str) -> None:
    """None, or an integer in [0, bound] (true is not a count)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(path, field, f"must be an integer, got {value!r:.40}")
    if not 0 <= value <= bound:
        raise InputError(path, field, f"{value} is out of range: 0 to {bound} (the bound a "
                                      "suite's world may ask for)")


# env_kwargs that hand the env model text or name files: the env would compile or read them past
# the checks unified_model.xml goes through (model_files.safe_model_xml).
_MODEL_KEYS = ("xml", "world_meta", "mjcf", "model")
_FILE_SUFFIXES = ("_xml", "_path", "_file", "_dir", "_mjcf")


def check_env_kwargs(kwargs: dict[str, Any], path: Path) -> None:
    """Refuse env_kwargs keys that carry a model or name a file (--trust-suite allows them)."""
    for key in kwargs:
        name = str(key).lower()
        if name in _MODEL_KEYS or name.endswith(_FILE_SUFFIXES):
            raise SuiteRefusal(path, f"env_kwargs.{key}", "a suite may not hand the env a model "
                                    "or a file name (the scenario's model is unified_model.xml; "
                                    "--trust-suite allows it)")


# A suite is data: it may name an env factory only by a name registered in this entry-point group
# by an installed package, never by a module path (``os:system`` would run a shell command).
ENV_FACTORY_GROUP = "recallbench.env_factories"


def registered_env_factories() -> dict[str, Any]:
    from importlib import metadata

    return {ep.name: ep for ep in metadata.entry_points(group=ENV_FACTORY_GROUP)}


def check_env_factory(env_args: dict[str, Any], path: Path) -> None:
    """Refuse a code reference read from env_args.json: only registered names are allowed."""
    value = env_args.get("env_factory")
    registered = isinstance(value, str) and value in registered_env_factories()
    if value is not None and not registered:
        raise InputError(
            path,
            "env_factory",
            f"{value!r} is not a registered env factory; a suite may not name code "
            f"(pass --env-factory module:function, or register it under {ENV_FACTORY_GROUP})",
        )


def check_fixture_names(
    spec: EvalSpec,
    spec_path: Path,
    has_body: Callable[[str], bool],
    joint_type: Callable[[str], str | None],
) -> None:
    """Every fixture body and joint (and restore object body) must exist in the model, and
    every fixture joint must be a hinge or a slide (``joint_type``: None when absent)."""
    for i, test in enumerate(spec.tests):
        if not has_body(test.fixture.body_name):
            raise InputError(
                spec_path,
                f"tests[{i}].fixture.body_name",
                f"body {test.fixture.body_name!r} is not in the model",
            )
        for j, joint in enumerate(test.fixture.joint_names):
            kind = joint_type(joint)
            field = f"tests[{i}].fixture.joint_names[{j}]"
            if kind is None:
                raise InputError(spec_path, field, f"joint {joint!r} is not in the model")
            if kind not in DOOR_JOINT_TYPES:
                raise InputError(
                    spec_path,
                    field,
                    f"joint {joint!r} is a {kind} joint; only hinge and slide joints open a "
                    "fixture (the card's |qpos| >= 0.5 rad or m)",
                )
        if test.object_body_name is not None and not has_body(test.object_body_name):
            raise InputError(
                spec_path,
                f"tests[{i}].object_body_name",
                f"body {test.object_body_name!r} is not in the model",
            )


def _check_start_state(path: Path) -> None:
    try:
        state = np.load(path, allow_pickle=False)
    except Exception as exc:  # numpy raises several types for a corrupt file
        raise InputError(path, None, f"not a readable .npy array: {exc}") from exc
    if state.ndim != 1 or not np.issubdtype(state.dtype, np.floating):
        raise InputError(path, None, f"must be a 1-D float array, got {state.dtype}{state.shape}")
    if not np.all(np.isfinite(state)):
        raise InputError(path, None, "contains NaN or inf")


def load_start_state(scenario: Scenario, expected_size: int) -> np.ndarray:
    """The flattened [time, qpos, qvel] start state, checked against the model's size."""
    state = np.load(scenario.start_state_path, allow_pickle=False)
    if state.shape != (expected_size,):
        raise InputError(
            scenario.start_state_path,
            None,
            f"start state has {state.size} values, the model needs {expected_size} (1 + nq + nv)",
        )
    return state
