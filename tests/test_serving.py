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
