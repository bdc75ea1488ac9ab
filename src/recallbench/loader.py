"""The one ``module:attr`` loader (base layer): agents, policies, env factories, captioners and
executor handlers are all named this way.

A reference is ``package.module:attr`` or ``path/to/file.py:attr`` (``attr`` may be dotted).
A file is imported under a name unique to its path, with its folder at the end of ``sys.path``
so it can import its siblings but a sibling never replaces an installed package. Errors are
``ValueError`` with one line that names the reference.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any


def is_reference(spec: str) -> bool:
    """``module:attr`` or ``file.py:attr`` (as opposed to a registered name)."""
    module, sep, attr = spec.rpartition(":")
    return bool(sep and module and attr)


def _is_file(module_ref: str) -> bool:
    return module_ref.endswith(".py") or "/" in module_ref or "\\" in module_ref


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise ValueError(f"file not found: {path}")
    import hashlib  # on use: every command's flags import this module

    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"_recallbench_user_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    if str(path.parent) not in sys.path:  # last: its siblings never shadow installed packages
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_attr(ref: str) -> Any:
    """The object ``ref`` names, importing its module (or file) first."""
    if not is_reference(ref):
        raise ValueError(f"{ref!r} is not 'module:attr' or 'path/to/file.py:attr'")
    module_ref, _, attr = ref.rpartition(":")
    if _is_file(module_ref):
        module = _import_file(Path(module_ref).resolve())
    else:
        try:
            module = importlib.import_module(module_ref)
        except ModuleNotFoundError as exc:
            raise ValueError(f"cannot import module {module_ref!r} ({ref}): {exc}") from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{module_ref} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def plugins(group: str, kind: type) -> list[tuple[str, Any]]:
    """(where, object) for each entry point of ``group``, by name: ``where`` names it for an
    error; one that fails to load or is not a ``kind`` is one InputError naming it (never a
    traceback). Scans the installed distributions: call it on first use only."""
    from importlib import metadata

    from recallbench.errors import InputError

    found = []
    for ep in sorted(metadata.entry_points(group=group), key=lambda e: e.name):
        where = f"entry point {ep.name} = {ep.value}"
        try:
            loaded = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin is named, never a traceback
            raise InputError(where, group,
                             f"cannot be loaded: {type(exc).__name__}: {exc}") from None
        if not isinstance(loaded, kind):
            raise InputError(where, group, f"is not a {kind.__module__}.{kind.__qualname__}")
        found.append((where, loaded))
    return found
