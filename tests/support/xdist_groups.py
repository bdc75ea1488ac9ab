"""How the tests share the two cores under pytest-xdist (``-n 2 --dist loadgroup``).

Each test module runs whole on one worker (its ``xdist_group`` is its path), so a module-scoped
fixture (a generated suite, a comparison run, a MuJoCo env) is built once, not once per worker.
Tests that must not overlap with each other share a named group instead: ``xdist_group("ray")``
keeps the Ray cluster tests on one worker, one cluster at a time (two clusters starting together
on two cores time out). Modules are handed out longest first (those with the most ``slow`` tests,
then the most tests), so no long module starts last; with ``--no-loadscope-reorder`` xdist keeps
this order.
"""

from __future__ import annotations

import pytest


def group_by_module(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("loadgroup", default=False):
        return
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))

    def cost(tests: list[pytest.Item]) -> tuple[int, int]:
        return (-sum(t.get_closest_marker("slow") is not None for t in tests), -len(tests))

    # sorted() is stable: modules of equal cost keep their collection order
    items[:] = [t for tests in sorted(modules.values(), key=cost) for t in tests]
