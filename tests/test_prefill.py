"""Chapter 8's equations against numbers worked another way: pairs and FLOPs counted by hand, DeepSeek-V3's
attention from its config, the speculative series summed term by term, the balance points checked by putting
them back into the terms they balance; its data table read and its bad rows refused; its figure driven."""

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp
from sympy.physics import units as u

from roofline import Deployment, decode, hardware, models, prefill, prefill_runs, serving, speculation, symbols
from roofline.figures import prefill as fpf
from roofline.registry import Registry

# DeepSeek-V3 on 8 H800s (the H100's FLOPs and HBM): FP8 weights, BF16 attention and cache
V3 = dict(n_active=37e9, n_total=671e9, bytes_per_param=1.0, flops=1.9789e15, mem_bw=3.35e12, n_chips=8,
          kv_bytes=70272.0, attn_flops=5.0e6, attn_flops_rate=9.894e14, latent_flops=0.0,
          n_routed=653_908_770_816.0, n_experts=256, top_k=8)
ALL = {name: eq.under(experts="all") for name, eq in speculation.EQUATIONS.items()}  # every weight read


def call(fn, **kw):
    """``fn`` with the keywords it takes out of ``kw``."""
    return fn(**{k: v for k, v in kw.items() if k in fn.args})


# -- the pass ------------------------------------------------------------------------------------
def test_pass_flops_counted_pair_by_pair():
    """Two sequences, 3 new tokens after 5 cached: the new tokens read 6, 7 and 8 keys (21 pairs); 10 active
    weights at 2 FLOPs each, 7 FLOPs a pair: 2 x (2 x 10 x 3 + 7 x 21) = 414."""
    assert prefill.prefill_flops(batch=2, n_active=10, pass_len=3, len_ctx=5, attn_flops=7, latent_flops=0) == 414
    pairs = sum(5 + i for i in range(1, 4))
    assert pairs == 21
    # and 11 FLOPs to expand each of the 5 cached tokens, once a pass: 2 x 11 x 5 = 110 more
    assert prefill.prefill_flops(batch=2, n_active=10, pass_len=3, len_ctx=5, attn_flops=7, latent_flops=11) == 524


def test_cached_latents_expanded_once_a_pass():
    """MLA decompressed: DeepSeek-V3's 512-wide latent up-projected to 128 heads x (128 + 128), 2 FLOPs a
    multiply-add, 61 layers: 2.05 GFLOP a cached token, about 410 pairs' worth; GQA caches need none. The
    pass's compute gains B L u_c / (G F), the memory nothing."""
    v3 = models.get("DeepSeek-V3")
    assert prefill.prefill_latent_flops(v3) == 2 * 512 * 128 * (128 + 128) * 61 == 2_046_820_352
    assert prefill.prefill_latent_flops(v3) / prefill.prefill_attn_flops(v3) == pytest.approx(409.6)
    assert prefill.prefill_latent_flops(models.get("Llama 3.1 70B")) == 0.0
    kw = dict(V3, batch=1, len_ctx=32768, pass_len=670, attn_flops=4_997_120.0)
    u_c = prefill.prefill_latent_flops(v3)
    extra = 32768 * u_c / (8 * 1.9789e15)
    assert call(prefill.prefill_compute_time_s, **dict(kw, latent_flops=u_c)) == pytest.approx(
        call(prefill.prefill_compute_time_s, **kw) + extra)
    assert call(prefill.prefill_memory_time_s, **dict(kw, latent_flops=u_c)) == call(prefill.prefill_memory_time_s,
                                                                                      **kw)
    with pytest.raises(ValueError, match="model must be a roofline Model"):
        prefill.prefill_latent_flops("DeepSeek-V3")


def test_prefill_time_by_hand():
    """One fresh prompt of 8,192 tokens: compute 2 x 37e9 x 8192 / F + 5e6 x 8192 x 8193 / 2 / F_a, over 8 chips;
    memory the weights and the prompt's cache written, over 8 chips' bandwidth."""
    ell = 8192
    comp = (2 * 37e9 * ell / 1.9789e15 + 5e6 * ell * (ell + 1) / 2 / 9.894e14) / 8
    mem = (671e9 + ell * 70272) / (8 * 3.35e12)
    kw = dict(V3, batch=1, len_ctx=0, pass_len=ell)
    assert call(prefill.prefill_compute_time_s, **kw) == pytest.approx(comp)
    assert call(prefill.prefill_memory_time_s, **kw) == pytest.approx(mem)
    assert call(prefill.prefill_time_s, **kw) == pytest.approx(max(comp, mem))
    assert call(prefill.prefill_tokens_per_s, **kw) == pytest.approx(ell / max(comp, mem))
    assert call(prefill.prefill_cost_per_token_usd, price=2.0, **kw) == pytest.approx(
        8 * 2.0 / 3600 * max(comp, mem) / ell)


def test_the_pass_contains_chapter_6s_and_chapter_1s():
    """No attention FLOPs and no cache written: chapter 6's pass. One token: chapter 1's decode compute with
    attention, plus the one pair of the new token with itself."""
    kw = dict(V3, batch=64, len_ctx=4096, pass_len=300)
    no_attn = dict(kw, attn_flops=0.0)
    assert call(prefill.prefill_compute_time_s, **no_attn) == pytest.approx(
        call(serving.pass_compute_time_s, **no_attn))
    written = 64 * 300 * 70272 / (8 * 3.35e12)
    assert call(prefill.prefill_memory_time_s, **kw) == pytest.approx(call(serving.pass_memory_time_s, **kw) + written)
    one = dict(kw, pass_len=1)
    self_pair = 64 * 5e6 / (9.894e14 * 8)
    assert call(prefill.prefill_compute_time_s, **one) == pytest.approx(
        call(decode.compute_time_attn_s, **one) + self_pair)


def test_balance_prompt_balances_the_pass():
    """At l*, compute equals memory; shorter passes are memory-bound, longer compute-bound."""
    for batch, ctx, u_c in ((1, 0, 0.0), (4, 0, 0.0), (16, 2048, 0.0), (16, 2048, 1e8)):
        kw = dict(V3, batch=batch, len_ctx=ctx, latent_flops=u_c)
        ell = call(prefill.balance_prefill_tokens, **kw)
        comp = call(prefill.prefill_compute_time_s, pass_len=ell, **kw)
        mem = call(prefill.prefill_memory_time_s, pass_len=ell, **kw)
        assert comp == pytest.approx(mem, rel=1e-9)
        assert call(prefill.prefill_compute_time_s, pass_len=ell / 2, **kw) < call(
            prefill.prefill_memory_time_s, pass_len=ell / 2, **kw)


def test_balance_prompt_is_zero_where_expanding_the_prefix_outlasts_the_reads():
    """64 sequences with 32,768 cached tokens each, MLA decompressed (2.05 GFLOP a cached token): expanding the
    prefixes alone takes longer than reading the weights and caches, so any pass is compute-bound."""
    kw = dict(V3, batch=64, len_ctx=32768, latent_flops=2_046_820_352.0)
    assert 64 * 32768 * 2_046_820_352.0 / 1.9789e15 > (671e9 + 64 * 32768 * 70272) / 3.35e12
    assert call(prefill.balance_prefill_tokens, **kw) == 0.0
    for ell in (1.0, 10.0):
        assert call(prefill.prefill_compute_time_s, pass_len=ell, **kw) > call(
            prefill.prefill_memory_time_s, pass_len=ell, **kw)


def test_balance_prompt_is_chapter_1s_balance_batch_in_tokens():
    """Without attention FLOPs, cache and context, B l* = B*: 671e9 x 1.9789e15 / (2 x 37e9 x 3.35e12)."""
    plain = dict(V3, attn_flops=0.0, kv_bytes=0.0)
    b_star = 671e9 * 1.9789e15 / (2 * 37e9 * 3.35e12)
    assert call(decode.balance_batch_n, **plain) == pytest.approx(b_star)
    for batch in (1, 8, 100):
        assert batch * call(prefill.balance_prefill_tokens, batch=batch, len_ctx=0, **plain) == pytest.approx(b_star)


def test_balance_prompt_is_inf_only_where_documented():
    """No attention FLOPs and a cache write that outlasts a token's FLOPs (k / W >= 2 N / F): never compute-bound."""
    never = dict(V3, attn_flops=0.0, kv_bytes=1e9)
    assert math.isinf(call(prefill.balance_prefill_tokens, batch=1, len_ctx=0, **never))
    assert math.isfinite(call(prefill.balance_prefill_tokens, batch=1, len_ctx=0, **dict(never, attn_flops=1e6)))


def test_free_chunk_fills_the_slack():
    """The mixed step with the balance chunk takes what the plain decode step takes: its memory time, now met by
    its compute; no chunk where decode alone is compute-bound."""
    kw = dict(V3, batch=64, len_ctx=4096)
    c = call(prefill.balance_chunk_tokens, **kw)
    step = call(prefill.prefill_time_s, pass_len=1, **kw)
    mixed = call(prefill.mixed_step_time_s, pass_len=c, **kw)
    # the chunk's cache write is the only change: c k / (G W)
    assert mixed == pytest.approx(step + c * 70272 / (8 * 3.35e12), rel=1e-9)
    slack = call(prefill.prefill_memory_time_s, pass_len=1, **kw) - call(prefill.prefill_compute_time_s, pass_len=1,
                                                                         **kw)
    assert c == pytest.approx(slack / (2 * 37e9 / (8 * 1.9789e15) - 70272 / (8 * 3.35e12)))
    assert call(prefill.balance_chunk_tokens, **dict(kw, batch=1e5, len_ctx=0)) == 0.0  # compute-bound
    assert math.isinf(call(prefill.balance_chunk_tokens, **dict(kw, kv_bytes=1e9)))


def test_prefill_attention_from_the_configs():
    """DeepSeek-V3 (config.json: 128 heads, qk_nope 128, rope 64, v 128, 61 layers): 2 x 128 x 320 x 61 per pair,
    3.4x less than absorbed decode's 2 x 128 x 1,088 x 61; GQA the same in both phases."""
    v3 = models.get("DeepSeek-V3")
    assert prefill.prefill_attn_flops(v3) == 2 * 128 * (128 + 64 + 128) * 61 == 4_997_120
    assert v3.attention_flops_per_token() / prefill.prefill_attn_flops(v3) == pytest.approx(1088 / 320)
    l70 = models.get("Llama 3.1 70B")
    assert prefill.prefill_attn_flops(l70) == l70.attention_flops_per_token() == 4 * 64 * 128 * 80


def test_prefill_attention_with_windows():
    """gpt-oss-120b: 18 full and 18 window layers (128 tokens). A prompt within the window reads every layer in
    full; a long one tends to the full layers' figure; 1,000 tokens by hand."""
    oss = models.get("gpt-oss-120b")
    per_layer = 4 * 64 * 64
    assert prefill.prefill_attn_flops(oss) == per_layer * 18
    assert prefill.prefill_attn_flops(oss, 100) == pytest.approx(per_layer * 36)
    pairs = 1000 * 1001 / 2
    capped = 128 * 129 / 2 + (1000 - 128) * 128
    assert prefill.prefill_attn_flops(oss, 1000) == pytest.approx(per_layer * (18 * pairs + 18 * capped) / pairs)
    assert prefill.prefill_attn_flops(oss, 1e7) == pytest.approx(per_layer * 18, rel=1e-3)
    out = prefill.prefill_attn_flops(oss, np.array([100.0, 1000.0]))
    assert out.shape == (2,)


@pytest.mark.parametrize("bad", [None, "DeepSeek-V3", 3.0])
def test_prefill_attention_refuses_what_is_not_a_model(bad):
    with pytest.raises(ValueError, match="model must be a roofline Model"):
        prefill.prefill_attn_flops(bad)


@pytest.mark.parametrize("bad", [0, -5, math.nan, "4096"])
def test_prefill_attention_refuses_a_bad_prompt(bad):
    with pytest.raises(ValueError, match="pass_len"):
        prefill.prefill_attn_flops(models.get("gpt-oss-120b"), bad)


def test_group_limited_nodes_counts_the_other_nodes_a_token_reaches():
    """Every choice of top_groups of n_groups groups, enumerated: the other nodes holding any of them, averaged,
    the token's own node being node 0. DeepSeek-V3 on 4 nodes: 3 x 55/70 = 2.357, below the 2.700 of eight
    experts at random (moe's per_rack count)."""
    import itertools

    for n_nodes, n_groups, top in ((4, 8, 4), (2, 8, 4), (8, 8, 3), (4, 8, 1), (1, 8, 4), (8, 16, 8)):
        per = n_groups // n_nodes
        picks = list(itertools.combinations(range(n_groups), top))
        mean = sum(len({g // per for g in pick} - {0}) for pick in picks) / len(picks)
        assert prefill.group_limited_nodes(n_nodes, n_groups, top) == pytest.approx(mean)
    assert prefill.DEEPSEEK_V3_EXPERT_GROUPS == (8, 4)
    assert prefill.group_limited_nodes(4, 8, 4) == pytest.approx(3 * 55 / 70)
    assert prefill.group_limited_nodes(4, 8, 4) < 3 * (1 - 0.75**8)


@pytest.mark.parametrize("args, match", [((3, 8, 4), "split evenly"), ((4, 8, 9), "top_groups"),
                                         ((0, 8, 4), "n_nodes"), ((4, 8.5, 4), "n_groups"),
                                         ((16, 8, 4), "n_nodes")])
def test_group_limited_nodes_names_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        prefill.group_limited_nodes(*args)


def test_chip_share_by_hand():
    """100 prompt tokens at 10 a second and 50 output tokens at 5 a second: 10 chip-seconds each, half and half."""
    assert prefill.prefill_chip_share(tokens_prefill=100, tokens_decode=50, prefill_rate=10, decode_rate=5) == 0.5
    assert prefill.prefill_chip_share(tokens_prefill=0, tokens_decode=50, prefill_rate=10, decode_rate=5) == 0.0


@pytest.mark.parametrize("name, bad", [("prefill_rate", 0), ("decode_rate", -1.0), ("tokens_prefill", math.inf)])
def test_chip_share_names_bad_input(name, bad):
    kw = dict(tokens_prefill=100, tokens_decode=50, prefill_rate=10, decode_rate=5) | {name: bad}
    with pytest.raises(ValueError, match=rf"prefill_chip_share: {name} must be a finite number"):
        prefill.prefill_chip_share(**kw)


def test_pool_chips_by_hand():
    """1,000 output tokens a second with 3 prompt tokens each, at 100 and 20 a chip-second: 30 prefill and 50
    decode chips; in units of 8 and 16, 32 and 64; the share is prefill_chip_share's where nothing rounds."""
    out = prefill.pool_chips(1000, 3, prefill_rate=100, decode_rate=20)
    assert (out["prefill"], out["decode"], out["total"]) == (30, 50, 80)
    assert out["prefill_share"] == pytest.approx(prefill.prefill_chip_share(
        tokens_prefill=3000, tokens_decode=1000, prefill_rate=100, decode_rate=20))
    units = prefill.pool_chips(1000, 3, prefill_rate=100, decode_rate=20, unit_chips=(8, 16))
    assert (units["prefill"], units["decode"]) == (32, 64)
    grid = prefill.pool_chips(np.array([1000.0, 2000.0]), np.array([[1.0], [3.0]]), prefill_rate=100, decode_rate=20)
    assert grid["prefill"].shape == grid["decode"].shape == (2, 2) and grid["prefill"][1, 1] == 60
    assert list(grid["decode"][:, 1]) == [100, 100]  # the decode pool does not depend on the mix
    assert prefill.pool_chips(1000, 0, prefill_rate=100, decode_rate=20)["prefill"] == 0


@pytest.mark.parametrize("kw, match", [
    (dict(output_tokens_per_s=0), "output_tokens_per_s"), (dict(prompt_per_output=-1), "prompt_per_output"),
    (dict(prefill_rate=math.nan), "prefill_rate"), (dict(decode_rate=-5), "decode_rate"),
    (dict(unit_chips=32), "unit_chips must be a pair"), (dict(unit_chips=(32, 0.5)), "unit_chips")])
def test_pool_chips_names_bad_input(kw, match):
    good = dict(output_tokens_per_s=1000, prompt_per_output=3, prefill_rate=100, decode_rate=20)
    with pytest.raises(ValueError, match=match):
        prefill.pool_chips(**(good | kw))


# -- speculation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha, ell", [(0.5, 3), (0.875, 2), (0.7, 8), (0.999999, 4)])
def test_tokens_per_step_is_the_series(alpha, ell):
    """1 + alpha + ... + alpha^k with k = l - 1 drafts, summed term by term."""
    assert speculation.tokens_per_step(accept_rate=alpha, pass_len=ell) == pytest.approx(
        sum(alpha**j for j in range(ell)), rel=1e-9)


def test_tokens_per_step_at_certain_acceptance():
    """Every draft accepted: l tokens a step, no division by zero."""
    assert speculation.tokens_per_step(accept_rate=1.0, pass_len=5) == 5.0


@pytest.mark.parametrize("bad", [1.2, 2.0])
def test_acceptance_above_one_is_refused(bad):
    with pytest.raises(ValueError, match="accept_rate must be at most 1.*accept_rate=" + str(bad)):
        speculation.tokens_per_step(accept_rate=bad, pass_len=3)


@pytest.mark.parametrize("bad", [0, -0.1, math.nan])
def test_acceptance_must_be_positive(bad):
    with pytest.raises(ValueError, match="accept_rate must be a finite number > 0"):
        speculation.tokens_per_step(accept_rate=bad, pass_len=3)


@pytest.mark.parametrize("alpha, ell", [(0.7, 3), (0.68, 4), (0.875, 2), (0.3, 8)])
def test_accept_rate_for_inverts_the_series(alpha, ell):
    tau = sum(alpha**j for j in range(ell))
    assert speculation.accept_rate_for(tau, ell) == pytest.approx(alpha, abs=1e-12)
    assert speculation.accept_rate_for(ell, ell) == 1.0


@pytest.mark.parametrize("tokens, ell, match", [(0.5, 3, "tokens must lie in"), (3.5, 3, "tokens must lie in"),
                                                (2.0, 0, "pass_len must be"), ("2", 3, "tokens must be"),
                                                ([2.0, 2.1], 3, "not arrays")])
def test_accept_rate_for_names_bad_input(tokens, ell, match):
    with pytest.raises(ValueError, match=match):
        speculation.accept_rate_for(tokens, ell)


def test_speedup_in_the_two_regimes():
    """Memory-bound (one sequence, big weights): the verify pass costs a step and the gain is tau. Compute-bound
    (no weights to speak of, a huge batch): it costs at least l steps and the gain is below tau / l."""
    tau = 1 + 0.875
    mem_bound = dict(V3, batch=1, len_ctx=4096, pass_len=2, accept_rate=0.875)
    assert call(ALL["verify_cost_ratio"], **mem_bound) == pytest.approx(1.0, abs=1e-4)
    assert call(ALL["spec_speedup"], **mem_bound) == pytest.approx(tau, rel=1e-4)
    cmp_bound = dict(mem_bound, n_total=1e6, batch=1e5, len_ctx=0.0)
    assert call(ALL["verify_cost_ratio"], **cmp_bound) >= 2.0
    assert call(ALL["spec_speedup"], **cmp_bound) <= tau / 2
    assert call(ALL["spec_user_tokens_per_s"], **mem_bound) == pytest.approx(
        tau / call(prefill.prefill_time_s, **mem_bound))
    assert call(ALL["spec_pass_time_s"], **mem_bound) == call(prefill.prefill_time_s, **mem_bound)


def test_verify_pass_of_a_sparse_moe_reads_the_experts_its_tokens_touch():
    """DeepSeek-V3 (8 of 256 experts a token), one sequence on 8 H800s: a plain step's token reads 1/32 of the
    routed experts, the two-token verify pass 1 - (31/32)^2 of them; the weights read, the pass's time and the
    gain by hand. A dense model (no routed experts, one 'expert' of top-1) reads everything either way."""
    kw = dict(V3, batch=1, len_ctx=4096, accept_rate=0.875)
    shared, routed = 671e9 - 653_908_770_816.0, 653_908_770_816.0
    cache = 4096 * 70272

    def t_mem(ell):
        return (shared + routed * (1 - (1 - 8 / 256) ** ell) + (cache + ell * 70272)) / (8 * 3.35e12)

    for ell in (1, 2):
        assert call(speculation.spec_pass_time_s, pass_len=ell, **kw) == pytest.approx(t_mem(ell), rel=1e-12)
    gain = 1.875 * t_mem(1) / t_mem(2)
    assert call(speculation.spec_speedup, pass_len=2, **kw) == pytest.approx(gain, rel=1e-12)
    assert gain < 1.3 < 1.8 < call(ALL["spec_speedup"], pass_len=2, **kw)  # the lecture's read overstates it
    dense = dict(kw, n_routed=0.0, n_experts=1, top_k=1, pass_len=4)
    assert call(speculation.spec_speedup, **dense) == call(ALL["spec_speedup"], **dense)


def test_touched_read_is_the_full_read_once_every_expert_is_touched():
    """At a batch whose tokens touch every expert (B K / E of hundreds), the two reads agree: the break-even
    batch, written with every weight read, ends the touched gain too."""
    kw = dict(V3, len_ctx=4096, pass_len=4, accept_rate=0.7)
    for b in (512.0, 4096.0):
        assert call(speculation.spec_speedup, batch=b, **kw) == pytest.approx(
            call(ALL["spec_speedup"], batch=b, **kw), rel=1e-6)
    b_e = call(speculation.spec_breakeven_batch, **kw)
    assert b_e == call(ALL["spec_breakeven_batch"], **kw)
    assert call(speculation.spec_speedup, batch=b_e, **kw) == pytest.approx(1.0, rel=1e-6)


def test_expert_parallel_gpu_touches_what_the_layout_touches():
    """One GPU of DeepSeek-V3 over 16: 1/16 of the routed parameters, and a top_k at which its own 2 x 1 tokens
    touch what all 16 GPUs' 32 tokens touch, 1 - (31/32)^32; with its weights, the gain is the whole layout's."""
    v3 = models.get("DeepSeek-V3")
    out = speculation.expert_parallel_gpu(v3, 16)
    assert out["n_routed"] == pytest.approx(v3.routed_params / 16) and out["n_experts"] == 256
    assert 1 - (1 - out["top_k"] / 256) ** 2 == pytest.approx(1 - (31 / 32) ** 32, rel=1e-12)
    two = speculation.expert_parallel_gpu(v3, 144, routed_params_per_gpu=2 * v3.expert_params)
    assert two["n_routed"] == 2 * v3.expert_params
    dense = speculation.expert_parallel_gpu(models.get("Llama 3.1 70B"), 8)
    assert dense == {"n_routed": 0.0, "n_experts": 1, "top_k": 1}
    with pytest.raises(ValueError, match="n_gpus"):
        speculation.expert_parallel_gpu(v3, 0.5)
    with pytest.raises(ValueError, match="model must be a roofline Model"):
        speculation.expert_parallel_gpu("DeepSeek-V3", 16)


def test_experts_variant_is_checked():
    with pytest.raises(ValueError, match="experts must be one of"):
        speculation.spec_speedup.under(experts="some")
    with pytest.raises(ValueError, match="experts must be one of"):
        prefill.pass_terms("touched ")


def test_breakeven_batch_ends_the_gain():
    """At B_e the verify pass's compute equals tau plain steps' memory time; the gain is 1 there (the plain
    step still memory-bound), above 1 below it and under 1 above."""
    kw = dict(V3, len_ctx=4096, pass_len=4, accept_rate=0.7)
    b_e = call(speculation.spec_breakeven_batch, **kw)
    tau = sum(0.7**j for j in range(4))
    assert tau * call(prefill.prefill_memory_time_s, batch=b_e, **dict(kw, pass_len=1)) == pytest.approx(
        call(prefill.prefill_compute_time_s, batch=b_e, **kw), rel=1e-9)
    assert call(ALL["spec_speedup"], batch=b_e, **kw) == pytest.approx(1.0, rel=1e-9)
    assert call(ALL["spec_speedup"], batch=b_e / 2, **kw) > 1.0
    assert call(ALL["spec_speedup"], batch=b_e * 2, **kw) < 1.0


def test_breakeven_is_chapter_1s_balance_batch_times_tau_over_l():
    """Attention and cache dropped: B_e = (tau / l) B*."""
    plain = dict(V3, attn_flops=0.0, kv_bytes=0.0, len_ctx=0.0)
    for alpha, ell in ((0.875, 2), (0.6, 5)):
        tau = sum(alpha**j for j in range(ell))
        assert call(speculation.spec_breakeven_batch, accept_rate=alpha, pass_len=ell, **plain) == pytest.approx(
            tau / ell * call(decode.balance_batch_n, **plain))


def test_breakeven_is_inf_where_the_cache_read_outgrows_the_flops():
    kw = dict(V3, len_ctx=4096, pass_len=2, accept_rate=0.9, kv_bytes=1e9, attn_flops=0.0)
    assert math.isinf(call(speculation.spec_breakeven_batch, **kw))


# -- the chapter's symbols and units ------------------------------------------------------------------
def test_chapter_8_symbols_are_in_the_table_once():
    for keyword in ("accept_rate", "prefill_rate", "decode_rate", "latent_flops"):
        q = symbols.TABLE[keyword]
        assert q.chapter == 8 and q.unit and q.meaning
        assert symbols.by_symbol(q.symbol) is q
    names = [str(q.symbol) for q in symbols.TABLE.values()]
    assert len(names) == len(set(names))


def test_chapter_8_equations_are_registered():
    """Every equation of the two modules is in the registry under module.name, as every other chapter's."""
    from roofline import equations

    for module in (prefill, speculation):
        for name, eq in module.EQUATIONS.items():
            assert equations.REGISTRY[f"{module.__name__.rsplit('.', 1)[-1]}.{name}"] is eq
    assert {"prefill_chip_share", "tokens_per_step", "spec_speedup", "spec_breakeven_batch"} <= {
        eq.name for eq in equations.REGISTRY.values()}


EVERY = [*prefill.EQUATIONS.values(), *speculation.EQUATIONS.values()]


def _prepared(expr):
    """``expr`` as the project's unit check (tests/test_units.py) takes it, tau (a sum of powers of the
    dimensionless alpha_s) first made one dimensionless symbol."""
    from test_units import prepared

    return prepared(expr.subs(speculation.tokens_per_step.expr, sp.Symbol("tau", positive=True)))


@pytest.mark.parametrize("eq", EVERY, ids=[e.name for e in EVERY])
def test_every_chapter_8_equation_has_its_unit(eq):
    """The equation scales with the second, the byte and the dollar as the unit it declares (exactly, at a random
    point), every max in it of like quantities."""
    from test_units import assert_unit

    assert_unit(_prepared(eq.expr), eq.dimension, eq.name)


def test_the_two_terms_of_a_pass_have_one_unit():
    """Compute and memory are both seconds (the unit check also asserts it inside every Max)."""
    from test_units import assert_unit

    for what, part in (("compute", prefill.t_prefill_compute), ("memory", prefill.t_prefill_memory)):
        assert_unit(_prepared(part), u.second, what)


@pytest.mark.parametrize("eq", EVERY, ids=[e.name for e in EVERY])
def test_bad_input_is_named(eq):
    """Every argument, given a negative or NaN, fails naming itself."""
    good = {a: 0.5 if a == "accept_rate" else 2.0 for a in eq.args}  # counts (chips) are at least 1
    for arg in eq.args:
        for bad in (-1.0, math.nan):
            with pytest.raises(ValueError, match=rf"\b{arg}\b"):
                eq(**(good | {arg: bad}))


def test_deployment_evaluates_the_speculation_equations():
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("H200"), precision="fp8")
    g = d.evaluate(speculation.spec_speedup, batch=64, len_ctx=4096, pass_len=2, accept_rate=0.875)
    assert 1.6 < g < 1.7  # 64 tokens touch 87% of the experts, the verify pass's 128 all but 2%
    g_all = d.evaluate(ALL["spec_speedup"], batch=64, len_ctx=4096, pass_len=2, accept_rate=0.875)
    assert 1.8 < g_all < 1.9
    with pytest.raises(ValueError, match="needs accept_rate"):
        d.evaluate(speculation.spec_speedup, batch=64, len_ctx=4096, pass_len=2)


# -- the data --------------------------------------------------------------------------------------
def test_every_run_loads_with_its_source():
    assert len(prefill_runs.RUNS) >= 15
    for r in prefill_runs.RUNS:
        assert r.source and r.date and r.regime in prefill_runs.REGIMES
        if r.low is not None:
            assert r.low <= r.value <= r.high


def test_runs_give_their_published_numbers():
    assert prefill_runs.reported("SGLang H100 prefill 4K") == 50_302
    assert prefill_runs.reported("DeepSeek profile prefill per node") == 62_713
    for b, x in ((1, 1.8), (32, 1.5)):  # SGLang's docs: H200 TP8, drafts unstated
        r = prefill_runs.RUNS.get(f"SGLang MTP H200 TP8 batch {b}")
        assert (r.value, r.gpus * r.batch_per_gpu, r.pass_len) == (x, b, None)
    module = prefill_runs.RUNS.get("DeepSeek-V3 MTP module parameters")
    assert (module.value, module.pass_len) == (14e9, 2)  # MTP depth 1: two tokens verified a pass
    d = prefill_runs.RUNS.get("SGLang MTP H200 small 3-token").deployment()
    assert d.n_chips_used == 16 and d.weight_precision == "fp8"
    with pytest.raises(ValueError, match="does not give its chip"):
        module.deployment()


def test_kernel_rows_and_rows_without_a_chip():
    """Kernel rows give a published rate on a chip (TFLOPS or GB/s) and may name no model; a row without a chip
    may name a model outside the registry (MoESD's Qwen2-57B-A14B); the balanced-routing note of DeepSeek's
    profile row cites its source."""
    k = prefill_runs.RUNS.get("DeepGEMM FP8 GEMM H800 peak")
    assert (k.regime, k.value, k.unit, k.model) == ("kernel", 1550, "TFLOPS", "")
    assert 1550e12 / hardware.get(k.hardware_key).flops("fp8") == pytest.approx(0.783, abs=1e-3)
    assert prefill_runs.reported("FlashMLA decode H800 memory-bound") == 3000
    moesd = prefill_runs.RUNS.get("MoESD Qwen2-57B-A14B speed-up")
    assert (moesd.value, moesd.hardware_key, moesd.model) == (2.29, "", "Qwen2-57B-A14B")
    sim = prefill_runs.RUNS.get("LMSYS decode simulated MTP per node")
    assert (sim.value, sim.gpus, sim.batch_per_gpu) == (17_373, 72, 128)
    assert "absolutely balanced" in prefill_runs.RUNS.get("DeepSeek profile prefill per node").notes


def test_deepseek_mtp_numbers_are_chapter_5s_rows_only():
    """DeepSeek-V3's MTP acceptance (85-90%) and 1.8x TPS are kept once, in training_runs (chapter 5), which
    chapter 8 reads; prefill_runs does not repeat them."""
    from roofline import training_runs

    assert training_runs.reported_range("DeepSeek-V3 MTP acceptance") == (0.85, 0.9)
    assert training_runs.reported("DeepSeek-V3 MTP TPS speed-up") == 1.8
    keys = {r.key for r in prefill_runs.RUNS}
    assert not {k for k in keys if "MTP acceptance" in k or "MTP speed-up" in k or "TPS" in k}


def test_chains_of_drafts_are_accepted_less_often_than_one_draft():
    """DeepSeek's 85-90% is one draft's (the second token, an MTP module of depth 1). The measured acceptance
    lengths of chains, SGLang's 2.18 and 2.44 tokens a step with two and three drafts on DeepSeek-V3 and the
    GB300 post's 2.37 '@mtp3' on R1, read as constant rates a draft, lie well below it: chapter 8 applies
    0.875 to one draft only and the three-draft rate to chains of three."""
    from roofline import training_runs

    one = training_runs.RUNS.get("DeepSeek-V3 MTP acceptance").low
    rates = {}
    for key, drafts in (("SGLang MTP H200 small 3-token acceptance", 2),
                        ("SGLang MTP H200 small 4-token acceptance", 3), ("SGLang GB300 R1 MTP3 accept length", 3)):
        r = prefill_runs.RUNS.get(key)
        assert r.pass_len == drafts + 1 and r.unit == "tokens per step"
        rates[key] = speculation.accept_rate_for(r.value, r.pass_len)
    assert prefill_runs.reported("SGLang GB300 R1 MTP3 accept length") == 2.37
    assert "accept length=2.37@mtp3" in prefill_runs.RUNS.get("SGLang GB300 R1 MTP3 accept length").source
    assert rates["SGLang MTP H200 small 4-token acceptance"] == pytest.approx(0.675, abs=1e-3)
    assert max(rates.values()) < 0.7 < one


def test_decode_layout_and_vllm_one_draft_rows():
    """vLLM's context-parallel guide: DeepSeek-R1's one latent head under -tp 8 keeps 8 copies of every cache
    (the chapter's case for decode context parallelism); vLLM's MTP pull request: one draft accepted 81% to
    82.3% on R1, below DeepSeek's 85-90% and above the chains' constant rates (two sources either way)."""
    from roofline import training_runs

    dup = prefill_runs.RUNS.get("vLLM DCP TP8 KV duplication")
    assert (dup.value, dup.gpus, dup.regime) == (8, 8, "decode")
    assert "`-dcp 8`" in dup.source and "#26877" in dup.source
    one = prefill_runs.RUNS.get("vLLM R1 one-draft accept rate")
    assert (one.low, one.high, one.pass_len) == (0.81, 0.823, 2)
    assert "81% ~ 82.3%" in one.source
    chain = speculation.accept_rate_for(prefill_runs.reported("SGLang MTP H200 small 3-token acceptance"), 3)
    assert chain < one.low < one.high < training_runs.RUNS.get("DeepSeek-V3 MTP acceptance").low


@pytest.mark.parametrize("field, value, message", [
    ("low", "100", "lies outside its range"), ("regime", "decoding", "unknown regime"),
    ("model", "DeepSeek-V9", "unknown model"), ("model", "", "model must not be empty"), ("gpus", "-8", "gpus"),
    ("source", " ", "source must not be empty"), ("precision", "fp4", "no dense fp4 rate")])
def test_a_bad_row_fails_on_load(tmp_path, field, value, message):
    """A copy of the table with one field spoilt fails naming the file, the row and what is wrong."""
    import csv
    from importlib import resources

    src = resources.files("roofline").joinpath("data", "prefill_runs.csv")
    rows = list(csv.DictReader(src.open(encoding="utf-8")))
    row = next(r for r in rows if r["key"] == "SGLang H100 prefill 4K") if field in ("gpus", "precision") else rows[0]
    row[field] = value
    path = tmp_path / "prefill_runs.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(ValueError, match=rf"prefill_runs.csv, row \d+.*{message}"):
        Registry("prefill_runs.csv", prefill_runs._row, "prefill run", path=path)


# -- the figure -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def v3_h200():
    return Deployment(models.get("DeepSeek-V3"), hardware.get("H200"), precision="fp8")


def test_ttft_terms_come_from_the_library(v3_h200):
    t = fpf.ttft_terms(v3_h200, np.array([1024.0, 131072.0]))
    a_pre = prefill.prefill_attn_flops(models.get("DeepSeek-V3"))
    direct = v3_h200.evaluate(prefill.prefill_time_s, batch=1, len_ctx=0, pass_len=131072.0, attn_flops=a_pre)
    assert t["total"][1] == pytest.approx(direct)
    assert np.allclose(t["compute"], t["weights"] + t["attention"])
    assert fpf.prompt_wall(v3_h200) == 131072  # the model's context, which fits


def test_prompt_wall_where_memory_ends_first():
    """Llama 3.1 405B in BF16 on 10 H100s: one sequence's cache fills the HBM left beside the weights before its
    context does."""
    d = Deployment(models.get("Llama 3.1 405B"), hardware.get("H100"), precision="bf16", n_chips=10)
    wall = fpf.prompt_wall(d)
    assert wall < 131072
    assert d.max_batch(wall * 1.01) < 1 <= d.max_batch(wall * 0.99)


def test_the_figure_updates_and_names_bad_input(v3_h200):
    fig = fpf.PrefillFigure(v3_h200, prompt_tokens=8192, batch=64, len_ctx=4096)
    assert fig.update(accept_rate=0.875, pass_len=2) == "1.67x a user's speed"
    fig.update(deployment=Deployment(models.get("Llama 3.1 70B"), hardware.get("GB200")), batch=512, pass_len=4)
    assert fig.to_png()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="accept_rate must be at most 1"):
        fig.update(accept_rate=1.5)
    with pytest.raises(ValueError, match="batch must be a finite number > 0"):
        fig.update(batch=0)
    with pytest.raises(ValueError, match="unknown inputs \\['prompt'\\]"):
        fig.update(prompt=5)
    with pytest.raises(ValueError, match="deployment must be a roofline.Deployment"):
        fpf.PrefillFigure("DeepSeek-V3")


def test_figure_speed_matches_the_library(v3_h200):
    s = fpf.speed_terms(v3_h200, np.array([1.0, 64.0]), 4096, 0.875, 2)
    assert s["spec"][1] / s["plain"][1] == pytest.approx(
        v3_h200.evaluate(speculation.spec_speedup, batch=64, len_ctx=4096, accept_rate=0.875, pass_len=2))
    assert s["wall"] == pytest.approx(v3_h200.max_batch(4096))


def test_dataclass_replace_keeps_checks():
    r = prefill_runs.RUNS.get("SGLang H100 prefill 4K")
    with pytest.raises(ValueError, match="tokens_per_gpu"):
        dataclasses.replace(r, tokens_per_gpu=-1.0)
