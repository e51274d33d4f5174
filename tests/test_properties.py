"""Limits and shapes of the decode roofline, checked over wide random inputs with hypothesis.

The properties are the lecture's qualitative claims (chapter 1, 00:07:35-00:16:15): below the
balance batch a step costs the weight fetch plus the KV fetch; above it the step is compute-bound
and linear in batch; cost per token falls with batch toward a floor; longer contexts never make a
step faster. Examples are derandomized so the suite gives the same answer on every run.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from roofline import Deployment, decode, equations, hardware, models
from roofline import symbols as s

FAST = settings(max_examples=60, deadline=None, derandomize=True, database=None)


def log_uniform(low, high):
    """Floats spread evenly in log space between low and high."""
    return st.floats(np.log10(low), np.log10(high)).map(lambda e: float(10.0 ** e))


@st.composite
def systems(draw):
    """A model on a machine, drawn over ranges wider than any real one."""
    n_total = draw(log_uniform(1e6, 1e13))
    n_experts = draw(log_uniform(1, 1e4))
    n_chips = draw(log_uniform(1, 1e5))
    n_active = n_total * draw(log_uniform(1e-3, 1.0))
    top_k = n_experts ** draw(st.floats(0, 1))  # a count: 1 to E experts, log-uniform
    # the active routed experts are part of the active parameters: K N_routed / E <= N_active
    n_routed = min(n_total * draw(st.floats(0.0, 1.0)), n_active * n_experts / top_k * (1 - 1e-12))  # rounding
    return dict(
        n_total=n_total, n_active=n_active,
        bytes_per_param=draw(st.sampled_from([0.5, 1.0, 2.0, 4.0])),
        flops=draw(log_uniform(1e12, 1e19)), mem_bw=draw(log_uniform(1e10, 1e16)),
        n_chips=n_chips, n_racks=1 + (n_chips - 1) * draw(st.floats(0, 1)), len_ctx=draw(log_uniform(1, 1e8)), kv_bytes=draw(log_uniform(1, 1e7)),
        price=draw(log_uniform(0.01, 100)), hbm_bytes=draw(log_uniform(1e9, 1e13)),
        n_routed=n_routed, n_experts=n_experts, top_k=top_k,
        attn_flops=draw(log_uniform(1e3, 1e9)), attn_flops_rate=draw(log_uniform(1e12, 1e19)),
        d_model=draw(log_uniform(64, 1e5)), act_bytes=draw(st.sampled_from([0.5, 1.0, 2.0])),
        moe_layers=draw(log_uniform(1, 200)), scaleup_bw=draw(log_uniform(1e9, 1e13)),
        scaleout_bw=draw(log_uniform(1e8, 1e12)), hop_latency=draw(log_uniform(1e-7, 1e-4)),
        tok_rate=draw(log_uniform(1, 1e6)), weight_share=draw(st.floats(0.01, 1.0)),
        stage_layers=draw(log_uniform(1, 100)), n_stages=draw(log_uniform(1, 64)), n_micro=draw(log_uniform(1, 1e3)),
        n_chunks=draw(log_uniform(1, 8)), micro_batch=draw(log_uniform(1e-3, 1e6)), d_ff=draw(log_uniform(64, 1e6)),
        n_layers=draw(log_uniform(1, 1e3)), n_heads=draw(log_uniform(1, 1e3)), tp_ways=draw(log_uniform(1, 64)),
        saved_act_bytes=draw(st.sampled_from([0.5, 1.0, 2.0, 4.0])),
        tokens_pre=draw(log_uniform(1e6, 1e17)), tokens_rl=draw(log_uniform(1e3, 1e17)),
        tokens_inf=draw(log_uniform(1e3, 1e17)), tokens_prefill=draw(log_uniform(1e3, 1e17)),
        tokens_decode=draw(log_uniform(1e3, 1e17)), prefill_mfu=draw(log_uniform(1e-2, 2)), rl_flops=draw(st.floats(2, 6)), decode_mfu=draw(log_uniform(1e-2, 2)),
        traffic=draw(log_uniform(1, 1e10)), deploy_s=draw(log_uniform(1, 1e9)), tokens_per_param=draw(log_uniform(1, 1e4)),
        loss_floor=draw(log_uniform(0.5, 3)), loss_a=draw(log_uniform(1, 1e4)), loss_b=draw(log_uniform(1, 1e4)),
        alpha_n=draw(log_uniform(0.1, 1)), beta_d=draw(log_uniform(0.1, 1)), loss=draw(log_uniform(0.5, 10)),
        train_flops=draw(log_uniform(1e15, 1e28)), mfu=draw(log_uniform(1e-2, 1)),
        pass_len=draw(log_uniform(1, 1e6)), kv_layers=draw(log_uniform(1, 200)), head_dim=draw(log_uniform(16, 512)),
        kv_heads=draw(log_uniform(1, 128)), kv_elem_bytes=draw(st.sampled_from([0.5, 1.0, 2.0])),
        attn_sparsity=draw(log_uniform(1, 1e3)), tier_bytes=draw(log_uniform(1e9, 1e14)),
        tier_bw=draw(log_uniform(1e7, 1e13)), tier_price=draw(log_uniform(1e-3, 1e2)), hold_s=draw(log_uniform(1e-3, 1e5)),
        n_reuse=draw(log_uniform(1, 1e4)),
        accept_rate=draw(st.floats(0.01, 1.0)), prefill_rate=draw(log_uniform(1, 1e7)),
        decode_rate=draw(log_uniform(0.1, 1e6)), latent_flops=draw(log_uniform(1e3, 1e11)),
    )


def call(fn, p, **extra):
    return fn(**{a: extra.get(a, p.get(a)) for a in fn.args})


@FAST
@given(systems(), st.floats(0.001, 0.999))
def test_flat_below_balance(p, frac):
    """Below B*, the step is memory-bound: t = weight fetch + KV fetch, whatever the batch; with a
    negligible KV cache the latency is flat, the weight fetch alone (00:16:15)."""
    b_star = call(decode.balance_batch_with_kv_n, p)
    assume(np.isfinite(b_star) and b_star * frac > 1e-3)
    weights = call(decode.weight_time_s, p)
    for b in (b_star * frac, b_star * frac / 2):
        t = call(decode.step_time_s, p, batch=b)
        assert t == pytest.approx(weights + call(decode.kv_time_s, p, batch=b), rel=1e-12)
    no_kv = p | {"kv_bytes": 1e-30}
    b_star = call(decode.balance_batch_with_kv_n, no_kv)
    assume(b_star * frac > 1e-3)
    for b in (b_star * frac, b_star * frac / 2):
        assert call(decode.step_time_s, no_kv, batch=b) == pytest.approx(weights, rel=1e-12)


@FAST
@given(systems(), log_uniform(1.0001, 1e4))
def test_linear_above_balance(p, factor):
    """Above B*, compute-bound: t(2B) = 2 t(B), and t equals the compute time."""
    b_star = call(decode.balance_batch_with_kv_n, p)
    assume(np.isfinite(b_star))
    b = b_star * factor
    t = call(decode.step_time_s, p, batch=b)
    assert t == pytest.approx(call(decode.compute_time_s, p, batch=b), rel=1e-12)
    assert call(decode.step_time_s, p, batch=2 * b) == pytest.approx(2 * t, rel=1e-12)


@FAST
@given(systems(), log_uniform(1e-3, 1e9), log_uniform(1.0, 1e3))
def test_cost_per_token_non_increasing_in_batch(p, b, factor):
    """A bigger batch never makes a token dearer: the weight fetch is shared by more sequences (00:12:40)."""
    small = call(decode.cost_per_token_usd, p, batch=b)
    large = call(decode.cost_per_token_usd, p, batch=b * factor)
    assert large <= small * (1 + 1e-12)


@FAST
@given(systems(), log_uniform(1e-3, 1e12))
def test_cost_per_token_approaches_its_floor(p, b):
    """Cost per token lies between the floor (compute or KV, whichever is slower per sequence) and the floor
    plus the weight fetch shared over B: so it tends to the floor as B grows."""
    per_chip_second = p["n_chips"] * p["price"] / 3600
    compute_slope = call(decode.compute_time_s, p, batch=1)
    kv_slope = call(decode.kv_time_s, p, batch=1)
    floor = per_chip_second * max(compute_slope, kv_slope)
    shared = per_chip_second * call(decode.weight_time_s, p) / b
    cost = call(decode.cost_per_token_usd, p, batch=b)
    assert floor * (1 - 1e-12) <= cost <= (floor + shared) * (1 + 1e-12)


@FAST
@given(systems(), log_uniform(1e-3, 1e9))
def test_no_nan_or_inf_for_valid_inputs(p, b):
    """Every numeric function returns a finite positive number for valid finite inputs over wide ranges."""
    for fn in equations.every_variant():
        value = call(fn, p, batch=b)
        can_be_zero = fn.zero or isinstance(fn.expr, sp.Piecewise) and any(e == 0 for e, _ in fn.expr.args)
        assert value > 0 or (can_be_zero and value == 0), fn
        assert np.isfinite(value) or fn.infinite, fn   # inf only where documented (never compute-bound, 00:10:34)


@FAST
@given(systems(), log_uniform(1e-3, 1e9), log_uniform(1.0, 1e4))
def test_step_time_monotone_in_context(p, b, factor):
    """A longer context never makes a step faster, whether attention is dense or sparse (00:12:20)."""
    short = call(decode.step_time_s, p, batch=b)
    long = call(decode.step_time_s, p, batch=b, len_ctx=p["len_ctx"] * factor)
    assert long >= short * (1 - 1e-12)


@FAST
@given(log_uniform(1, 1e5), log_uniform(1, 1e7), log_uniform(1.0, 1e3), st.sampled_from(["dense", "sqrt"]))
def test_deployment_step_monotone_in_context(b, L, factor, attention):
    """The same holds for a registry deployment, dense or square-root attention."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), attention=attention)
    assert d.step_time_s(b, L * factor) >= d.step_time_s(b, L) * (1 - 1e-12)


@FAST
@given(log_uniform(1, 1e4), st.integers(1, 10_000))
def test_deployment_memory_per_step_shrinks_per_chip(b, chips):
    """Spreading one replica over more chips divides every term of the step by the chip count."""
    model, chip = models.get("Llama 3.1 405B"), hardware.get("H100")
    one = Deployment(model, chip, precision="fp8", n_chips=1).terms(b, 4096)
    many = Deployment(model, chip, precision="fp8", n_chips=chips).terms(b, 4096)
    for term in ("compute", "weights", "kv", "step"):
        assert many[term] * chips == pytest.approx(one[term], rel=1e-9), term


# -- broadcasting equals point-by-point evaluation of the sympy expression ----------------------
GRID_B = np.array([1.0, 64.0, 2400.0, 20000.0])
GRID_L = np.array([1.0, 4096.0, 131072.0])


@pytest.mark.parametrize("model, chip, precision", [("DeepSeek-V3", "GB200", "fp4"),
                                                    ("Llama 3.1 70B", "H100", "bf16"),
                                                    ("gpt-oss-120b", "MI355X", "fp4")])
def test_grid_equals_sympy_subs(model, chip, precision):
    """A batch x context grid through the lambdified functions equals .subs() on the expression, point by point."""
    d = Deployment(models.get(model), hardware.get(chip), precision=precision)
    grid = d.step_time_s(GRID_B[:, None], GRID_L[None, :])
    cost = d.cost_per_token_usd(GRID_B[:, None], GRID_L[None, :])
    assert grid.shape == cost.shape == (len(GRID_B), len(GRID_L))
    for i, b in enumerate(GRID_B):
        for j, L in enumerate(GRID_L):
            subs = d.subs(batch=b, len_ctx=L, kv_bytes=d.kv_bytes_at(L))  # sliding windows: bytes per token at L
            assert grid[i, j] == pytest.approx(float(decode.step_time.subs(subs)), rel=1e-12)
            assert cost[i, j] == pytest.approx(float(decode.cost_per_token.subs(subs)), rel=1e-12)


def test_sqrt_grid_equals_sympy_subs():
    """Square-root attention: the Deployment grid equals step_time_sqrt evaluated by substitution."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), attention="sqrt")
    base = d.subs()
    grid = d.step_time_s(GRID_B[:, None], GRID_L[None, :])
    for i, b in enumerate(GRID_B):
        for j, L in enumerate(GRID_L):
            exact = decode.step_time_sqrt.subs(base | {s.B: b, s.len_ctx: L})
            assert grid[i, j] == pytest.approx(float(sp.N(exact)), rel=1e-12)


@FAST
@given(systems(), log_uniform(1.0, 1e6))
def test_flop_accounting_is_independent_of_the_library(p, factor):
    """Independent count: a compute-bound step does one multiply-add, 2 FLOPs, per active weight per sequence.
    So chips x FLOP/s x step time = 2 x N_active x B, and a dropped or doubled 2 anywhere in the compute term,
    the ratio or the balance batch fails here."""
    b = call(decode.balance_batch_with_kv_n, p)
    assume(np.isfinite(b))
    batch = b * factor
    executed = p["n_chips"] * p["flops"] * call(decode.step_time_s, p, batch=batch)
    assert executed == pytest.approx(2 * p["n_active"] * batch, rel=1e-9)
    # at the balance batch (KV dropped) the weights' bytes take as long as 2 N_active B FLOPs
    b0 = call(decode.balance_batch_n, p)
    assert p["n_total"] * p["bytes_per_param"] / p["mem_bw"] == pytest.approx(2 * p["n_active"] * b0 / p["flops"],
                                                                               rel=1e-9)
    # worst case under the train schedule: wait up to one full drain of HBM, then ride one
    assert call(decode.worst_latency_s, p) == pytest.approx(2 * p["hbm_bytes"] / p["mem_bw"], rel=1e-12)
