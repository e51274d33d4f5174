"""Chapter 3: the cut condition, bubble fractions against computed timelines, inference through P stages."""

import pytest
import sympy as sp

from roofline import Deployment, decode, hardware, models, pipeline
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
    assert d.evaluate(pipeline.pipeline_tokens_per_s, **given) == pytest.approx(4096 / stage)
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
