"""Chapter 5's equations against numbers found another way: published training runs, the reference
table of compute-optimal points, the lecture's arithmetic done by hand, and a brute-force search."""

import numpy as np
import pytest
import sympy as sp

from roofline import hardware, models, symbols, training, training_runs
from roofline.symbols import N_active, tokens_pre, train_flops

EPOCH, HOFFMANN = training.LOSS_LAWS["epoch"], training.LOSS_LAWS["hoffmann"]
DAY = 86_400


def test_six_is_two_forward_and_four_backward():
    assert training.FORWARD_FLOPS_PER_PARAM == 2
    assert training.BACKWARD_FLOPS_PER_PARAM == 4
    assert training.PRETRAIN_FLOPS_PER_PARAM == 6


def test_llama_405b_matches_its_reported_compute():
    """Llama 3 paper: 405B parameters on 15.6T tokens, 3.8e25 FLOPs."""
    m = models.get("Llama 3.1 405B")
    c = training.pretrain_flops(n_active=m.active_params, tokens_pre=m.pretrain_tokens)
    assert c == pytest.approx(405e9 * 15.6e12 * 6)
    assert c == pytest.approx(3.8e25, rel=0.01)


def test_chinchilla_70b_on_1_4t():
    """6 x 70e9 x 1.4e12 = 5.88e23; the paper's budget (Gopher's) is 5.76e23, 2% lower."""
    c = training.pretrain_flops(n_active=70e9, tokens_pre=1.4e12)
    assert c == pytest.approx(5.88e23)
    assert c / 5.76e23 == pytest.approx(1.0208, abs=1e-4)


def test_deepseek_v3_gpu_hours_at_its_implied_mfu():
    """DeepSeek-V3: 6 x 37B x 14.8T = 3.2856e24 FLOPs in 2.664M H800-hours of pre-training. The H800
    has the H100's tensor cores (989.4 TFLOP/s dense BF16): the implied MFU is 34.6% on that basis
    (17.3% of the FP8 peak it trained at), and 34.6% gives the reported hours back."""
    c = training.pretrain_flops(n_active=37e9, tokens_pre=14.8e12)
    assert c == pytest.approx(3.2856e24)
    peak = hardware.get("H100").flops_bf16
    assert peak == pytest.approx(989.4e12)
    implied = 3.2856e24 / (2.664e6 * 3600 * 989.4e12)
    assert implied == pytest.approx(0.3463, abs=1e-4)
    assert training.training_gpu_hours(train_flops=c, mfu=implied, flops=peak) == pytest.approx(2.664e6)
    assert training.training_gpu_hours(train_flops=c, mfu=0.35, flops=peak) == pytest.approx(2.636e6, rel=1e-3)


@pytest.mark.parametrize("law, budget, n, d, ratio", [
    (EPOCH, 5.76e23, 72e9, 1.33e12, 18), (EPOCH, 3.8e25, 619e9, 10.2e12, 16.5),
    (HOFFMANN, 5.76e23, 32e9, 3.0e12, 93), (HOFFMANN, 3.8e25, 214e9, 29.7e12, 139)])
def test_compute_optimal_points_match_the_reference_table(law, budget, n, d, ratio):
    """shared/reference/README.md section 4, computed there from each constant set (rounded to 2-3 digits)."""
    n_opt = training.compute_optimal_params(train_flops=budget, **law.args(training.compute_optimal_params))
    d_opt = training.compute_optimal_tokens(train_flops=budget, **law.args(training.compute_optimal_tokens))
    assert n_opt == pytest.approx(n, rel=0.02)
    assert d_opt == pytest.approx(d, rel=0.02)
    assert d_opt / n_opt == pytest.approx(ratio, rel=0.03)
    assert 6 * n_opt * d_opt == pytest.approx(budget)
    # the tokens for that many parameters are the same point, reached from N
    assert training.chinchilla_tokens(n_active=n_opt, **law.args(training.chinchilla_tokens)) == pytest.approx(d_opt)


def test_compute_optimal_point_minimises_the_loss_along_the_budget():
    """d/dN of L(N, C/(6N)) vanishes at N_opt: symbolically, and for the Epoch constants at 1e24 FLOPs."""
    law = training.chinchilla_loss.expr.subs(tokens_pre, train_flops / (6 * N_active))
    slope = sp.diff(law, N_active)
    at_opt = slope.subs(N_active, training.compute_optimal_params.expr)
    assert sp.simplify(sp.powsimp(sp.expand_power_base(at_opt, force=True), force=True)) == 0
    consts = {symbols.TABLE[k].symbol: v for k, v in EPOCH.values().items()} | {train_flops: 1e24}
    scale = float((sp.diff(EPOCH.loss_a / N_active ** EPOCH.alpha_n, N_active)).subs(N_active, 1e11))
    assert abs(float(at_opt.subs(consts))) < 1e-9 * abs(scale)


def test_the_lecture_arithmetic():
    """500M tok/s for 2 months = 2.6e15 (01:30:15); 50M tok/s -> 2.6e14, "around two hundred
    trillion" (01:30:46); equal costs at a third of the MFU: D_pre = D_inf = 1.5 D_RL (flashcard Q4);
    200T over 20 x 100B is 100x (01:31:43)."""
    assert training.tokens_served(traffic=500e6, deploy_s=60 * DAY) == pytest.approx(2.592e15)
    d_inf = training.tokens_served(traffic=50e6, deploy_s=60 * DAY)
    assert d_inf == pytest.approx(2.592e14)
    d_pre = training.equal_cost_pretrain_tokens(tokens_inf=d_inf, decode_mfu=1 / 3)
    assert d_pre == pytest.approx(d_inf)
    assert training.equal_cost_rl_tokens(tokens_pre=d_pre, decode_mfu=1 / 3, rl_flops=3) == pytest.approx(d_pre / 1.5)
    assert training.overtraining_factor(tokens_pre=200e12, tokens_per_param=20, n_active=100e9) == pytest.approx(100)
    # the three costs are then equal, in training-FLOP equivalents
    n = 100e9
    pre = training.pretrain_flops(n_active=n, tokens_pre=d_pre)
    rl = training.rl_cost_flops(n_active=n, tokens_rl=d_pre / 1.5, rl_flops=3, decode_mfu=1 / 3)
    inf = training.inference_cost_flops(n_active=n, tokens_inf=d_inf, decode_mfu=1 / 3)
    assert pre == pytest.approx(rl) == pytest.approx(inf)


def test_optimum_without_usage_is_chinchillas():
    """k = 0: the cheapest model for a loss is the compute-optimal one that reaches it."""
    budget = 5.76e23
    n = training.compute_optimal_params(train_flops=budget, **EPOCH.args(training.compute_optimal_params))
    d = training.compute_optimal_tokens(train_flops=budget, **EPOCH.args(training.compute_optimal_tokens))
    target = training.chinchilla_loss(n_active=n, tokens_pre=d, **EPOCH.values())
    a = training.optimal_for_loss(target, 0.0)
    assert a.n_active == pytest.approx(n, rel=1e-6)
    assert a.tokens_pre == pytest.approx(d, rel=1e-6)
    assert a.usage_cost == 0 and a.total_cost == pytest.approx(budget, rel=1e-6)


@pytest.mark.parametrize("law_name", ["epoch", "hoffmann"])
@pytest.mark.parametrize("usage", [1e14, 1.56e15, 1.56e16])
def test_optimum_beats_a_dense_search(law_name, usage):
    """A brute-force search over 400,001 model sizes finds no cheaper model of the same loss."""
    law = training.LOSS_LAWS[law_name]
    target = training.chinchilla_loss(n_active=100e9, tokens_pre=2.6e14, **law.values())
    a = training.optimal_for_loss(target, usage, law_name)
    assert training.chinchilla_loss(n_active=a.n_active, tokens_pre=a.tokens_pre, **law.values()) == pytest.approx(
        target, rel=1e-12)
    n = np.logspace(9, 14, 400_001)
    d = training.tokens_for_loss(n_active=n, loss=target, **law.args(training.tokens_for_loss))
    cost = 6 * n * d + usage * n
    assert a.total_cost <= cost.min() * (1 + 1e-9)
    assert a.n_active == pytest.approx(n[np.argmin(cost)], rel=1e-3)


def test_optimum_takes_arrays():
    a = training.optimal_for_loss(2.0, np.array([0.0, 1e15, 1e16]))
    assert a.n_active.shape == (3,) and np.all(np.diff(a.n_active) < 0)  # more serving: a smaller model
    assert np.all(np.diff(a.tokens_pre) > 0)


def test_tokens_for_loss_is_inf_where_the_model_cannot_reach_it():
    kw = EPOCH.args(training.tokens_for_loss)
    floor = EPOCH.loss_floor + EPOCH.loss_a / 1e9 ** EPOCH.alpha_n  # a 1B model on infinite data
    assert training.tokens_for_loss(n_active=1e9, loss=floor * 0.999, **kw) == np.inf
    d = training.tokens_for_loss(n_active=1e9, loss=floor + 0.1, **kw)
    assert training.chinchilla_loss(n_active=1e9, tokens_pre=d, **EPOCH.values()) == pytest.approx(floor + 0.1)


@pytest.mark.parametrize("call, match", [
    (lambda: training.rl_cost_flops(n_active=1e11, tokens_rl=1e12, rl_flops=1, decode_mfu=0.3), "at least 2"),
    (lambda: training.rl_compute_flops(n_active=1e11, tokens_rl=1e12, rl_flops=7), "at most 6"),
    (lambda: training.training_gpu_hours(train_flops=1e24, mfu=1.5, flops=1e15), "mfu must be at most 1"),
    (lambda: training.tokens_served(traffic=-1, deploy_s=1), "traffic"),
    (lambda: training.optimal_for_loss(1.5, 0.0), "irreducible loss"),
    (lambda: training.optimal_for_loss(2.0, -1.0), "usage_flops_per_param"),
    (lambda: training.optimal_for_loss(2.0, 0.0, "kaplan"), "law name must be one of"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- prefill and decode apart ---------------------------------------------------------------------------------
def test_split_cost_by_hand():
    """3T prompt tokens at training's MFU and 1T decoded at a third of it: 2 N (3T + 3T) FLOP-equivalents, and
    equal costs need (3T + 3T) / 3 = 2T pre-training tokens."""
    c = training.inference_split_cost_flops(n_active=1e11, tokens_prefill=3e12, tokens_decode=1e12,
                                            prefill_mfu=1.0, decode_mfu=1 / 3)
    assert c == pytest.approx(2 * 1e11 * 6e12)
    d = training.equal_cost_pretrain_tokens_split(tokens_prefill=3e12, tokens_decode=1e12, prefill_mfu=1.0,
                                                  decode_mfu=1 / 3)
    assert d == pytest.approx(2e12)


def test_split_reduces_to_the_lecture_without_prefill():
    """With no prompt tokens computed, the split equations are the lecture's: all served tokens at decode's MFU."""
    for d_inf, eta in ((2.59e14, 1 / 3), (1e12, 0.3)):
        assert training.equal_cost_pretrain_tokens_split(
            tokens_prefill=0, tokens_decode=d_inf, prefill_mfu=0.9, decode_mfu=eta) == pytest.approx(
            training.equal_cost_pretrain_tokens(tokens_inf=d_inf, decode_mfu=eta))
        assert training.inference_split_cost_flops(
            n_active=37e9, tokens_prefill=0, tokens_decode=d_inf, prefill_mfu=0.9, decode_mfu=eta) == pytest.approx(
            training.inference_cost_flops(n_active=37e9, tokens_inf=d_inf, decode_mfu=eta))


def test_split_refuses_bad_input_by_name():
    with pytest.raises(ValueError, match="prefill_mfu"):
        training.equal_cost_pretrain_tokens_split(tokens_prefill=1, tokens_decode=1, prefill_mfu=0, decode_mfu=0.3)
    with pytest.raises(ValueError, match="tokens_prefill"):
        training.equal_cost_pretrain_tokens_split(tokens_prefill=-1, tokens_decode=1, prefill_mfu=1, decode_mfu=0.3)


# -- published runs and volumes -------------------------------------------------------------------------------
def test_every_report_has_a_source_a_date_and_a_regime():
    assert len(training_runs.RUNS) >= 20
    for r in training_runs.RUNS:
        assert r.source.strip() and r.date.strip() and r.regime in training_runs.REPORT_REGIMES, r.key
        assert r.low is None or r.low <= r.value <= r.high


def test_reports_agree_with_their_own_arithmetic():
    """DeepSeek-V3: 2.664M + 0.119M + 0.005M = 2.788M GPU-hours. R1: 512 x 198 + 512 x 80 + 5,000 = 147,336
    GPU-hours, $294.7K at $2, the reported $294K. DeepSeek's day: 608B x (1 - 0.563) = 265.7B prompt tokens
    computed; 73.7k x 0.437 = 32,207 computed tokens/s per node, the reference's 32,206."""
    v = training_runs.reported
    assert v("DeepSeek-V3 pre-training hours") + 0.119e6 + 0.005e6 == pytest.approx(v("DeepSeek-V3 all training hours"))
    r1_hours = 512 * v("DeepSeek-R1-Zero RL hours") + 512 * v("DeepSeek-R1 RL hours") + v("DeepSeek-R1 SFT data hours")
    assert r1_hours == 147_336
    assert 2 * r1_hours == pytest.approx(v("DeepSeek-R1 cost"), rel=0.005)
    assert v("DeepSeek day input tokens") * (1 - v("DeepSeek day cache hits")) == pytest.approx(265.7e9, rel=1e-3)
    assert v("DeepSeek prefill per node") * (1 - v("DeepSeek day cache hits")) == pytest.approx(32_206, rel=1e-4)
    assert 6 * 402e9 * v("Llama 3 optimum tokens") == pytest.approx(3.99e25, rel=0.01)  # Meta's C = 6ND, near 3.8e25
    # Meta's Figure 3 fit, 0.299 C^0.537 at 3.8e25 FLOPs: 16.3T, near the paper's 16.55T; the text's rounded
    # (0.53, 0.29) would give 10.5T
    c = v("Llama 3 405B FLOPs")
    assert v("Llama 3 fit coefficient") * c ** v("Llama 3 fit exponent") == pytest.approx(16.55e12, rel=0.02)
    assert 0.29 * c**0.53 == pytest.approx(10.5e12, rel=0.01)
    # R1's own RL, 512 x 80 = 40,960 GPU-hours, 1.5% of V3's 2.664M
    assert 512 * v("DeepSeek-R1 RL hours") / v("DeepSeek-V3 pre-training hours") == pytest.approx(0.0154, abs=5e-4)
    # DeepSeek's fleet: 168B / 86,400 s / 14.8k = 131 decode nodes, 608B / 86,400 / 73.7k = 95.5 prefill nodes,
    # 227 in all against the reported 226.75 average
    dec = v("DeepSeek day output tokens") / 86_400 / v("DeepSeek decode per node")
    pre = v("DeepSeek day input tokens") / 86_400 / v("DeepSeek prefill per node")
    assert (round(dec), round(pre, 1)) == (131, 95.5)
    assert dec + pre == pytest.approx(v("DeepSeek day mean nodes"), rel=0.005)


def test_reported_range_is_the_sources_range_or_the_value():
    """DeepSeek-V3's MTP acceptance is a range (85% to 90%, section 5.4.3), its 1.8x TPS one number; the day's
    nodes give only a peak (278), so the average (226.75) is the low end. An unknown key fails naming it."""
    rng = training_runs.reported_range
    assert rng("DeepSeek-V3 MTP acceptance") == (0.85, 0.90)
    assert rng("DeepSeek-V3 MTP TPS speed-up") == (1.8, 1.8)
    assert rng("DeepSeek day mean nodes") == (226.75, 278)
    low, high = rng("DeepSeek-V3 MTP acceptance")
    assert low <= training_runs.reported("DeepSeek-V3 MTP acceptance") <= high
    with pytest.raises(ValueError, match="unknown training report 'no such run'"):
        rng("no such run")


def test_serving_facts_agree_with_their_own_arithmetic():
    """FlashMLA's FP8-with-scale layout: 512 FP8 NoPE values + 4 FP32 scales + 64 BF16 RoPE values = 656 B, 80 B
    more than the dense FP8 cache's 512 + 64 = 576 B a layer of V3's latent. V3's MTP: a verify step emits 1 +
    acceptance = 1.85-1.90 tokens a sequence, just above the reported 1.8x tokens per second (a verify step costs a
    little more than a plain one). DeepSeek's dual-batch overlap splits a batch in two."""
    v = training_runs.reported
    v3 = models.get("DeepSeek-V3")
    assert v("FlashMLA FP8 KV bytes per layer") == 512 * 1 + 4 * 4 + 64 * 2 == 656
    assert v3.kv_bytes_per_layer(1) == v3.kv_lora_rank + v3.qk_rope_head_dim == 576
    low, high = training_runs.reported_range("DeepSeek-V3 MTP acceptance")
    assert 1 + low > v("DeepSeek-V3 MTP TPS speed-up") > 1
    assert 1 + high < 2
    assert v("DeepSeek micro-batches") == 2
    assert v("Sardana most tokens per parameter") == 10_000


def test_a_corrupt_report_row_names_the_file_and_the_row(tmp_path):
    """Text for a number, an unknown regime, a value outside its range, a short row: each fails naming the file,
    the row and the reason."""
    from importlib import resources

    from roofline import registry
    lines = resources.files("roofline").joinpath("data", "training_runs.csv").read_text(encoding="utf-8").splitlines()
    header, first = lines[0], lines[1]
    assert ",2.664e+06,,,GPU-hours,pre-training," in first
    for bad, match in ((first.replace(",2.664e+06,", ",lots,"), "row 2: could not convert"),
                       (first.replace(",pre-training,", ",inference,"), "row 2: unknown regime .inference."),
                       (first.replace(",2.664e+06,,,", ",2.664e+06,3e6,,"), "row 2: .*outside its range"),
                       (",".join(first.split(",")[:5]), "row 2: 13 columns expected")):
        path = tmp_path / "training_runs.csv"
        path.write_text("\n".join([header, bad] + lines[2:]) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"training_runs.csv, {match}"):
            registry.Registry("training_runs.csv", training_runs._report_row, "training report", path=path)


# -- the fit's standard errors, carried through ---------------------------------------------------------------
def test_anchored_variants_keep_each_term_at_the_centre_of_the_runs():
    """Moving beta by one SE (0.02) with B anchored at D_c = sqrt(5e9 x 5e11) = 5e10 tokens multiplies B by
    5e10^0.02 = 1.637, close to B's own published error (1293.23 / 2085.43 = 62%); the data term at D_c is
    unchanged. Unanchored, only the one constant moves."""
    v = training.law_variants("epoch")
    up = v[("beta_d", 1)]
    assert up.beta_d == pytest.approx(0.3858)
    assert up.loss_b / EPOCH.loss_b == pytest.approx(5e10 ** 0.02) == pytest.approx(1.6367, abs=1e-4)
    assert up.loss_b / 5e10 ** up.beta_d == pytest.approx(EPOCH.loss_b / 5e10 ** EPOCH.beta_d)
    assert set(k for k, _ in v) == {"loss_floor", "alpha_n", "beta_d"}
    alone = training.law_variants("epoch", anchored=False)
    assert set(k for k, _ in alone) == {"loss_floor", "loss_a", "loss_b", "alpha_n", "beta_d"}
    assert alone[("loss_b", -1)].loss_b == pytest.approx(2085.43 - 1293.23)
    assert alone[("loss_b", -1)].beta_d == EPOCH.beta_d


def test_spread_of_the_compute_optimal_tokens():
    """At the fit, 1.81T tokens for 100B (the reference table's refit); E does not move it; the spread brackets it."""
    s = training.spread(lambda c: training.chinchilla_tokens(n_active=1e11, **c.args(training.chinchilla_tokens)))
    assert s.central == pytest.approx(1.81e12, rel=0.01)
    assert s.by_constant["loss_floor"] == pytest.approx((s.central, s.central))
    assert s.low < s.central < s.high


def test_variants_refuse_bad_input():
    with pytest.raises(ValueError, match="n_se"):
        training.law_variants("epoch", n_se=-1)
    with pytest.raises(ValueError, match="no published standard errors"):
        training.law_variants("hoffmann")
    with pytest.raises(ValueError, match="alpha_n to"):
        training.law_variants("epoch", n_se=20)
