"""From SceneMem's env observations to an openpi request dict (docs/vla.md, "What the policy
receives").

A map names, per request key, the env observation it comes from:

- ``images``: request key -> an env image (H x W x 3), in the orientation the checkpoint was
  trained on, stated relative to an upright frame (``flip``: LIBERO's is ``horizontal``, what
  openpi's client makes of robosuite's OpenGL frames by turning them 180 degrees); the env's own
  convention is undone first (``applied_flip``), resized with padding to ``image_size`` and
  sent as uint8 (``openpi_client.image_tools``, as openpi's own clients prepare images), H x W x
  C or C x H x W (``layout``);
- ``state``: request key -> env vectors concatenated into one float32 vector, each optionally
  transformed (``axis_angle`` of an xyzw quaternion, ``gripper_closed``: finger qpos -> 0 open
  .. 1 closed, DROID's ``gripper_position``);
- ``pass``: env keys sent unchanged under their own names (``"*"``: every array the env has);
- ``prompt``: the request key of the probe's instruction ("" leaves it out).

``DEFAULT`` follows the RoboCasa convention of openpi ports (two agent views, the wrist view,
the robot state, the prompt); ``RAW`` sends the env's arrays as they are (``--policy ws://``).
A JSON or TOML file overrides any of them (``--policy-arg map=FILE``, ``presets``). A request
key with dots is nested: ``images.cam_high`` is ``request["images"]["cam_high"]`` (ALOHA).
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
FLIPS = ("none", "rot180", "vertical", "horizontal")
# each orientation as (rows reversed, columns reversed) of an upright frame: flips commute and
# undo themselves, so composing two is the XOR of their bits
_FLIP_BITS = {"none": (False, False), "vertical": (True, False), "horizontal": (False, True),
              "rot180": (True, True)}
CONVENTION_FLIPS = {"upright": "none", "opengl": "vertical"}  # an env's frame vs upright
LAYOUTS = ("HWC", "CHW")
STATE_TRANSFORMS = ("none", "axis_angle", "gripper_closed")
PANDA_GRIPPER_OPEN = 0.08  # finger gap (|q0| + |q1|, m) of a fully open Panda gripper


@dataclass(frozen=True)
class Image:
    """One request image: its env source, how it is turned, and its array layout."""

    source: str
    flip: str = "none"
    layout: str = "HWC"

    def describe(self) -> str | dict[str, str]:
        plain = self.flip == "none" and self.layout == "HWC"
        return self.source if plain else {"source": self.source, "flip": self.flip,
                                          "layout": self.layout}


@dataclass(frozen=True)
class Vector:
    """One part of a request state vector: an env vector, optionally transformed."""

    source: str
    transform: str = "none"

    def describe(self) -> str | dict[str, str]:
        return self.source if self.transform == "none" else {"source": self.source,
                                                             "transform": self.transform}


@dataclass(frozen=True)
class ObsMap:
    images: dict[str, Image] = field(default_factory=dict)
    state: dict[str, list[Vector]] = field(default_factory=dict)
    passed: list[str] | str = field(default_factory=list)  # "*": every env array
    prompt: str = "prompt"
    image_size: tuple[int, int] = (DEFAULT_IMAGE_SIZE, DEFAULT_IMAGE_SIZE)  # (height, width)

    def describe(self) -> dict[str, Any]:
        """What the manifest records: image flips relative to an upright frame, and the flip
        applied to an env's frame by its convention (each test's record says the env's)."""
        return {"images": {k: v.describe() for k, v in self.images.items()},
                "applied_flips": {c: self.flips(c) for c in CONVENTION_FLIPS},
                "state": {k: [v.describe() for v in vs] for k, vs in self.state.items()},
                "pass": self.passed, "prompt": self.prompt, "image_size": list(self.image_size)}

    def flips(self, convention: str) -> dict[str, str]:
        """Request image key -> the flip applied to an env frame stored in ``convention``."""
        return {k: applied_flip(v.flip, convention) for k, v in self.images.items()}

    def request(self, obs: dict[str, Any], instruction: str,
                convention: str = "upright") -> dict[str, Any]:
        """The request for these observations, from an env whose frames are stored in
        ``convention``; a missing key, a wrong shape or dtype raises ValueError in one line
        (the test fails with it)."""
        out: dict[str, Any] = {}
        for key, image in self.images.items():
            _put(out, key, _image(_get(obs, image.source, key), image, self.image_size,
                                  applied_flip(image.flip, convention)))
        for key, parts in self.state.items():
            _put(out, key, np.concatenate([_vector(_get(obs, v.source, key), v) for v in parts]))
        names = [k for k, v in obs.items() if isinstance(v, np.ndarray)] \
            if self.passed == "*" else self.passed
        for name in names:
            out[name] = np.asarray(_get(obs, name, name))
        if self.prompt:
            out[self.prompt] = instruction
        return out


DEFAULT = ObsMap(
    images={"observation/image": Image("robot0_agentview_left_image"),
            "observation/image_right": Image("robot0_agentview_right_image"),
            "observation/wrist_image": Image("robot0_eye_in_hand_image")},
    state={"observation/state": [Vector(k) for k in STATE_KEYS]},
)
RAW = ObsMap(passed="*")


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    """``out[key] = value``; a dotted key nests (``images.cam_high``)."""
    *parents, last = key.split(".")
    for part in parents:
        out = out.setdefault(part, {})
    out[last] = value


def _get(obs: dict[str, Any], source: str, key: str) -> Any:
    """``obs[source]``; ``a|b``: the first of these the env has (RoboCasa names its front view
    ``robot0_agentview_left``, robosuite's stock envs and LIBERO ``agentview``)."""
    for name in source.split("|"):
        if name in obs:
            return obs[name]
    raise ValueError(f"obs_map: {key!r} needs the env observation {source!r}; the env has "
                     f"{sorted(obs)}")


def applied_flip(wanted: str, convention: str) -> str:
    """The flip that turns an env frame stored in ``convention`` (``upright``, ``opengl``) into
    the ``wanted`` orientation of an upright frame: LIBERO's ``horizontal`` is ``rot180`` of
    robosuite's OpenGL frame (openpi's client) and a left-right flip of an upright one."""
    a, b = _FLIP_BITS[wanted], _FLIP_BITS[CONVENTION_FLIPS[convention]]
    bits = (a[0] != b[0], a[1] != b[1])
    return next(name for name, value in _FLIP_BITS.items() if value == bits)


def _image(value: Any, spec: Image, size: tuple[int, int], flip: str) -> np.ndarray:
    from openpi_client import image_tools

    source = spec.source
    image = np.asarray(value)
    if image.ndim != 3 or image.shape[-1] != 3:
        raise ValueError(f"obs_map: {source!r} has shape {image.shape}, an image is H x W x 3")
    if not (image.dtype == np.uint8 or np.issubdtype(image.dtype, np.floating)):
        raise ValueError(f"obs_map: {source!r} has dtype {image.dtype}, an image is uint8 or "
                         "float in [0, 1]")
    # turned before resizing, on the env's own frame (what openpi's LIBERO client does)
    if flip == "rot180":
        image = image[::-1, ::-1]
    elif flip == "vertical":
        image = image[::-1]
    elif flip == "horizontal":
        image = image[:, ::-1]
    if image.shape[:2] != size:
        image = image_tools.resize_with_pad(image_tools.convert_to_uint8(image), *size)
    image = image_tools.convert_to_uint8(image)
    if spec.layout == "CHW":
        image = image.transpose(2, 0, 1)
    return np.ascontiguousarray(image)


def _vector(value: Any, part: Vector) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise ValueError(f"obs_map: {part.source!r} has dtype {array.dtype}, state must be "
                         "numeric")
    vector = array.astype(np.float64).reshape(-1)
    if part.transform == "axis_angle":
        vector = axis_angle(vector, part.source)
    elif part.transform == "gripper_closed":
        gap = float(np.abs(vector).sum())
        vector = np.array([1.0 - min(max(gap / PANDA_GRIPPER_OPEN, 0.0), 1.0)])
    return vector.astype(np.float32)


def axis_angle(quat: np.ndarray, source: str = "quaternion") -> np.ndarray:
    """An xyzw quaternion (robosuite's order) as an axis-angle vector (3,): the axis times the
    angle in radians, zeros for no rotation."""
    if quat.shape != (4,):
        raise ValueError(f"obs_map: axis_angle of {source!r} needs 4 values (x, y, z, w), got "
                         f"{quat.shape[0]}")
    w = min(max(float(quat[3]), -1.0), 1.0)
    sin_half = np.sqrt(1.0 - w * w)
    if sin_half < 1e-9:
        return np.zeros(3)
    return quat[:3] * (2.0 * np.arccos(w) / sin_half)


def load_obs_map(value: str | None, base: ObsMap, flag: str | None = None) -> ObsMap:
    """``base``, overridden by the file ``value`` names (JSON, or TOML by its suffix); the name
    "raw" is ``RAW``. Any mistake is a one-line ValueError naming the file and field."""
    if value is None:
        return base
    if value == "raw":
        return RAW
    flag = flag or f"--policy-arg obs_map={value}"
    data = read_map_file(value, flag)
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"{flag}: unknown key(s) {unknown}; known: {', '.join(FIELDS)}")
    return parse_obs_map(data, base, flag)


def read_map_file(value: str, flag: str) -> dict[str, Any]:
    """The table a JSON or TOML (by its suffix) map file holds, or a one-line ValueError."""
    path = Path(value)
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
    return data


def parse_obs_map(data: dict[str, Any], base: ObsMap, flag: str) -> ObsMap:
    """``base`` with the observation fields of a map file's table overriding it."""
    images = data.get("images")
    if images is not None and not isinstance(images, dict):
        raise ValueError(f"{flag}: images must map request keys to env observation keys")
    state = data.get("state")
    if state is not None and not (isinstance(state, dict) and all(
            isinstance(v, list) and v for v in state.values())):
        raise ValueError(f"{flag}: state must map request keys to lists of env observation keys")
    passed = data.get("pass", base.passed)
    if not (passed == "*" or (isinstance(passed, list)
                              and all(isinstance(s, str) for s in passed))):
        raise ValueError(f"{flag}: pass must be \"*\" or a list of env observation keys")
    prompt = data.get("prompt", base.prompt)
    if not isinstance(prompt, str):
        raise ValueError(f"{flag}: prompt must be a string (the instruction's request key)")
    return ObsMap(
        base.images if images is None else {k: _image_spec(v, f"{flag}: images.{k}")
                                            for k, v in images.items()},
        base.state if state is None else {k: [_vector_spec(v, f"{flag}: state.{k}") for v in vs]
                                          for k, vs in state.items()},
        passed, prompt, _size(data.get("image_size", list(base.image_size)), flag))


def _image_spec(value: Any, where: str) -> Image:
    if isinstance(value, str):
        return Image(value)
    known = ("source", "flip", "layout")
    if not (isinstance(value, dict) and isinstance(value.get("source"), str)
            and set(value) <= set(known)):
        raise ValueError(f"{where}: images must map request keys to env observation keys (or "
                         f"tables of {', '.join(known)})")
    spec = Image(value["source"], value.get("flip", "none"), value.get("layout", "HWC"))
    if spec.flip not in FLIPS:
        raise ValueError(f"{where}: flip must be one of {', '.join(FLIPS)}")
    if spec.layout not in LAYOUTS:
        raise ValueError(f"{where}: layout must be one of {', '.join(LAYOUTS)}")
    return spec


def _vector_spec(value: Any, where: str) -> Vector:
    if isinstance(value, str):
        return Vector(value)
    if not (isinstance(value, dict) and isinstance(value.get("source"), str)
            and set(value) <= {"source", "transform"}
            and value.get("transform", "none") in STATE_TRANSFORMS):
        raise ValueError(f"{where}: state must map request keys to lists of env observation "
                         f"keys (or tables of source and transform: "
                         f"{', '.join(STATE_TRANSFORMS)})")
    return Vector(value["source"], value.get("transform", "none"))


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


def _size(value: Any, flag: str) -> tuple[int, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value, value]
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and 8 <= v <= 4096
                    for v in value)):
        return int(value[0]), int(value[1])
    raise ValueError(f"{flag}: image_size must be an int or [height, width], each 8..4096")
