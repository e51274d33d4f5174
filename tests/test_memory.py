"""Chapter 4: weights fall with the pipeline, the KV cache per GPU does not; the token's hops."""

import pytest

from roofline import Deployment, hardware, memory, models
from roofline import symbols as s

V3 = models.get("DeepSeek-V3")
GB200 = hardware.get("GB200")


def test_p_cancels_in_the_kv_term():
    """B = P b: (P b L k)/(G P) = b L k / G for every P (01:11:34); weights fall as 1/P."""
    assert s.n_stages not in memory.kv_per_gpu_bytes.expr.free_symbols
    given = dict(micro_batch=1000, len_ctx=100_000, kv_bytes=70272, n_chips=64)
    assert memory.kv_per_gpu_bytes(**given) == pytest.approx(1000 * 100_000 * 70272 / 64)
    w = [memory.weights_per_gpu_bytes(n_total=671e9, bytes_per_param=0.5, n_chips=64, n_stages=p) for p in (1, 2, 4)]
    assert w == pytest.approx([671e9 * 0.5 / 64 / p for p in (1, 2, 4)])


def test_memory_per_gpu_by_hand():
    """DeepSeek-V3 FP4 on 64 GPUs x 4 stages, 4 micro-batches of 500 at 32K tokens:
    (335.5 GB + 2,000 x 32,768 x 70,272 B) / 256 GPUs."""
    got = memory.memory_per_gpu_bytes(n_total=671e9, bytes_per_param=0.5, micro_batch=500, len_ctx=32768,
                                      kv_bytes=70272, n_chips=64, n_stages=4)
    assert got == pytest.approx((335.5e9 + 2000 * 32768 * 70272) / 256)


def test_one_stage_is_chapter_1s_capacity_wall():
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    ch1 = d.max_batch(32768)
    assert d.evaluate(memory.max_micro_batch_n, len_ctx=32768, n_stages=1) == pytest.approx(ch1)
    # more stages free weight memory, so a micro-batch can be a little larger, never P times larger
    four = d.evaluate(memory.max_micro_batch_n, len_ctx=32768, n_stages=4)
    assert ch1 < four < 1.1 * ch1


def test_token_time_with_hops_the_lectures_example():
    """A 20 ms step over 4 stages with hops of 2.5 ms: 20 + 4 x 2.5 = 30 ms ("from 20 to 30", 01:15:46).
    With one stage there is no hop."""
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    stage = Deployment(V3, GB200, precision="fp4", n_chips=256).step_time_s(256, 4096)
    got = d.evaluate(memory.token_time_with_hops_s, micro_batch=256, len_ctx=4096, n_stages=4, hop_latency=2.5e-3)
    assert got == pytest.approx(4 * stage + 4 * 2.5e-3)
    one = d.evaluate(memory.token_time_with_hops_s, micro_batch=256, len_ctx=4096, n_stages=1, hop_latency=2.5e-3)
    assert one == pytest.approx(d.step_time_s(256, 4096))


def test_stages_to_fit_is_the_smallest_depth_the_search_finds():
    """Rounded up, N b_w / (G M - b L k) is the first P at which the micro-batch fits (searched by hand)."""
    import math

    for model, chip, pr, g, b, ctx in (("Kimi K2", "H100", "fp8", 8, 64, 8192), ("DeepSeek-V3", "H100", "fp8", 8, 64, 8192),
                                        ("DeepSeek-V3", "GB200", "fp4", 64, 64, 8192), ("Kimi K2", "H100", "fp8", 8, 64, 32768)):
        d = Deployment(models.get(model), hardware.get(chip), precision=pr, n_chips=g)
        searched = next(p for p in range(1, 257)
                        if d.evaluate(memory.max_micro_batch_n, len_ctx=ctx, n_stages=p) >= b)
        assert math.ceil(d.evaluate(memory.stages_to_fit, micro_batch=b, len_ctx=ctx)) == searched
    d = Deployment(models.get("Kimi K2"), hardware.get("H100"), precision="fp8", n_chips=8)
    assert d.evaluate(memory.stages_to_fit, micro_batch=1e6, len_ctx=1e6) == float("inf")
