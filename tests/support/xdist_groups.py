"""How the tests share the cores under pytest-xdist (``-n``, set by scripts/test.sh).

Each test module runs whole on one worker, so a module-scoped fixture (a generated suite, a
comparison run, a MuJoCo env) is built once, not once per worker; modules that must not overlap
with each other share one worker too: the Ray cluster modules (``test_ray*.py``), since two
clusters starting together on two cores time out. (xdist's own ``--dist loadgroup`` cannot do
this on pytest 9: it renames the test ids through an attribute pytest 9 no longer reads.)

The workers hand their modules out longest first, so no long module starts last: a module's cost
is the sum of its selected tests' seconds as a run measured them (``test_seconds.json``, remade
from JUnit XML reports with ``python tests/support/xdist_groups.py fast.xml slow.xml >
tests/support/test_seconds.json``); a test not measured yet counts as a guess from its ``slow``
mark.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

TOGETHER = (("test_ray", "ray"),)  # (module name prefix, the one worker's group)
MEASURED = Path(__file__).with_name("test_seconds.json")  # test id -> seconds
# A test not measured yet: about this long when marked slow, and otherwise
SLOW_TEST_SECONDS, TEST_SECONDS = 20.0, 0.5


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
    measured: dict[str, float] = json.loads(MEASURED.read_text()) if MEASURED.exists() else {}
    tests = {scope: [(t.nodeid, t.get_closest_marker("slow") is not None) for t in module]
             for scope, module in modules.items()}
    items[:] = [t for scope in longest_first_order(tests, measured) for t in modules[scope]]


def longest_first_order(tests: dict[str, list[tuple[str, bool]]],
                        measured: dict[str, float]) -> list[str]:
    """The scopes (scope -> its tests as (id, marked slow)), costliest first: a test costs its
    measured seconds, else a guess from its slow mark. Equal costs keep their order."""

    def seconds(test: tuple[str, bool]) -> float:
        return measured.get(test[0], SLOW_TEST_SECONDS if test[1] else TEST_SECONDS)

    return sorted(tests, key=lambda scope: -sum(map(seconds, tests[scope])))


def seconds_per_test(junit_xml: Path) -> dict[str, float]:
    """Test id -> seconds (setup, call and teardown) in a pytest JUnit XML report."""
    found: dict[str, float] = {}
    for case in ET.parse(junit_xml).iter("testcase"):
        if not case.get("classname"):  # a module skipped whole
            continue
        module = case.get("classname", "").replace(".", "/") + ".py"
        found[f"{module}::{case.get('name')}"] = round(float(case.get("time") or 0), 2)
    return found


if __name__ == "__main__":  # the measured runs' seconds, printed (later reports win)
    merged: dict[str, float] = {}
    for report in sys.argv[1:]:
        merged.update(seconds_per_test(Path(report)))
    print(json.dumps(dict(sorted(merged.items())), indent=0))
