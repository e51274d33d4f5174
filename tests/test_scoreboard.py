"""The scoreboard: every measurement beside its prediction, each bound holding the way it claims."""

import math

import pytest

from roofline import measured, memory_runs, pipeline_runs, scoreboard

ROWS = scoreboard.entries()


def test_every_timed_measurement_the_library_holds_is_on_the_board():
    keys = [e.key for e in ROWS]
    timed = [m.key for m in measured.LINKS if m.use == "fit"]  # the others publish a bandwidth only
    assert set(measured.names()) <= set(keys) and set(timed) <= set(keys)
    assert {"Llama 3.1 405B", "DeepSeek-V3"} <= set(keys)
    bubbles = [r.key for r in pipeline_runs.RUNS if r.quantity == "bubble_rate" and r.predicted_bubble()]
    capacities = [r.key for r in memory_runs.RUNS if r.sequences_per_gpu is not None]
    assert set(bubbles) <= set(keys) and set(capacities) <= set(keys) and len(bubbles) >= 20
    assert len(keys) == len(measured.names()) + len(timed) + 2 + len(bubbles) + len(capacities)


def test_the_bubble_formula_and_the_memory_that_fits_bound_their_measurements_by_hand():
    """Qi et al.'s 1F1B, 1.5B model, P = 8, m = 24: 7 / 31 = 0.226 against a profiled 0.2431; SGLang's GB200
    decode at 2K tokens runs fewer sequences than fit (Table 5 prints 24.31%)."""
    bubble = next(e for e in ROWS if e.key == "ZB 1.5B P8 m24 1f1b bubble")
    assert bubble.predicted == pytest.approx(7 / 31) and bubble.measured == pytest.approx(0.2431)
    kv = next(e for e in ROWS if e.key == "SGLang GB200 decode 2K")
    assert kv.bound == "upper" and kv.measured == 1408 and kv.ratio < 1


@pytest.mark.parametrize("entry", ROWS, ids=lambda e: e.key)
def test_each_bound_holds(entry):
    """The roofline's throughput is at or above every decode measurement; the link floor and full
    utilisation at or below every time; 6ND within 2% of the reported compute."""
    assert entry.holds, f"{entry.key}: ratio {entry.ratio:.3f} breaks the {entry.bound} bound"
    if entry.bound == "estimate":
        assert entry.ratio == pytest.approx(1, abs=0.02)
    assert entry.source


def test_calibrated_link_model_is_within_seven_percent_where_it_was_fitted():
    fitted = [e for e in ROWS if e.calibrated is not None]
    assert len(fitted) == 12
    assert all(abs(e.measured / e.calibrated - 1) < 0.07 for e in fitted)


def test_summary_by_hand():
    """Median and worst (farthest from 1 on a log scale) per regime, recomputed here."""
    table = scoreboard.summary(ROWS)
    for regime, row in table.items():
        ratios = sorted(e.ratio for e in ROWS if e.regime == regime)
        n = len(ratios)
        median = ratios[n // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2
        assert row["n"] == n and row["median"] == pytest.approx(median)
        assert abs(math.log(row["worst"])) == pytest.approx(max(abs(math.log(r)) for r in ratios))
