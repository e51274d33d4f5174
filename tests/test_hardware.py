"""The accelerator registry: coverage, sources, dense FLOPs and internal consistency.

Reference numbers come from vendor datasheets as compiled in ``shared/reference/README.md``
(section 1); NVIDIA's headline tensor rates are 2:4-sparse, so the dense rate is half.
"""

import dataclasses

import pytest

from roofline import Deployment, decode, hardware, models

REQUIRED = ["H100", "H200", "B200", "GB200", "GB200 NVL72", "GB300", "GB300 NVL72", "Rubin", "MI300X",
            "MI355X", "TPU v5e", "TPU v5p", "TPU v6e", "Ironwood"]


@pytest.mark.parametrize("name", REQUIRED)
def test_registry_has_the_chips_the_book_uses(name):
    """Every chip the chapters name is in the registry under that name (aliases allowed)."""
    assert isinstance(hardware.get(name), hardware.Hardware)


@pytest.mark.parametrize("key", hardware.names())
def test_every_entry_has_a_source_and_confidence(key):
    """Every number carries where it came from and how sure we are (house style, rule 3)."""
    hw = hardware.get(key)
    assert len(hw.source) > 20, f"{key}: source missing or too vague"
    assert hw.confidence in ("high", "medium", "low")
    assert hw.hbm_bytes > 0 and hw.hbm_bw > 0 and hw.scaleup_domain >= 1
    assert hw.precisions(), f"{key} has no dense FLOP rate at all"


@pytest.mark.parametrize("key", hardware.names())
def test_flops_increase_or_hold_as_precision_drops(key):
    """Dense rates never fall from BF16 to FP8 to FP4 (TPU v5p and v6e run FP8 at the BF16 rate)."""
    hw = hardware.get(key)
    rates = [getattr(hw, f"flops_{p}") for p in hardware.PRECISIONS]
    known = [r for r in rates if r is not None]
    assert known == sorted(known)


def test_h100_dense_bf16():
    """H100 SXM: NVIDIA's 1,979 TFLOPS BF16 headline is 2:4-sparse; dense is half, 989 TFLOP/s."""
    h100 = hardware.get("H100")
    assert h100.flops("bf16") == pytest.approx(1979e12 / 2, rel=1e-3)
    assert h100.flops("bf16") == pytest.approx(989e12, rel=1e-3)
    assert h100.flops("fp8") == pytest.approx(3958e12 / 2, rel=1e-3)
    assert h100.hbm_bw == pytest.approx(3.35e12) and h100.hbm_bytes == pytest.approx(80e9)


def test_blackwell_dense_rates_are_half_the_sparse_headlines():
    """HGX B200 headlines 18/9/4.5 PF (FP4/FP8/BF16, sparse); GB200 20/10/5 PF; dense is half of each."""
    b200, gb200 = hardware.get("B200"), hardware.get("GB200")
    assert [b200.flops(p) for p in ("fp4", "fp8", "bf16")] == pytest.approx([9e15, 4.5e15, 2.25e15])
    assert [gb200.flops(p) for p in ("fp4", "fp8", "bf16")] == pytest.approx([10e15, 5e15, 2.5e15])


def test_tpu_numbers_from_google_docs():
    """Google publishes dense rates: v5e 197 TF, v5p 459 TF, v6e 918 TF, Ironwood 2,307 TF BF16."""
    expected = {"TPU v5e": 197e12, "TPU v5p": 459e12, "TPU v6e": 918e12, "Ironwood": 2307e12}
    for name, bf16 in expected.items():
        assert hardware.get(name).flops("bf16") == pytest.approx(bf16), name


@pytest.mark.parametrize("rack, chip", [("GB200 NVL72", "GB200"), ("GB300 NVL72", "GB300")])
def test_rack_is_72_chips(rack, chip):
    """An NVL72 rack's FLOP/s and HBM bandwidth are 72 x one GPU's (NVIDIA rack tables)."""
    r, c = hardware.get(rack), hardware.get(chip)
    for p in r.precisions():
        assert r.flops(p) == pytest.approx(72 * c.flops(p), rel=1e-3), p
    assert r.hbm_bw == pytest.approx(72 * c.hbm_bw, rel=1e-3)
    assert r.hbm_bytes == pytest.approx(72 * c.hbm_bytes, rel=0.01)


def test_only_rubin_is_preliminary():
    """Rubin's numbers are pre-release (confidence low); the shipping chips are not."""
    assert hardware.get("Rubin").preliminary is True
    for name in ("H100", "H200", "B200", "GB200", "MI300X", "TPU v5e"):
        assert hardware.get(name).preliminary is False, name


def test_h100_drain_time():
    """H100: 80 GB / 3.35 TB/s ~ 24 ms, close to the lecture's "about 20 ms" train (notes, ch. 1)."""
    h100 = hardware.get("H100")
    t = decode.drain_time_s(hbm_bytes=h100.hbm_bytes, mem_bw=h100.hbm_bw)
    assert t == pytest.approx(80e9 / 3.35e12)
    assert 15e-3 < t < 30e-3


def test_h100_has_no_fp4_rate():
    """Hopper has no FP4 tensor cores: asking for one is a ValueError listing what the chip has."""
    with pytest.raises(ValueError, match=r"H100 publishes no dense fp4 rate.*'bf16', 'fp8'"):
        hardware.get("H100").flops("fp4")


def test_lookup_forgives_case_and_punctuation():
    """'gb200-nvl72', 'tpu_v5e' and 'b300' (an alias) find their entries."""
    assert hardware.get("gb200-nvl72").key == "GB200 NVL72"
    assert hardware.get("tpu_v5e").key == "TPU v5e"
    assert hardware.get("b300").key == "GB300"


def test_replace_varies_one_field():
    """dataclasses.replace gives the lecture's 20 TB/s Rubin without touching the registry."""
    rubin = hardware.get("Rubin")
    lecture = dataclasses.replace(rubin, hbm_bw=20e12)
    assert lecture.hbm_bw == 20e12 and hardware.get("Rubin").hbm_bw == rubin.hbm_bw
    d = Deployment(models.get("DeepSeek (lecture)"), lecture, precision="fp4")
    assert d.drain_time_s() == pytest.approx(14.4e-3)
