"""Chapter 4's published layouts: rows load and validate; predictions against hand arithmetic."""

import dataclasses

import pytest

from roofline import memory_runs, models, registry


def test_every_row_loads_with_source_date_and_regime():
    assert len(memory_runs.RUNS) >= 6
    for r in memory_runs.RUNS:
        assert r.source and r.date and r.regime and r.confidence
        assert r.ep <= r.n_gpus


def test_deepseeks_expert_parallelism_spans_nodes():
    """DeepSeek's published layouts put EP32, EP144 and EP320 over 4, 18 and 40 nodes of 8 GPUs: far past one
    8-GPU NVLink node, with no pipeline stages."""
    got = {r.key: (r.ep, r.nodes) for r in memory_runs.RUNS if r.key.startswith("DeepSeek")}
    assert got == {"DeepSeek-V3 report prefill EP32": (32, 4), "DeepSeek-V3 report decode EP320": (320, 40),
                   "DeepSeek inference overview prefill EP32": (32, 4),
                   "DeepSeek inference overview decode EP144": (144, 18)}


def test_ep144_sequences_are_littles_law():
    """14,800 output tokens/s per node over 8 GPUs at 21 tokens/s per sequence: 88.1 sequences per GPU."""
    r = memory_runs.RUNS.get("DeepSeek inference overview decode EP144")
    assert r.sequences_per_gpu == pytest.approx(14800 / 8 / 21, abs=0.05)
    assert r.kv_bytes_per_token == (512 + 64) * 2 * 61


def test_predictions_by_hand():
    """SGLang's GB200 2K row, FP8 MLA cache of (512 + 64) x 1 B x 61 = 35,136 B per token:
    (198.67 GB - 671e9 x 0.5 B / 48) / (2,000 x 35,136 B) = 2,728 sequences per GPU under perfect sharding;
    with each GPU holding the 16.57e9 parameters outside the routed experts whole (37e9 active less
    8 x 58 x 44,040,192 in the active routed experts) and 1/48 of the 653.9e9 routed ones,
    (198.67 GB - (16.57e9 + 653.9e9 / 48) x 0.5 B) / (70.27 MB) = 2,612."""
    r = memory_runs.RUNS.get("SGLang GB200 decode 2K")
    assert r.kv_bytes_per_token == (512 + 64) * 1 * 61
    assert r.sequences_basis == "derived"
    hbm = 198.674743296e9
    assert r.predicted_max_sequences() == pytest.approx((hbm - 671e9 * 0.5 / 48) / (2000 * 35136), rel=1e-9)
    v3 = models.get("DeepSeek-V3")
    w = (37e9 - 8 * 58 * 44_040_192 + v3.routed_params / 48) * 0.5
    assert r.predicted_max_sequences(layout=True) == pytest.approx((hbm - w) / (2000 * 35136), rel=1e-9)
    assert r.predicted_max_sequences(layout=True) == pytest.approx(2612, abs=1)
    assert r.ratio() == pytest.approx(1408 / r.predicted_max_sequences())


def test_published_expert_placement_by_hand():
    """DeepSeek's EP144 decode: 'each GPU manages 2 routed experts and 1 shared expert', DP144 attention, FP8:
    the 16.57e9 parameters outside the routed experts (37e9 active less 8 x 58 x 44,040,192, the shared
    expert among them) plus 2 x 2.554e9 of routed experts, 21.67 GB, not the 16.57 + 653.9 / 144 = 21.11 GB
    of an even spread. Its EP320 decode: attention TP4, 'each GPU hosts only one expert', the shared experts
    on 64 GPUs of their own: (16.57e9 - 2.554e9) / 4 + 2.554e9 = 6.06 GB. SGLang's rows publish no placement
    and keep the even spread."""
    v3 = models.get("DeepSeek-V3")
    expert = 3 * 7168 * 2048 * 58
    assert v3.expert_params == expert
    always_on = 37e9 - 8 * expert
    ep144 = memory_runs.RUNS.get("DeepSeek inference overview decode EP144")
    assert (ep144.routed_experts_per_gpu, ep144.shared_experts_per_gpu) == (2, 1)
    assert ep144.weights_per_gpu_bytes() == pytest.approx(always_on + 2 * expert, rel=1e-12)
    assert ep144.weights_per_gpu_bytes() / 1e9 == pytest.approx(21.67, abs=0.01)
    hbm = 85.520809984e9  # the H100's, standing in for the H800's
    assert ep144.predicted_max_sequences(layout=True) == pytest.approx(
        (hbm - always_on - 2 * expert) / (4989 * 70272), rel=1e-9)
    ep320 = memory_runs.RUNS.get("DeepSeek-V3 report decode EP320")
    assert ep320.weights_per_gpu_bytes() == pytest.approx((always_on - expert) / 4 + expert, rel=1e-12)
    sg = memory_runs.RUNS.get("SGLang GB200 decode 2K")
    assert sg.weights_per_gpu_bytes() == pytest.approx((always_on + v3.routed_params / 48) * 0.5, rel=1e-12)


def test_a_split_attention_without_a_placement_is_refused():
    r = memory_runs.RUNS.get("DeepSeek-V3 report prefill EP32")
    assert r.attention_tp == 4 and r.shared_experts_per_gpu is None
    with pytest.raises(ValueError, match="no expert placement"):
        r.weights_per_gpu_bytes()


def test_rows_without_sequences_refuse_a_ratio():
    r = memory_runs.RUNS.get("DeepSeek-V3 report decode EP320")
    with pytest.raises(ValueError, match="no sequences per GPU"):
        r.ratio()
    with pytest.raises(ValueError, match="no context"):
        r.predicted_max_sequences()


@pytest.mark.parametrize("field, value, match", [("phase", "training", "phase"), ("ep", 999, "exceeds"),
                                                 ("sequences_basis", "guessed", "sequences_basis"),
                                                 ("nodes", 0, "nodes"), ("weight_precision", "int3", "precision"),
                                                 ("shared_experts_per_gpu", -1, "shared_experts_per_gpu")])
def test_bad_fields_are_refused(field, value, match):
    r = memory_runs.RUNS.get("SGLang GB200 decode 2K")
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(r, **{field: value})


def test_a_corrupt_row_names_the_file_and_the_row(tmp_path):
    from importlib import resources

    text = resources.files("roofline").joinpath("data", "memory_runs.csv").read_text(encoding="utf-8").splitlines()
    header, first = text[0], text[1]
    for bad, match in ((first.replace(",4,8,32,4,", ",4,8,many,4,"), "row 2: invalid literal"),
                       (first.replace(",4,8,32,4,", ",4,8,-32,4,"), r"row 2: .*ep must be"),
                       (",".join(first.split(",")[:5]), "row 2: 21 columns expected")):
        path = tmp_path / "memory_runs.csv"
        path.write_text("\n".join([header, bad]) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"memory_runs.csv, {match}"):
            registry.Registry("memory_runs.csv", memory_runs._row, "memory run", path=path)
