"""Files a scenario's MJCF may reference: inside its own folder or the installed robot assets.

A suite is data, so ``unified_model.xml`` (after the env's ``edit_model_xml``, which maps a real
RoboCasa model's meshes to the installed robosuite/robocasa packages) may not make MuJoCo read an
arbitrary file: every ``<include file=...>`` and asset ``file*`` attribute must resolve inside the
scenario folder or the ``models/assets`` folder of an installed robosuite or robocasa. MuJoCo
resolves a relative path in a model built from a string against the current directory, so a
relative path is rewritten to an absolute one under the scenario's ``env/`` folder first (the
compiler's relative meshdir/texturedir/assetdir likewise). ``--trust-suite`` skips all of this.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import stat
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

from recallbench.errors import InputError, SuiteRefusal
from recallbench.world.asset_store import is_store_name

_ASSET_DIR = {"mesh": "meshdir", "skin": "meshdir", "hfield": "meshdir", "texture": "texturedir"}
_COMPILER_DIRS = ("meshdir", "texturedir", "assetdir")


@cache
def installed_asset_roots() -> tuple[str, ...]:
    """``models/assets`` of the installed robosuite and robocasa (found without importing)."""
    roots = []
    for name in ("robosuite", "robocasa"):
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            assets = Path(location) / "models" / "assets"
            if assets.is_dir():
                roots.append(os.path.realpath(assets))
    return tuple(roots)


def _inside(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root + os.sep) for root in roots)


def safe_model_xml(xml: str, xml_path: Path, trusted: bool = False) -> str:
    """The model text to build, with relative paths made absolute under env/; raises
    ``InputError`` (file and field) for a reference outside the allowed folders."""
    if trusted:
        return xml
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise InputError(xml_path, None, f"malformed XML: {exc}") from exc
    env_dir = xml_path.parent.resolve()
    allowed = [os.path.realpath(env_dir.parent), *installed_asset_roots()]
    changed = False
    for compiler in root.iter("compiler"):
        for name in _COMPILER_DIRS:
            value = compiler.get(name)
            if value is not None and not os.path.isabs(value):
                compiler.set(name, str(env_dir / value))
                changed = True
    # Compiler directories may be set anywhere, included files too, and MuJoCo applies them in
    # document order: a first pass collects every value each takes, a second checks each file
    # reference against all of them, so no order of <compiler> and <include> can slip past.
    dirs: dict[str, list[str]] = {}
    for compiler in root.iter("compiler"):
        _compiler(compiler, xml_path, dirs, allowed)
    for _ in range(2):
        changed |= _check_tree(root, xml_path, env_dir, dirs, allowed, rewrite=True, seen=set())
    return ET.tostring(root, encoding="unicode") if changed else xml


def _compiler(element: ET.Element, source: Path, dirs: dict[str, list[str]],
              allowed: list[str]) -> None:
    for name in _COMPILER_DIRS:
        value = element.get(name)
        if value is None:
            continue
        field = f"<compiler {name}={value!r}>"
        if not os.path.isabs(value):  # the main file's were made absolute: this is included
            raise SuiteRefusal(source, field, "relative directory in an included file "
                                              "(make it absolute)")
        if not _inside(value, allowed):
            raise SuiteRefusal(source, field, "resolves outside the scenario folder and the "
                                              "installed robosuite/robocasa assets "
                                              "(--trust-suite allows it)")
        if value not in dirs.setdefault(name, []):
            dirs[name].append(value)


def _regular(path: str, source: Path, field: str) -> None:
    """A referenced file that exists must be a regular file: MuJoCo reading a FIFO or a device
    would block or never end."""
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise SuiteRefusal(source, field, "is not a regular file")


def _check_tree(
    root: ET.Element,
    source: Path,
    env_dir: Path,
    dirs: dict[str, list[str]],
    allowed: list[str],
    rewrite: bool,
    seen: set[str],
) -> bool:
    changed = False
    for element in root.iter():
        if element.tag == "compiler":
            _compiler(element, source, dirs, allowed)
        for attr, value in list(element.attrib.items()):
            if not attr.startswith("file") or not value:
                continue
            field = f"<{element.tag} {attr}={value!r}>"
            bases = dirs.get(_ASSET_DIR.get(element.tag, ""), []) + dirs.get("assetdir", [])
            if element.tag == "include":
                bases = []
            elif not bases and is_store_name(value):
                continue  # recallbench's own asset, served from memory: no file is read
            if os.path.isabs(value):
                paths = [value]
            elif bases:
                paths = [os.path.join(base, value) for base in bases]
            elif rewrite:
                paths = [str(env_dir / value)]
                element.set(attr, paths[0])
                changed = True
            else:  # a file included by the model: MuJoCo would read it from the current dir
                raise SuiteRefusal(
                    source, field, "relative path in an included file (make it absolute)"
                )
            for path in paths:
                if not _inside(path, allowed):
                    raise SuiteRefusal(
                        source,
                        field,
                        "resolves outside the scenario folder and the installed "
                        "robosuite/robocasa assets (--trust-suite allows it)",
                    )
                _regular(path, source, field)
            if element.tag == "include" and os.path.realpath(paths[0]) not in seen:
                seen.add(os.path.realpath(paths[0]))
                _check_include(Path(paths[0]), env_dir, dirs, allowed, seen)
    return changed


def _check_include(
    path: Path, env_dir: Path, dirs: dict[str, list[str]], allowed: list[str], seen: set[str]
) -> None:
    try:
        included = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise InputError(path, None, f"included model file unreadable: {exc}") from exc
    _check_tree(included, path, env_dir, dirs, allowed, rewrite=False, seen=seen)
