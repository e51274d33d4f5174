"""Chapter 6's equations against numbers worked another way: the lecture's arithmetic by hand, published KV
sizes, datasheet drain times."""

import pytest

from roofline import hardware, models, serving


def call(fn, **kw):
    """``fn`` with the keywords it takes out of ``kw``."""
    return fn(**{k: v for k, v in kw.items() if k in fn.args})


def test_the_lecture_1667_bytes():
    """1/300 as bandwidth over multiplies, 100B active, crossover at 200K: 1e11 / 300 / 2e5 = 1,667 B
    (01:38:22). In datasheet FLOPs (2 per multiply-add) the same machine has F/W = 600."""
    assert serving.kv_bytes_at_crossover(n_active=1e11, mem_bw=1.0, flops=600.0, len_ctx=2e5) == pytest.approx(
        1e11 / 300 / 2e5)
    # B200 in FP8: 4.5e15 FLOP/s over 7.7e12 B/s; by hand 2 x 1e11 x 7.7e12 / (4.5e15 x 2e5)
    b200 = hardware.get("B200")
    k = serving.kv_bytes_at_crossover(n_active=1e11, mem_bw=b200.hbm_bw, flops=b200.flops_fp8, len_ctx=2e5)
    assert k == pytest.approx(2 * 1e11 * b200.hbm_bw / (b200.flops_fp8 * 2e5))


@pytest.mark.parametrize("key, layers, heads, dim, elem, published", [
    ("Llama 3.1 70B", 80, 8, 128, 2, 327_680), ("Llama 3.1 405B", 126, 8, 128, 2, 516_096)])
def test_kv_bytes_from_the_architecture(key, layers, heads, dim, elem, published):
    assert serving.kv_bytes_architecture(kv_layers=layers, head_dim=dim, kv_heads=heads,
                                         kv_elem_bytes=elem) == published
    assert models.get(key).kv_bytes_per_token(2) == published


def test_the_2048_check():
    """One shared cache, d_head 128, 8 KV heads, one byte each: "exactly this number" (01:40:52)."""
    assert serving.kv_bytes_architecture(kv_layers=1, head_dim=128, kv_heads=8, kv_elem_bytes=1) == 2048
    assert serving.kv_bytes_read(kv_bytes=2048, attn_sparsity=8) == 256


def test_pass_length_by_hand():
    """Decode (l = 1) vs prefill of 2,000 tokens, 8 sequences of 4K context, 37B active of 671B in FP8 on 8 H100s."""
    kw = dict(batch=8, n_active=37e9, n_total=671e9, bytes_per_param=1.0, flops=1.9789e15, mem_bw=3.35e12,
              n_chips=8, len_ctx=4096, kv_bytes=70272)
    mem = (671e9 + 8 * 4096 * 70272) / (8 * 3.35e12)
    assert call(serving.pass_memory_time_s, **kw) == pytest.approx(mem)
    for l in (1, 2000):
        comp = 2 * 8 * l * 37e9 / (8 * 1.9789e15)
        assert call(serving.pass_compute_time_s, pass_len=l, **kw) == pytest.approx(comp)
        assert call(serving.pass_cost_per_token_usd, pass_len=l, price=2.0, **kw) == pytest.approx(
            8 * 2.0 / 3600 * max(comp, mem) / (8 * l))
    l_star = call(serving.balance_pass_len, **kw)
    assert call(serving.pass_memory_over_compute, pass_len=l_star, **kw) == pytest.approx(1.0)
    assert call(serving.pass_memory_over_compute, pass_len=1, **kw) == pytest.approx(l_star)


def test_recompute_and_cache_costs():
    """Recompute: 2 x 37e9 FLOPs at 989.4 TFLOP/s on a $2 GPU-hour. Holding in a device for its drain time
    costs what reading it back does (02:02:55)."""
    assert serving.recompute_cost_usd(n_active=37e9, flops=989.4e12, price=2.0) == pytest.approx(
        2 * 37e9 / 989.4e12 * 2 / 3600)
    kw = dict(kv_bytes=70272, tier_bytes=3.84e12, tier_bw=7e9, tier_price=0.5)
    drain = serving.drain_time_s(tier_bytes=3.84e12, tier_bw=7e9)
    assert drain == pytest.approx(3.84e12 / 7e9)
    assert call(serving.hold_cost_usd_per_s, **kw) * drain == pytest.approx(call(serving.retrieve_cost_usd, **kw))
    assert call(serving.cache_cost_usd, hold_s=drain, **kw) == pytest.approx(2 * call(serving.retrieve_cost_usd, **kw))


def test_drain_times_from_the_registry():
    """H100 HBM 85.52 GB at 3.35 TB/s: 25.5 ms; a 20 TB disk at 285 MB/s: 19.5 hours."""
    hbm = hardware.get("H100").memory_tiers()[0]
    assert serving.drain_time_s(tier_bytes=hbm.bytes, tier_bw=hbm.bandwidth) == pytest.approx(85.52e9 / 3.35e12,
                                                                                              rel=1e-3)
    disk = hardware.DEVICES["HDD (Seagate Exos X20, 20 TB)"]
    assert disk.drain_time_s / 3600 == pytest.approx(19.49, abs=0.01)


@pytest.mark.parametrize("call, match", [
    (lambda: serving.kv_bytes_architecture(kv_layers=0, head_dim=128, kv_heads=8, kv_elem_bytes=1), "kv_layers"),
    (lambda: serving.kv_bytes_read(kv_bytes=2048, attn_sparsity=-1), "attn_sparsity"),
    (lambda: serving.drain_time_s(tier_bytes=1e12, tier_bw=0), "tier_bw"),
    (lambda: serving.cache_cost_usd(kv_bytes=1, tier_bytes=1, tier_bw=1, tier_price=1, hold_s=-5), "hold_s"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_decode_kv_over_compute_by_hand():
    """Llama 3.1 70B (GQA: 80 layers x 8 KV heads x 128 x 2 values x 2 bytes = 327,680 B; attention 2 FLOPs x
    2 products x 64 query heads x 128 x 80 layers = 2,621,440 FLOP per token of context) on an H200 (4.8 TB/s,
    FP8 weights at 1,978.9 TFLOP/s, BF16 attention at 989.4): at 4,096 tokens, and its limit."""
    kw = dict(n_active=70.6e9, flops=1978.9e12, mem_bw=4.8e12, kv_bytes=327_680, attn_flops=2 * 2 * 64 * 128 * 80,
              attn_flops_rate=989.4e12)
    kv = 4096 * 327_680 / 4.8e12
    comp = 2 * 70.6e9 / 1978.9e12 + 2_621_440 * 4096 / 989.4e12
    assert call(serving.decode_kv_over_compute, len_ctx=4096, **kw) == pytest.approx(kv / comp)
    assert call(serving.decode_kv_over_compute_limit, **kw) == pytest.approx(327_680 * 989.4e12 / (2_621_440 * 4.8e12))


def test_mla_decode_is_never_kv_bound_at_one_precision():
    """DeepSeek-V3's absorbed MLA: 61 layers of a 576-value latent (70,272 B in BF16), and per layer and token of
    context 2 FLOPs x 128 heads x (576 + 512) products. Read and multiplied at one precision, the limit of KV read
    over compute is 70,272 x 989.4e12 / (61 x 278,528 x 4.8e12) = 0.85 on an H200: never KV-bound."""
    a = 61 * 2 * 128 * (576 + 512)
    assert models.get("DeepSeek-V3").attention_flops_per_token() == pytest.approx(a)
    lim = serving.decode_kv_over_compute_limit(mem_bw=4.8e12, kv_bytes=61 * 576 * 2, attn_flops=a,
                                               attn_flops_rate=989.4e12)
    assert lim == pytest.approx(0.8525, abs=1e-3)


def test_reuse_breakeven_by_hand():
    """A 1,667-byte token held 5 minutes in a $2/h GB200's HBM (199 GB, 8 TB/s) against recomputing 100B active
    parameters at 5 PFLOP/s on the same $2/h: hold = 1,667/199e9 x 2/3600 x 300, read = 1,667/8e12 x 2/3600,
    recompute = 2e11/5e15 x 2/3600; holding pays from hold / (recompute - read) reads."""
    kw = dict(n_active=1e11, flops=5e15, kv_bytes=1667, price=2.0, tier_bytes=199e9, tier_bw=8e12, tier_price=2.0,
              hold_s=300)
    hold, read, rec = 1667 / 199e9 * 2 / 3600 * 300, 1667 / 8e12 * 2 / 3600, 2e11 / 5e15 * 2 / 3600
    n = serving.reuse_breakeven_n(**kw)
    assert n == pytest.approx(hold / (rec - read))
    assert call(serving.held_prefix_cost_usd, n_reuse=3, **kw) == pytest.approx(hold + 3 * read)
    assert call(serving.reprefill_cost_usd, n_reuse=3, **kw) == pytest.approx(3 * rec)
    # a device too slow to read back a token faster than recomputing it never pays
    assert serving.reuse_breakeven_n(**(kw | dict(tier_bw=1.0))) == float("inf")
