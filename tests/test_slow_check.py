"""The slow-mark check (support/slow_check.py) on a real pytest run, alone and under xdist: a
test outside ``slow`` over the limit fails the run with one line naming it and its time; a test
marked slow, a fast one, and a shared fixture's setup within its own limit do not."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CONFTEST = """
from support import slow_check

def pytest_addoption(parser):
    slow_check.add_option(parser)

def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long")
    slow_check.register(config)
"""
CASES = """
import time
import pytest

@pytest.fixture(scope="module")
def shared():
    time.sleep(0.5)  # over the per-test limit, within the shared fixtures' (3x)

@pytest.fixture(scope="module")
def too_slow_shared():
    time.sleep(1.2)

def test_fast(shared):
    pass

def test_sleepy():
    time.sleep(0.6)

@pytest.mark.slow
def test_marked():
    time.sleep(0.6)

def test_fast_but_its_fixture_is_not(too_slow_shared):
    pass
"""


# under xdist the controller judges the workers' reports (two workers start: slow on 2 cores)
@pytest.mark.parametrize("workers", [pytest.param([], id="alone"),
                                     pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow)])
def test_a_slow_test_outside_slow_fails_the_run_naming_it(tmp_path, workers):
    if workers:
        pytest.importorskip("xdist", reason="needs pytest-xdist (test extra)")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_cases.py").write_text(CASES)
    # A real, empty ini of its own, so the project's pytest settings stay out (not `-c /dev/null`:
    # pytest 9.2 refuses a config file without a .ini/.cfg/.toml name)
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--slow-limit", "0.4",
         "--rootdir", str(tmp_path), "-c", str(ini), *workers, str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH",
                                                                                  "")])})
    flagged = [line for line in proc.stdout.splitlines() if line.startswith("SLOW-MARK ")]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "4 passed" in proc.stdout  # every test passed: the check alone failed the run
    assert len(flagged) == 2, proc.stdout
    text = "\n".join(flagged)
    assert re.search(r"test_cases.py::test_sleepy: 0\.[6-9] s, not marked slow \(limit 0.4 s\)",
                     text)
    assert re.search(r"shared fixture 'too_slow_shared' took 1\.[2-9] s to set up", text)
    assert not any("test_marked" in line or "test_fast:" in line for line in flagged)
