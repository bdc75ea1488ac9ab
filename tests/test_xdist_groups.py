"""How the modules are handed out to the xdist workers (support/xdist_groups.py): costliest
first by the seconds a real run measured, so a long module never starts last."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.xdist_groups import SLOW_TEST_SECONDS, longest_first_order, seconds_per_test


def test_measured_seconds_order_the_modules_and_unmeasured_tests_are_guessed() -> None:
    tests = {
        "a.py": [("a.py::t1", False), ("a.py::t2", False)],  # many cheap tests
        "b.py": [("b.py::long", True)],  # one slow test, measured long
        "c.py": [("c.py::new", True)],  # slow, not measured yet: guessed
        "d.py": [("d.py::t", False)],
    }
    measured = {"a.py::t1": 3.0, "a.py::t2": 2.0, "b.py::long": 300.0, "d.py::t": 0.1}
    assert longest_first_order(tests, measured) == ["b.py", "c.py", "a.py", "d.py"]
    # a measured test beats the guess for an unmeasured slow one only when it is longer
    measured["a.py::t1"] = SLOW_TEST_SECONDS + 1
    assert longest_first_order(tests, measured)[:3] == ["b.py", "a.py", "c.py"]


def test_seconds_are_read_from_a_real_junit_report(tmp_path: Path) -> None:
    (tmp_path / "test_timed.py").write_text(
        "import time, pytest\n"
        "@pytest.mark.parametrize('n', [1, 2])\n"
        "def test_sleeps(n):\n    time.sleep(0.2 * n)\n")
    report = tmp_path / "run.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={report}", "test_timed.py"], cwd=tmp_path, check=True,
                   capture_output=True)
    seconds = seconds_per_test(report)
    assert set(seconds) == {"test_timed.py::test_sleeps[1]", "test_timed.py::test_sleeps[2]"}
    # each at least its sleep (a lower bound whatever the machine's load)
    assert seconds["test_timed.py::test_sleeps[1]"] >= 0.2
    assert seconds["test_timed.py::test_sleeps[2]"] >= 0.4
