"""The card's policy interface and loading policies from ``module:Class``.

A policy written for the card subclasses ``eval.base_policy.BasePolicy`` from the data repo. When
the data repo has ``eval/base_policy.py`` beside ``data/``, that one ``eval`` package is made
importable (``register_card_eval``) so the import works unchanged, without putting the data root
on sys.path: a data repo's ``gymnasium.py`` must never replace the installed package.
``BasePolicy`` here has the same interface for new policies.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.loader import load_attr


class BasePolicy(ABC):
    """SceneMem's policy: ``reset`` once per rollout, ``get_action`` every env step."""

    @abstractmethod
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        """Start a rollout. video_paths: agentview_left, agentview_right, eye_in_hand mp4s."""

    @abstractmethod
    def get_action(self, env: Any) -> np.ndarray:
        """Return an action of shape ``env.action_dim``; pull observations from ``env``."""


def card_eval_dirs(data_dir: str | Path) -> list[str]:
    """The data repo's ``eval/`` folder (beside or above the data), if it has base_policy.py."""
    data = Path(data_dir).resolve()
    return [str(root / "eval") for root in (data, data.parent)
            if (root / "eval" / "base_policy.py").is_file()][:1]


def register_card_eval(eval_dirs: list[str]) -> None:
    """Make ``eval`` (only that package) importable from the data repo, unless an ``eval``
    package is already importable: sys.path is left alone, so nothing else can be shadowed."""
    if not eval_dirs or "eval" in sys.modules or importlib.util.find_spec("eval") is not None:
        return
    init = Path(eval_dirs[0]) / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        "eval", init if init.is_file() else None, submodule_search_locations=[eval_dirs[0]]
    )
    if spec is None:  # no __init__.py: a namespace package over that one folder
        spec = importlib.machinery.ModuleSpec("eval", None, is_package=True)
        spec.submodule_search_locations = [eval_dirs[0]]
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval"] = module
    if spec.loader is not None:
        spec.loader.exec_module(module)


def load_policy_class(
    spec: str, extra_paths: list[str] | None = None, eval_dirs: list[str] | None = None
) -> type:
    """Import ``module:Class`` where module is importable or a path to a .py file.

    The current directory and ``extra_paths`` (both from the command line, never from the
    suite) go on sys.path first, as ``python eval_runner.py`` would have them, so
    ``my_policy:MyPolicy`` resolves from where the user runs the command. ``eval_dirs``: the
    data repo's ``eval/`` package (``card_eval_dirs``).
    """
    module_ref, sep, class_name = spec.rpartition(":")
    if not sep or not module_ref or not class_name:
        raise ValueError(f"--policy must be 'module:Class' or 'file.py:Class', got {spec!r}")
    register_card_eval(eval_dirs or [])
    for path in [*(extra_paths or []), str(Path.cwd())]:
        if path not in sys.path:
            sys.path.insert(0, path)
    if module_ref.endswith(".py") and not Path(module_ref).is_file():
        raise ValueError(f"--policy: file {module_ref} does not exist")
    try:
        cls = load_attr(spec)
    except ValueError as exc:
        raise ValueError(f"--policy: {exc}") from None
    for method in ("reset", "get_action"):
        if not callable(getattr(cls, method, None)):
            raise ValueError(f"--policy: {class_name} has no method {method}()")
    return cls
