"""The decode equations against hand arithmetic and the numbers said in the lecture.

Each test's docstring says where its reference number comes from. Timestamps refer
to the lecture (Reiner Pope on the Dwarkesh Podcast); the notes in
``shared/lecture/notes.md`` collect them.
"""

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp

from roofline import Deployment, decode, equations, hardware, models, symbols
from roofline.symbols import (B, N_active, N_total, bytes_per_param, flops, hbm_bytes,
                              kv_bytes, len_ctx, mem_bw, n_chips, price)

# A hardware point whose ratio F * b_w / (2 * W) is exactly 300: 9.6 PFLOP/s, FP4, 8 TB/s.
RATIO_300 = dict(flops=9.6e15, bytes_per_param=0.5, mem_bw=8e12)


# -- the single terms ---------------------------------------------------------------------------
def test_compute_time_by_hand():
    """Compute time = 2 B N_active / (G F): a multiply-add is 2 FLOPs (00:03:12).

    By hand: 64 sequences x 37e9 parameters x 2 FLOP = 4.736e12 FLOP, over 72 chips of
    10 PFLOP/s = 7.2e17 FLOP/s, is 6.578 us.
    """
    t = decode.compute_time_s(batch=64, n_active=37e9, n_chips=72, flops=10e15)
    assert t == pytest.approx(64 * 37e9 * 2 / 7.2e17, rel=1e-12)
    assert t == pytest.approx(6.5778e-6, rel=1e-4)


def test_weight_time_by_hand():
    """Weight fetch = N_total * b_w / (G * W) (00:05:05).

    By hand: 700e9 FP4 weights are 350 GB; 72 chips x 8 TB/s = 576 TB/s read them in 0.6076 ms.
    """
    t = decode.weight_time_s(n_total=700e9, bytes_per_param=0.5, n_chips=72, mem_bw=8e12)
    assert t == pytest.approx(350e9 / 576e12, rel=1e-12)
    assert t * 1e3 == pytest.approx(0.60764, rel=1e-4)


def test_kv_time_by_hand():
    """KV fetch = B * L * k / (G * W): every sequence reads its whole context (00:05:30).

    By hand: 2,000 sequences x 4,096 tokens x 70,272 B (DeepSeek-V3's BF16 MLA cache) = 575.7 GB,
    over 576 TB/s, is 0.9994 ms.
    """
    t = decode.kv_time_s(batch=2000, len_ctx=4096, kv_bytes=70272, n_chips=72, mem_bw=8e12)
    assert t == pytest.approx(2000 * 4096 * 70272 / 576e12, rel=1e-12)


def test_step_time_is_the_larger_of_compute_and_memory():
    """t = max(compute, weights + KV) (00:02:37). Hand-built cases where each side wins."""
    common = dict(n_total=1e9, n_active=1e9, bytes_per_param=1, flops=2e12,
                  mem_bw=1e12, n_chips=1, len_ctx=1, kv_bytes=1)
    # memory: 1e9 B / 1e12 B/s = 1 ms (+ 1 B of KV); compute at B = 1: 2 x 1e9 FLOP / 2e12 FLOP/s = 1 ms
    assert decode.step_time_s(batch=1, **common) == pytest.approx(1e-3 + 1e-12, rel=1e-12)
    # at B = 10 compute is 10 ms, memory still ~1 ms
    assert decode.step_time_s(batch=10, **common) == pytest.approx(10e-3, rel=1e-12)


def test_tokens_per_second_is_batch_over_step():
    """Each sequence gets one token per step, so throughput = B / t."""
    p = dict(n_total=1e9, n_active=1e9, bytes_per_param=1, flops=2e12, mem_bw=1e12,
             n_chips=1, len_ctx=1, kv_bytes=1)
    for b in (1, 7, 1000):
        assert decode.tokens_per_s(batch=b, **p) == pytest.approx(b / decode.step_time_s(batch=b, **p))


# -- the hardware ratio: "about 300" (00:18:32) -------------------------------------------------
def test_h100_ratio_bf16():
    """H100 with BF16 weights: 989 TFLOP/s x 2 B / (2 FLOP per MAC x 3.35 TB/s) ~ 295 (notes, ch. 1)."""
    h100 = hardware.get("H100")
    r = decode.ratio(flops=h100.flops("bf16"), bytes_per_param=2, mem_bw=h100.hbm_bw)
    assert r == pytest.approx(989.4e12 / 3.35e12, rel=1e-9)
    assert round(r) == 295


def test_b200_ratio_fp4():
    """B200 with FP4: 9 PFLOP/s dense x 0.5 B / (2 x 8 TB/s) = 281.25 (notes, ch. 1, launch bandwidth).

    The registry carries the shipping 7.7 TB/s, which gives 292: both "about 300".
    """
    assert decode.ratio(flops=9e15, bytes_per_param=0.5, mem_bw=8e12) == pytest.approx(281.25)
    b200 = hardware.get("B200")
    r = decode.ratio(flops=b200.flops("fp4"), bytes_per_param=0.5, mem_bw=b200.hbm_bw)
    assert r == pytest.approx(9e15 * 0.5 / (2 * 7.7e12))
    assert 250 < r < 350


def test_gb200_ratio_fp4():
    """GB200: 10e15 x 0.5 / (2 x 8e12) = 312.5 exactly (shared context), also through a Deployment."""
    gb200 = hardware.get("GB200")
    assert decode.ratio(flops=gb200.flops("fp4"), bytes_per_param=0.5,
                        mem_bw=gb200.hbm_bw) == pytest.approx(312.5, rel=1e-12)
    assert Deployment(models.get("DeepSeek-V3"), gb200, precision="fp4").ratio() == pytest.approx(312.5)


def test_lecture_flop_convention_gives_the_same_ratio():
    """The lecture counts multiplies (00:18:09): its FLOP/s are half a datasheet's and its ratio F b_w / W
    has no 2, so it is the same number: GB200 FP4, 5e15 multiplies/s x 0.5 B / 8e12 B/s = 312.5."""
    assert decode.ratio(flops=10e15, bytes_per_param=0.5, mem_bw=8e12) == pytest.approx(5e15 * 0.5 / 8e12)


def test_dropping_the_factor_two_fails():
    """Independent FLOP count: one decode step of B sequences does 2 FLOP per active weight per sequence
    (one multiply-add). Compute-bound, the chips' FLOP/s times the step time must equal that count."""
    p = dict(n_active=37e9, n_chips=72, flops=10e15)
    for b in (1, 100, 1e4):
        executed = p["n_chips"] * p["flops"] * decode.compute_time_s(batch=b, **p)
        assert executed == pytest.approx(b * 37e9 * 2, rel=1e-12)


# -- the balance batch: 300 x 8 = 2,400 (00:19:27) ----------------------------------------------
def test_balance_batch_lecture():
    """Ratio 300 and sparsity 8 ("32 of 256 experts", 00:19:16) give B* = 2,400 (00:19:27)."""
    b = decode.balance_batch_n(n_total=8 * 37e9, n_active=37e9, **RATIO_300)
    assert b == pytest.approx(2400, rel=1e-12)


def test_balance_batch_is_where_compute_meets_weight_fetch():
    """At B*, compute time equals weight-fetch time (the definition, 00:16:15)."""
    p = dict(n_total=671e9, n_active=37e9, n_chips=72, **RATIO_300)
    b = decode.balance_batch_n(**{k: p[k] for k in decode.balance_batch_n.args})
    t_c = decode.compute_time_s(batch=b, **{k: p[k] for k in decode.compute_time_s.args if k != "batch"})
    t_w = decode.weight_time_s(**{k: p[k] for k in decode.weight_time_s.args})
    assert t_c == pytest.approx(t_w, rel=1e-12)


def test_balance_batch_with_kv_reduces_to_without_when_kv_vanishes():
    """With a negligible KV cache, the KV-aware balance equals the plain one (00:19:57)."""
    p = dict(n_total=700e9, n_active=87.5e9, **RATIO_300)
    plain = decode.balance_batch_n(**p)
    with_kv = decode.balance_batch_with_kv_n(len_ctx=1, kv_bytes=1e-9, **p)
    assert with_kv == pytest.approx(plain, rel=1e-9)


def test_balance_batch_with_kv_infinite_when_kv_outruns_compute():
    """If each sequence's KV read takes longer than its compute, no batch is compute-bound (00:10:34)."""
    p = dict(n_total=700e9, n_active=37e9, **RATIO_300)
    # KV slope L*k/W = 1e6 * 1e5 / 8e12 = 12.5 ms per sequence > compute slope 37e9*2/9.6e15 = 7.7 us
    assert math.isinf(decode.balance_batch_with_kv_n(len_ctx=1e6, kv_bytes=1e5, **p))


def test_deployment_balance_batch_deepseek_gb200():
    """DeepSeek-V3 on GB200 FP4: 312.5 x 671/37 = 5,667 sequences (the deployment module's example)."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4")
    assert d.balance_batch() == pytest.approx(312.5 * 671e9 / 37e9, rel=1e-12)
    assert round(d.balance_batch()) == 5667


def test_lecture_model_expert_sparsity_gives_2400():
    """The lecture's DeepSeek has expert sparsity 256/32 = 8, so ratio 300 gives 2,400 (00:19:27)."""
    m = models.get("DeepSeek (lecture)")
    assert m.expert_sparsity == 8
    # a model whose total/active is the expert sparsity, on a ratio-300 chip, through the library
    b = decode.balance_batch_n(n_total=m.expert_sparsity * m.active_params, n_active=m.active_params, **RATIO_300)
    assert b == pytest.approx(2400, rel=1e-12)


# -- the train: drain time, worst latency, throughput (00:22:30-00:27:09) ------------------------
def test_rubin_drain_time():
    """Rubin: 288 GB / 20 TB/s = 14.4 ms, which the lecture rounds to "15 ms" (00:24:13)."""
    t = decode.drain_time_s(hbm_bytes=288e9, mem_bw=20e12)
    assert t == pytest.approx(14.4e-3, rel=1e-12)
    assert t == pytest.approx(15e-3, rel=0.05)


def test_worst_latency_is_two_trains():
    """Worst case: wait one train period, then ride one: 2 x 20 ms = 40 ms (00:23:07)."""
    # a 20 ms train: 160 GB drained at 8 TB/s
    assert decode.worst_latency_s(hbm_bytes=160e9, mem_bw=8e12) == pytest.approx(40e-3, rel=1e-12)
    assert decode.worst_latency_s(hbm_bytes=288e9, mem_bw=20e12) == pytest.approx(
        2 * decode.drain_time_s(hbm_bytes=288e9, mem_bw=20e12))


def test_train_throughput_128k():
    """tokens/s = B / t_train: a 15.625 ms period is x64, so B = 2,000 gives 128,000 tok/s (00:26:48)."""
    period = {hbm_bytes: 15.625e-3 * 8e12, mem_bw: 8e12}
    assert float(decode.drain_time.subs(period)) == pytest.approx(15.625e-3)
    per_seq = float(decode.train_throughput.subs({**period, B: 1}))
    assert per_seq == pytest.approx(64)
    assert float(decode.train_throughput.subs({**period, B: 2000})) == pytest.approx(128_000)


# -- the Gemini inversion: KV bytes from a price step (01:38:22) ---------------------------------
def test_balance_context_gemini_inversion():
    """100B active, 200K context, ratio 300 -> k = 100e9 / (300 x 200e3) ~ 1,667 bytes/token (01:38:22).

    The lecture plugs in mem_bw / FLOPs = 1/300 counting multiplies: 600 datasheet FLOP per byte.
    """
    k = sp.solve(sp.Eq(decode.balance_context, len_ctx), kv_bytes)[0]
    k_val = float(k.subs({N_active: 100e9, flops: 600, mem_bw: 1, len_ctx: 200e3}))
    assert k_val == pytest.approx(1e11 / 6e7, rel=1e-12)
    assert round(k_val) == 1667
    # forwards: that cache size puts the KV/compute crossover at 200K tokens
    L = decode.balance_context_tokens(n_active=100e9, flops=600, mem_bw=1, kv_bytes=k_val)
    assert L == pytest.approx(200e3, rel=1e-12)


def test_balance_context_is_where_kv_meets_compute():
    """At L*, KV-fetch time equals compute time for any batch (the definition, 01:38:22)."""
    p = dict(n_active=37e9, flops=10e15, mem_bw=8e12, kv_bytes=70272)
    L = decode.balance_context_tokens(**p)
    for b in (1, 64, 5000):
        kv = decode.kv_time_s(batch=b, len_ctx=L, kv_bytes=p["kv_bytes"], n_chips=72, mem_bw=p["mem_bw"])
        comp = decode.compute_time_s(batch=b, n_active=p["n_active"], n_chips=72, flops=10e15)
        assert kv == pytest.approx(comp, rel=1e-12)


# -- cost per token = chip-seconds x price (00:12:40) --------------------------------------------
def test_cost_per_token_by_hand():
    """72 chips x $2/h for a 20 ms step of 2,000 sequences: 72 x 2/3600 x 0.02 / 2000 = $4e-7 (00:12:49)."""
    # weight-bound by construction: 1.44e12 B over 72 x 1e12 B/s = 20 ms; compute and KV negligible
    p = dict(n_total=1.44e12, n_active=1, bytes_per_param=1, flops=1e18, mem_bw=1e12,
             n_chips=72, len_ctx=1, kv_bytes=1e-6, price=2.0)
    assert decode.step_time_s(batch=2000, **{k: v for k, v in p.items() if k != "price"}) == pytest.approx(
        20e-3, rel=1e-9)
    assert decode.cost_per_token_usd(batch=2000, **p) == pytest.approx(4e-7, rel=1e-9)


def test_deployment_cost_is_chip_seconds_times_price():
    """Deployment.cost_per_token_usd = n_chips x price x step / B, price per chip-hour from the registry."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4")
    assert d.n_chips_used == 72
    for b, L in ((64, 4096), (5000, 32768)):
        chip_seconds = 72 * d.step_time_s(b, L)
        assert d.cost_per_token_usd(b, L) == pytest.approx(chip_seconds * 3.3 / 3600 / b, rel=1e-12)


# -- the symbolic forms ------------------------------------------------------------------------
def test_balance_batch_simplifies_to_ratio_times_sparsity():
    """Solving compute = weight fetch for B gives hardware ratio x N_total / N_active (00:17:31)."""
    assert sp.simplify(decode.balance_batch - decode.hardware_ratio * N_total / N_active) == 0


def test_balance_batch_kv_symbolic():
    """With KV: B* = W0 / (compute slope - KV slope); it tends to the plain B* as k -> 0."""
    weights = N_total * bytes_per_param / mem_bw
    expected = weights / (2 * N_active / flops - len_ctx * kv_bytes / mem_bw)
    assert sp.simplify(decode.balance_batch_kv - expected) == 0
    assert sp.simplify(sp.limit(decode.balance_batch_kv, kv_bytes, 0) - decode.balance_batch) == 0


def test_balance_context_symbolic():
    """L* = 2 N_active W / (F k): KV fetch meets compute, independent of B and G."""
    assert sp.simplify(decode.balance_context - 2 * N_active * mem_bw / (flops * kv_bytes)) == 0
    assert B not in decode.balance_context.free_symbols and n_chips not in decode.balance_context.free_symbols


def test_cost_per_token_symbolic_floor():
    """Cost per token = G p/3600 x t/B (00:12:40): the compute part is flat in B, the weight part ~ 1/B.

    So the floor, reached at large batch, is 2 p N_active / (3600 F): independent of G and B.
    """
    per_chip_second = n_chips * price / 3600
    assert sp.simplify(decode.cost_per_token - per_chip_second * decode.step_time / B) == 0
    compute = sp.simplify(per_chip_second * decode.t_compute / B)
    assert sp.simplify(compute - 2 * price * N_active / (3600 * flops)) == 0
    weights = per_chip_second * decode.t_weights / B
    assert sp.limit(weights, B, sp.oo) == 0
    kv = sp.simplify(per_chip_second * decode.t_kv / B)
    assert B not in kv.free_symbols


def test_numeric_functions_are_lambdified_from_the_expressions():
    """Each numeric function carries its sympy expression and agrees with it at a random point."""
    rng = np.random.default_rng(0)
    for fn in equations.every_variant():
        for _ in range(1000):  # a point where every requirement holds
            values = {a: float(rng.uniform(1, 10)) for a in fn.args}
            compound = []
            for relation, _ in fn.requires:  # x <= y: swap a pair drawn the wrong way round
                if relation.rhs.is_number and relation.lhs.is_Symbol:  # x <= a constant, or x >= one
                    name = symbols.by_symbol(relation.lhs).keyword
                    pick = max if isinstance(relation, (sp.GreaterThan, sp.StrictGreaterThan)) else min
                    values[name] = pick(values[name], float(relation.rhs))
                elif relation.lhs.is_Symbol and relation.rhs.is_Symbol:
                    x, y = (symbols.by_symbol(v).keyword for v in (relation.lhs, relation.rhs))
                    values[x], values[y] = sorted((values[x], values[y]))
                else:  # a relation between expressions: draw again until it holds
                    compound.append(relation)
            given = {symbols.TABLE[k].symbol: v for k, v in values.items()}
            if all(bool(r.subs(given)) for r in compound):
                break
        # every symbol at once (xreplace): the same value as subs, without sympy comparing a Max's half-
        # substituted arguments at each step (subs took nine tenths of this test's time); subs where a
        # branch not taken is 0/0 at this point (a Piecewise at alpha_s = 1), which only subs steps round
        try:
            exact = sp.N(fn.expr.xreplace({symbols.TABLE[k].symbol: sp.Float(v) for k, v in values.items()}))
        except (TypeError, ValueError):
            exact = sp.N(fn.subs(values))
        if exact.is_infinite:
            assert math.isinf(fn(**values)), fn
        else:
            assert fn(**values) == pytest.approx(float(exact), rel=1e-12), fn


# -- beyond the lecture: experts touched, attention FLOPs, memory capacity --------------------------
def test_experts_touched_matches_a_simulation_of_routing():
    """1 - (1 - K/E)^B against routing drawn at random: B tokens each pick K of E experts without replacement."""
    rng = np.random.default_rng(1)
    steps = 1000  # the mean's standard error is under 0.001 at every B here, a fifth of the tolerance
    for batch in (1, 8, 32, 128):
        picks = np.argsort(rng.random((steps, batch, 256)), axis=-1)[..., :8]  # B tokens a step, top-8 each
        hit = np.zeros((steps, 256), dtype=bool)
        np.put_along_axis(hit, picks.reshape(steps, -1), True, axis=1)  # the experts any token picked
        touched = hit.mean()
        assert decode.experts_touched_fraction(batch=batch, n_experts=256, top_k=8) == pytest.approx(touched, abs=0.005)
    # the issue's hand numbers for DeepSeek-V3 (8 of 256): 3% at B=1, 64% at B=32, 98% at B=128
    got = decode.experts_touched_fraction(batch=np.array([1.0, 32, 128]), n_experts=256, top_k=8)
    assert np.round(got * 100).tolist() == [3, 64, 98]


def test_touched_weights_at_batch_one_are_about_the_active_parameters():
    """V3 at B=1 reads its always-on weights and 8 of 256 routed experts: 37.5B parameters, close to the
    37B active, so the unbatched penalty (weights / compute at B=1) is about the hardware ratio, not ratio x
    sparsity."""
    v3 = models.get("DeepSeek-V3")
    d = Deployment(v3, hardware.get("GB200"), precision="fp4")
    expert = 3 * 7168 * 2048 * 58  # SwiGLU expert, 58 MoE layers (config.json)
    read = 671e9 - 256 * expert + 8 * expert
    t = d.terms(1, 0.0, refined=True)
    assert t["weights"] == pytest.approx(read * 0.5 / (72 * 8e12), rel=1e-9)
    assert read / 37e9 == pytest.approx(1.0, abs=0.02)
    penalty, simple = t["weights"] / t["compute"], d.terms(1, 0.0)["weights"] / d.terms(1, 0.0)["compute"]
    assert penalty == pytest.approx(d.ratio() * read / 37e9, rel=1e-9)  # ~316: the ratio
    assert simple == pytest.approx(d.ratio() * 671 / 37, rel=1e-9)      # ~5,670: ratio x sparsity
    # at a batch of thousands every expert is touched and the two models agree
    assert d.terms(4096, 0.0, refined=True)["weights"] == pytest.approx(d.terms(4096, 0.0)["weights"], rel=1e-12)


def test_attention_flops_per_kv_byte_by_hand():
    """GQA Llama 3.1 70B: 4 x 64 heads x 128 x 80 layers = 2,621,440 FLOPs per token of context over
    2 x 8 x 128 x 80 x 2 B = 327,680 B: 8 FLOP per byte. Absorbed MLA, DeepSeek-V3: 2 x 128 x (512 + 64 +
    512) x 61 = 16,990,208 over 576 x 61 x 2 = 70,272 B: 242 FLOP per byte. Not absorbed: each cached latent
    is decompressed per head first, 2 x 512 x 128 x 256 more per layer."""
    llama, v3 = models.get("Llama 3.1 70B"), models.get("DeepSeek-V3")
    assert llama.attention_flops_per_token() == 2_621_440
    assert llama.attention_flops_per_token() / llama.kv_bytes_per_token() == 8
    assert v3.attention_flops_per_token() == 16_990_208
    assert round(v3.attention_flops_per_token() / v3.kv_bytes_per_token()) == 242
    assert v3.attention_flops_per_token(absorbed=False) == 61 * (2 * 128 * (128 + 64 + 128) + 2 * 512 * 128 * 256)
    with pytest.raises(ValueError, match="absorbed"):
        v3.attention_flops_per_token(absorbed="yes")


def test_attention_flops_follow_sliding_windows():
    """gpt-oss-120b: 18 of 36 layers keep 128 tokens. At 64 tokens all 36 layers attend to all; at 1,280,
    the window layers add 18 x 128 / 1,280 of a layer per token."""
    m = models.get("gpt-oss-120b")
    per_layer = 4 * 64 * 64
    assert m.attention_flops_per_token(len_ctx=64) == pytest.approx(36 * per_layer)
    assert m.attention_flops_per_token(len_ctx=1280) == pytest.approx(per_layer * (18 + 18 * 128 / 1280))
    assert m.attention_flops_per_token() == 18 * per_layer


def test_attention_crossover_by_hand():
    """Attention FLOPs pass the weights' 2 x 37B = 74 GFLOP per token near 74e9 / 16,990,208 = 4,355 tokens."""
    d = Deployment(models.get("DeepSeek (lecture)"), hardware.get("GB200"), precision="fp4")
    assert d.evaluate(decode.attention_crossover_tokens) == pytest.approx(74e9 / 16_990_208, rel=1e-12)
    assert round(d.evaluate(decode.attention_crossover_tokens), -2) == 4400


def test_attention_runs_at_the_kv_precision_rate():
    """Compute with attention = weights' FLOPs at F + attention FLOPs at the rate of the KV precision (BF16
    cache: the BF16 rate, half of FP8's on an H100)."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("H100"), precision="fp8")
    t = d.terms(64, 1000, refined=True)["compute"]
    assert t == pytest.approx(64 * (74e9 / 1.9789e15 + 1000 * 16_990_208 / 0.9894e15) / 8, rel=1e-3)
    fp8 = dataclasses.replace(d, kv_precision="fp8")
    assert fp8.terms(64, 1000, refined=True)["compute"] < t


def test_max_batch_by_hand():
    """The lecture's 700B model in FP4 on one NVL72 holds (72 M - 350 GB) / (L x 70,272 B) sequences. With
    the usable HBM nvidia-smi reports (189,471 MiB per GPU): 1,986 at 100,000 tokens. With NVIDIA's 13.4 TB
    per rack instead, the issue's hand numbers: about 1,856 at 100,000 tokens, 5,664 at 32K and 262 at the
    square-root model's balance context of 709,707 tokens."""
    gb200 = hardware.get("GB200")
    d = Deployment(models.get("DeepSeek (lecture)"), gb200, precision="fp4")
    assert d.max_batch(100_000) == pytest.approx((72 * 189_471 * 2**20 - 350e9) / (100_000 * 70272), rel=1e-12)
    headline = Deployment(d.model, dataclasses.replace(gb200, hbm_bytes=13.4e12 / 72), precision="fp4")
    for L, issue in ((100_000, 1856), (32_768, 5664), (709_707, 262)):
        assert headline.max_batch(L) == pytest.approx(issue, rel=0.002)
    assert d.check_fits(1000, 100_000) is None
    with pytest.raises(ValueError, match="does not fit.*holds at most 1,857 sequences"):
        headline.check_fits(9465, 100_000)
    replicated = dataclasses.replace(d, kv_sharding="replicated")  # every chip holds every sequence's cache
    assert replicated.max_batch(100_000) == pytest.approx(d.max_batch(100_000) / 72, rel=1e-12)
    assert d.max_batch(0) == float("inf")
    too_big = Deployment(models.get("DeepSeek-V3"), hardware.get("H100"), precision="bf16", n_chips=8)
    assert too_big.max_batch(1000) == 0  # 1.3 TB of BF16 weights do not fit in 8 x 80 GB


def test_top_k_above_expert_count_is_named():
    with pytest.raises(ValueError, match=r"top_k must not exceed n_experts; got n_experts=8, top_k=9"):
        decode.experts_touched_fraction(batch=4, n_experts=8, top_k=9)
    with pytest.raises(ValueError, match=r"n_routed must not exceed n_total"):
        decode.weight_time_touched_s(n_total=1e9, bytes_per_param=1, mem_bw=1e12, n_chips=1, batch=1,
                                     n_routed=2e9, n_experts=8, top_k=2)


def test_balance_context_with_attention_flops_by_hand():
    """KV fetch = compute + attention: L (k/W - a/F_a) = 2 N_active / F. The lecture's model on GB200 (FP4
    weights, BF16 cache and attention math): 7.4e-6 s / (8.784e-9 - 6.796e-9) s per token = 3,722 tokens,
    against 842 with attention FLOPs left out. Where a/F_a >= k/W the step is never KV-bound."""
    d = Deployment(models.get("DeepSeek (lecture)"), hardware.get("GB200"), precision="fp4")
    hand = (74e9 / 1e16) / (70272 / 8e12 - 16_990_208 / 2.5e15)
    assert d.evaluate(decode.balance_context_attn_tokens) == pytest.approx(hand, rel=1e-12)
    assert round(hand) == 3722 and round(d.balance_context()) == 842
    assert d.evaluate(decode.balance_context_attn_tokens, attn_flops=0.0) == pytest.approx(d.balance_context())
    never = d.evaluate(decode.balance_context_attn_tokens, attn_flops=70272 / 8e12 * 2.5e15)  # a/F_a = k/W
    assert never == float("inf")
