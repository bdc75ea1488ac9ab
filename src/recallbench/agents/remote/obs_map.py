"""From SceneMem's env observations to an openpi request dict (docs/vla.md, "What the policy
receives").

A map names, per request key, the env observation it comes from:

- ``images``: request key -> an env image (H x W x 3), resized with padding to ``image_size``
  and sent as uint8 (``openpi_client.image_tools``, as openpi's own clients prepare images);
- ``state``: request key -> env vectors concatenated into one float32 vector;
- ``pass``: env keys sent unchanged under their own names (``"*"``: every array the env has);
- ``prompt``: the request key of the probe's instruction ("" leaves it out).

``DEFAULT`` follows the RoboCasa convention of openpi ports (two agent views, the wrist view,
the robot state, the prompt); ``RAW`` sends the env's arrays as they are (``--policy ws://``).
A JSON or TOML file overrides any of the four (``--policy-arg obs_map=FILE``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_IMAGE_SIZE = 224
STATE_KEYS = ("robot0_base_pos", "robot0_base_quat", "robot0_eef_pos", "robot0_eef_quat",
              "robot0_gripper_qpos")
FIELDS = ("images", "state", "pass", "prompt", "image_size")


@dataclass(frozen=True)
class ObsMap:
    images: dict[str, str] = field(default_factory=dict)
    state: dict[str, list[str]] = field(default_factory=dict)
    passed: list[str] | str = field(default_factory=list)  # "*": every env array
    prompt: str = "prompt"
    image_size: tuple[int, int] = (DEFAULT_IMAGE_SIZE, DEFAULT_IMAGE_SIZE)  # (height, width)

    def describe(self) -> dict[str, Any]:
        """What the manifest records."""
        return {"images": self.images, "state": self.state, "pass": self.passed,
                "prompt": self.prompt, "image_size": list(self.image_size)}

    def request(self, obs: dict[str, Any], instruction: str) -> dict[str, Any]:
        """The request for these observations; a missing key, a wrong shape or dtype raises
        ValueError in one line (the test fails with it)."""
        out: dict[str, Any] = {}
        for key, source in self.images.items():
            out[key] = _image(_get(obs, source, key), source, self.image_size)
        for key, sources in self.state.items():
            out[key] = np.concatenate([_vector(_get(obs, s, key), s) for s in sources])
        names = [k for k, v in obs.items() if isinstance(v, np.ndarray)] \
            if self.passed == "*" else self.passed
        for name in names:
            out[name] = np.asarray(_get(obs, name, name))
        if self.prompt:
            out[self.prompt] = instruction
        return out


DEFAULT = ObsMap(
    images={"observation/image": "robot0_agentview_left_image",
            "observation/image_right": "robot0_agentview_right_image",
            "observation/wrist_image": "robot0_eye_in_hand_image"},
    state={"observation/state": list(STATE_KEYS)},
)
RAW = ObsMap(passed="*")


def _get(obs: dict[str, Any], source: str, key: str) -> Any:
    if source not in obs:
        raise ValueError(f"obs_map: {key!r} needs the env observation {source!r}; the env has "
                         f"{sorted(obs)}")
    return obs[source]


def _image(value: Any, source: str, size: tuple[int, int]) -> np.ndarray:
    from openpi_client import image_tools

    image = np.asarray(value)
    if image.ndim != 3 or image.shape[-1] != 3:
        raise ValueError(f"obs_map: {source!r} has shape {image.shape}, an image is H x W x 3")
    if not (image.dtype == np.uint8 or np.issubdtype(image.dtype, np.floating)):
        raise ValueError(f"obs_map: {source!r} has dtype {image.dtype}, an image is uint8 or "
                         "float in [0, 1]")
    if image.shape[:2] != size:
        image = image_tools.resize_with_pad(image_tools.convert_to_uint8(image), *size)
    return np.ascontiguousarray(image_tools.convert_to_uint8(image))


def _vector(value: Any, source: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise ValueError(f"obs_map: {source!r} has dtype {array.dtype}, state must be numeric")
    return array.astype(np.float32).reshape(-1)


def load_obs_map(value: str | None, base: ObsMap) -> ObsMap:
    """``base``, overridden by the file ``value`` names (JSON, or TOML by its suffix); the name
    "raw" is ``RAW``. Any mistake is a one-line ValueError naming the file and field."""
    if value is None:
        return base
    if value == "raw":
        return RAW
    path = Path(value)
    flag = f"--policy-arg obs_map={value}"
    try:
        text = path.read_text()
        data = _toml(flag).loads(text) if path.suffix == ".toml" else json.loads(text)
    except OSError as exc:
        raise ValueError(f"{flag}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:  # json's and tomllib's decode errors both are ValueErrors
        raise ValueError(f"{flag}: not valid {path.suffix.lstrip('.') or 'JSON'}: "
                         f"{str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{flag}: must hold a table/object with {', '.join(FIELDS)}")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"{flag}: unknown key(s) {unknown}; known: {', '.join(FIELDS)}")
    images = data.get("images", base.images)
    if not _str_map(images):
        raise ValueError(f"{flag}: images must map request keys to env observation keys")
    state = data.get("state", base.state)
    if not (isinstance(state, dict) and all(
            isinstance(v, list) and v and all(isinstance(s, str) for s in v)
            for v in state.values())):
        raise ValueError(f"{flag}: state must map request keys to lists of env observation keys")
    passed = data.get("pass", base.passed)
    if not (passed == "*" or (isinstance(passed, list)
                              and all(isinstance(s, str) for s in passed))):
        raise ValueError(f"{flag}: pass must be \"*\" or a list of env observation keys")
    prompt = data.get("prompt", base.prompt)
    if not isinstance(prompt, str):
        raise ValueError(f"{flag}: prompt must be a string (the instruction's request key)")
    return ObsMap(dict(images), {k: list(v) for k, v in state.items()}, passed, prompt,
                  _size(data.get("image_size", list(base.image_size)), flag))


def _toml(flag: str) -> Any:
    try:
        import tomllib  # Python >= 3.11
    except ImportError:
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise ValueError(f"{flag}: TOML needs Python >= 3.11 or tomli; write the map as "
                             "JSON") from None
    return tomllib


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _size(value: Any, flag: str) -> tuple[int, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value, value]
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and 8 <= v <= 4096
                    for v in value)):
        return int(value[0]), int(value[1])
    raise ValueError(f"{flag}: image_size must be an int or [height, width], each 8..4096")
