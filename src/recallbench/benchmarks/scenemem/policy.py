"""The card's policy interface and loading policies from ``module:Class``.

A policy written for the card subclasses ``eval.base_policy.BasePolicy`` from the data repo. When
the data repo has ``eval/base_policy.py`` beside ``data/``, its root goes on sys.path so that
import works unchanged; ``BasePolicy`` here has the same interface for new policies.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np


class BasePolicy(ABC):
    """SceneMem's policy: ``reset`` once per rollout, ``get_action`` every env step."""

    @abstractmethod
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        """Start a rollout. video_paths: agentview_left, agentview_right, eye_in_hand mp4s."""

    @abstractmethod
    def get_action(self, env: Any) -> np.ndarray:
        """Return an action of shape ``env.action_dim``; pull observations from ``env``."""


def data_repo_paths(data_dir: str | Path) -> list[str]:
    """Folders to put on sys.path so the card's ``from eval.base_policy import ...`` works."""
    paths = []
    for root in (Path(data_dir).resolve(), Path(data_dir).resolve().parent):
        if (root / "eval" / "base_policy.py").is_file():
            paths.append(str(root))
    return paths


def load_policy_class(spec: str, extra_paths: list[str] | None = None) -> type:
    """Import ``module:Class`` where module is importable or a path to a .py file.

    The current directory and ``extra_paths`` go on sys.path first, as ``python eval_runner.py``
    would have them, so ``my_policy:MyPolicy`` resolves from where the user runs the command.
    """
    module_ref, sep, class_name = spec.rpartition(":")
    if not sep or not module_ref or not class_name:
        raise ValueError(f"--policy must be 'module:Class' or 'file.py:Class', got {spec!r}")
    for path in [*(extra_paths or []), str(Path.cwd())]:
        if path not in sys.path:
            sys.path.insert(0, path)
    if module_ref.endswith(".py"):
        path = Path(module_ref).resolve()
        if not path.is_file():
            raise ValueError(f"--policy: file {module_ref} does not exist")
        # The file's folder goes on sys.path too, so it can import its siblings.
        if str(path.parent) not in sys.path:
            sys.path.insert(0, str(path.parent))
        name = f"_recallbench_policy_{path.stem}"
        module_spec = importlib.util.spec_from_file_location(name, path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_ref)
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"--policy: {module_ref} has no attribute {class_name!r}")
    for method in ("reset", "get_action"):
        if not callable(getattr(cls, method, None)):
            raise ValueError(f"--policy: {class_name} has no method {method}()")
    return cls
