"""Chapter 4: weights fall with the pipeline, the KV cache per GPU does not; the token's hops."""

import pytest

from roofline import Deployment, decode, hardware, memory, models
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


def test_token_time_with_hops_by_hand():
    """A decode loop over 4 stages: 4 stage times plus 4 hops, each hop the latency plus each chip's share of
    the micro-batch's BF16 activations at the scale-out rate: 2.5 ms + (256 / 64) x 7,168 x 2 B / 50 GB/s.
    With one stage there is no hop."""
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    stage = Deployment(V3, GB200, precision="fp4", n_chips=256).step_time_s(256, 4096)
    hop = 2.5e-3 + 4 * 7168 * 2 / 50e9
    got = d.evaluate(memory.token_time_with_hops_s, micro_batch=256, len_ctx=4096, n_stages=4, hop_latency=2.5e-3)
    assert got == pytest.approx(4 * stage + 4 * hop)
    one = d.evaluate(memory.token_time_with_hops_s, micro_batch=256, len_ctx=4096, n_stages=1, hop_latency=2.5e-3)
    assert one == pytest.approx(d.step_time_s(256, 4096))


def test_the_lectures_20_to_30_ms_needs_millisecond_hops():
    """The lecture's 20 ms -> 30 ms over 4 stages is 2.5 ms per hop (01:15:46); at the datasheet floor
    (2.8 us + bytes at 50 GB/s) the same 4 hops add microseconds, not 10 ms."""
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    args = dict(micro_batch=2000, len_ctx=4096, n_stages=4)
    stages = 4 * Deployment(V3, GB200, precision="fp4", n_chips=256).step_time_s(2000, 4096)
    floor = d.evaluate(memory.token_time_with_hops_s, hop_latency=2.8e-6, **args) - stages
    assert floor == pytest.approx(4 * (2.8e-6 + 2000 / 64 * 7168 * 2 / 50e9))  # 4 x 11.8 us
    assert floor < 1e-4


def test_fixed_global_batch_shrinks_the_cache_and_the_micro_batch():
    """B = 8,000 sequences at 32,768 tokens of 70,272 B on 64 GPUs: 288 GB per GPU on one stage, 72 GB on four;
    at P = 4 it is the fixed-micro-batch cache of b = 2,000."""
    kv = [memory.kv_per_gpu_fixed_batch_bytes(batch=8000, len_ctx=32768, kv_bytes=70272, n_chips=64, n_stages=p)
          for p in (1, 2, 4)]
    assert kv == pytest.approx([8000 * 32768 * 70272 / 64 / p for p in (1, 2, 4)])
    assert kv[0] / 1e9 == pytest.approx(287.8, abs=0.1)
    assert kv[2] == pytest.approx(memory.kv_per_gpu_bytes(micro_batch=2000, len_ctx=32768, kv_bytes=70272,
                                                          n_chips=64))


def test_stages_at_balance_is_where_a_stage_is_balanced():
    """At P = stages_at_balance, a stage (1/P of the model on G chips) with B / P sequences spends as long
    computing as reading its weights (chapter 1's two terms, evaluated on P G chips)."""
    for chip, pr, batch in (("H100", "fp8", 8192), ("GB200", "fp4", 20000)):
        d = Deployment(V3, hardware.get(chip), precision=pr, n_chips=8)
        p = d.evaluate(memory.stages_at_balance, batch=batch)
        assert d.evaluate(decode.compute_time_s, batch=batch / p, n_chips=8 * p) == pytest.approx(
            d.evaluate(decode.weight_time_s, n_chips=8 * p))
    # H100 FP8: 671e9 x 1.9789e15 / (2 x 37e9 x 3.35e12) = 5,357 sequences balance a stage; 8,192 allow 1.53 stages
    d = Deployment(V3, hardware.get("H100"), precision="fp8", n_chips=8)
    assert d.evaluate(memory.stages_at_balance, batch=8192) == pytest.approx(1.529, abs=0.001)


def test_kv_crossover_stages_is_where_weights_meet_the_cache():
    """Kimi K2 FP8 with micro-batches of 64 at 8,192 tokens: 1.04e12 B / (64 x 8,192 x 70,272 B) = 28.2
    stages before the weights per GPU fall to the cache per GPU; at that depth the two are equal."""
    d = Deployment(models.get("Kimi K2"), hardware.get("H100"), precision="fp8", n_chips=8)
    p = d.evaluate(memory.kv_crossover_stages, micro_batch=64, len_ctx=8192)
    assert p == pytest.approx(1.04e12 / (64 * 8192 * 70272), rel=1e-3)
    assert p == pytest.approx(28.2, abs=0.1)
    assert d.evaluate(memory.weights_per_gpu_bytes, n_stages=p) == pytest.approx(
        d.evaluate(memory.kv_per_gpu_bytes, micro_batch=64, len_ctx=8192))
    assert d.evaluate(memory.kv_crossover_stages, micro_batch=64, len_ctx=0) == float("inf")


def test_kv_per_gpu_under_tensor_parallel_attention_by_hand():
    """b = 64 sequences of 8,192 tokens at k bytes per token on G GPUs of one stage:
    GQA with 8 KV heads: TP8 on 8 GPUs splits each sequence's heads 8 ways (b L k / 8), TP16 on 16 GPUs can
    still only split 8 ways (each head stored twice: b L k / 8, not / 16). MLA (one latent "head"): TP8 on 8
    GPUs stores every sequence's cache on every GPU (b L k); TP4 groups on 32 GPUs (DeepSeek's decode
    attention, TP4 x DP) hold 8 sequences each, b L k / 8 per GPU. Data-parallel attention: b L k / G."""
    b, L, k = 64, 8192, 327680
    kv = dict(micro_batch=b, len_ctx=L, kv_bytes=k)
    assert memory.kv_per_gpu_tp_bytes(n_chips=8, tp_ways=8, kv_heads=8, **kv) == pytest.approx(b * L * k / 8)
    assert memory.kv_per_gpu_tp_bytes(n_chips=16, tp_ways=16, kv_heads=8, **kv) == pytest.approx(b * L * k / 8)
    assert memory.kv_per_gpu_tp_bytes(n_chips=8, tp_ways=8, kv_heads=1, **kv) == pytest.approx(b * L * k)
    assert memory.kv_per_gpu_tp_bytes(n_chips=32, tp_ways=4, kv_heads=1, **kv) == pytest.approx(b * L * k / 8)
    for g in (8, 16, 144):
        assert memory.kv_per_gpu_tp_bytes(n_chips=g, tp_ways=1, kv_heads=1, **kv) == pytest.approx(
            memory.kv_per_gpu_bytes(n_chips=g, **kv))


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "8"])
def test_tp_ways_bad_input_names_the_parameter(bad):
    with pytest.raises(ValueError, match="tp_ways"):
        memory.kv_per_gpu_tp_bytes(n_chips=8, tp_ways=bad, kv_heads=8, micro_batch=1, len_ctx=1, kv_bytes=1)


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


@pytest.mark.parametrize("key, n_active, moe_layers, experts, hand_always_on", [
    # one expert per layer: 3 x 7168 x 2048 = 44,040,192 parameters (SwiGLU); 8 active per token
    ("DeepSeek-V3", 37e9, 58, 256, 37e9 - 8 * 58 * 44_040_192),   # 16.57B
    ("Kimi K2", 32.6e9, 60, 384, 32.6e9 - 8 * 60 * 44_040_192),    # 11.46B, not 1.04T - 1,014.7B = 25.3B
])
def test_dp_attention_always_on_weights_by_hand(key, n_active, moe_layers, experts, hand_always_on):
    """Each GPU holds the active weights less the 8 active routed experts whole, and 1/G of the routed ones."""
    m = models.get(key)
    assert (m.active_params, m.moe_layers, m.routed_experts) == (n_active, moe_layers, experts)
    routed = experts * moe_layers * 44_040_192
    d = Deployment(m, hardware.get("H100"), precision="fp8", n_chips=144)
    got = d.evaluate(memory.weights_per_gpu_dp_attention_bytes, n_stages=1)
    assert got == pytest.approx(hand_always_on + routed / 144)      # FP8: one byte per parameter
    assert hand_always_on == pytest.approx({"DeepSeek-V3": 16.565e9, "Kimi K2": 11.461e9}[key], rel=1e-4)


def test_dp_attention_dense_model_keeps_everything_and_bad_top_k_is_named():
    """A dense model (no routed experts) keeps every active weight on every GPU; K > E is refused."""
    got = memory.weights_per_gpu_dp_attention_bytes(n_active=70e9, top_k=1, n_experts=1, n_routed=0.0,
                                                    n_chips=8, bytes_per_param=2, n_stages=2)
    assert got == pytest.approx(70e9 * 2 / 2)
    with pytest.raises(ValueError, match="top_k"):
        memory.weights_per_gpu_dp_attention_bytes(n_active=37e9, top_k=300, n_experts=256, n_routed=6.5e11,
                                                  n_chips=8, bytes_per_param=1, n_stages=1)
