"""Paired comparisons of agents over the same cases: exact McNemar and the paired bootstrap."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from recallbench.report.paired import gains, mcnemar_exact, paired_test, pairwise


@pytest.mark.parametrize(("b", "c"), [(5, 0), (0, 5), (7, 3), (12, 12), (1, 30), (0, 0)])
def test_mcnemar_matches_the_binomial_reference(b, c):
    expected = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)


def test_paired_test_pairs_cases_by_id_and_ignores_unshared_ones():
    a = {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 1.0, "only_a": 1.0}
    b = {"q4": 0.0, "q3": 1.0, "q2": 0.0, "q1": 1.0, "only_b": 0.0}  # other order
    r = paired_test(a, b)
    assert r["n"] == 4
    assert (r["mean_a"], r["mean_b"]) == (0.75, 0.5)
    assert r["diff"] == pytest.approx(0.25)
    assert (r["only_a"], r["only_b"]) == (2, 1)
    assert r["p"] == pytest.approx(binomtest(1, 3, 0.5).pvalue)
    assert r["lo"] <= r["diff"] <= r["hi"]


def test_identical_agents_do_not_differ_and_a_clear_gain_is_significant():
    same = {f"c{i}": float(i % 2) for i in range(200)}
    r = paired_test(same, dict(same))
    assert (r["diff"], r["lo"], r["hi"], r["p"]) == (0.0, 0.0, 0.0, 1.0)
    better = {k: 1.0 for k in same}
    (gain,) = gains({"blind": same, "memory": better}, "blind", ["memory"])
    assert gain["agent"] == "memory" and gain["diff"] == pytest.approx(0.5)
    assert gain["lo"] > 0.4 and gain["p"] < 1e-20


def test_pairwise_lists_every_pair_once():
    scores = {n: {"c": 1.0} for n in ("a", "b", "c")}
    assert [(r["a"], r["b"]) for r in pairwise(scores)] == [("a", "b"), ("a", "c"), ("b", "c")]


def test_continuous_scores_get_an_interval_but_no_mcnemar():
    r = paired_test({"x": 0.5, "y": 0.25}, {"x": 0.0, "y": 0.25})
    assert "p" not in r and r["diff"] == pytest.approx(0.25)
