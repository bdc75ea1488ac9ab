"""Keeps the ``slow`` mark honest: the run fails when a test not marked slow takes longer than
the limit (``--slow-limit``, 10 s by default; 0 turns the check off).

What counts: a test's call plus its own setup (its function-scoped fixtures). The setup of a
shared fixture (module or session scope) is paid once per worker, not per test, so it is taken
out of the test that happened to trigger it and checked on its own against three times the limit,
named by the fixture and that test: a shared fixture of the fast lane may cost a few tests' worth,
not minutes. Teardown is not counted.

Under pytest-xdist the workers time the shared fixtures (they run them) and pass the split on in
the setup report's ``user_properties``; the controller, which sees every report, judges.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, field

import pytest

SHARED_KEY = "shared_fixture_setup_s"  # user_properties entry: {fixture name: seconds}
SHARED_FACTOR = 3  # a shared fixture may take this many times the per-test limit


def add_option(parser: pytest.Parser) -> None:
    parser.addoption("--slow-limit", type=float, default=10.0, metavar="SECONDS",
                     help="fail the run when a test not marked slow takes longer than this "
                          "(call + its own setup; shared fixtures get 3x); 0: no check")


@dataclass(eq=False)  # a plugin object must stay hashable
class SlowCheck:
    limit: float
    is_controller: bool  # judges the reports (the only process without xdist)
    offenders: list[str] = field(default_factory=list)
    _setup_start: dict[str, float] = field(default_factory=dict)  # nodeid -> time of setup
    _shared: dict[str, float] = field(default_factory=dict)  # the running setup's shared fixtures

    # -- the process that runs the tests: time each shared fixture's setup ----------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        self._shared = {}
        yield
        # read into the setup report, which is made after this hook returns
        item.user_properties.append((SHARED_KEY, dict(self._shared)))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef) -> Generator[None, None, None]:
        start = time.perf_counter()
        yield
        if fixturedef.scope != "function":  # (its own fixtures were set up before this hook)
            self._shared[fixturedef.argname] = time.perf_counter() - start

    # -- the controller: judge every report ------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.is_controller or "slow" in report.keywords:
            return
        if report.when == "setup":
            shared = next((v for k, v in report.user_properties if k == SHARED_KEY), {})
            own = max(0.0, report.duration - sum(shared.values()))
            self._setup_start[report.nodeid] = own
            for name, seconds in shared.items():
                if seconds > self.limit * SHARED_FACTOR:
                    self.offenders.append(
                        f"{report.nodeid}: shared fixture '{name}' took {seconds:.1f} s to set up "
                        f"(limit {self.limit * SHARED_FACTOR:g} s)")
        elif report.when == "call":
            total = report.duration + self._setup_start.pop(report.nodeid, 0.0)
            if total > self.limit:
                self.offenders.append(f"{report.nodeid}: {total:.1f} s, not marked slow "
                                      f"(limit {self.limit:g} s)")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.offenders and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.offenders:
            terminalreporter.section("slow marks", sep="=", red=True, bold=True)
            for line in self.offenders:
                terminalreporter.line(f"SLOW-MARK {line}")
            terminalreporter.line("mark them @pytest.mark.slow or make them faster "
                                  "(--slow-limit 0 turns this check off)")


def register(config: pytest.Config) -> None:
    limit = config.getoption("--slow-limit")
    if limit and limit > 0:
        controller = not hasattr(config, "workerinput")
        config.pluginmanager.register(SlowCheck(limit, controller), "recallbench-slow-check")
