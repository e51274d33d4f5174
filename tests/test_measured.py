"""Published decode measurements against the roofline: the registry, hand arithmetic, bad names.

The measurements come from ``shared/reference/README.md`` section 5 ("Measured throughput and
latency"), which compiles the LMSYS/SGLang blog posts and DeepSeek's profile data; the FP8 MLA cache
layout comes from its section 2a.
"""

import dataclasses

import pytest

from roofline import Deployment, hardware, measured, models

REQUIRED = ["LMSYS H100 EP72", "SGLang GB200 NVL72", "DeepSeek profile H800"]


@pytest.mark.parametrize("name", REQUIRED)
def test_registry_has_the_three_decode_measurements(name):
    """README section 5: LMSYS H100 EP72, SGLang GB200 NVL72 Part II, DeepSeek's profile (H800)."""
    assert isinstance(measured.get(name), measured.Measurement)


@pytest.mark.parametrize("key", measured.names())
def test_every_row_has_a_source_confidence_and_known_chip_and_model(key):
    """Every number carries its source (house style, rule 3); chip and model resolve in the registries."""
    m = measured.get(key)
    assert "README.md section 5" in m.source and len(m.notes) > 40
    assert m.confidence in ("high", "medium", "low")
    assert m.precision in m.hardware.precisions()
    assert m.model is models.get("DeepSeek-V3")


@pytest.mark.parametrize("key", [k for k in measured.names() if measured.get(k).out_tokens_per_s_per_node])
def test_per_gpu_is_per_node_over_eight(key):
    """README section 5: "Per-GPU = system total / number of accelerators"; an HGX node has 8 GPUs."""
    m = measured.get(key)
    assert m.out_tokens_per_s_per_chip == m.out_tokens_per_s_per_node / 8
    assert f"/ 8 GPUs per node = {m.out_tokens_per_s_per_chip:,.2f}" in m.notes  # the derivation is stated


def test_published_figures_as_in_the_readme():
    """README section 5: 22,282 per node on 9 x 8 H100 (batch 256, KV 2,000); 13,386 per GPU on 48
    GB200 ranks (batch 1,408, 2K input); 18,598 per node on 16 nodes (batch 128, KV 4,096)."""
    h100, gb200, ds = (measured.get(k) for k in REQUIRED)
    assert (h100.n_chips, h100.batch_per_chip, h100.len_ctx, h100.out_tokens_per_s_per_node) == (9 * 8, 256, 2000, 22282)
    assert round(h100.out_tokens_per_s_per_chip) == 2785  # the README's bold per-GPU figure
    assert (gb200.n_chips, gb200.batch_per_chip, gb200.len_ctx, gb200.out_tokens_per_s_per_chip) == (48, 1408, 2000, 13386)
    assert (ds.n_chips, ds.batch_per_chip, ds.len_ctx, ds.out_tokens_per_s_per_node) == (16 * 8, 128, 4096, 18598)


def test_kv_bytes_bf16_and_fp8_mla():
    """README 2a: BF16 MLA cache 61 x (512 + 64) x 2 = 70,272 B/token; SGLang's FP8 cache for DeepSeek-V3 is
    one byte for each of the 512 + 64 values, 35,136 B/token, the plain formula at 1 byte (the 656-byte layout
    with FP32 scales and BF16 RoPE, 40,016 B/token, is FlashMLA's for the sparse-attention V3.2 models)."""
    h100, gb200, _ = (measured.get(k) for k in REQUIRED)
    assert h100.kv_bytes == 61 * (512 + 64) * 2 == 70272
    assert gb200.kv_bytes == 61 * (512 + 64) * 1 == 35136
    assert gb200.model.kv_bytes_per_token(1) == gb200.kv_bytes


def test_lmsys_h100_roofline_by_hand():
    """Hand arithmetic, per H100 (datasheet dense FP8 1,978.9 TFLOP/s, BF16 989.4, 3.35 TB/s).

    The lecture's terms: 256 sequences x 37B active x 2 FLOPs = 9.57 ms of compute; 671B FP8 weights over
    72 GPUs = 2.78 ms; 256 x 2,000 tokens x 70,272 B = 10.74 ms of KV reads. Step = max(9.57, 2.78 + 10.74)
    = 13.52 ms, 18,932 tokens/s per GPU. Refined: absorbed MLA adds 2 x 128 heads x (512 + 64 + 512) x 61
    layers = 16,990,208 FLOPs per token of context, at the BF16 rate of the BF16 cache: 256 x 2,000 x
    16,990,208 / 989.4e12 = 8.79 ms more compute, 18.37 ms in all; 18,432 sequences touch every expert.
    """
    m = measured.get("lmsys-h100")
    compute = 256 * 37e9 * 2 / 1.9789e15
    weights = 671e9 * 1.0 / (72 * 3.35e12)
    kv = 256 * 2000 * 70272 / 3.35e12
    step = max(compute, weights + kv)
    t = m.terms(refined=False)
    assert [t["compute"], t["weights"], t["kv"], t["step"]] == pytest.approx([compute, weights, kv, step], rel=1e-12)
    assert step == pytest.approx(13.52e-3, abs=0.01e-3)
    assert m.roofline_tokens_per_s_per_chip(refined=False) == pytest.approx(256 / step, rel=1e-12)
    attention = 256 * 2000 * 16_990_208 / 0.9894e15
    r = m.terms()
    assert r["compute"] == pytest.approx(compute + attention, rel=1e-4)
    assert r["weights"] == pytest.approx(weights, rel=1e-9)  # 1 - (1 - 8/256)^18432 is 1 to double precision
    assert r["step"] == pytest.approx(18.37e-3, abs=0.01e-3) and r["step"] == r["compute"]
    assert m.measured_over_roofline() == pytest.approx((22282 / 8) / (256 / r["step"]), rel=1e-12)
    assert m.measured_step_time_s() == pytest.approx(256 / 2785.25)  # README: "≈92 ms per step (derived)"
    assert round(m.measured_step_time_s() * 1e3) == 92


def test_deployment_batch_is_per_chip_times_chips():
    """A Deployment's step is for B sequences over G chips: B = batch per chip x chips, so the per-chip
    roofline does not depend on how many chips share the work (weights aside)."""
    m = measured.get("DeepSeek profile H800")
    d = m.deployment()
    assert isinstance(d, Deployment) and d.values["n_chips"] == 128 and m.batch == 128 * 128
    assert d.values["kv_bytes"] == m.kv_bytes and d.precision == "fp8" and d.hardware is hardware.get("H100")
    per_chip = d.tokens_per_s(m.batch, m.len_ctx, refined=True) / 128
    assert m.roofline_tokens_per_s_per_chip() == pytest.approx(per_chip)


@pytest.mark.parametrize("key", measured.names())
def test_measured_throughput_stays_under_the_roofline(key):
    """The roofline is a lower bound on step time (decode module docstring), so measured / roofline < 1."""
    m = measured.get(key)
    for refined in (False, True):
        assert 0 < m.measured_over_roofline(refined) < 1
        assert m.measured_step_time_s() > m.terms(refined)["step"]
    assert m.terms()["step"] >= m.terms(refined=False)["step"]  # attention FLOPs only add at full batch


@pytest.mark.parametrize("key", measured.names())
def test_measured_runs_fit_in_memory(key):
    """Each run's batch fits: its KV cache and the weights are within the chips' HBM."""
    m = measured.get(key)
    assert m.batch <= m.deployment().max_batch(m.len_ctx)


@pytest.mark.parametrize("bad", ["H100", "lmsys-h200", "", "SGLang GB300"])
def test_unknown_measurement_names_the_accepted_ones(bad):
    """A misspelt name is a ValueError listing what is accepted (house style, rule 7)."""
    with pytest.raises(ValueError, match=r"unknown measurement .*Accepted: 'LMSYS H100 EP72'"):
        measured.get(bad)


def test_non_string_name_and_bad_fields_raise():
    """Non-string names and non-positive sizes fail at the boundary with the parameter named."""
    with pytest.raises(ValueError, match="measurement must be a name"):
        measured.get(72)
    m = measured.get("LMSYS H100 EP72")
    with pytest.raises(ValueError, match="batch_per_chip"):
        dataclasses.replace(m, batch_per_chip=0)
    with pytest.raises(ValueError, match="precision"):
        dataclasses.replace(m, precision="fp4")  # H100 publishes no FP4 rate
    with pytest.raises(ValueError, match="unknown hardware"):
        dataclasses.replace(m, hardware_key="H800")


def test_speed_cost_pairs_by_hand():
    """InferenceX, B200, DeepSeek-R1 FP8: 4,792 tok/s per GPU at 42 tok/s per user, 1,020 at 71: 1.69x the speed
    for 4.70x the cost per token. MLPerf v5.1 GB300 x 72: Offline 420,659, Server 209,328 tok/s: 2.01x."""
    b200 = measured.SPEED_COST.get("inferencex-b200")
    assert b200.speedup() == pytest.approx(71 / 42) and b200.cost_ratio() == pytest.approx(4792 / 1020)
    gb300 = measured.SPEED_COST.get("MLPerf v5.1 GB300 R1")
    assert gb300.speedup() is None
    assert gb300.cost_ratio() == pytest.approx(420_659 / 209_328, rel=1e-5)  # per-chip values rounded
    assert gb300.slow_tok_s_per_chip == pytest.approx(420_659 / 72, abs=0.01)
    for p in measured.SPEED_COST:
        assert p.cost_ratio() >= 1 and p.source and p.confidence in ("high", "medium", "low")
    with pytest.raises(ValueError, match="fast point must not have the higher throughput"):
        dataclasses.replace(b200, fast_tok_s_per_chip=5000.0)


# -- links: DeepEP's all-to-all tables and the latency + bandwidth fit ---------------------------------
DEEPEP_LL = {  # DeepEP README, low-latency table (H800, CX7 400 Gb/s): EP -> (dispatch us, GB/s, combine us, GB/s)
    8: (77, 98, 114, 127), 16: (118, 63, 195, 74), 32: (155, 48, 273, 53),
    64: (173, 43, 314, 46), 128: (192, 39, 369, 39), 256: (194, 39, 360, 40),
}


def test_link_rows_are_deepeps_tables():
    """Every low-latency row as the README prints it; EP 8 to 256, dispatch and combine."""
    for ep, (td, bd, tc, bc) in DEEPEP_LL.items():
        for op, t, b in (("dispatch", td, bd), ("combine", tc, bc)):
            m = measured.LINKS.get(f"DeepEP LL {op} EP{ep}")
            assert (m.ep, m.tokens_per_gpu, m.hidden, m.top_k) == (ep, 128, 7168, 8)
            assert m.time_s == pytest.approx(t * 1e-6) and m.bandwidth_bytes_per_s == pytest.approx(b * 1e9)
            assert "DeepEP README.md" in m.source and m.date and m.confidence == "high"


def test_payload_agrees_with_deepeps_own_bandwidth_times_latency():
    """Our byte count (128 tokens x 8 copies x 7,168 values; FP8 with an FP32 scale per 128, BF16) against
    the bytes DeepEP's table implies, bandwidth x latency: within 2% on every row that has both."""
    assert 128 * 8 * 7168 * (1 + 4 / 128) == 7_569_408 and 128 * 8 * 7168 * 2 == 14_680_064
    for m in measured.LINKS:
        if m.time_s is not None:
            assert m.bandwidth_bytes_per_s * m.time_s == pytest.approx(m.payload_bytes, rel=0.02), m.key


def test_link_share_by_hand():
    """EP 32 over nodes of 8: 24 of 32 copies leave the node; in one node of 8, 7 of 8 go to other GPUs."""
    assert measured.LINKS.get("DeepEP LL dispatch EP32").link_share == 24 / 32
    assert measured.LINKS.get("DeepEP LL combine EP8").link_share == 7 / 8


@pytest.mark.parametrize("key", measured.LINKS.names())
def test_the_floor_stays_below_every_measurement(key):
    """Link bytes at the datasheet line rate can never be beaten: at or below the published time, or, where
    only a bandwidth is published, the payload at that bandwidth. Rows marked 'shown' are compared too; the
    reason they are not fitted (DeepEP's own de-duplicated byte count) is in their notes."""
    m = measured.LINKS.get(key)
    measured_s = m.time_s if m.time_s is not None else m.payload_bytes / m.bandwidth_bytes_per_s
    assert m.floor_s() <= measured_s, f"{key}: floor {m.floor_s() * 1e6:.0f} us above {measured_s * 1e6:.0f} us"
    if m.use == "shown":
        assert "not fitted" in m.notes


def test_scale_out_fit_against_an_independent_least_squares():
    """alpha and beta from numpy's least squares on the same ten points (EP 16-256, dispatch and combine,
    off-node bytes): 20 us and 41.8 GB/s, 84% of the NIC's 50 GB/s; every residual within 7%."""
    np = pytest.importorskip("numpy")
    rows = [measured.LINKS.get(f"DeepEP LL {op} EP{ep}") for ep in (16, 32, 64, 128, 256)
            for op in ("dispatch", "combine")]
    x = np.array([m.payload_bytes * (m.ep - 8) / m.ep for m in rows])
    t = np.array([m.time_s for m in rows])
    (alpha, inv_beta), *_ = np.linalg.lstsq(np.vstack([np.ones_like(x), x]).T, t, rcond=None)
    fit = measured.fit_link("scale-out")
    assert set(fit.keys) == {m.key for m in rows}
    assert fit.alpha_s == pytest.approx(alpha, rel=1e-9) and fit.beta_bytes_per_s == pytest.approx(1 / inv_beta, rel=1e-9)
    assert round(fit.alpha_s * 1e6) == 20 and round(fit.beta_bytes_per_s / 1e9, 1) == 41.8
    assert max(abs(r) for r in fit.residuals) < 0.07
    for m, r in zip(rows, fit.residuals):  # residuals as measured minus fitted, over measured
        assert r == pytest.approx((m.time_s - fit.time_s(m.link_bytes)) / m.time_s, abs=1e-12)


def test_scale_up_fit_is_two_points_and_exact():
    """One node (EP 8): dispatch and combine fix alpha and beta exactly (no residual to show); the fitted
    NVLink rate stays above what the normal kernels achieve (153-158 GB/s) and near DeepEP's ~160 maximum."""
    fit = measured.fit_link("scale-up")
    assert len(fit.keys) == 2 and max(abs(r) for r in fit.residuals) < 1e-12
    assert 150e9 < fit.beta_bytes_per_s < 200e9 and 20e-6 < fit.alpha_s < 60e-6


def test_the_intercept_moves_with_the_rows_fitted():
    """Dispatches alone and combines alone give intercepts far apart (35 and 6 us): alpha is a fit's intercept,
    not a constant of the link (the docstring and the scoreboard page say so)."""
    alone = {op: measured.fit_link("scale-out", op) for op in ("dispatch", "combine")}
    assert len(alone["dispatch"].keys) == len(alone["combine"].keys) == 5
    assert alone["dispatch"].alpha_s > 25e-6 > 10e-6 > alone["combine"].alpha_s


def test_bad_link_input_names_the_parameter():
    with pytest.raises(ValueError, match="operation"):
        measured.fit_link("scale-out", "allreduce")
    with pytest.raises(ValueError, match="link_class"):
        measured.fit_link("infiniband")
    with pytest.raises(ValueError, match="link_bytes"):
        measured.fit_link("scale-out").time_s(-1)
    row = measured.LINKS.get("DeepEP LL dispatch EP16")
    with pytest.raises(ValueError, match="time_us"):
        dataclasses.replace(row, time_s=None)
    with pytest.raises(ValueError, match="operation"):
        dataclasses.replace(row, operation="allreduce")


def test_a_corrupt_link_row_names_the_file_and_the_row(tmp_path):
    """A copy of links.csv with one number made text, one negative time, one short row: each fails with the
    file name, the row's line and the field."""
    from importlib import resources

    from roofline import registry

    text = resources.files("roofline").joinpath("data", "links.csv").read_text(encoding="utf-8").splitlines()
    header, first = text[0], text[1]
    for bad, match in ((first.replace(",77,", ",fast,"), "row 2: could not convert"),
                       (first.replace(",77,", ",-77,"), r"row 2: .*time_s must be"),
                       (",".join(first.split(",")[:5]), "row 2: 19 columns expected")):
        path = tmp_path / "links.csv"
        path.write_text("\n".join([header, bad]) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"links.csv, {match}"):
            registry.Registry("links.csv", measured._link_row, "link measurement", path=path)


@pytest.mark.parametrize("filename, make", [("measurements.csv", "_from_row"), ("speed_cost.csv", "_speed_cost_row")])
def test_a_corrupt_measurement_row_names_the_file_and_the_row(tmp_path, filename, make):
    """A copy of the decode and speed-cost measurements with one row cut short, or with a chip the registry
    does not hold: each fails with the file's name and the row's line."""
    import csv
    import io
    from importlib import resources

    from roofline import registry

    text = resources.files("roofline").joinpath("data", filename).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    header, first = rows[0], rows[1]
    short = first[:3]
    wrong_chip = [("NoSuchChip" if name == "hardware" else value) for name, value in zip(header, first)]
    cases = [(short, f"{filename}, row 2")]
    if "hardware" in header:
        cases.append((wrong_chip, f"{filename}, row 2"))
    for bad, match in cases:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, bad])
        path = tmp_path / filename
        path.write_text(out.getvalue(), encoding="utf-8")
        with pytest.raises(ValueError, match=match):
            registry.Registry(filename, getattr(measured, make), "measurement", path=path)
