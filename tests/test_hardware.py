"""The accelerator registry: coverage, sources, dense FLOPs and internal consistency.

Reference numbers come from vendor datasheets as compiled in ``shared/reference/README.md``
(section 1); NVIDIA's headline tensor rates are 2:4-sparse, so the dense rate is half.
"""

import dataclasses

import pytest

from roofline import Deployment, decode, hardware, models, registry

REQUIRED = ["A100", "H100", "H200", "B200", "GB200", "GB200 NVL72", "GB300", "GB300 NVL72", "Rubin", "MI300X",
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
    rates = [getattr(hw, f"flops_{p}") for p in registry.PRECISIONS]
    known = [r for r in rates if r is not None]
    assert known == sorted(known)


def test_h100_dense_bf16():
    """H100 SXM: NVIDIA's 1,979 TFLOPS BF16 headline is 2:4-sparse; dense is half, 989 TFLOP/s."""
    h100 = hardware.get("H100")
    assert h100.flops("bf16") == pytest.approx(1979e12 / 2, rel=1e-3)
    assert h100.flops("bf16") == pytest.approx(989e12, rel=1e-3)
    assert h100.flops("fp8") == pytest.approx(3958e12 / 2, rel=1e-3)
    assert h100.hbm_bw == pytest.approx(3.35e12) and h100.hbm_bytes_headline == pytest.approx(80e9)


def test_usable_hbm_is_the_bytes_nvidia_smi_reports():
    """The vendors' "80 GB" is 80 GiB of stacks, less reserved memory: nvidia-smi shows H100 81,559 MiB and
    GB200 189,471 MiB (hardware.csv sources). Usable capacity is stored in SI bytes, 7% above the headline."""
    h100, gb200 = hardware.get("H100"), hardware.get("GB200")
    assert h100.hbm_bytes == 81_559 * 2**20
    assert gb200.hbm_bytes == pytest.approx(189_471 * 2**20, rel=1e-6)
    assert h100.hbm_bytes / h100.hbm_bytes_headline == pytest.approx(1.069, abs=0.001)


def test_ironwood_capacity_is_192_gib():
    """Google's TPU7x page gives 192 GiB, i.e. 206.2e9 bytes, not 192e9 (reference README section 0)."""
    assert hardware.get("Ironwood").hbm_bytes == 192 * 2**30


def test_a100_ratio_is_also_about_300():
    """The lecture's ratio is "roughly stable since A100" (00:18:25-00:18:53): A100 BF16 dense 312 TF x 2 B /
    (2 x 2,039 GB/s) = 153 (NVIDIA A100 datasheet figures); with BF16 weights it is half of H100's 295."""
    a100 = hardware.get("A100")
    r = decode.ratio(flops=a100.flops("bf16"), bytes_per_param=2, mem_bw=a100.hbm_bw)
    assert r == pytest.approx(312e12 / 2.039e12, rel=1e-3)
    assert round(r) == 153


def test_network_tiers_are_per_direction():
    """NVLink 5's "1.8 TB/s" per GPU is both directions: 900 GB/s each way (reference README section 0)."""
    up, out = hardware.get("GB200").network_tiers()
    assert (up.name, up.size, up.bandwidth) == ("scale-up", 72, 900e9)
    assert out.bandwidth == 50e9  # one 400 Gb/s ConnectX-7 per GPU
    assert hardware.get("H100").scaleup_bw == 450e9


def test_memory_tiers_are_listed_where_published():
    """GB200: Grace's 480 GB LPDDR5X at 512 GB/s serves two GPUs: 240 GB at 256 GB/s per GPU."""
    tiers = {t.name: t for t in hardware.get("GB200").memory_tiers()}
    assert tiers["DDR"].bytes == 240e9 and tiers["DDR"].bandwidth == 256e9
    assert tiers["HBM"].drain_time_s == pytest.approx(hardware.get("GB200").hbm_bytes / 8e12)


def test_rows_are_chips_and_racks_are_derived():
    """No row is a rack: every row's FLOP/s is one chip's (under 100 PFLOP/s), and a rack is chips x domain."""
    for hw in hardware.REGISTRY:
        assert max(hw.flops(p) for p in hw.precisions()) < 1e17, hw.key
    gb200 = hardware.get("GB200 NVL72")
    assert gb200.key == "GB200"
    assert gb200.domain_total("flops_fp4") == pytest.approx(720e15)  # NVIDIA: 1,440 PF sparse = 720 PF dense


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


def test_only_rubin_is_preliminary():
    """Rubin's numbers are pre-release (confidence low); the shipping chips are not."""
    assert hardware.get("Rubin").preliminary is True
    for name in ("H100", "H200", "B200", "GB200", "MI300X", "TPU v5e"):
        assert hardware.get(name).preliminary is False, name


def test_h100_drain_time():
    """H100: 85.5 GB usable / 3.35 TB/s ~ 26 ms, close to the lecture's "about 20 ms" train (notes, ch. 1)."""
    h100 = hardware.get("H100")
    t = decode.drain_time_s(hbm_bytes=h100.hbm_bytes, mem_bw=h100.hbm_bw)
    assert t == pytest.approx(81_559 * 2**20 / 3.35e12)
    assert 15e-3 < t < 30e-3


def test_h100_has_no_fp4_rate():
    """Hopper has no FP4 tensor cores: asking for one is a ValueError listing what the chip has."""
    with pytest.raises(ValueError, match=r"H100 publishes no dense fp4 rate.*'bf16', 'fp8'"):
        hardware.get("H100").flops("fp4")


def test_lookup_forgives_case_and_punctuation():
    """'gb200-nvl72', 'tpu_v5e' and 'b300' (an alias) find their entries."""
    assert hardware.get("gb200-nvl72").key == "GB200"
    assert hardware.get("tpu_v5e").key == "TPU v5e"
    assert hardware.get("b300").key == "GB300"


def test_replace_varies_one_field():
    """dataclasses.replace gives the lecture's 20 TB/s Rubin without touching the registry."""
    rubin = hardware.get("Rubin")
    lecture = dataclasses.replace(rubin, hbm_bw=20e12)
    assert lecture.hbm_bw == 20e12 and hardware.get("Rubin").hbm_bw == rubin.hbm_bw
    d = Deployment(models.get("DeepSeek (lecture)"), lecture, precision="fp4")
    assert d.drain_time_s() == pytest.approx(14.4e-3)
