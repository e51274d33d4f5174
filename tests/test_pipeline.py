"""Chapter 3: the cut condition, bubble fractions against computed timelines, inference through P stages."""

import pytest
import sympy as sp

from roofline import Deployment, decode, hardware, models, pipeline, pipeline_runs
from roofline.notebook import deploy
from roofline import symbols as s


def test_cut_ratio_by_hand():
    """GB200, top-8, one MoE layer per stage, 64 GPUs: 2 x 8 x 1 x 63/64 x 50/900 = 0.875; two layers: 1.75."""
    given = dict(top_k=8, n_chips=64, scaleup_bw=900e9, scaleout_bw=50e9)
    assert pipeline.cut_ratio(stage_layers=1, **given) == pytest.approx(2 * 8 * 63 / 64 * 50 / 900)
    assert pipeline.cut_ratio(stage_layers=2, **given) == pytest.approx(1.75)
    assert pipeline.min_stage_layers(**given) == pytest.approx(900 / (2 * 8 * 63 / 64 * 50))


def test_lecture_form_is_the_special_case():
    """With W_up = 8 W_out and many chips (1 - 1/G -> 1), the ratio is the lecture's 1/8 x 2 x K x layers."""
    K, ls, W = s.top_k, s.stage_layers, s.scaleout_bw
    special = sp.limit(pipeline.cut_ratio.expr.subs(s.scaleup_bw, 8 * W), s.n_chips, sp.oo)
    assert sp.simplify(special - sp.Rational(1, 8) * 2 * K * ls) == 0


@pytest.mark.parametrize("kind", ["gpipe", "1f1b"])
@pytest.mark.parametrize("P, M", [(2, 1), (4, 4), (4, 8), (8, 32), (6, 3)])
def test_bubble_formula_matches_the_computed_timeline(kind, P, M):
    """(P - 1)/(M + P - 1): the idle share of the timeline the dependencies produce, backward = 2 x forward."""
    ops = pipeline.schedule(P, M, kind)
    assert pipeline.idle_fraction(ops) == pytest.approx(pipeline.bubble_fraction(n_stages=P, n_micro=M))
    assert len(ops) == 2 * P * M


def test_interleaved_bubble_by_hand():
    """Megatron-LM's interleaved 1F1B: bubble / ideal = (P - 1)/(v M); as a share of the step,
    (P - 1)/(v M + P - 1): P=8, M=16, v=2 gives 7/39."""
    inter = pipeline.bubble_fraction.under(schedule="interleaved")
    assert inter(n_stages=8, n_micro=16, n_chunks=2) == pytest.approx(7 / 39)
    assert inter(n_stages=8, n_micro=16, n_chunks=1) == pytest.approx(pipeline.bubble_fraction(n_stages=8, n_micro=16))


def test_inference_has_no_bubble_once_the_pipe_is_full():
    """Naive (one batch through all four racks before the next): three quarters idle (00:57:34). Streaming:
    only the fill at the start and the drain at the end, (P - 1)/(M + P - 1), going to zero."""
    assert pipeline.idle_fraction(pipeline.schedule(4, 6, "naive")) == pytest.approx(0.75)
    assert pipeline.idle_fraction(pipeline.schedule(4, 6, "inference")) == pytest.approx(3 / 9)
    assert pipeline.idle_fraction(pipeline.schedule(4, 1000, "inference")) < 0.003


def test_pipeline_latency_and_throughput_by_hand():
    """DeepSeek-V3 in FP4 over 2 racks of 64 GB200s: each stage is chapter 1's step on 128 GPUs; a token takes
    two stage times and one hop, and the pipeline serves the throughput of 128 GPUs."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4", n_chips=64)
    given = dict(batch=4096, len_ctx=2048, n_stages=2, hop_latency=3e-6)
    stage = Deployment(d.model, d.hardware, precision="fp4", n_chips=128).step_time_s(4096, 2048)
    assert d.evaluate(pipeline.stage_time_s, **given) == pytest.approx(stage)
    hop = 3e-6 + 64 * 7168 * 2 / 50e9  # 4096 / 64 tokens per GPU, BF16 activations, one 400 Gb/s NIC
    assert d.evaluate(pipeline.pipeline_token_latency_s, **given) == pytest.approx(2 * stage + hop)
    # a decode loop with exactly two batches in flight: each goes round two stages, one hop carrying activations
    # and the wrap-around back to the first stage, which carries token ids only (3 us of latency)
    cycle = 2 * stage + hop + 3e-6
    assert d.evaluate(pipeline.pipeline_tokens_per_s, **given) == pytest.approx(2 * 4096 / cycle)
    assert d.evaluate(pipeline.neutral_batches_n, **given) == pytest.approx(cycle / stage)
    assert d.evaluate(pipeline.loop_token_time_s, **given) == pytest.approx(cycle)
    one = dict(given, n_stages=1)  # one stage: no hop, chapter 1's throughput on 64 GPUs
    assert d.evaluate(pipeline.pipeline_tokens_per_s, **one) == pytest.approx(4096 / d.step_time_s(4096, 2048))
    assert d.evaluate(pipeline.neutral_batches_n, **one) == pytest.approx(1)
    assert decode.step_time_s.expr.free_symbols >= {s.n_chips}


def test_bad_schedule_input_is_named():
    with pytest.raises(ValueError, match="n_stages must be a whole number"):
        pipeline.schedule(2.5, 4)
    with pytest.raises(ValueError, match="kind must be"):
        pipeline.schedule(4, 4, "zero-bubble")
    with pytest.raises(ValueError, match="ops must hold"):
        pipeline.idle_fraction([])


def test_hop_is_its_latency_plus_each_chips_share_of_the_activations():
    """DeepSeek-V3 (hidden 7168), 8,192 sequences over 64 GB200s, BF16 activations: 128 x 7168 x 2 =
    1,835,008 bytes per chip at 50 GB/s is 36.7 us, plus a 2.8 us latency."""
    d = deploy("DeepSeek-V3", "GB200", "fp4", n_chips=64)
    hop = d.evaluate(pipeline.hop_time_s, batch=8192, hop_latency=2.8e-6)
    assert hop == pytest.approx(2.8e-6 + 1_835_008 / 50e9)


def test_tp_rule_by_hand():
    """How to Scale Your Model: Y < F W / C in BF16. H100 (989.4 TFLOP/s, 450 GB/s): C / W = 2198.7, so an
    expert pair of width 2048 would allow 0.93 ways; a gated expert (gate, up, down) 1.5 times that, 1.40; LLaMA-3's
    F = 28,672 about 19.6 (13.04 for a pair). FP8 halves the bytes and doubles C: the same answer."""
    h100 = dict(scaleup_bw=450e9, act_bytes=2, flops=989.4e12)
    assert pipeline.tp_max_degree(d_ff=2048, **h100) == pytest.approx(1.5 * 2048 / 2198.6666, rel=1e-6)
    assert pipeline.tp_max_degree(d_ff=28672, **h100) == pytest.approx(1.5 * 13.04, abs=0.02)
    fp8 = dict(scaleup_bw=450e9, act_bytes=1, flops=2 * 989.4e12)
    assert pipeline.tp_max_degree(d_ff=2048, **fp8) == pytest.approx(pipeline.tp_max_degree(d_ff=2048, **h100))


def test_tp_comm_over_math_by_hand():
    """Two H100s (989.4 TFLOP/s BF16, 450 GB/s) split an expert of width 2048: each moves half of the B D
    values of 2 bytes in the all-gather and again in the reduce-scatter, 2 B D / 450e9 s, against
    6 B D 2048 / (2 x 989.4e12) s of math (gate, up, down): the ratio is 2 x 989.4e12 / (3 x 2048 x 450e9)
    = 0.7157. It reaches 1 at
    Y = 1 + tp_max_degree."""
    h100 = dict(d_ff=2048, scaleup_bw=450e9, act_bytes=2, flops=989.4e12)
    assert pipeline.tp_comm_over_math(tp_ways=2, **h100) == pytest.approx(0.7157, abs=1e-4)
    assert pipeline.tp_comm_over_math(tp_ways=1, **h100) == 0
    y1 = 1 + pipeline.tp_max_degree(**h100)
    assert pipeline.tp_comm_over_math(tp_ways=y1, **h100) == pytest.approx(1)


def test_tp_rule_is_compute_over_communication():
    """Independently: one gated feed-forward block on Y chips, 6 B D F / Y FLOPs at C, against an all-gather and a
    reduce-scatter of B D values of b_a bytes at W; at Y = tp_max_degree the two times are equal."""
    B_tok, D, F, W, C, ba = 4096, 7168, 2048, 900e9, 2.5e15, 2
    Y = pipeline.tp_max_degree(d_ff=F, scaleup_bw=W, act_bytes=ba, flops=C)
    assert 6 * B_tok * D * F / (Y * C) == pytest.approx(2 * B_tok * D * ba / W)


def test_table2_of_deepseek_v3_by_hand():
    """DeepSeek-V3 report, Table 2, with F = W = 1, B = 2, F&B = F + B = 3: for PP = 8, 1F1B idles 7 x 3 = 21,
    ZB1P 7 x (3 - 2) = 7, DualPipe 3 x (3 + 2 - 3) = 6; activations 8, 8, 9; parameters 1x, 1x, 2x."""
    assert pipeline.schedule_costs("1f1b", 8) == dict(bubble=21, parameters=1, activations=8)
    assert pipeline.schedule_costs("zb1p", 8) == dict(bubble=7, parameters=1, activations=8)
    assert pipeline.schedule_costs("dualpipe", 8) == dict(bubble=6, parameters=2, activations=9)
    # F&B shorter than F + B (computation overlapped as well): (8/2 - 1)(2 + 2 - 3) = 3
    assert pipeline.schedule_costs("dualpipe", 8, overlapped=2)["bubble"] == 3


def test_zero_bubble_readme_rates():
    """The zero-bubble README (T_F = T_B = T_W) writes the bubble over the useful time: 1F1B (p - 1)/m,
    ZB1P (p - 1)/(3 m). As a share of the step, r/(1 + r): the library's variants."""
    for P, M in ((8, 24), (16, 48), (32, 96)):
        useful = M * 3  # m (F + B), B the full backward
        for kind, readme in (("1f1b", (P - 1) / M), ("zb1p", (P - 1) / (3 * M))):
            assert pipeline.schedule_costs(kind, P)["bubble"] / useful == pytest.approx(readme)
        zb = pipeline.bubble_fraction.under(schedule="zb-h1")(n_stages=P, n_micro=M)
        assert zb == pytest.approx(((P - 1) / (3 * M)) / (1 + (P - 1) / (3 * M)))
        dp = pipeline.bubble_fraction.under(schedule="dualpipe")(n_stages=P, n_micro=M)
        bubble = pipeline.schedule_costs("dualpipe", P)["bubble"]
        assert dp == pytest.approx(bubble / (useful + bubble))
    assert pipeline.bubble_fraction.under(schedule="dualpipe")(n_stages=2, n_micro=4) == 0


def test_peak_activations():
    """GPipe holds all m; 1F1B P; ZB-H2 2P - 1; interleaved on 4 stages with v = 2: Megatron's warm-up of
    2 x 3 + 1 x 4 = 10 half-stage chunks plus one in flight, 11 / 2 = 5.5 = 4 + 3/2; DualPipe P + 1."""
    assert pipeline.peak_activations("gpipe", 4, 8) == 8
    assert pipeline.peak_activations("1f1b", 4, 8) == 4 == pipeline.peak_activations("zb-h1", 4, 8)
    assert pipeline.peak_activations("zb-h2", 4, 8) == 7
    assert pipeline.peak_activations("interleaved", 4, 8, n_chunks=2) == pytest.approx(5.5)
    assert pipeline.peak_activations("dualpipe", 16, 32) == 17
    # 1F1B's memory is what the computed timeline holds: stage 0 has at most P forwards without their backward
    ops = sorted(pipeline.schedule(4, 8, "1f1b"), key=lambda o: o.end)
    held = peak = 0
    for o in (o for o in ops if o.stage == 0):
        held += 1 if o.kind == "F" else -1
        peak = max(peak, held)
    assert peak == 4


def test_bad_schedule_costs_input_is_named():
    with pytest.raises(ValueError, match="n_stages must be even"):
        pipeline.schedule_costs("dualpipe", 7)
    with pytest.raises(ValueError, match="unknown kind"):
        pipeline.schedule_costs("zb-v", 8)
    with pytest.raises(ValueError, match="wgrad must not exceed bwd"):
        pipeline.schedule_costs("zb1p", 8, wgrad=3)
    with pytest.raises(ValueError, match="n_chunks must be >= 2"):
        pipeline.peak_activations("interleaved", 8, 16)
    with pytest.raises(ValueError, match="d_ff"):
        pipeline.tp_max_degree(d_ff=0, scaleup_bw=450e9, act_bytes=2, flops=1e15)


def test_pipeline_runs_load_with_sources_and_regimes():
    """Every row of pipeline_runs.csv loads, names its source, table, date and regime; spot values against the
    zero-bubble paper: Table 4, 1.5B on 8 GPUs, 24 micro-batches: ZB-2p 14.5, 1F1B 11.8 samples per GPU per
    second; Table 5, 28.3B on 32 stages, 256 micro-batches: 1F1B bubble 0.1352, ZB-H1 0.0594."""
    assert len(pipeline_runs.RUNS) == 96
    for r in pipeline_runs.RUNS:
        assert r.source and r.table in ("Table 4", "Table 5") and r.date and r.regime.startswith("training")
    assert pipeline_runs.RUNS.get("ZB 1.5B P8 m24 zb-2p throughput").value == 14.5
    assert pipeline_runs.RUNS.get("ZB 1.5B P8 m24 1f1b throughput").value == 11.8
    assert pipeline_runs.RUNS.get("ZB 28.3B P32 m256 1f1b bubble").value == 0.1352
    assert pipeline_runs.RUNS.get("ZB 28.3B P32 m256 zb-h1 bubble").value == 0.0594


def test_decimals_and_half_unit_by_hand():
    """11.8 and 3.5 carry one decimal (half a unit 0.05), 4.03 two (0.005), the Table 5 rate 0.1352 four."""
    get = pipeline_runs.RUNS.get
    assert get("ZB 1.5B P8 m24 1f1b throughput").decimals == 1
    assert get("ZB 6.2B P8 m24 1f1b throughput").half_unit() == pytest.approx(0.05)
    assert get("ZB 6.2B P8 m64 1f1b throughput").half_unit() == pytest.approx(0.005)
    assert get("ZB 28.3B P32 m256 1f1b bubble").decimals == 4
    assert get("ZB 6.2B P8 m24 1f1b throughput").half_unit(decimals=2) == pytest.approx(0.005)


def test_predicted_bubble_by_hand():
    """P = 8, m = 24: 1F1B 7/31 = 0.2258, ZB-H1 7/79 = 0.0886; ZB-2p none; interleaved not predicted."""
    assert pipeline_runs.RUNS.get("ZB 1.5B P8 m24 1f1b bubble").predicted_bubble() == pytest.approx(7 / 31)
    assert pipeline_runs.RUNS.get("ZB 1.5B P8 m24 zb-h1 bubble").predicted_bubble() == pytest.approx(7 / 79)
    assert pipeline_runs.RUNS.get("ZB 1.5B P8 m24 zb-2p throughput").predicted_bubble() == 0
    assert pipeline_runs.RUNS.get("ZB 1.5B P8 m24 1f1b-i bubble").predicted_bubble() is None


def test_a_corrupt_pipeline_row_names_the_file_and_the_row(tmp_path):
    from importlib import resources

    from roofline import registry

    text = resources.files("roofline").joinpath("data", "pipeline_runs.csv").read_text(encoding="utf-8")
    header, first = text.splitlines()[:2]
    for bad, match in ((first.replace(",14.5,", ",fast,"), "row 2: could not convert"),
                       (first.replace(",zb-2p,", ",zb-9p,"), "row 2: unknown schedule"),
                       (first.replace(",2024-01,", ",,"), "row 2: date must not be empty"),
                       (first.replace(",14.5,1,", ",14.5,0,"), "row 2: value 14.5 has more digits"),
                       (",".join(first.split(",")[:5]), "row 2: 16 columns expected")):
        path = tmp_path / "pipeline_runs.csv"
        path.write_text("\n".join([header, bad]) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"pipeline_runs.csv, {match}"):
            registry.Registry("pipeline_runs.csv", pipeline_runs._run_row, "pipeline run", path=path)


def test_chips_reached_by_enumeration():
    """Every choice of K distinct experts counted: 8 experts on 4 chips (2 each), top-2: of the 28 pairs,
    4 lie on one chip and 24 on two, so 1/28 x (4 x 1 + 24 x 2) = 52/28 chips on average."""
    import itertools

    def brute(k, e, g):
        picks = list(itertools.combinations(range(e), k))
        return sum(len({x // (e // g) for x in p}) for p in picks) / len(picks)

    assert pipeline.chips_reached(2, 8, 4) == pytest.approx(52 / 28)
    for k, e, g in [(2, 8, 4), (3, 12, 3), (4, 16, 8), (5, 10, 5)]:
        assert pipeline.chips_reached(k, e, g) == pytest.approx(brute(k, e, g))
    assert pipeline.chips_reached(1, 256, 64) == pytest.approx(1)  # one expert: one chip
    assert pipeline.chips_reached(8, 8, 4) == pytest.approx(4)  # every expert: every chip
    assert pipeline.chips_reached(8, 256, 1) == pytest.approx(1)


def test_chips_reached_for_deepseek_v3():
    """256 experts, top-8. On an 8-GPU node (32 experts a GPU) a GPU misses all 8 with probability
    C(224, 8)/C(256, 8) = 0.3381, so 7 x 0.6619 = 4.63 other GPUs get a copy, not K (1 - 1/G) = 7. Four
    nodes of 32 experts: each is missed with probability C(96, 8)/C(128, 8) = 0.0928."""
    miss = 1
    for i in range(8):
        miss *= (224 - i) / (256 - i)
    assert miss == pytest.approx(0.3381, abs=1e-4)
    assert pipeline.chips_reached(8, 256, 8) * 7 / 8 == pytest.approx(7 * (1 - miss))
    assert pipeline.chips_reached(8, 256, 8) * 7 / 8 == pytest.approx(4.633, abs=1e-3)
    assert pipeline.chips_reached(8, 128, 4) / 4 == pytest.approx(1 - 0.0928, abs=1e-4)
    # fewer copies than the lecture's accounting, approaching it as the experts per chip fall to one
    for g in (8, 16, 64, 256):
        assert pipeline.chips_reached(8, 256, g) * (g - 1) / g <= 8 * (1 - 1 / g) + 1e-12
    assert pipeline.chips_reached(8, 256, 256) * 255 / 256 == pytest.approx(8 * 255 / 256)


def test_bad_chips_reached_input_is_named():
    with pytest.raises(ValueError, match="top_k must not exceed n_experts"):
        pipeline.chips_reached(9, 8, 4)
    with pytest.raises(ValueError, match="n_chips must divide n_experts"):
        pipeline.chips_reached(8, 256, 72)
    with pytest.raises(ValueError, match="top_k must be a whole number"):
        pipeline.chips_reached(2.5, 256, 64)
    with pytest.raises(ValueError, match="n_experts"):
        pipeline.chips_reached(8, -256, 64)
