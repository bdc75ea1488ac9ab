"""Bootstrap intervals and aggregation."""

from __future__ import annotations

import numpy as np
import pytest

from recallbench.report.aggregate import summarize
from recallbench.report.stats import bootstrap_ci


def test_bootstrap_matches_normal_approximation_for_a_proportion() -> None:
    values = np.r_[np.ones(300), np.zeros(700)]
    mean, lo, hi = bootstrap_ci(values, n_resamples=4000, seed=1)
    assert mean == 0.3
    se = np.sqrt(0.3 * 0.7 / 1000)
    assert lo == pytest.approx(0.3 - 1.96 * se, abs=0.006)
    assert hi == pytest.approx(0.3 + 1.96 * se, abs=0.006)
    assert lo < mean < hi


def test_binary_shortcut_matches_resampling() -> None:
    # 0/1 values are drawn as Binomial(n, p)/n; halving them forces the resampling path.
    x = (np.random.default_rng(7).random(800) < 0.2).astype(float)
    _, lo, hi = bootstrap_ci(x, n_resamples=4000)
    _, lo2, hi2 = bootstrap_ci(x / 2, n_resamples=4000)
    assert lo == pytest.approx(2 * lo2, abs=0.004) and hi == pytest.approx(2 * hi2, abs=0.004)


def test_bootstrap_seeded_and_edge_cases() -> None:
    v = np.random.default_rng(3).random(50)
    assert bootstrap_ci(v, seed=5) == bootstrap_ci(v, seed=5)
    assert bootstrap_ci(v, seed=5) != bootstrap_ci(v, seed=6)
    narrow = bootstrap_ci(v, ci=0.5)
    wide = bootstrap_ci(v, ci=0.99)
    assert wide[1] < narrow[1] and narrow[2] < wide[2]
    assert bootstrap_ci([1.0]) == (1.0, 1.0, 1.0)
    assert all(np.isnan(x) for x in bootstrap_ci([]))
    assert bootstrap_ci([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    with pytest.raises(ValueError):
        bootstrap_ci([[1.0, 2.0]])


def test_summarize_slices_and_na() -> None:
    rows = [
        {"group": "A", "category": "a1", "template": "t1", "sr": 1.0, "spl": None},
        {
            "group": "A",
            "category": "a2",
            "template": "t2",
            "sr": 0.0,
            "spl": None,
            "failure": "misidentification",
        },  # fmt: skip
        {"group": "B", "category": "b1", "template": "t3", "sr": 1.0, "spl": None},
    ]
    s = summarize(rows, ["sr", "spl"], na_reasons={"spl": "no distances"})
    assert s["overall"]["sr"]["value"] == pytest.approx(2 / 3) and s["overall"]["sr"]["n"] == 3
    assert s["overall"]["spl"] == {"value": None, "n": 0, "na_reason": "no distances"}
    assert s["by_group"]["A"]["sr"]["value"] == 0.5 and s["by_group"]["A"]["n"] == 2
    assert s["by_category"]["b1"]["sr"]["n"] == 1
    assert set(s["by_template"]) == {"t1", "t2", "t3"}
    assert s["overall"]["failures"] == {"misidentification": 1}


def test_a_columns_interval_does_not_depend_on_the_columns_beside_it():
    """summary.json summarises metrics together, the viewer one at a time: one interval per
    number (a 0/1 column drawn first used to shift the next column's draws)."""
    from recallbench.report.stats import bootstrap_ci_columns

    rng = np.random.default_rng(3)
    binary = (rng.random(300) < 0.2).astype(float)
    fraction = rng.random(300) * binary
    joint = bootstrap_ci_columns(np.stack([binary, fraction, fraction / 2], axis=1), seed=7)
    assert joint[0] == bootstrap_ci(binary, seed=7)
    assert joint[1] == bootstrap_ci(fraction, seed=7)
    assert joint[2] == bootstrap_ci(fraction / 2, seed=7)
