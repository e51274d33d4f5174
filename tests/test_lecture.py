"""The lecture's numbers in :mod:`roofline.lecture`: well formed, consistent with each other, with
the registries, and with the hand arithmetic in ``shared/lecture/notes.md`` (chapter 1, tables 1(a)
and 1(b)). The timestamps come from the same notes, which take them from a line-by-line timestamped
copy of the transcript.
"""

import dataclasses
import math
import re

import pytest

from roofline import Deployment, decode, hardware, lecture, models, prices

CH1 = lecture.CH1
STAMP = r"(\d\d):([0-5]\d):([0-5]\d)"


def seconds(stamp):
    h, m, s = map(int, re.fullmatch(STAMP, stamp).groups())
    return 3600 * h + 60 * m + s


def val(name):
    return CH1[name].value


@pytest.mark.parametrize("name", CH1)
def test_every_claim_is_well_formed(name):
    """Each claim has a unit, a quote or paraphrase, a positive value (or a rising range) and a
    timestamp hh:mm:ss, or a rising range hh:mm:ss–hh:mm:ss, inside the 2:13:40 episode."""
    c = CH1[name]
    assert c.unit.strip() and len(c.said) > 10
    values = c.value if isinstance(c.value, tuple) else (c.value,)
    assert len(values) in (1, 2) and all(isinstance(v, (int, float)) and v > 0 for v in values)
    assert values == tuple(sorted(values)) and len(set(values)) == len(values)
    ends = c.timestamp.split("–")
    assert len(ends) in (1, 2) and all(re.fullmatch(STAMP, e) for e in ends), c.timestamp
    assert [seconds(e) for e in ends] == sorted(seconds(e) for e in ends)
    assert seconds(ends[-1]) <= seconds("02:13:40")


def test_chapter_1_claims_lie_in_chapter_1():
    """Chapter 1 runs 00:00:00–00:32:09 (official chapter times); only Reiner's later guess of Gemini's
    traffic, "five hundred million" at 01:29:49 (notes, table 5(b)), is quoted from another chapter."""
    outside = {n for n, c in CH1.items() if seconds(c.timestamp.split("–")[0]) > seconds("00:32:09")}
    assert outside == {"gemini_traffic_guess"}
    assert CH1["gemini_traffic_guess"].timestamp == "01:29:49"
    assert lecture.CHAPTERS[1] is CH1


def test_claims_are_frozen():
    """A Claim is a frozen dataclass: a chapter cannot change the lecture's number by accident."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        CH1["hardware_ratio"].value = 250


def test_spot_timestamps_from_the_notes():
    """Timestamps as listed in notes.md table 1(b) (start of each entry)."""
    expected = {"fast_mode_price": "00:01:01", "pay_more": "00:01:19", "rack_gpus": "00:02:10",
                "unbatched_penalty": "00:04:23", "deepseek_total": "00:04:40", "gpu_price": "00:12:59",
                "fp4_bytes": "00:18:09", "experts_active": "00:19:16", "balance_batch": "00:19:27",
                "batch_sequences": "00:20:24", "train_period": "00:22:30", "double_read_period": "00:25:09",
                "gemini_traffic": "00:27:28", "moe_active": "00:29:37", "moe_total_gain": "00:30:11"}
    assert {n: CH1[n].timestamp for n in expected} == expected


def test_balance_batch_is_300_times_8():
    """notes 1(a) eq. 5 and 1(b): 300 x sparsity, sparsity 256 / 32 = 8, so 2,400."""
    assert val("experts_total") / val("experts_active") == val("expert_sparsity") == 8
    assert val("hardware_ratio") * val("expert_sparsity") == val("balance_batch") == 2400


def test_two_to_three_thousand_brackets_the_balance_batch_not_its_double():
    """notes 1(b): Reiner says run "double or triple" the balance batch (00:19:31–00:19:41); Dwarkesh's
    "two to three thousand" (00:19:44) brackets 2,400 itself, while 2,400 x 2 to 3 is 4,800 to 7,200."""
    low, high = val("practical_batch")
    assert low <= val("balance_batch") <= high
    assert [h * val("balance_batch") for h in val("headroom")] == [4800, 7200]
    assert high < val("headroom")[0] * val("balance_batch")


def test_worst_latency_is_two_periods():
    """notes 1(a) eq. 7: wait one 20 ms train, ride one: 40 ms."""
    period_s = val("train_period") * 1e-3
    worst = decode.worst_latency_s(hbm_bytes=period_s * 8e12, mem_bw=8e12)  # any HBM that drains in 20 ms
    assert worst * 1e3 == pytest.approx(val("worst_latency")) and val("worst_latency") == 40


def test_rubin_drain_time():
    """notes 1(a) eq. 6: 288 GB / 20 TB/s = 14.4 ms, which the lecture calls "about 15"."""
    drain_ms = val("rubin_hbm") * 1e9 / (val("rubin_hbm_bw") * 1e12) * 1e3
    assert drain_ms == pytest.approx(14.4)
    assert drain_ms == pytest.approx(val("rubin_drain"), rel=0.05)


def test_thirty_ms_reads_hbm_twice():
    """notes 1(b): in 30 ms Rubin reads its 288 GB at 20 TB/s about twice (30 / 14.4 = 2.08)."""
    reads = val("double_read_period") / (val("rubin_hbm") / val("rubin_hbm_bw"))
    assert round(reads) == 2


def test_throughput_is_2000_times_64():
    """notes 1(a) eq. 8: 2,000 x 64 = 128,000 tokens/s; 64 per second is a 15.6 ms period,
    between the lecture's 15 ms and 20 ms."""
    assert val("batch_sequences") * val("steps_per_second") == val("throughput") == 128_000
    assert val("rubin_drain") < 1e3 / val("steps_per_second") < val("train_period")


def test_one_deployment_is_about_a_thousandth_of_gemini():
    """notes 1(b): 128,000 tokens/s is "one-thousandth" of "hundreds of millions" (1e8 to 1e9)."""
    low, high = val("gemini_traffic")
    assert low <= val("throughput") / val("deployment_share") < high
    assert low <= val("gemini_traffic_guess") < high


def test_mfu_halves_at_twice_the_balanced_context():
    """notes 1(b): balanced at 100K, run at 200K, MFU 50% (compute over KV-bound step = 100K / 200K)."""
    assert val("balanced_context") / val("doubled_context") == val("mfu_at_doubled_context") == 0.5


def test_routed_scaling_laws_gain():
    """notes 1(b): 64 experts at 370M active match dense 1.3B, a gain of 1.3e9 / 370e6 = 3.5 that
    the lecture rounds to "64x for 4x"."""
    gain = val("moe_dense_equivalent") * 1e9 / (val("moe_active") * 1e6)
    assert gain == pytest.approx(3.51, abs=0.01)
    assert round(gain) == val("moe_active_gain") == 4
    assert val("moe_total_gain") == val("moe_experts") == 64


def test_unbatched_penalty_is_the_balance_batch_in_order_of_magnitude():
    """notes 1(b), [INF] check: at batch 1 the cost over the floor is 300 x sparsity = 2,400, "a
    thousand times worse" in order of magnitude."""
    assert round(math.log10(val("balance_batch"))) == round(math.log10(val("unbatched_penalty"))) == 3


def test_lecture_model_in_the_registry_matches_the_lecture():
    """models.csv's "DeepSeek (lecture)" is the lecture's 700B total, 37B active, 32 of 256 experts."""
    m = models.get("DeepSeek (lecture)")
    assert m.total_params == val("deepseek_total") * 1e9
    assert m.active_params == val("deepseek_active") * 1e9
    assert (m.routed_experts, m.active_routed_experts) == (val("experts_total"), val("experts_active"))
    assert m.expert_sparsity == val("expert_sparsity")


def test_hardware_matches_the_lecture_setup():
    """A Blackwell NVL72 is 72 GPUs (00:02:10); FP4 is half a byte per weight (00:18:09); GB200's
    FP4 ratio, 10e15 x 0.5 / (2 x 8e12) = 312.5, is "around 300"."""
    gb200 = hardware.get("GB200")
    assert gb200.scaleup_domain == val("rack_gpus") == 72
    d = Deployment(models.get("DeepSeek (lecture)"), gb200, precision="fp4")
    assert d.values["bytes_per_param"] == val("fp4_bytes")
    assert d.ratio() == pytest.approx(312.5)
    assert d.ratio() == pytest.approx(val("hardware_ratio"), rel=0.05)


def test_fast_mode_claim_matches_anthropic_price_list():
    """The lecture's "6x the price" (00:01:01) is Anthropic's Opus 4.6 fast mode, $30/$150 against
    $5/$25 (api_prices.csv); the "2.5x" speed is the vendor's "up to 2.5x" quoted in the source."""
    assert prices.multiplier("Anthropic", "claude-opus-4.6", "fast") == val("fast_mode_price")
    fast = prices.get("Anthropic", "claude-opus-4.6", "fast")
    assert f"{val('fast_mode_speed')}x" in fast.source
