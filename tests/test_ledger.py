"""The claim ledger: every lecture claim checked, each verdict following from its numbers."""

import pytest

from roofline import lecture, ledger

ROWS = ledger.rows()
BY_KEY = {(r.chapter, r.key): r for r in ROWS}


def test_every_claim_has_one_row():
    expected = [(ch, k) for ch, claims in lecture.CHAPTERS.items() for k in claims]
    assert [(r.chapter, r.key) for r in ROWS] == expected


def test_a_claim_without_a_check_is_named(monkeypatch):
    monkeypatch.setitem(lecture.CH7, "new_claim", lecture.Claim(1, "x", "02:10:00", "a new number"))
    with pytest.raises(ValueError, match="'new_claim' of chapter 7 has no check"):
        ledger.rows()


@pytest.mark.parametrize("value, computed, expected", [
    (100, 101.9, "agrees"), (100, 98.1, "agrees"), (100, 97, "rounded"), (100, 129, "rounded"),
    (100, 131, "differs"), (100, 69, "differs"), ((10, 20), 10.1, "agrees"), ((10, 20), 25, "rounded"),
    ((10, 20), 27, "differs"), (5, None, "premise"),
])
def test_verdict_thresholds(value, computed, expected):
    assert ledger.verdict(value, computed) == expected


def test_every_row_explains_itself():
    for r in ROWS:
        assert r.verdict in ledger.VERDICTS and len(r.basis) > 10, r.key
        assert (r.computed is None) == (r.verdict == ledger.PREMISE), r.key


@pytest.mark.parametrize("chapter, key, computed, verdict", [
    (1, "rubin_drain", 288e9 / 20e12 * 1e3, "rounded"),        # 14.4 ms, "about 15"
    (1, "hardware_ratio", 10e15 / 2 * 0.5 / 8e12, "rounded"),  # 312.5, "around 300"
    (1, "throughput", 2000 * 64, "agrees"),
    (1, "deepseek_total", 671, "rounded"),
    (2, "network_ratio", 900 / 50, "differs"),                 # NVLink 900 GB/s over a 400 Gb/s NIC
    (2, "genuine_gain", 576 / 144, "agrees"),                  # dies: NVL576 over NVL72's 144
    (5, "tokens_all", 5e8 * 60 * 86_400, "agrees"),            # two months (60 days) of 500M tokens/s
    (6, "cache_hit_discount", 5 / 0.5, "agrees"),              # Opus 4.6: $5 input, $0.50 cache read
])
def test_computed_values_against_hand_arithmetic(chapter, key, computed, verdict):
    r = BY_KEY[chapter, key]
    assert r.computed == pytest.approx(computed, rel=1e-9)
    assert r.verdict == verdict


def test_the_calibrated_hop_is_tens_of_microseconds_not_milliseconds():
    r = BY_KEY[4, "hop_ms"]
    assert 0.01 < r.computed < 0.1 and r.verdict == "differs"
    assert r.ratio < 1 / 30


def test_summary_counts_every_claim_once():
    counts = ledger.summary(ROWS)
    assert sum(sum(c.values()) for c in counts.values()) == len(ROWS)
    assert set(counts) == set(lecture.CHAPTERS)
