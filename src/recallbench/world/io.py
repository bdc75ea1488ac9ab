"""Save a world (MJCF + metadata JSON + full physics state) and rebuild it identically."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from recallbench.errors import InputError
from recallbench.io import write_json_atomic

if TYPE_CHECKING:
    from recallbench.world.env import HomeEnv

MODEL_FILE = "model.xml"
META_FILE = "world.json"
STATE_FILE = "state.npy"
REQUIRED_META = ("version", "seed", "style", "kind", "rooms", "fixtures", "objects", "robot")


def save_world(env: HomeEnv, out_dir: str | Path) -> Path:
    """Write ``model.xml``, ``world.json`` and ``state.npy`` (full integration state)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / (MODEL_FILE + ".tmp")
    tmp.write_text(env.xml)
    os.replace(tmp, out / MODEL_FILE)
    write_json_atomic(out / META_FILE, env.world_meta)
    state_tmp = out / (STATE_FILE + ".tmp.npy")
    np.save(state_tmp, env.sim.full_state())
    os.replace(state_tmp, out / STATE_FILE)
    return out


def read_world(in_dir: str | Path) -> tuple[str, dict, np.ndarray | None]:
    """Read and validate the three files; ``state`` is None when ``state.npy`` is absent."""
    d = Path(in_dir)
    xml_path, meta_path, state_path = d / MODEL_FILE, d / META_FILE, d / STATE_FILE
    if not xml_path.is_file():
        raise InputError(xml_path, None, "missing world model file")
    if not meta_path.is_file():
        raise InputError(meta_path, None, "missing world metadata file")
    xml = xml_path.read_text()
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(meta_path, None, f"not valid JSON: {exc}") from exc
    if not isinstance(meta, dict):
        raise InputError(meta_path, None, "expected a JSON object")
    for key in REQUIRED_META:
        if key not in meta:
            raise InputError(meta_path, key, "missing required field")
    state = None
    if state_path.is_file():
        try:
            state = np.load(state_path, allow_pickle=False)
        except ValueError as exc:
            raise InputError(state_path, None, f"not a numpy array file: {exc}") from exc
        if state.ndim != 1 or not np.issubdtype(state.dtype, np.floating):
            raise InputError(
                state_path, None, f"expected a 1-D float array, got {state.dtype} {state.shape}"
            )
    return xml, meta, state


def load_world(in_dir: str | Path, **env_kwargs: Any) -> HomeEnv:
    """Rebuild the env from a saved folder, in exactly the saved state."""
    from recallbench.world.env import HomeEnv

    xml, meta, state = read_world(in_dir)
    try:
        env = HomeEnv(
            seed=int(meta["seed"]),
            style=int(meta["style"]),
            kind=str(meta["kind"]),
            xml=xml,
            world_meta=meta,
            **env_kwargs,
        )
    except ValueError as exc:
        raise InputError(Path(in_dir) / MODEL_FILE, None, f"cannot load model: {exc}") from exc
    if state is not None:
        try:
            env.sim.set_state_from_flattened(state)
        except ValueError as exc:
            raise InputError(Path(in_dir) / STATE_FILE, None, str(exc)) from exc
        env.sim.forward()
    return env
