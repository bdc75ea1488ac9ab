"""Default wall-clock limits per case (declared in ``benchmarks.limits``, beside the options that
use them; named here for the run layer's callers)."""

from recallbench.benchmarks.limits import DEFAULT_CASE_TIMEOUT, DEFAULT_TEST_TIMEOUT

__all__ = ["DEFAULT_CASE_TIMEOUT", "DEFAULT_TEST_TIMEOUT"]
