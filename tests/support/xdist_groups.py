"""How the tests share the cores under pytest-xdist (``-n``, set by scripts/test.sh).

Each test module runs whole on one worker, so a module-scoped fixture (a generated suite, a
comparison run, a MuJoCo env) is built once, not once per worker; modules that must not overlap
with each other share one worker too: the Ray cluster modules (``test_ray*.py``), since two
clusters starting together on two cores time out. (xdist's own ``--dist loadgroup`` cannot do
this on pytest 9: it renames the test ids through an attribute pytest 9 no longer reads.)

The workers hand their modules out longest first (those with the most ``slow`` tests, then the
most tests), so no long module starts last.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import pytest

TOGETHER = (("test_ray", "ray"),)  # (module name prefix, the one worker's group)


def scope_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its module, or the group its module shares."""
    module = nodeid.split("::", 1)[0]
    name = PurePosixPath(module).name
    return next((group for prefix, group in TOGETHER if name.startswith(prefix)), module)


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ByModule(config, log)


def longest_first(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Reorders the collection of an xdist worker (the order the modules are handed out in;
    scripts/test.sh passes --no-loadscope-reorder so xdist keeps it)."""
    if not hasattr(config, "workerinput"):
        return
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(scope_of(item.nodeid), []).append(item)

    def cost(tests: list[pytest.Item]) -> tuple[int, int]:
        return (-sum(t.get_closest_marker("slow") is not None for t in tests), -len(tests))

    # sorted() is stable: modules of equal cost keep their collection order
    items[:] = [t for tests in sorted(modules.values(), key=cost) for t in tests]
