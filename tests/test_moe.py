"""Chapter 2: expert placement, all-to-all bytes and time, capacity bounds, load imbalance.

Each equation against hand arithmetic from the lecture's numbers and the registries' datasheet
figures (GB200: NVLink 5 900 GB/s per direction, ConnectX-7 400 Gb/s = 50 GB/s; DeepSeek-V3:
hidden size 7,168, top-8 of 256 experts, 58 MoE layers), and against a simulation of routing.
"""

import pathlib

import numpy as np
import pytest

from roofline import Deployment, hardware, measured, models, moe, moe_data, registry

V3 = models.get("DeepSeek-V3")
GB200 = hardware.get("GB200")


def test_experts_per_gpu_and_why_64_of_72():
    """256 experts on 64 GPUs: 4 each (00:34:18); 72 does not divide 256, 64 does (00:34:00)."""
    assert moe.experts_per_chip(n_experts=256, n_chips=64) == 4
    assert moe.ep_chips(256, 72) == 64
    assert moe.ep_chips(384, 72) == 64 and moe.ep_chips(128, 8) == 8 and moe.ep_chips(8, 72) == 8
    with pytest.raises(ValueError, match="domain"):
        moe.ep_chips(256, 0)
    with pytest.raises(ValueError, match="whole number"):
        moe.ep_chips(256, 7.5)


def test_fractions_that_leave_the_chip_and_the_rack():
    assert moe.remote_fraction(n_chips=64) == pytest.approx(63 / 64)
    assert moe.cross_rack_fraction(n_racks=2) == 0.5  # "half" (00:39:39)
    assert moe.cross_rack_fraction(n_racks=1) == 0


def test_all_to_all_bytes_by_hand():
    """6,400 sequences over 64 GPUs: 100 tokens each, 8 copies of 7,168 BF16 values, 63/64 of them remote:
    100 x 8 x 7,168 x 2 x 63/64 = 11,289,600 bytes per phase per GPU; over two racks 5,734,400 cross."""
    given = dict(batch=6400, n_chips=64, top_k=8, d_model=7168, act_bytes=2)
    assert moe.a2a_bytes_per_chip(**given) == pytest.approx(11_289_600)
    assert moe.cross_rack_bytes_per_chip(**given, n_racks=2) == pytest.approx(5_734_400)


def test_all_to_all_time_on_one_rack_and_on_two():
    """One rack: 11.29 MB over 900 GB/s = 12.54 us per phase, x 2 phases x 58 layers = 1.455 ms. Two racks:
    5.73 MB over 50 GB/s = 114.7 us per phase (the in-rack 5.56 MB over NVLink takes 6.2 us at once),
    13.30 ms a step: 9.1 times longer. Latency: 2 x 58 x 3.33 us = 0.386 ms."""
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    one = d.evaluate(moe.a2a_bandwidth_time_s, batch=6400, n_racks=1)
    two = d.evaluate(moe.a2a_bandwidth_time_s, batch=6400, n_racks=2)
    assert one == pytest.approx(2 * 58 * 11_289_600 / 900e9)
    assert two == pytest.approx(2 * 58 * 5_734_400 / 50e9)
    assert d.evaluate(moe.a2a_latency_time_s, hop_latency=3.33e-6) == pytest.approx(2 * 58 * 3.33e-6)
    assert d.evaluate(moe.network_ratio) == 18  # GB200: 900 GB/s NVLink over a 400 Gb/s NIC, per direction


def test_network_ratio_per_generation():
    """The lecture's "about 8x" (00:38:47): H100 450/50 = 9, GB300 900/100 = 9, GB200 900/50 = 18."""
    got = {k: moe.network_ratio(scaleup_bw=hardware.get(k).scaleup_bw, scaleout_bw=hardware.get(k).scaleout_bw)
           for k in ("H100", "GB200", "GB300")}
    assert got == {"H100": 9, "GB200": 18, "GB300": 9}


def test_step_with_communication_adds_or_hides_it():
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    given = dict(batch=6400, len_ctx=2048, n_racks=2, hop_latency=3.33e-6)
    core = d.step_time_s(6400, 2048)
    comm = d.evaluate(moe.comm_time_s, **given)
    assert d.evaluate(moe.step_with_comm_s, **given) == pytest.approx(core + comm)
    hidden = moe.step_with_comm_s.under(overlap="full")
    assert d.evaluate(hidden, **given) == pytest.approx(max(core, comm))
    with pytest.raises(ValueError, match="n_racks must not exceed n_chips"):
        d.evaluate(moe.comm_time_s, **(given | {"n_racks": 65}))


def test_capacity_bounds_by_hand():
    """GB200 in FP4 at 1,000 tokens/s per chip: 1e16 / (2 x 1,000) = 5e12 active parameters at most. Half of an
    NVL72's 72 x 198.67 GB for FP4 weights: 0.5 x 72 x 198.67e9 / 0.5 = 14.3e12 total parameters."""
    assert moe.max_active_params(flops=1e16, tok_rate=1000) == pytest.approx(5e12)
    got = moe.max_total_params(weight_share=0.5, n_chips=72, hbm_bytes=GB200.hbm_bytes, bytes_per_param=0.5)
    assert got == pytest.approx(72 * GB200.hbm_bytes)
    with pytest.raises(ValueError, match="weight_share must be at most 1"):
        moe.max_total_params(weight_share=1.5, n_chips=72, hbm_bytes=1e11, bytes_per_param=0.5)


@pytest.mark.parametrize("batch, groups", [(64 * 256, 64), (64 * 16, 64), (512, 256), (4096, 8)])
def test_imbalance_matches_a_simulation(batch, groups):
    """The busiest group's load over the mean: the Gaussian approximation against 2,000 simulated steps."""
    rng = np.random.default_rng(0)
    loads = rng.multinomial(batch * 8, [1 / groups] * groups, size=2000)  # top-8 copies, uniform
    simulated = float(np.mean(loads.max(axis=1)) / (batch * 8 / groups))
    formula = moe.imbalance(batch, 8, groups)
    if batch * 8 / groups >= 50:  # tens of copies per group or more: the normal approximation holds
        assert formula == pytest.approx(simulated, rel=0.02)
    else:  # a few copies per group: skewed counts, the busiest group busier than the normal says
        assert formula < simulated < 1.15 * formula
    assert moe.imbalance(batch, 8, 1) == 1.0


def test_per_rack_dispatch_crosses_once_per_other_rack():
    """Two racks, top-8: per copy, 8 x 1/2 = 4 copies of each token cross; per rack, a token crosses once
    unless all 8 experts sit in its own rack: 1 - 0.5^8 = 0.996 crossings, a quarter of the bytes."""
    given = dict(batch=6400, n_chips=64, top_k=8, d_model=7168, act_bytes=2, n_racks=2)
    per_copy = moe.cross_rack_bytes_per_chip(**given)
    per_rack = moe.cross_rack_bytes_per_chip.under(dispatch="per_rack")(**given)
    assert per_copy == pytest.approx(100 * 7168 * 2 * 4)
    assert per_rack == pytest.approx(100 * 7168 * 2 * (1 - 0.5 ** 8))
    # four racks: 3 x (1 - 0.75^8) = 2.70 crossings against 8 x 3/4 = 6 copies
    four = moe.cross_rack_bytes_per_chip.under(dispatch="per_rack")(**(given | {"n_racks": 4}))
    assert four == pytest.approx(100 * 7168 * 2 * 3 * (1 - 0.75 ** 8))


def test_expected_maximum_of_normals():
    """Blom's approximation against the exact expected maxima, 2.34 for 64 and 2.83 for 256 (tables of normal
    order statistics): within 0.02; the approximation gives 2.81 for 256. 0 for one."""
    assert moe.expected_max_normal(64) == pytest.approx(2.34, abs=0.02)
    assert moe.expected_max_normal(256) == pytest.approx(2.83, abs=0.02)
    assert round(moe.expected_max_normal(256), 2) == 2.81
    assert moe.expected_max_normal(1) == 0


@pytest.mark.parametrize("key", measured.names())
def test_measured_runs_stay_above_the_step_with_the_all_to_all(key):
    """Each published run overlaps its all-to-all with compute as its data row says, so the step with the
    all-to-all under that overlap bounds its step from below: HGX runs send every copy through the NIC
    (n_racks = GPUs), the NVL72 run stays on NVLink; each run's own dispatch (FP8: 1 byte a value, NVFP4:
    0.5) and a BF16 combine. A combine-only overlap hides the combines only behind the down GEMMs and the
    shared expert, which leave the step compute-bound when taken out. The hidden case, max(step,
    all-to-all), stays below too."""
    import dataclasses

    m = measured.get(key)
    d = dataclasses.replace(m.deployment(), activation_precision="bf16")
    racks = m.n_chips if m.n_chips > m.hardware.scaleup_domain else 1
    h100 = hardware.get("H100")
    tier = "scaleout_latency_s" if racks > 1 else "scaleup_latency_s"
    tau = getattr(m.hardware, tier) or getattr(h100, tier)
    given = dict(batch=m.batch, n_racks=racks, hop_latency=tau)
    comm = d.evaluate(moe.comm_time_s, act_bytes=moe_data.act_bytes_per_value(m.a2a_dispatch), **given)
    disp = d.evaluate(moe.comm_time_s, act_bytes=moe_data.act_bytes_per_value(m.a2a_dispatch, m.a2a_dispatch),
                      **given) / 2
    t = m.terms()
    core, hide = t["step"], None
    if m.a2a_overlap == "combine":
        hide = moe_data.combine_hideable_s(m)
        assert t["compute"] - hide >= t["memory"] and core == pytest.approx(t["compute"], rel=1e-12)
    own = moe_data.step_with_a2a_s(core, disp, comm - disp, m.a2a_overlap, hide)
    assert max(core, comm) <= own * (1 + 1e-12) and own < m.measured_step_time_s()
    if hide is not None:  # tighter than the floor that takes the combines as wholly hidden
        assert own > moe_data.step_with_a2a_s(core, disp, comm - disp, "combine")


def test_measured_runs_carry_their_dispatch_and_overlap():
    """The runs' all-to-alls as their sources give them: the H100 and H800 runs dispatch FP8 under two
    micro-batches (LMSYS's TBO; DeepSeek's profile-data README); SGLang's GB200 part II run dispatches NVFP4
    (fused into DeepEP) and overlaps only the combine, with the down GEMM and the shared experts."""
    got = {k: (measured.get(k).a2a_dispatch, measured.get(k).a2a_overlap) for k in measured.names()}
    assert got == {"LMSYS H100 EP72": ("fp8", "two-batch"), "SGLang GB200 NVL72": ("nvfp4", "combine"),
                   "DeepSeek profile H800": ("fp8", "two-batch")}
    gb = measured.get("SGLang GB200 NVL72")
    assert "combine communication with both the down GEMM and the shared experts" in gb.source
    assert "Fusing NVFP4 in DeepEP" in gb.source and "two micro-batches" in measured.get("deepseek-profile").source
    import dataclasses
    with pytest.raises(ValueError, match=r"a2a_overlap must be one of \['two-batch', 'combine', 'none'\]"):
        dataclasses.replace(gb, a2a_overlap="three-batch")
    with pytest.raises(ValueError, match="a2a_dispatch must be one of"):
        dataclasses.replace(gb, a2a_dispatch="fp4")


def test_step_with_the_all_to_all_under_each_overlap():
    """By hand, a 20 ms step with 5 ms of dispatches and 15 of combines: two micro-batches hide all 20 of
    all-to-all (20 ms), a combine-only overlap leaves the dispatches (25 ms), none adds both (40 ms); with
    30 ms of all-to-all two micro-batches give 30. Arrays work; bad names and negative times are refused."""
    f = moe_data.step_with_a2a_s
    assert [f(20, 5, 15, o) for o in ("two-batch", "combine", "none")] == [20, 25, 40]
    assert f(20, 10, 20, "Two-Batch") == 30
    assert f(np.array([10.0, 30.0]), 5, 15, "two-batch") == pytest.approx([20, 30])
    with pytest.raises(ValueError, match="unknown overlap 'tbo'.*Accepted: 'two-batch'"):
        f(20, 5, 15, "tbo")
    with pytest.raises(ValueError, match="dispatch_s must be a finite number >= 0"):
        f(20, -5, 15, "none")


def test_combine_hidden_only_behind_the_work_beside_it():
    """By hand, a 20 ms step with 5 ms of dispatches and 15 of combines under a combine-only overlap: 3 ms of
    work beside the combines leaves 17 ms that hide nothing, so 17 + 5 + max(15, 3) = 37 ms; 18 ms of it,
    more than the combines, gives the wholly hidden floor, 20 + 5 = 25. Refused: that work longer than the
    step, negative, or with another overlap."""
    f = moe_data.step_with_a2a_s
    assert f(20, 5, 15, "combine", hideable_s=3) == 37
    assert f(20, 5, 15, "combine", 18) == f(20, 5, 15, "combine") == 25
    assert f(np.array([20.0, 40.0]), 5, 15, "combine", 3) == pytest.approx([37, 57])
    with pytest.raises(ValueError, match="hideable_s must be at most core_s"):
        f(20, 5, 15, "combine", 21)
    with pytest.raises(ValueError, match="hideable_s must be a finite number >= 0"):
        f(20, 5, 15, "combine", -1)
    with pytest.raises(ValueError, match="hideable_s applies to overlap 'combine' only; got overlap 'none'"):
        f(20, 5, 15, "none", 3)


def test_combine_hideable_work_of_the_gb200_run():
    """SGLang's GB200 run, by hand: 1,408 tokens per GPU x 58 MoE layers x (8 down GEMMs + 3 shared-expert
    matrices) x 2 x 7,168 x 2,048 FLOP = 26.4 TFLOP, at GB200's FP4 10 PFLOP/s: 2.64 ms. By key or by
    Measurement; anything else refused."""
    by_hand = 1408 * 58 * 11 * 2 * 7168 * 2048 / 10e15
    assert by_hand == pytest.approx(2.6374e-3, rel=1e-4)
    assert moe_data.combine_hideable_s("SGLang GB200 NVL72") == pytest.approx(by_hand, rel=1e-12)
    assert moe_data.combine_hideable_s(measured.get("SGLang GB200 NVL72")) == pytest.approx(by_hand, rel=1e-12)
    with pytest.raises(TypeError, match="run must be a Measurement or its key"):
        moe_data.combine_hideable_s(3)
    with pytest.raises(ValueError, match="no-such-run"):
        moe_data.combine_hideable_s("no-such-run")


def test_layouts_split_one_domain_or_add_each_racks_gpus():
    """Split: the 64 GPUs of one NVL72 over 2 racks, 32 each. Widen: 2 x 72 = 144 GPUs of which 128 split
    256 experts (2 each); on 8-GPU H100 nodes, 4 nodes hold 32 GPUs (8 experts each); a 32-GPU layer
    over 64 racks counts 32 racks."""
    assert moe.layout_chips(256, 72, 2) == (64, 2)
    assert moe.layout_chips(256, 72, 2, "widen") == (128, 2)
    assert moe.layout_chips(256, 8, 4, "widen") == (32, 4)
    assert moe.layout_chips(256, 8, 64, "widen") == (256, 64)
    assert moe.layout_chips(32, 8, 64, "widen") == (32, 32)
    assert moe.layout_chips(384, 72, 1, "widen") == moe.layout_chips(384, 72, 1) == (64, 1)
    with pytest.raises(ValueError, match="layout"):
        moe.layout_chips(256, 72, 2, "stretch")
    with pytest.raises(ValueError, match="n_racks"):
        moe.layout_chips(256, 72, 1.5)


def test_dispatch_in_fp8_and_combine_in_bf16():
    """(1 + 2) / 2 = 1.5 bytes per value; the two phases at their own bytes take the time of two at the mean:
    6,400 sequences on 64 GB200s in one rack, 100 x 8 x 7,168 x 63/64 = 5,644,800 values a phase per GPU,
    at 1 byte (dispatch) and 2 (combine) over 900 GB/s, 58 layers."""
    assert moe_data.act_bytes_per_value() == 1.5
    assert moe_data.act_bytes_per_value("bf16", "bf16") == 2.0
    assert moe_data.act_bytes_per_value("FP8", 2) == 1.5
    d = Deployment(V3, GB200, precision="fp4", n_chips=64)
    both = d.evaluate(moe.a2a_bandwidth_time_s, batch=6400, n_racks=1, act_bytes=moe_data.act_bytes_per_value())
    assert both == pytest.approx(58 * (5_644_800 * 1 + 5_644_800 * 2) / 900e9)
    for racks in (2, 4):  # across racks too: one half at 1 byte plus one at 2 is two at 1.5
        halves = [d.evaluate(moe.a2a_bandwidth_time_s, batch=6400, n_racks=racks, act_bytes=b) / 2 for b in (1, 2)]
        got = d.evaluate(moe.a2a_bandwidth_time_s, batch=6400, n_racks=racks, act_bytes=1.5)
        assert got == pytest.approx(sum(halves))
    # a measured run's NVFP4 dispatch: half a byte a value (scales left out, as for FP8): (0.5 + 2) / 2
    assert moe_data.act_bytes_per_value("nvfp4") == moe_data.act_bytes_per_value("fp4") == 1.25
    assert moe_data.act_bytes_per_value("NVFP4", "nvfp4") == 0.5
    with pytest.raises(ValueError, match="dispatch"):
        moe_data.act_bytes_per_value("fp16")
    with pytest.raises(ValueError, match="combine"):
        moe_data.act_bytes_per_value("fp8", -1)


def test_link_values_floor_and_calibrated():
    """Floor: the H800's 64-byte latencies (3.33 us NVLink, 2.8 us InfiniBand) where the chip has none, the
    datasheet links; across racks the larger of the two tiers' (3.33 us). Calibrated: DeepEP's EP8 pair
    through a line (77 us at 6.62 MB, 114 us at 12.85 MB on NVLink: intercept 37.6 us, slope 168 GB/s, 84%
    of the H800's nominal 200 GB/s, so GB200's 900 GB/s becomes 757), the InfiniBand fit's 20.0 us and its
    41.8 GB/s of 50 (GB300's 100 GB/s NIC at the same share); across racks tau = max(37.6, 20.0) us."""
    gb = {"scaleup_bw": 900e9, "scaleout_bw": 50e9}
    assert moe_data.link_values("GB200", 1, "floor") == {"hop_latency": 3.33e-6, **gb}
    assert moe_data.link_values("GB200", 2, "floor") == {"hop_latency": 3.33e-6, **gb}
    x = [128 * 8 * 7168 * b * 7 / 8 for b in (1.03125, 2)]
    slope = (114e-6 - 77e-6) / (x[1] - x[0])
    alpha_up = 77e-6 - x[0] * slope
    one = moe_data.link_values("GB200", 1)
    assert one["hop_latency"] == pytest.approx(alpha_up, rel=1e-9)
    assert alpha_up == pytest.approx(37.6e-6, abs=0.1e-6)
    assert 1 / slope == pytest.approx(168.2e9, rel=1e-3)
    assert one["scaleup_bw"] == pytest.approx(900e9 * (1 / slope) / 200e9, rel=1e-9)
    two = moe_data.link_values("GB200", 2)
    assert two["hop_latency"] == pytest.approx(alpha_up, rel=1e-9)  # NVLink's, the larger
    assert measured.fit_link("scale-out").alpha_s == pytest.approx(19.97e-6, abs=0.01e-6)
    assert two["scaleout_bw"] == pytest.approx(41.85e9, rel=1e-3)
    assert moe_data.link_values("GB300", 2)["scaleout_bw"] == pytest.approx(2 * two["scaleout_bw"])
    with pytest.raises(ValueError, match="links"):
        moe_data.link_values("GB200", 2, "measured")
    with pytest.raises(ValueError, match="scale-out"):
        moe_data.link_values("Ironwood", 2)


def test_scaleup_racks_in_packages_and_dies():
    """GB200 NVL72: 72 packages of 2 dies (144). Rubin Ultra NVL576: 144 packages of 4 (576). The lecture's
    "genuine 4x" (00:41:21) is the dies, 576 / 144; in packages it is 144 / 72 = 2."""
    nvl72, nvl576 = moe_data.RACKS.get("GB200 NVL72"), moe_data.RACKS.get("Rubin Ultra NVL576")
    assert (nvl72.packages, nvl72.dies, nvl72.name_count) == (72, 144, 72)
    assert (nvl576.packages, nvl576.dies, nvl576.name_count) == (144, 576, 576)
    assert nvl576.dies / nvl72.dies == 4 and nvl576.packages / nvl72.packages == 2
    assert moe_data.RACKS.get("GB200 NVL72").packages == hardware.get("GB200").scaleup_domain
    assert moe_data.RACKS.get("Vera Rubin NVL144").packages == hardware.get("Rubin").scaleup_domain
    for r in moe_data.RACKS:
        assert r.source and r.regime and r.date and r.confidence in ("high", "medium", "low")


def test_a_corrupt_rack_row_names_the_file_and_the_row(tmp_path):
    """A name that counts neither packages nor dies, text where a count belongs, a short row: each fails
    naming scaleup_racks.csv and the row's line."""
    from importlib import resources

    from roofline import registry

    text = resources.files("roofline").joinpath("data", "scaleup_racks.csv").read_text(encoding="utf-8")
    header, first, *rest = text.splitlines()
    assert first.startswith("HGX H100,")
    for bad, match in ((first.replace(",8,1,8,", ",8,1,9,"), r"row 2: .*counts neither"),
                       (first.replace(",8,1,8,", ",eight,1,8,"), "row 2: invalid literal"),
                       (first.replace(",8,1,8,", ",8,1,8,planned,"), "row 2: 13 columns expected"),
                       (",".join(first.split(",")[:5]), "row 2: 13 columns expected")):
        path = tmp_path / "scaleup_racks.csv"
        path.write_text("\n".join([header, bad, *rest]) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"scaleup_racks.csv, {match}"):
            registry.Registry("scaleup_racks.csv", moe_data._rack_row, "scale-up rack", path=path)


def test_anchors_read_and_a_corrupt_row_names_the_file_and_the_row(tmp_path):
    """pplx-kernels' one-token NVLink all-to-alls (41.6 and 41.7 us) and the GB200 bandwidths as published."""
    assert moe_data.ANCHORS.get("pplx NVLink dispatch EP8 1 tok").si == pytest.approx(41.6e-6)
    assert moe_data.ANCHORS.get("Hybrid-EP GB200 highest").si == pytest.approx(713.98e9)
    for a in moe_data.ANCHORS:
        assert a.source and a.regime
    text = (pathlib.Path(moe_data.__file__).parent / "data" / "moe_a2a_anchors.csv").read_text()
    path = tmp_path / "moe_a2a_anchors.csv"
    path.write_text(text.replace(",41.6,", ",fast,", 1))
    with pytest.raises(ValueError, match=r"moe_a2a_anchors\.csv, row 2"):
        registry.Registry("moe_a2a_anchors.csv", moe_data._anchor_row, "all-to-all anchor", path=path)


def test_pplx_ibgda_anchors_as_published_and_bounded_by_the_fastest_and_slowest_rows():
    """pplx-kernels' one-token IBGDA times (README, '1 token per GPU'): the dispatch from 102.7 us at EP16 to
    125.9 us at EP128, the combine from 55.4 us (EP32) to 63.2 us (EP128), 62.7 us at EP16; the 'fastest' and
    'slowest' rows bound every IBGDA row, and the dispatch grows 23% for 8x the peers. A DeepSeek-V3 step's
    58 dispatch + combine pairs at one EP size: 58 x (102.7 + 62.7) us = 9.59 ms at EP16 and
    58 x (125.9 + 63.2) us = 10.97 ms at EP128 (by hand; the README's EP32 and EP64 pairs, 9.92 and
    10.42 ms, fall between)."""
    get = moe_data.ANCHORS.get
    d16, d128 = get("pplx IBGDA dispatch EP16 1 tok"), get("pplx IBGDA a2a 1 tok slowest")
    c32, c128 = get("pplx IBGDA a2a 1 tok fastest"), get("pplx IBGDA combine EP128 1 tok")
    c16 = get("pplx IBGDA combine EP16 1 tok")
    assert (d16.operation, d16.ep, d16.si) == ("dispatch", 16, pytest.approx(102.7e-6))
    assert (d128.operation, d128.ep, d128.si) == ("dispatch", 128, pytest.approx(125.9e-6))
    assert (c32.operation, c32.ep, c32.si) == ("combine", 32, pytest.approx(55.4e-6))
    assert (c128.operation, c128.ep, c128.si) == ("combine", 128, pytest.approx(63.2e-6))
    assert (c16.operation, c16.ep, c16.si) == ("combine", 16, pytest.approx(62.7e-6))
    ibgda = [a for a in moe_data.ANCHORS if a.kernel == "pplx-kernels IBGDA"]
    assert len(ibgda) == 5 and all(a.unit == "us" and a.tokens_per_gpu == 1 for a in ibgda)
    assert min(a.value for a in ibgda) == c32.value and max(a.value for a in ibgda) == d128.value
    assert d128.ep / d16.ep == 8 and d128.value / d16.value - 1 == pytest.approx(0.226, abs=1e-3)
    assert 58 * (d16.si + c16.si) == pytest.approx(9.59e-3, abs=5e-6)
    assert 58 * (d128.si + c128.si) == pytest.approx(10.97e-3, abs=5e-6)


def test_trtllm_gb200_anchors_as_published():
    """NVIDIA's TensorRT-LLM one-sided NVLink all-to-all on GB200 NVL72 (tech blog 18, ep_size=64 table,
    BF16 both ways, DeepSeek-V3 profile): dispatch / combine 27.8 / 32.6 us at 1 token per GPU, 28.8 / 37.7
    at 64 and 41.6 / 44.5 at 128. Per step of 58 pairs, by hand: 3.503, 3.857 and 4.994 ms."""
    get = moe_data.ANCHORS.get
    want = {1: (27.8, 32.6, 3.503e-3), 64: (28.8, 37.7, 3.857e-3), 128: (41.6, 44.5, 4.994e-3)}
    for tok, (d_us, c_us, step_s) in want.items():
        d = get(f"TRT-LLM NVLinkOneSided dispatch EP64 {tok} tok")
        c = get(f"TRT-LLM NVLinkOneSided combine EP64 {tok} tok")
        for a, op, us in ((d, "dispatch", d_us), (c, "combine", c_us)):
            assert (a.operation, a.ep, a.tokens_per_gpu, a.unit) == (op, 64, tok, "us")
            assert a.si == pytest.approx(us * 1e-6) and "GB200" in a.system and "BF16" in a.regime
        assert 58 * (d.si + c.si) == pytest.approx(step_s, abs=1e-6)


def test_trtllm_tables_as_published_and_their_bandwidths_follow_the_blogs_formula(tmp_path):
    """Tech blog 18's four GB200 NVL72 tables: 12 rows each (1 to 2,048 tokens per GPU) at ep_size 8, 16, 32
    and 64. Every printed GB/s is batch x min(ep, 8) x 14,336 B / time within 1% (a transcription check);
    the one-token dispatches at EP8, 16 and 32 are 18.9, 18.8 and 19.8 us, combines 31.0, 30.8, 31.4 us
    (the anchor rows' note gives 18.8-19.8 and 30.8-31.4); the EP64 anchor rows agree with the table."""
    rows = list(moe_data.TRTLLM_A2A)
    assert len(rows) == 48 and sorted({r.ep for r in rows}) == [8, 16, 32, 64]
    for r in rows:
        for us, gbs in ((r.dispatch_us, r.dispatch_gbs), (r.combine_us, r.combine_gbs)):
            assert r.tokens_per_gpu * min(r.ep, 8) * 14336 / (us * 1e-6) / 1e9 == pytest.approx(gbs, rel=0.01)
        assert f"ep_size={r.ep} table, batch size {r.tokens_per_gpu}" in r.source
    one = {r.ep: (r.dispatch_us, r.combine_us) for r in rows if r.tokens_per_gpu == 1}
    assert one == {8: (18.9, 31.0), 16: (18.8, 30.8), 32: (19.8, 31.4), 64: (27.8, 32.6)}
    note = moe_data.ANCHORS.get("TRT-LLM NVLinkOneSided dispatch EP64 1 tok").notes
    assert "dispatch 18.8-19.8 us, combine 30.8-31.4 us" in note and "ep_size = 8, 16 and 32 tables" in note
    for tok in (1, 64, 128):
        for op in ("dispatch", "combine"):
            a = moe_data.ANCHORS.get(f"TRT-LLM NVLinkOneSided {op} EP64 {tok} tok")
            assert moe_data.trtllm_a2a_s(op, 64, tok) == pytest.approx(a.si)
    text = (pathlib.Path(moe_data.__file__).parent / "data" / "trtllm_a2a.csv").read_text()
    path = tmp_path / "trtllm_a2a.csv"
    path.write_text(text.replace(",27.8,", ",slow,", 1))
    with pytest.raises(ValueError, match=r"trtllm_a2a\.csv, row 38"):
        registry.Registry("trtllm_a2a.csv", moe_data._trt_row, "TensorRT-LLM all-to-all row", path=path)


def test_trtllm_a2a_reads_between_rows_and_at_the_bytes_of_an_fp8_dispatch():
    """By hand, linear between the EP64 rows: at 88.5 tokens per GPU a dispatch is 28.8 + 24.5/64 x 12.8 =
    33.7 us and a combine 37.7 + 24.5/64 x 6.8 = 40.3 us, 58 pairs 4.29 ms. An MXFP8 dispatch (7,392 B a
    token against 14,336) of n tokens is read at 0.5156 n BF16 tokens: at 64 and 128 tokens 58 x (23.3 +
    37.7) = 3.54 ms and 58 x (29.2 + 44.5) = 4.27 ms. The rule gives 170.8 us for the blog's measured MXFP8
    dispatch of 2,048 tokens at EP8, 172.2 us (within 1%). At 1,408 tokens per GPU, 58 pairs: 31.6 ms (EP64,
    BF16), 24.3 ms (EP64, MXFP8 dispatch), 30.5 / 23.7 ms at EP32; with the NVFP4 dispatch SGLang's GB200 run
    sent (4,032 B: 396 BF16 tokens), 20.7 ms (EP64) and 20.3 ms (EP32). NVFP4 at 2,048 tokens on 8 GPUs:
    99.1 us by the rule, 101.7 measured."""
    f = moe_data.trtllm_a2a_s
    assert f("dispatch", 64, 88.5) == pytest.approx(33.70e-6, abs=5e-9)
    assert f("combine", 64, 88.5) == pytest.approx(40.30e-6, abs=5e-9)
    assert f("combine", 64, 88.5, "mxfp8") == f("combine", 64, 88.5)
    assert f("dispatch", 64, [64, 88.5, 128]) == pytest.approx([28.8e-6, 33.70e-6, 41.6e-6], abs=5e-9)
    assert 58 * (f("dispatch", 64, 64, "mxfp8") + f("combine", 64, 64)) == pytest.approx(3.54e-3, abs=5e-6)
    assert 58 * (f("dispatch", 64, 128, "mxfp8") + f("combine", 64, 128)) == pytest.approx(4.27e-3, abs=5e-6)
    assert f("dispatch", 8, 2048, "MXFP8") == pytest.approx(moe_data.TRTLLM_MXFP8_2048_US * 1e-6, rel=0.01)
    # the table's second checkpoint: NVFP4 (4,032 B) read at 576 BF16 tokens, 89.5 + 64/512 x 76.8 = 99.1 us
    # against 101.7 measured, 2.6% short (MXFP8: 0.8% short); DeepSeek's FP8 reads MXFP8's bytes
    nv = f("dispatch", 8, 2048, "nvfp4")
    assert nv == pytest.approx(99.1e-6, abs=5e-9)
    assert 1 - nv / (moe_data.TRTLLM_NVFP4_2048_US * 1e-6) == pytest.approx(0.026, abs=5e-4)
    assert 1 - f("dispatch", 8, 2048, "mxfp8") / 172.2e-6 == pytest.approx(0.008, abs=5e-4)
    assert f("dispatch", 64, 1408, "fp8") == f("dispatch", 64, 1408, "mxfp8")
    want = {(64, "bf16"): 31.6e-3, (64, "mxfp8"): 24.3e-3, (32, "bf16"): 30.5e-3, (32, "mxfp8"): 23.7e-3,
            (64, "nvfp4"): 20.7e-3, (32, "nvfp4"): 20.3e-3}
    for (ep, rec), step in want.items():
        assert 58 * (f("dispatch", ep, 1408, rec) + f("combine", ep, 1408)) == pytest.approx(step, abs=5e-5)


@pytest.mark.parametrize("kwargs, match", [
    (dict(operation="both", ep=64, tokens_per_gpu=1), "unknown operation 'both'.*Accepted: 'dispatch'"),
    (dict(operation="dispatch", ep=48, tokens_per_gpu=1), r"ep must be one of .*\[8, 16, 32, 64\]; got 48"),
    (dict(operation="dispatch", ep=64, tokens_per_gpu=4096), "tokens_per_gpu must give 1 to 2048.*got 4096"),
    (dict(operation="dispatch", ep=64, tokens_per_gpu=[8, 4096]), r"tokens_per_gpu must give .*got \[8, 4096\]"),
    (dict(operation="dispatch", ep=64, tokens_per_gpu=1, dispatch="mxfp8"), "tokens_per_gpu.*read as 0.5"),
    (dict(operation="combine", ep=64, tokens_per_gpu=0), "tokens_per_gpu must be a finite number > 0"),
    (dict(operation="dispatch", ep=64, tokens_per_gpu=8, dispatch="fp2"), "unknown dispatch 'fp2'.*'mxfp8'"),
])
def test_trtllm_a2a_refuses_what_the_tables_do_not_hold(kwargs, match):
    with pytest.raises(ValueError, match=match):
        moe_data.trtllm_a2a_s(**kwargs)
