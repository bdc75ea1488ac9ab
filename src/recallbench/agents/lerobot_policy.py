"""``--policy lerobot:FOLDER``: a LeRobot ``PreTrainedPolicy`` saved in a local folder
(``config.json`` + ``model.safetensors``), run through the card's interface (docs/vla.md).

The ``lerobot`` package (extra ``lerobot``, its own virtualenv: it needs numpy 2) is imported
here only. Each step maps SceneMem's observations to the policy's ``input_features`` (its
``config.json``), by the naming ``recallbench export --format lerobot`` writes
(``benchmarks.scenemem.lerobot_features``), so a policy trained on an export needs no map:

- a JSON/TOML ``obs_map`` file maps any feature to an env key or a list of keys, first;
- the naming's features: its cameras (``observation.images.agentview_left`` ...) and
  ``observation.state`` (its parts concatenated, float32, matching the feature's length);
- any other ``observation.images.NAME``: the env image ``NAME`` or ``NAME_image``;
- images are H x W x 3 uint8 in the env, a float32 C x H x W tensor in [0, 1] here, resized to the
  feature's shape. Any other feature needs the map (refused before work).

``reset()`` once per test, ``select_action(batch)`` every step (the policy keeps its own action
queue); the saved pre/post-processors (normalisation) are applied when the folder has them.
The folder is checked to be data first (``lerobot_folder``; ``--trust-policy`` skips that).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.agents.remote.client import observations_of
from recallbench.benchmarks.scenemem import lerobot_features as naming

ARGS = ("device", "obs_map")
IMAGE_PREFIX = naming.IMAGE_PREFIX
PREPROCESSOR = "policy_preprocessor.json"


def _folder(path: str) -> Path:
    folder = Path(path)
    if not (folder / "config.json").is_file():
        raise ValueError(f"--policy lerobot:{path}: no config.json there (a LeRobot "
                         "PreTrainedPolicy folder holds config.json and model.safetensors)")
    if not (folder / "model.safetensors").is_file():
        raise ValueError(f"--policy lerobot:{path}: no model.safetensors there")
    return folder


def _read_map(value: str | None) -> dict[str, str | list[str]]:
    if value is None:
        return {}
    flag = f"--policy-arg obs_map={value}"
    path = Path(value)
    try:
        text = path.read_text()
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except OSError as exc:
        raise ValueError(f"{flag}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ValueError(f"{flag}: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict) or not all(
            isinstance(v, str) or (isinstance(v, list) and v and all(isinstance(s, str)
                                                                       for s in v))
            for v in data.values()):
        raise ValueError(f"{flag}: must map each input feature to an env key or a list of keys")
    return data


def _checked(path: str, trusted: bool) -> Path:
    """The folder, once it is data (``lerobot_folder``) unless the user trusts it."""
    folder = _folder(path)
    if not trusted:
        from recallbench.agents.lerobot_folder import check_policy_folder

        check_policy_folder(folder)
    return folder


def check_lerobot(path: str, args: dict[str, Any], trusted: bool = False) -> dict[str, Any]:
    """Before any work: the folder (data only unless ``trusted``: --trust-policy), the
    arguments, the map's features (one-line ValueError); what the manifest records."""
    unknown = sorted(set(args) - set(ARGS))
    if unknown:
        raise ValueError(f"--policy-arg: unknown key(s) {unknown} for a lerobot: policy; "
                         f"known: {', '.join(ARGS)}")
    device = args.get("device", "cpu")
    if not (isinstance(device, str) and re.fullmatch(r"cpu|mps|cuda(:\d+)?", device)):
        raise ValueError(f"--policy-arg device={device}: cpu, cuda, cuda:N or mps")
    folder = _checked(path, trusted)
    try:
        config = json.loads((folder / "config.json").read_text())
    except ValueError as exc:
        raise ValueError(f"--policy lerobot:{path}: config.json: {exc}") from None
    features = config.get("input_features") or {}
    mapping = _read_map(args.get("obs_map"))
    extra = sorted(set(mapping) - set(features))
    if extra:
        raise ValueError(f"--policy-arg obs_map={args['obs_map']}: unknown feature(s) {extra}; "
                         f"the policy's input_features are {sorted(features)}")
    unnamed = sorted(f for f in features if _sources(f, mapping, None) is None)
    if unnamed:
        raise ValueError(f"--policy lerobot:{path}: input feature(s) {unnamed} are not in "
                         "recallbench's LeRobot naming (docs/vla.md): map them with "
                         "--policy-arg obs_map=FILE")
    return {"path": str(folder.resolve()), "type": config.get("type"),
            "input_features": sorted(features), "obs_map": mapping,
            "device": device,
            "processors": (folder / PREPROCESSOR).is_file(), "trusted": trusted}


# The ``lerobot`` transport's functions (``agents.transports``): ``ref`` is ``lerobot:FOLDER``.
SCHEME = "lerobot:"


def check_folder(ref: str, args: dict[str, Any], flag: str = "--policy",
                 trusted: bool = False) -> dict[str, Any]:
    # a LeRobot folder is data unless the user trusts it (--trust-policy)
    return check_lerobot(ref.removeprefix(SCHEME), args, trusted)


def make_folder(ref: str, args: dict[str, Any], trusted: bool = False) -> LeRobotPolicy:
    return LeRobotPolicy(ref.removeprefix(SCHEME), **args, trusted=trusted)


def folder_images(ref: str, args: dict[str, Any]) -> list[str]:
    """Its ``observation.images.*`` features only (check_folder checks the folder, trusted or
    not)."""
    features = check_lerobot(ref.removeprefix(SCHEME), args, trusted=True)["input_features"]
    return [f for f in features if f.startswith(IMAGE_PREFIX)]


def absolute_folder(ref: str) -> str:
    return f"{SCHEME}{Path(ref.removeprefix(SCHEME)).resolve()}"


class LeRobotPolicy:
    """The card's ``reset``/``get_action`` over a LeRobot policy loaded once per env worker."""

    def __init__(self, path: str, device: str = "cpu", obs_map: str | None = None,
                 trusted: bool = False) -> None:
        import torch
        from lerobot.configs.policies import PreTrainedConfig
        from lerobot.policies.factory import get_policy_class

        folder = _checked(path, trusted)  # again here: the folder may have changed since
        self.torch = torch
        self.device = device
        config = PreTrainedConfig.from_pretrained(str(folder))
        config.device = device
        self.policy = get_policy_class(config.type).from_pretrained(str(folder), config=config)
        self.policy.to(device)
        self.policy.eval()
        self.features = dict(config.input_features)
        self.map = _read_map(obs_map)
        self.pre = self.post = None
        if (folder / PREPROCESSOR).is_file():
            from lerobot.policies.factory import make_pre_post_processors

            self.pre, self.post = make_pre_post_processors(config, pretrained_path=str(folder))
        self._instruction = ""
        self._step = 0

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self._instruction = instruction
        self._step = 0
        self.policy.reset()
        for pipeline in (self.pre, self.post):
            if pipeline is not None:
                pipeline.reset()

    def get_action(self, env: Any) -> np.ndarray:
        obs = observations_of(env, self._step == 0)
        self._step += 1
        batch = {name: self._feature(name, feature, obs)
                 for name, feature in self.features.items()}
        if self.pre is not None:
            batch = self.pre({**batch, "task": self._instruction})
        else:
            batch = {k: v.unsqueeze(0).to(self.device) for k, v in batch.items()}
            batch["task"] = [self._instruction]
        with self.torch.no_grad():
            action = self.policy.select_action(batch)
        if self.post is not None:
            action = self.post(action)
        return action.detach().to("cpu").numpy().reshape(-1).astype(np.float64)

    def _feature(self, name: str, feature: Any, obs: dict[str, Any]) -> Any:
        torch = self.torch
        shape = tuple(feature.shape)
        keys = _sources(name, self.map, obs)
        if keys is None:
            raise ValueError(f"lerobot: {name} is not in recallbench's LeRobot naming "
                             "(map it with --policy-arg obs_map=FILE)")
        if name.startswith(IMAGE_PREFIX) and len(keys) == 1:
            key = keys[0]
            image = np.asarray(_get(obs, key, name))
            if image.ndim != 3 or image.shape[-1] != 3:
                raise ValueError(f"lerobot: {key!r} has shape {image.shape}, {name} needs an "
                                 "H x W x 3 image")
            tensor = torch.from_numpy(np.ascontiguousarray(image)).permute(2, 0, 1).float()
            if image.dtype == np.uint8:
                tensor = tensor / 255.0
            if tuple(tensor.shape) != shape:
                tensor = torch.nn.functional.interpolate(
                    tensor[None], size=shape[1:], mode="bilinear", align_corners=False)[0]
            return tensor
        vector = np.concatenate([np.asarray(_get(obs, k, name), dtype=np.float32).reshape(-1)
                                 for k in keys])
        if vector.shape != shape:
            raise ValueError(f"lerobot: {name} needs shape {shape}; {keys} give {vector.shape} "
                             "(map it with --policy-arg obs_map=FILE)")
        return torch.from_numpy(vector)


def _sources(feature: str, mapping: dict[str, str | list[str]],
             obs: dict[str, Any] | None) -> list[str] | None:
    """The env observations a feature is made of: the user's map, else the shared naming, else
    (an image) the env camera the feature names; None when nothing names it. ``obs`` (when known)
    picks ``NAME`` or ``NAME_image`` for that last case."""
    if feature in mapping:
        source = mapping[feature]
        return [source] if isinstance(source, str) else list(source)
    declared = naming.env_keys(feature)
    if declared is not None:
        return declared
    if feature.startswith(IMAGE_PREFIX):
        short = feature.removeprefix(IMAGE_PREFIX)
        return [short if obs is not None and short in obs else naming.image_key(short)]
    return None


def _get(obs: dict[str, Any], key: str, feature: str) -> Any:
    if key not in obs:
        raise ValueError(f"lerobot: {feature} needs the env observation {key!r}; the env has "
                         f"{sorted(obs)}")
    return obs[key]
