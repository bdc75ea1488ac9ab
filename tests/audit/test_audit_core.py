"""The audit's interval: Wilson's, holding its rate at the ends (p = 0 or 1)."""

from __future__ import annotations

from recallbench.audit.core import rate


def test_the_interval_holds_its_rate_at_zero_and_one() -> None:
    """At p = 0 rounding put the lower end a hair above 0 for 36 of n = 1..199 (a 10-probe
    suite among them), and the audit's error bars went negative: generation stopped with an
    internal error while plotting."""
    for n in range(1, 200):
        for successes in (0, n // 3, n):
            r = rate([1.0] * successes + [0.0] * (n - successes))
            assert 0.0 <= r["lo"] <= r["rate"] <= r["hi"] <= 1.0, (n, successes, r)


def test_no_outcomes_is_no_rate() -> None:
    assert rate([]) == {"rate": None, "lo": None, "hi": None, "n": 0}
