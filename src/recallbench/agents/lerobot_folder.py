"""A LeRobot checkpoint folder is data (docs/vla.md): before lerobot reads it, the files lerobot
would act on are checked, so that a folder cannot make lerobot import or run code.

lerobot 0.4.4 imports whatever dotted ``"class"`` a ``*processor*.json`` step names and calls it
with the step's ``"config"`` (``processor/pipeline.py``: ``_resolve_step_class``); some policy
types and steps load a model named in the folder with ``trust_remote_code=True`` (that model's
own Python runs). So, unless the user trusts the folder (``--trust-policy``):

- ``config.json``'s ``type`` is a policy type lerobot registers (``PreTrainedConfig``'s choices),
  and none of ``REMOTE_CODE_TYPES``;
- every step of every ``*processor*.json`` names a step lerobot registers
  (``ProcessorStepRegistry``) in its own ``lerobot.processor`` package or the policy type's
  package: by ``registry_name``, or by a ``"class"`` path under ``lerobot.`` that is that very
  class; a step with a ``trust_remote_code`` field must set it to false; ``state_file`` is a
  ``.safetensors`` file in the folder;
- the weights are ``model.safetensors``, and no pickle-format file (``PICKLE_SUFFIXES``) is in
  the folder; every file lerobot reads is a regular file inside it.

Each refusal is one ``InputError`` naming the file and the field. lerobot is imported only here
(and in ``lerobot_policy``), and only when a folder is checked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import pkgutil
import sys
from pathlib import Path
from typing import Any

from recallbench.errors import InputError
from recallbench.io import read_json

CONFIG = "config.json"
WEIGHTS = "model.safetensors"
PROCESSOR_FILES = "*processor*.json"
# torch.load / pickle formats: a checkpoint folder holds safetensors only
PICKLE_SUFFIXES = frozenset({".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".joblib"})
# lerobot 0.4.4's policy types whose model code calls from_pretrained(<a name from config.json>,
# trust_remote_code=True): pi0_fast (action/text tokenizer), sac (vision encoder),
# reward_classifier (model_name), wall_x (action tokenizer), groot (its Eagle model)
REMOTE_CODE_TYPES = frozenset({"pi0_fast", "sac", "reward_classifier", "wall_x", "groot"})
TRUST = "--trust-policy allows a folder you trust"


def check_policy_folder(folder: Path) -> str:
    """The folder's policy type, once every file lerobot would act on is data; an
    ``InputError`` naming the file and the field otherwise."""
    folder = folder.resolve()
    config_path = _inside(folder, CONFIG, None)
    config = _read_object(config_path)
    policy_type = _check_type(config_path, config)
    _inside(folder, WEIGHTS, None)
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in PICKLE_SUFFIXES:
            raise InputError(path, None, "a pickle-format file: a LeRobot folder's weights are "
                                         f".safetensors only ({TRUST})")
    steps = registered_steps(policy_type)
    for path in sorted(folder.glob(PROCESSOR_FILES)):
        _check_pipeline(folder, path, steps)
    return policy_type


def registered_steps(policy_type: str) -> dict[str, type]:
    """The processor steps a folder of ``policy_type`` may name: lerobot's registered steps
    defined in ``lerobot.processor`` or in the policy type's own package."""
    from lerobot.configs.policies import PreTrainedConfig
    from lerobot.processor import ProcessorStepRegistry

    package = PreTrainedConfig.get_choice_class(policy_type).__module__.rpartition(".")[0]
    module = sys.modules[package]
    for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
        if info.name.startswith("processor_"):  # lerobot's own modules register their steps
            # an optional dependency missing: its steps cannot load anyway
            with contextlib.suppress(ImportError):
                importlib.import_module(f"{package}.{info.name}")
    owners = ("lerobot.processor.", f"{package}.")
    return {name: cls for name in ProcessorStepRegistry.list()
            if (cls := ProcessorStepRegistry.get(name)).__module__.startswith(owners)}


def policy_types() -> set[str]:
    """The policy types lerobot registers (``PreTrainedConfig``'s choices)."""
    import lerobot.policies.factory  # noqa: F401  (imports, so registers, every config class)
    from lerobot.configs.policies import PreTrainedConfig

    return set(PreTrainedConfig.get_known_choices())


def _inside(folder: Path, name: str, field: str | None) -> Path:
    """``folder/name``, a regular file inside the folder (a symlink out is not its data)."""
    path = folder / name
    if not path.is_file():
        raise InputError(path, field, "missing, or not a file")
    if not path.resolve().is_relative_to(folder):
        raise InputError(path, field, f"links outside the policy folder ({TRUST})")
    return path


def _read_object(path: Path) -> dict[str, Any]:
    data = read_json(path)  # not UTF-8, nested too deeply, a FIFO: one line naming the file
    if not isinstance(data, dict):
        raise InputError(path, None, "must be a JSON object")
    return data


def _check_type(path: Path, config: dict[str, Any]) -> str:
    policy_type = config.get("type")
    known = policy_types()
    if not isinstance(policy_type, str) or policy_type not in known:
        raise InputError(path, "type", f"{policy_type!r} is not a policy type lerobot "
                                       f"registers ({', '.join(sorted(known))})")
    if policy_type in REMOTE_CODE_TYPES:
        raise InputError(path, "type", f"a {policy_type} policy runs the code of a model its "
                                       f"config names (trust_remote_code; {TRUST})")
    return policy_type


def _check_pipeline(folder: Path, path: Path, steps: dict[str, type]) -> None:
    _inside(folder, path.name, None)
    data = _read_object(path)
    entries = data.get("steps")
    if not isinstance(entries, list):
        raise InputError(path, "steps", "must be a list of processor steps")
    for i, entry in enumerate(entries):
        field = f"steps[{i}]"
        if not isinstance(entry, dict):
            raise InputError(path, field, "must be an object")
        cls = _step_class(path, field, entry, steps)
        config = entry.get("config", {})
        if not isinstance(config, dict):
            raise InputError(path, f"{field}.config", "must be an object")
        if (dataclasses.is_dataclass(cls) and "trust_remote_code" in
                {f.name for f in dataclasses.fields(cls)}
                and config.get("trust_remote_code") is not False):
            raise InputError(path, f"{field}.config.trust_remote_code",
                             f"must be false: the step would run the code of the model it "
                             f"names ({TRUST})")
        if "state_file" in entry:
            _check_state_file(folder, path, f"{field}.state_file", entry["state_file"])


def _step_class(path: Path, field: str, entry: dict[str, Any], steps: dict[str, type]) -> type:
    """The registered class a step names; both spellings checked when both are given (lerobot
    prefers ``registry_name``)."""
    if "registry_name" not in entry and "class" not in entry:
        raise InputError(path, field, "names no step (registry_name or class)")
    cls: type | None = None
    if "registry_name" in entry:
        name = entry["registry_name"]
        if not isinstance(name, str) or name not in steps:
            raise InputError(path, f"{field}.registry_name",
                             f"{name!r} is not a processor step lerobot registers ({TRUST})")
        cls = steps[name]
    if "class" in entry:
        dotted = entry["class"]
        found = _registered_class(dotted, steps) if isinstance(dotted, str) else None
        if found is None:
            raise InputError(path, f"{field}.class",
                             f"{dotted!r} is not a processor step lerobot registers: a folder "
                             f"names no other code ({TRUST})")
        cls = found
    assert cls is not None
    return cls


def _registered_class(dotted: str, steps: dict[str, type]) -> type | None:
    """The registered step ``dotted`` names, looked up without importing anything: its module
    must be a ``lerobot.`` module already loaded (registering imported it), and the attribute
    that very class (a re-export too)."""
    module_name, _, attr = dotted.rpartition(".")
    if not module_name.startswith("lerobot.") or module_name not in sys.modules:
        return None
    found = vars(sys.modules[module_name]).get(attr)  # no module __getattr__ runs
    return found if any(found is cls for cls in steps.values()) else None


def _check_state_file(folder: Path, path: Path, field: str, name: Any) -> None:
    if not (isinstance(name, str) and name.endswith(".safetensors")
            and name == Path(name).name and name not in ("", ".", "..")):
        raise InputError(path, field, f"{name!r}: a .safetensors file name in the policy "
                                      "folder")
    _inside(folder, name, field)
