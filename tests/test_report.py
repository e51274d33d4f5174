"""Your model, your hardware: ``roofline.report`` and ``python -m roofline report``.

For every config under ``tests/data/hf_configs`` the report's numbers are the chapters' own library calls, made
here again as each chapter's notebook makes them (with the chapters' defaults written out: chapter 1's 256-token
context, chapter 2's 2,048 tokens and calibrated links, chapter 4's micro-batches of 64 at 8,192 tokens, chapter
5's 50M tokens/s for two months at a decode MFU of a third, the lecture's $2 per GPU-hour and 200K-token step).
The command line prints the same table, its JSON holds the same numbers, and a bad input is one line and status 2.
"""

import dataclasses
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

import roofline
from roofline import (Deployment, decode, hardware, hf, lecture, measured, memory, model_report, models, moe,
                      moe_data, pipeline, serving, training)
from roofline.__main__ import main
from roofline.figures import decode as fdec
from roofline.figures import memory as fmem
from roofline.figures import moe as fmoe
from roofline.figures import training as ftr

HF = pathlib.Path(__file__).parent / "data" / "hf_configs"
CONFIGS = sorted(p for p in HF.iterdir() if (p / "config.json").is_file())
CHIPS = [("H100", "fp8"), ("GB200", "fp4")]
CASES = [(c, chip, p) for c in CONFIGS for chip, p in CHIPS]
LIB = pathlib.Path(roofline.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def reports():
    """One report per (config, chip), made once for the module."""
    return {(c.name, chip): roofline.report(c, chip, precision=p) for c, chip, p in CASES}


# -- the chapters' defaults -----------------------------------------------------------------------------------
def test_the_defaults_are_the_chapters():
    """Each default is what the chapter's live figure starts at, or the lecture's number."""
    d = model_report.defaults()
    assert d["ch1_context_tokens"] == fdec.live().defaults["context"] == 256
    assert d["gpu_price_usd_per_hour"] == lecture.CH1["gpu_price"].value == 2
    ch2 = fmoe.live().defaults
    ours = (d["ch2_context_tokens"], d["ch2_links"], d["ch2_layout"])
    assert ours == (ch2["context"], ch2["links"], ch2["layout"]) == (2048, "calibrated", "split")
    assert (d["ch2_dispatch"], d["ch2_combine"]) == fmoe.LIVE_ACTIVATIONS == ("fp8", "bf16")
    ch4 = fmem.live().defaults
    assert (d["ch4_micro_batch"], d["ch4_context_tokens"]) == (ch4["micro"], ch4["context"]) == (64, 8192)
    ch5 = ftr.live().defaults
    assert d["ch5_traffic_tokens_per_s"] == ch5["traffic"] == lecture.CH5["traffic_model"].value
    assert d["ch5_months"] == ch5["months"] == lecture.CH5["deploy_months"].value
    assert (d["ch5_decode_mfu"], d["ch5_law"], d["ch5_month_s"]) == (ch5["decode_mfu"], ch5["law_name"], ftr.MONTH)
    assert d["ch6_step_tokens"] == lecture.CH6["price_step_tokens"].value == 200e3


# -- the numbers are the chapters' calls ---------------------------------------------------------------------------
def expected(config, chip, precision):
    """Every number of the report, computed here as the chapters' notebooks compute them."""
    m, hw = hf.from_hf_config(config), hardware.get(chip)
    price = lecture.CH1["gpu_price"].value
    out = {"total_params": m.total_params, "active_params": m.active_params}

    def deploy(n_chips=None):
        return Deployment(m, hw, precision=precision, n_chips=n_chips, price_usd_per_hour=price)

    d1 = deploy()
    out["weight_bytes"] = d1.evaluate(memory.weights_per_gpu_bytes, n_chips=1, n_stages=1)
    out["weight_chips"] = math.ceil(out["weight_bytes"] / hw.hbm_bytes)
    out["n_chips"] = d1.n_chips_used
    # chapter 1 (cells 24, 35, 57, 85): the bend, the floor and the wall at the board's context
    L1 = 256
    out["ch1_balance_batch"] = d1.balance_batch()
    out["ch1_balance_batch_with_kv"] = d1.balance_batch(len_ctx=L1)
    out["ch1_kv_bound_context"] = d1.balance_context()
    out["ch1_cost_floor_usd_per_token"] = d1.evaluate(decode.cost_floor_usd, len_ctx=L1)
    out["ch1_max_batch"] = d1.max_batch(L1)
    # chapter 2 (cells 11, 19, 28): experts over one rack's GPUs at the group's balance batch, 2,048 tokens
    L2, act = 2048, moe_data.act_bytes_per_value("fp8", "bf16")
    if m.routed_experts:
        g_ep = moe.ep_chips(m.routed_experts, hw.scaleup_domain)
        ep = deploy(g_ep)
        b = ep.balance_batch()
        out |= {"ch2_ep_chips": g_ep, "ch2_experts_per_chip": moe.experts_per_chip(n_experts=m.routed_experts,
                                                                                   n_chips=g_ep),
                "ch2_batch": b, "ch2_max_batch": ep.max_batch(L2), "ch2_step_s": ep.step_time_s(b, L2)}
        for racks, key in ((1, "ch2_a2a_one_rack_s"), (2, "ch2_a2a_two_racks_s")):
            chips, n_racks = moe.layout_chips(m.routed_experts, hw.scaleup_domain, racks, "split")
            out[key] = deploy(chips).evaluate(moe.comm_time_s, batch=b, n_racks=n_racks, act_bytes=act,
                                              **moe_data.link_values(chip, n_racks, "calibrated"))
        stage = ep
        out["ch3_min_stage_layers"] = pipeline.min_stage_layers(top_k=m.active_routed_experts, n_chips=g_ep,
                                                                scaleup_bw=hw.scaleup_bw, scaleout_bw=hw.scaleout_bw)
    else:
        for key in ("ch2_ep_chips", "ch2_experts_per_chip", "ch2_batch", "ch2_max_batch", "ch2_step_s",
                    "ch2_a2a_one_rack_s", "ch2_a2a_two_racks_s", "ch3_min_stage_layers"):
            out[key] = None
        stage = deploy(hw.scaleup_domain)  # one scale-up domain: 8 H100s, an NVL72 (the replica, here)
    # chapters 3 and 4 (chapter 4's cells 13 and 24): stages to fit micro-batches of 64 at 8,192 tokens, the hop
    # on the link fitted to DeepEP's all-to-alls, the loop, memory per GPU
    mb, L4 = 64, 8192
    fit = measured.fit_link("scale-out")
    calib = dict(hop_latency=fit.alpha_s, scaleout_bw=fit.beta_bytes_per_s)
    p_fit = math.ceil(stage.evaluate(memory.stages_to_fit, micro_batch=mb, len_ctx=L4))
    token = stage.evaluate(pipeline.loop_token_time_s, batch=mb, len_ctx=L4, n_stages=p_fit, **calib)
    work = p_fit * stage.evaluate(pipeline.stage_time_s, batch=mb, len_ctx=L4, n_stages=p_fit)
    out |= {"ch3_stage_chips": stage.n_chips_used, "ch3_stages_to_fit": p_fit,
            "ch3_hop_s": stage.evaluate(pipeline.hop_time_s, batch=mb, **calib), "ch3_token_s": token,
            "ch3_loop_hops_s": token - work}
    at = dict(micro_batch=mb, len_ctx=L4)
    out |= {"ch4_weights_per_gpu_bytes": stage.evaluate(memory.weights_per_gpu_bytes, n_stages=p_fit),
            "ch4_kv_per_gpu_bytes": stage.evaluate(memory.kv_per_gpu_bytes, **at),
            "ch4_memory_per_gpu_bytes": stage.evaluate(memory.memory_per_gpu_bytes, **at, n_stages=p_fit),
            "ch4_memory_one_stage_bytes": stage.evaluate(memory.memory_per_gpu_bytes, **at, n_stages=1),
            "ch4_kv_crossover_stages": stage.evaluate(memory.kv_crossover_stages, **at)}
    # chapter 5 (cells 26 and 59, the figure's Chinchilla point): 50M tokens/s for two months, decode MFU 1/3
    served = training.tokens_served(traffic=50e6, deploy_s=2 * ftr.MONTH)
    cmp = training.compare(m.active_params, served, decode_mfu=1 / 3, law_name="epoch")
    chin = training.optimal_for_loss(cmp.loss, 0.0, "epoch")
    out |= {"ch5_tokens_served": served, "ch5_equal_cost_tokens": cmp.heuristic.tokens_pre,
            "ch5_chinchilla_tokens": cmp.chinchilla_heuristic, "ch5_loss": cmp.loss,
            "ch5_compute_optimal_params": chin.n_active, "ch5_compute_optimal_tokens": chin.tokens_pre,
            "ch5_serving_aware_params": cmp.optimum.n_active, "ch5_serving_aware_tokens": cmp.optimum.tokens_pre,
            "ch5_excess_cost": cmp.excess_cost}
    # chapter 6 (cells 8-24): the KV bytes, the crossover they put the price step at, the bytes a 200K step implies
    out |= {"ch6_kv_bytes_per_token": d1.values["kv_bytes"], "ch6_kv_bytes_at_step": d1.kv_bytes_at(200e3),
            "ch6_price_step_tokens": d1.balance_context(),
            "ch6_kv_bytes_for_step": d1.evaluate(serving.kv_bytes_at_crossover, len_ctx=200e3)}
    return {k: None if v is None or not math.isfinite(v) else float(v) for k, v in out.items()}


@pytest.mark.parametrize("config, chip, precision", CASES, ids=[f"{c.name}-{h}" for c, h, _ in CASES])
def test_the_numbers_are_the_chapters_calls(reports, config, chip, precision):
    """Every number of the report equals the chapter's library call, made here directly."""
    got = reports[config.name, chip].numbers
    assert got == expected(config, chip, precision)


def test_the_readme_and_the_configs_cover_moe_dense_and_windows(reports):
    """The configs hold a dense model (Llama), windowed layers (gpt-oss) and MLA: the report handles each."""
    dense = reports["llama3_1_70b", "H100"]
    rows = {r.key: r for r in dense.rows}
    for key in ("ch2_ep_chips", "ch2_a2a_one_rack_s", "ch2_a2a_two_racks_s", "ch3_min_stage_layers"):
        assert rows[key].value is None and rows[key].text == "dense: no experts"
    oss = reports["gpt_oss_120b", "H100"].numbers
    assert oss["ch6_kv_bytes_at_step"] > oss["ch6_kv_bytes_per_token"]  # windows hold their 128 tokens
    v3 = reports["deepseek_v3", "GB200"].numbers
    assert v3["ch2_ep_chips"] == 64 and v3["ch6_kv_bytes_per_token"] == 70_272
    assert v3["ch2_a2a_two_racks_s"] > v3["ch2_a2a_one_rack_s"]


def test_the_table_is_88_columns_and_names_its_defaults(reports):
    """Every line fits 88 columns; each chapter names the defaults it takes."""
    for r in reports.values():
        text = str(r)
        assert max(map(len, text.splitlines())) <= 88
        assert text.splitlines()[0] == r.title
        for needle in ("context 256 tokens", "$2 per GPU-hour", "context 2,048 tokens", "calibrated links",
                       "64 sequences at 8,192 tokens", "50M tokens/s for 2 months", "200,000 tokens"):
            assert needle in " ".join(text.split()), needle
    assert "<table>" in reports["deepseek_v3", "H100"]._repr_html_()


def test_inputs_as_objects_and_chip_files(tmp_path):
    """A Model and a Hardware work as well as a path and a name; a chip file (JSON or YAML) is a chip row."""
    by_path = roofline.report(HF / "mixtral_8x7b" / "config.json", "H100", "fp8")
    m = hf.from_hf_config(HF / "mixtral_8x7b")
    assert roofline.report(m, hardware.get("H100"), "fp8").numbers == by_path.numbers
    (tmp_path / "h100.json").write_text(json.dumps({"base": "H100"}))
    assert roofline.report(m, str(tmp_path / "h100.json"), "fp8").numbers == by_path.numbers
    h = hardware.get("H100")
    (tmp_path / "mine.yaml").write_text(
        f"key: Mine\nflops_bf16: {h.flops_bf16:.6e}\nflops_fp8: 1.9789e15\nhbm_bytes: {h.hbm_bytes}\nhbm_bw: 3.35e12\n"
        f"scaleup_domain: 8\nscaleup_bw: {h.scaleup_bw}\nscaleout_bw: 5e10\n")
    mine = model_report.load_chip(tmp_path / "mine.yaml")
    assert (mine.key, mine.hbm_bw, mine.flops_fp8, mine.scaleup_domain) == ("Mine", 3.35e12, 1.9789e15, 8)
    assert roofline.report(m, mine, "fp8").numbers == by_path.numbers  # the figures that matter are the H100's
    assert roofline.report(models.get("DeepSeek-V3"), "GB200").precision == "fp4"


@pytest.mark.parametrize("call, name", [
    (lambda: roofline.report(64.0, "H100"), "config"),
    (lambda: roofline.report(HF / "nowhere", "H100"), "config"),
    (lambda: roofline.report(HF / "deepseek_v3", "H1000"), "chip"),
    (lambda: roofline.report(HF / "deepseek_v3", 3), "chip"),
    (lambda: roofline.report(HF / "deepseek_v3", "H100", "fp4"), "precision"),
    (lambda: roofline.report(HF / "deepseek_v3", "H100", kv_precision="fp5"), "kv_precision"),
    (lambda: roofline.report(HF / "deepseek_v3", "H100", price_usd_per_hour=-2), "price_usd_per_hour"),
    (lambda: model_report.load_chip("chip.txt"), "path"),
    (lambda: model_report.Row("x", 9, "a", 1.0, "b"), "chapter"),
    (lambda: model_report.Row("x", 1, "a", -1.0, "b"), "value"),
])
def test_bad_inputs_are_named(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


# -- the command line -----------------------------------------------------------------------------------------
def run_main(argv, capsys):
    """``python -m roofline`` in this process: (status, stdout, stderr)."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse: --help, or a usage error
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prints_the_table_and_json_holds_the_numbers(capsys, tmp_path):
    config = str(HF / "qwen3_235b_a22b")
    code, out, err = run_main(["report", config, "--chip", "H100", "--precision", "fp8"], capsys)
    r = roofline.report(config, "H100", precision="fp8")
    assert code == 0 and out.rstrip("\n") == r.table() and max(map(len, out.splitlines())) <= 88
    code, out, _ = run_main(["report", config, "--chip", "H100", "--precision", "fp8", "--json", "-"], capsys)
    assert code == 0 and json.loads(out)["numbers"] == r.numbers
    path = tmp_path / "r.json"
    code, out, _ = run_main(["report", config, "--chip", "H100", "--precision", "fp8", "--json", str(path)], capsys)
    assert code == 0 and json.loads(path.read_text()) == json.loads(r.to_json())


def test_cli_writes_the_figures(capsys, tmp_path):
    """--figures writes chapter 1's and chapter 4's frames (and the others) as PNGs."""
    code, _, err = run_main(["report", str(HF / "deepseek_v3"), "--chip", "GB200", "--figures", str(tmp_path)], capsys)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert code == 0 and {"ch1_decode.png", "ch2_moe.png", "ch4_memory.png"} <= set(names), (names, err)
    assert all((tmp_path / n).read_bytes()[:4] == b"\x89PNG" for n in names)


def _config(tmp_path, **changes):
    data = json.loads((HF / "llama3_1_70b" / "config.json").read_text())
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    (tmp_path / "config.json").write_text(json.dumps(data))
    return str(tmp_path)


def _chip(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


H100_ROW = {"key": "Mine", "flops_fp8": 2e15, "hbm_bytes": 8e10, "hbm_bw": 3e12, "scaleup_domain": 8}


@pytest.mark.parametrize("args, field", [
    (lambda t: [str(t / "missing"), "--chip", "H100"], "config"),
    (lambda t: [_config(t, hidden_size=None), "--chip", "H100"], "hidden_size"),
    (lambda t: [_config(t, num_hidden_layers="80"), "--chip", "H100"], "num_hidden_layers"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", "H1000"], "chip"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", "H100", "--precision", "fp4"], "precision"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", _chip(t, "c.json", json.dumps(H100_ROW | {"hbm_bw": -3e12}))],
     "hbm_bw"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip",
                _chip(t, "c.yaml", "\n".join(f"{k}: {v}" for k, v in H100_ROW.items() if k != "hbm_bytes"))],
     "hbm_bytes"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", _chip(t, "c.json", json.dumps(H100_ROW | {"scaleup_bw": "9e11"}))],
     "scaleup_bw"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", _chip(t, "c.json", json.dumps(H100_ROW | {"hbm_speed": 1}))],
     "hbm_speed"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", _chip(t, "c.json", "{not json")], "c.json"),
    (lambda t: [str(HF / "llama3_1_70b")], "--chip"),
    (lambda t: [str(HF / "llama3_1_70b"), "--chip", "H100", "--price", "cheap"], "--price"),
], ids=["missing file", "missing field", "string for a number", "unknown chip", "unknown precision",
        "negative bandwidth", "chip field missing", "string bandwidth", "unknown chip field", "bad chip JSON",
        "no chip", "bad price"])
def test_cli_bad_inputs_exit_2_with_one_line_naming_the_field(args, field, capsys, tmp_path):
    code, out, err = run_main(["report", *args(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and field in err and "Traceback" not in err, err


def test_chip_file_fields_are_the_hardware_rows():
    """A chip file's fields are roofline.hardware.Hardware's, every one described."""
    assert list(model_report.CHIP_FIELDS) == [f.name for f in dataclasses.fields(hardware.Hardware)]


def test_python_dash_m_help_and_report(capsys, monkeypatch):
    """``python -m roofline report --help`` exits 0 and says everything; a run prints the table. The help is
    read from the command's own ``main`` (a wide terminal: its lines still fit 88 columns); the run is a real
    ``python -m roofline``, so the module's entry point is checked too."""
    from roofline import __main__ as cli

    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["report", "--help"])
    assert exit_.value.code == 0
    help_text = capsys.readouterr().out
    for needle in ("--chip", "--precision", "--json", "--figures", "chip file", "exit status", "base: H100",
                   "dense: no experts"):
        assert needle in help_text, needle
    assert max(map(len, help_text.splitlines())) <= 88
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(LIB), os.environ.get("PYTHONPATH")])),
               COLUMNS="200")
    done = subprocess.run([sys.executable, "-m", "roofline", "report", str(HF / "kimi_k2"), "--chip", "GB200",
                           "--json", "-"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["numbers"] == roofline.report(HF / "kimi_k2", "GB200").numbers
