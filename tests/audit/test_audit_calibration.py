"""The calibrated audit rule: z-scores against val's subsets, the family-wise limit, the
percentile and the power, on hand-made calibration entries; and the shipped calibration."""

from __future__ import annotations

import pytest

from recallbench.audit.findingdory_calibration import (
    FAMILY_ALPHA,
    QUANTILES,
    SIZES,
    Stat,
    judge_stat,
    load_calibration,
    percentile,
    size_for,
)

ENTRY = {"side": "upper", "mean": 0.2, "sd": 0.05, "count": 200, "n": 40.0,
         "quantiles": [0.1, 0.11, 0.12, 0.13, 0.14, 0.17, 0.2, 0.23, 0.26, 0.28, 0.3, 0.31, 0.35]}


def test_an_upper_check_fails_beyond_z_star_only():
    ok = judge_stat("blind overall", Stat(0.32, "upper", 40, 0.1), ENTRY, 3.0)
    assert ok["passed"] and ok["z"] == pytest.approx(2.4) and ok["limit"] == pytest.approx(0.35)
    bad = judge_stat("blind overall", Stat(0.36, "upper", 40, 0.1), ENTRY, 3.0)
    assert not bad["passed"] and bad["percentile"] == 100.0
    low = judge_stat("blind overall", Stat(0.0, "upper", 40, 0.1), ENTRY, 3.0)
    assert low["passed"] and low["percentile"] == 0.0  # far below val is not a shortcut


def test_a_two_sided_check_fails_on_either_side():
    both = {**ENTRY, "side": "both"}
    assert not judge_stat("w", Stat(0.04, "both", None, 0.05), both, 3.0)["passed"]
    assert not judge_stat("w", Stat(0.36, "both", None, 0.05), both, 3.0)["passed"]
    mid = judge_stat("w", Stat(0.25, "both", None, 0.05), both, 3.0)
    assert mid["passed"] and mid["lower_limit"] == pytest.approx(0.05)


def test_power_grows_with_the_shift_and_shrinks_with_the_spread():
    small = judge_stat("x", Stat(0.2, "upper", 40, 0.05), ENTRY, 3.0)["power"]
    large = judge_stat("x", Stat(0.2, "upper", 40, 0.30), ENTRY, 3.0)["power"]
    wide = judge_stat("x", Stat(0.2, "upper", 40, 0.30), {**ENTRY, "sd": 0.2}, 3.0)["power"]
    assert small < 0.05 < 0.9 < large and wide < large


def test_percentile_interpolates_the_stored_quantiles():
    assert percentile(0.2, ENTRY) == pytest.approx(50.0)
    assert percentile(0.215, ENTRY) == pytest.approx(62.5)
    assert percentile(0.5, ENTRY) == 100.0 and percentile(0.0, ENTRY) == 0.0


def test_a_statistic_val_never_had_is_reported_not_judged():
    out = judge_stat("blind New Category", Stat(0.9, "upper", 3, 0.1), None, 3.0)
    assert out["passed"] and not out["calibrated"]


def test_the_shipped_calibration_covers_every_size_and_is_judged_at_or_below_a_suites():
    cal = load_calibration()
    assert [int(s) for s in cal["sizes"]] == list(SIZES)
    assert cal["family_alpha"] == FAMILY_ALPHA and cal["scoring"] == "published"
    for size in cal["sizes"].values():
        assert size["z_star"] > 2.0 and size["subsets"] >= 100
        entry = size["checks"]["blind overall"]
        assert len(entry["quantiles"]) == len(QUANTILES) and entry["sd"] > 0
    assert size_for(5, cal)["episodes"] == 4 and size_for(18, cal)["episodes"] == 18
    assert size_for(100, cal)["episodes"] == max(SIZES)
    # smaller subsets spread wider: blind's sd falls with the size
    sds = [cal["sizes"][str(s)]["checks"]["blind overall"]["sd"] for s in SIZES]
    assert sds[1] > sds[-1]


def test_sizes_computed_apart_merge_only_from_the_same_file_and_rule():
    from recallbench.audit.findingdory_calibration import merge_calibration

    head = {"source": {"sha256": "a"}, "seed": 0, "family_alpha": FAMILY_ALPHA,
            "scoring": "published"}
    old = {**head, "sizes": {"18": {"z_star": 3.0}, "4": {"z_star": 3.5}}}
    new = {**head, "sizes": {"4": {"z_star": 3.9}, "2": {"z_star": 4.0}}}
    merged = merge_calibration(old, new)
    assert list(merged["sizes"]) == ["2", "4", "18"] and merged["sizes"]["4"]["z_star"] == 3.9
    other = {**new, "source": {"sha256": "b"}}
    assert merge_calibration(old, other) == other
