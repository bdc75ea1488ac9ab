"""The card's policy interface and loading policies from ``module:Class``.

A policy written for the card subclasses ``eval.base_policy.BasePolicy`` from the data repo. When
the data repo has ``eval/base_policy.py`` beside ``data/``, that one ``eval`` package is made
importable on demand (``register_card_eval``: only when the policy imports ``eval``, never for a
built-in policy) so the import works unchanged, without putting the data root on sys.path: a data
repo's ``gymnasium.py`` must never replace the installed package.
``BasePolicy`` here has the same interface for new policies.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.errors import print_problem
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


class _CardEvalFinder(importlib.abc.MetaPathFinder):
    """Resolves the top-level ``eval`` package from the data repo, and only when something
    imports it: sitting last on ``sys.meta_path``, it answers only if no installed or
    current-directory ``eval`` did. Its submodules (``eval.base_policy``) are then found through
    the package's ``__path__`` by the ordinary path finder."""

    def __init__(self, eval_dir: str) -> None:
        self.eval_dir = eval_dir

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "eval":
            return None
        init = Path(self.eval_dir) / "__init__.py"
        # Data repo code is about to run in this process: say so, naming it.
        print_problem(f"the policy imports eval: running the data repo's {self.eval_dir}"
                      f"{'/__init__.py' if init.is_file() else ''}")
        if init.is_file():
            return importlib.util.spec_from_file_location(
                "eval", init, submodule_search_locations=[self.eval_dir]
            )
        spec = importlib.machinery.ModuleSpec("eval", None, is_package=True)
        spec.submodule_search_locations = [self.eval_dir]  # a namespace package
        return spec


def register_card_eval(eval_dirs: list[str]) -> None:
    """Make ``eval`` (only that package) importable from the data repo on demand: nothing of the
    repo runs unless the policy itself imports ``eval``, and sys.path is left alone, so nothing
    else can be shadowed."""
    if not eval_dirs or any(isinstance(f, _CardEvalFinder) for f in sys.meta_path):
        return
    sys.meta_path.append(_CardEvalFinder(eval_dirs[0]))


def load_policy_class(
    spec: str, extra_paths: list[str] | None = None, eval_dirs: list[str] | None = None
) -> type:
    """Import ``module:Class`` where module is importable or a path to a .py file.

    ``extra_paths`` and the current directory (both from the command line, never from the
    suite) go at the end of sys.path, after installed packages, so ``my_policy:MyPolicy``
    resolves from where the user runs the command but its folder shadows nothing installed.
    ``eval_dirs``: the data repo's ``eval/`` package (``card_eval_dirs``), importable on demand.
    """
    module_ref, sep, class_name = spec.rpartition(":")
    if not sep or not module_ref or not class_name:
        raise ValueError(f"--policy must be 'module:Class' or 'file.py:Class', got {spec!r}")
    if not module_ref.startswith("recallbench."):  # a built-in policy never needs the card's
        register_card_eval(eval_dirs or [])
    for path in [*(extra_paths or []), str(Path.cwd())]:
        if path not in sys.path:  # last: a folder's own pydantic.py never shadows the package
            sys.path.append(path)
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
