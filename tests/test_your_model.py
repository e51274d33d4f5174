"""The reader's own model: the data the library exports for the page's config reader, and that reader (run in
Node with the generated script) against :func:`roofline.hf.from_hf_config`.

The page reads a config.json with the program :func:`roofline.hf.program` declares and the formulas
:mod:`roofline.web` prints, so for every config under ``tests/data/hf_configs`` and for thousands of mutated ones
it must give the Model Python gives, field for field, and where Python refuses a config, the same message. Its
deployment values, chip counts and window tables for that model must be the library's to 1e-9.
"""

import dataclasses
import json
import pathlib
import random
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from roofline import deployment, hardware, hf, models, moe, registry, web
from roofline.deployment import Deployment, deploy
from roofline.figures import your_model

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "tests" / "data" / "hf_configs"
COMMITTED = web.PACKAGED
MODEL_JS = ROOT / "lib" / "roofline" / "static" / "roofline-model.js"
NODE = shutil.which("node")
FAMILY_DIRS = sorted(d.name for d in CONFIGS.iterdir() if d.is_dir())
needs_node = pytest.mark.skipif(NODE is None, reason="needs Node.js (apt-get install nodejs)")
HARNESS = """
global.window = global;
global.document = {readyState: 'complete', querySelectorAll: () => [], addEventListener: () => {}};
global.localStorage = {getItem: () => null, setItem: () => {}, removeItem: () => {}};
global.history = {replaceState: () => {}, state: null};
global.location = {search: '', pathname: '/', hash: ''};
const fs = require('fs');
eval(fs.readFileSync(process.argv[2], 'utf8'));
eval(fs.readFileSync(process.argv[3], 'utf8'));
const M = window.rooflineModel, input = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = input.cases.map(([text, where]) => {
  try { const r = M.read(text, where); return {model: r.model, parts: r.parts, mtp: r.mtp}; }
  catch (e) { if (!(e instanceof M.ConfigError)) throw e; return {error: e.message, key: e.key}; }
});
const derived = input.derived.map(([text, chips, contexts, sliders]) => {
  const m = M.read(text, 'config.json').model;
  return {values: M.modelValues(m), kv: contexts.map((L) => M.kvBytes(m, L)), attn: contexts.map((L) => M.attnFlops(m, L)),
          chips: chips.map(([chip, b]) => M.defaultChips(m, chip, b)),
          prefill: [M.prefillAttn(m), M.latentFlops(m), contexts.map((L) => M.prefillAttn(m, Math.max(L, 1)))],
          sliders: Object.fromEntries(sliders.map((k) => [k, M.sliderValues(k, m).values])),
          link: M.decode(M.encode(m))};
});
console.log(JSON.stringify({out: out, derived: derived}));
"""


def source_text_flags():
    """The flag a Node needs for JSON.parse's source text (the page's Chromium has it; Node 21 and later too)."""
    probe = "JSON.parse('1.0', (k, v, c) => process.exit(c && c.source === '1.0' ? 0 : 1))"
    for flags in ([], ["--harmony-json-parse-with-source"]):
        if subprocess.run([NODE, *flags, "-e", probe], capture_output=True).returncode == 0:
            return flags
    pytest.skip("this Node's JSON.parse gives no source text (Node 20 with its flag, or Node 21+, does)")


def run_reader(tmp_path, cases, derived=()):
    """The page's reader, in Node (with the JSON source-text access the page's Chromium has), on ``cases``:
    [(text, where)] -> {model, parts, mtp} or {error, key}."""
    script = tmp_path / "reader.js"
    script.write_text(HARNESS)
    done = subprocess.run([NODE, *source_text_flags(), str(script), str(COMMITTED), str(MODEL_JS)],
                          input=json.dumps({"cases": cases, "derived": list(derived)}), capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def python_read(tmp_path, text):
    """roofline.hf on ``text`` written as config.json: (Model, ParamCount) or the error's message, and where
    Python names the file."""
    file = tmp_path / "config.json"
    file.write_text(text)
    where = hf._shown(file)
    try:
        return hf.from_hf_config(file), hf.count_params(file), where
    except ValueError as err:
        return str(err), None, where


def assert_same(tmp_path, texts):
    """The page's reader gives what Python gives for each config text: the Model's fields (all but the name and
    source) and parts exactly, or the same message."""
    expected = [python_read(tmp_path, t) for t in texts]
    got = run_reader(tmp_path, [[t, where] for t, (_, _, where) in zip(texts, expected)])["out"]
    for text, (model, counts, _), page in zip(texts, expected, got):
        if isinstance(model, str):
            assert page.get("error") == model, f"{text[:300]}\npython: {model}\npage: {page}"
            continue
        assert "model" in page, f"{text[:300]}\npython read it; the page: {page}"
        for f in dataclasses.fields(models.Model):
            if f.name not in ("key", "name", "source") and not (f.name == "notes" and counts.mtp > 2 ** 53):
                assert same(page["model"].get(f.name), getattr(model, f.name)), f.name
        assert page["parts"].keys() == counts.parts.keys()
        assert all(same(x, y) for k, pair in counts.parts.items() for x, y in zip(page["parts"][k], pair))
        assert same(page["mtp"], counts.mtp)


def same(page, python):
    """Equal, exactly up to 2**53 (every real config's count); beyond, where the page's doubles round, to 1e-12."""
    if isinstance(python, (int, float)) and not isinstance(python, bool) and abs(python) > 2 ** 53:
        return page == pytest.approx(python, rel=1e-12)
    return page == python


# -- the exported data -------------------------------------------------------------------------------
def test_every_family_has_a_program_of_sympy_formulas():
    """Each family's program reads keys, counts with sympy formulas and maps names the program sets to the
    Model's fields; count_end splits what count_params needs from the rest."""
    for family in hf.FAMILIES:
        p = hf.program(family)
        ops = [s["op"] for s in p["steps"]]
        assert ops.count("count_end") == 1 and set(ops) <= {"read", "let", "check", "kinds", "count_end"}
        names = {s["name"] for s in p["steps"] if "name" in s}
        names |= {f"layer_types_{k}" for k in ("present", "full_attention", "sliding_attention")}
        for s in p["steps"]:
            for k in ("expr", "cond", "default", "optional", "when"):
                if isinstance(s.get(k), sp.Basic):
                    assert {x.name for x in s[k].free_symbols} <= names
        for name, stored, active, included in p["parts"]:
            assert all(isinstance(x, sp.Basic) for x in (stored, active, included))
        for field, source in p["fields"].items():
            assert field in {f.name for f in dataclasses.fields(models.Model)}
            assert source is None or isinstance(source, tuple) or source in names


def test_program_rejects_an_unknown_family():
    with pytest.raises(ValueError, match="family must be one of"):
        hf.program("bert")


def test_the_model_formulas_are_what_the_methods_evaluate():
    """Model's KV bytes and attention FLOPs per layer come from models.FORMULAS, for every registry model."""
    for m in models.REGISTRY:
        sizes = m._sizes()
        assert m.kv_bytes_per_layer(2) == models.formula(f"kv_bytes_per_layer[{m.attention}]", **sizes,
                                                         bytes_per_elem=2)
        if m.n_q_heads:
            assert m.attention_flops_per_layer() == models.formula(f"attention_flops_per_layer[{m.attention}]",
                                                                   **sizes)


def test_default_chips_formula_is_the_function():
    """deployment.default_chips is DEFAULT_CHIPS for every registry model, chip and precision, and the old
    rule (whole domains of at most 72; else the smallest power-of-two slice, capped at the domain)."""
    import math

    for m in models.REGISTRY:
        for h in hardware.REGISTRY:
            for b in registry.PRECISIONS.values():
                n, _ = deployment.default_chips(m, h, b)
                w, size = m.total_params * b, h.scaleup_domain
                rule = size * max(1, math.ceil(w / (size * h.hbm_bytes))) if size <= 72 else min(
                    size, 2 ** max(0, math.ceil(math.log2(w / h.hbm_bytes))))
                assert n == rule


def test_model_values_are_the_deployment_values():
    """Deployment.values takes the model's quantities by MODEL_VALUES, DENSE_VALUES for a dense model."""
    for m in models.REGISTRY:
        v = deploy(m.key, "GB200").values
        for key, quantity in deployment.MODEL_VALUES.items():
            if getattr(m, quantity):
                assert v[key] == getattr(m, quantity)
        if not m.routed_experts:
            assert all(v[k] == x for k, x in deployment.DENSE_VALUES.items())


def test_reader_data_names_real_figures_and_controls():
    """The figures the page offers the model in have its control and per-model data only in deployments and
    windows; the slider figures' sliders exist and their formulas read the quantities declared."""
    per_model = {"deployments", "windows", "experts", "layout_chips", "prompt", "prompt_wall"}  # the page extends
    for key, control in your_model.OFFERED.items():
        live = web.LIVE[key]
        data = live.data(live)
        assert live.control(control).kind == "select"
        assert set(data) - per_model <= {"batch", "ms", "per_million", "links", "act_bytes"}
        assert ("layout_chips" in data) == (key in your_model.LAYOUT_RACKS)
        assert ("prompt" in data) == ("prompt_wall" in data) == (key in your_model.PROMPT_TABLES)
    for key, name in your_model.PROMPT_TABLES.items():
        assert web.LIVE[key].control(name).kind == "range"
        # the panel's prompts are where the figure's table holds its values (the library's own table, one model)
        live = web.LIVE[key]
        panel = your_model.prompt_panels()[key]
        table = live.data(live)["prompt"]["gpt-oss-120b"]["panel"]["kv_bytes"]
        from roofline.notebook import deploy as deploy_
        assert table == [float(x) for x in deploy_("gpt-oss-120b", "H200", "fp8").kv_bytes_at(np.array(panel))]
    for key, sliders in your_model.SLIDERS.items():
        for name, expr in sliders.items():
            assert web.LIVE[key].control(name).kind == "range"
            assert {s.name for s in expr.free_symbols} <= {"active_params", "total_params", "layers",
                                                          "hidden_size", "kv_bytes"}
    assert set(your_model.OFFERED) | set(your_model.NOT_OFFERED) | set(your_model.SLIDERS) == set(web.LIVE)
    data = your_model.reader_data()
    assert set(data["chips"]) == set(hardware.names()) and data["kv_bytes_per_elem"] == 2


@needs_node
def test_the_pages_layouts_are_the_librarys(tmp_path):
    """moe.LAYOUT_CHIPS as the page runs it (its divisor search, largestDivisor) gives moe.layout_chips's GPUs
    and racks, for expert counts from 1 to 2,000 and beyond, every registry chip's domain, 1 to 8 racks."""
    experts = list(range(1, 300)) + [384, 512, 1000, 1024, 2000, 2048, 10 ** 6, 999_983, 2 ** 39]
    domains = sorted({h.scaleup_domain for h in hardware.REGISTRY} | {1, 3})
    cases = [[e, g, r] for e in experts for g in domains for r in (1, 2, 3, 8)]
    script = tmp_path / "layouts.js"
    script.write_text("\n".join([
        "global.window = global;", f"eval(require('fs').readFileSync({json.dumps(str(COMMITTED))}, 'utf8'));",
        "const R = window.RooflineGenerated.reader, cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));",
        "console.log(JSON.stringify(cases.map(([e, g, r]) => Object.fromEntries(Object.entries(R.layouts).map(",
        "  ([k, fs]) => [k, fs.map((f) => f({n_experts: e, scaleup_domain: g, n_racks: r}))])))));"]))
    done = subprocess.run([NODE, str(script)], input=json.dumps(cases), capture_output=True, text=True, check=True)
    for (e, g, r), page in zip(cases, json.loads(done.stdout)):
        for layout in moe.LAYOUTS:
            assert tuple(page[layout]) == moe.layout_chips(e, g, r, layout), (e, g, r, layout)


def test_the_bundle_holds_the_reader():
    text = web.bundle()
    assert "const reader = {" in text and "reader: reader" in text
    for family in hf.FAMILIES:
        assert json.dumps(family) + ": {steps: [" in text


# -- the page's reader against Python --------------------------------------------------------------------


@needs_node
def test_every_config_reads_as_in_python(tmp_path):
    assert_same(tmp_path, [(CONFIGS / d / "config.json").read_text() for d in FAMILY_DIRS])


VALUES = [None, True, False, 0, -1, 1, 2, 3, 7, 64, 4096, 4096.0, 0.5, 1e300, "x", "4096", [], [0, 1], [1.0],
          ["full_attention"], ["sliding_attention"] * 36, 2 ** 53, 2 ** 53 + 1, 10 ** 30, "noaux_tc", "greedy",
          {"a": 1}, list(range(20))]


def mutated(n, seed=3):
    """``n`` configs: a real one with up to three keys deleted or set to one of :data:`VALUES`."""
    rng = random.Random(seed)
    fixtures = {d: json.loads((CONFIGS / d / "config.json").read_text()) for d in FAMILY_DIRS}
    keys = sorted({k for c in fixtures.values() for k in c} | {
        "head_dim", "q_lora_rank", "topk_method", "mlp_bias", "mlp_only_layers", "layer_types", "sliding_window",
        "decoder_sparse_step", "_name_or_path", "num_nextn_predict_layers", "first_k_dense_replace"})
    out = []
    for _ in range(n):
        config = dict(fixtures[rng.choice(FAMILY_DIRS)])
        for _ in range(rng.randint(1, 3)):
            key = rng.choice(keys)
            if rng.random() < 0.3:
                config.pop(key, None)
            else:
                config[key] = rng.choice(VALUES)
        out.append(json.dumps(config))
    return out


@needs_node
def test_mutated_configs_read_or_fail_as_in_python(tmp_path):
    """1,500 configs with keys deleted or set to junk: the page reads each as Python does or refuses it with
    Python's message, character for character."""
    assert_same(tmp_path, mutated(1500))


BAD = {  # what the page and Python must both refuse, with the message naming the field
    "missing field": ({"model_type": "llama", "hidden_size": 4096}, "num_hidden_layers"),
    "string for a number": ({"hidden_size": "4096"}, "hidden_size"),
    "float for a count": ({"num_attention_heads": 64.0}, "num_attention_heads"),
    "absurd size": ({"num_hidden_layers": 10 ** 20}, "num_hidden_layers"),
    "negative size": ({"vocab_size": -5}, "vocab_size"),
    "zero": ({"hidden_size": 0}, "hidden_size"),
    "bool for a number": ({"intermediate_size": True}, "intermediate_size"),
    "unknown family": ({"model_type": "bert"}, "model_type"),
    "bad layer_types": ({"layer_types": ["full_attention"] * 3}, "layer_types"),
    "top-k beyond experts": ({"num_experts_per_tok": 9}, "num_experts_per_tok"),
}


def bad_config(name):
    change, key = BAD[name]
    base = "mixtral_8x7b" if key == "num_experts_per_tok" else "llama3_1_70b"
    config = json.loads((CONFIGS / base / "config.json").read_text())
    if name == "missing field":
        return json.dumps(change), key
    return json.dumps(config | change), key


@needs_node
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_configs_named_on_the_page_as_in_python(tmp_path, name):
    text, key = bad_config(name)
    model, _, where = python_read(tmp_path, text)
    assert isinstance(model, str) and key in model
    page = run_reader(tmp_path, [[text, where]])["out"][0]
    assert page["error"] == model


@needs_node
def test_bad_files_refused_on_the_page(tmp_path):
    """Not JSON, not an object, larger than 16 MiB: refused, saying so; a byte-order mark is fine."""
    big = json.dumps({"model_type": "llama", "pad": "x" * (hf.LIMITS["max_bytes"] + 1)})
    mixtral = (CONFIGS / "mixtral_8x7b" / "config.json").read_text()
    got = run_reader(tmp_path, [["{", "f"], ["[1, 2]", "f"], ["null", "f"], [big, "f"], ["\ufeff" + mixtral, "f"]])
    errors = [g.get("error") for g in got["out"]]
    assert errors[0].startswith("f is not valid JSON")
    assert errors[1] == "f must hold a JSON object (the config's keys and values); got a JSON list"
    assert errors[2] == "f must hold a JSON object (the config's keys and values); got a JSON NoneType"
    assert errors[3] == "f is larger than 16 MiB; a config.json is a few KiB"
    assert "model" in got["out"][4]


@needs_node
def test_the_pages_deployment_of_a_config_is_the_librarys(tmp_path):
    """For each config: the page's deployment values (MODEL_VALUES, KV bytes, attention FLOPs), its chip count
    on every chip at every precision, its windows at several contexts and its slider stops are the library's."""
    contexts = [0.0, 1.0, 100.0, 128.0, 129.0, 4096.0, 1e6]
    chips = [(h, b) for h in hardware.names() for b in registry.PRECISIONS.values()]
    texts = [(CONFIGS / d / "config.json").read_text() for d in FAMILY_DIRS]
    got = run_reader(tmp_path, [], [[t, chips, contexts, sorted(your_model.SLIDERS)] for t in texts])["derived"]
    price = 2.0
    for d, page in zip(FAMILY_DIRS, got):
        m = hf.from_hf_config(CONFIGS / d)
        dep = Deployment(m, hardware.get("GB200"), price_usd_per_hour=price)
        values = dep.values
        for k, v in page["values"].items():
            assert v == pytest.approx(values[k], rel=1e-12), (d, k)
        assert set(values) >= set(page["values"])
        for (h, b), n in zip(chips, page["chips"]):
            assert n == deployment.default_chips(m, hardware.get(h), b)[0], (d, h, b)
        np.testing.assert_allclose(page["kv"], [dep.kv_bytes_at(L) for L in contexts], rtol=1e-12)
        np.testing.assert_allclose(page["attn"], [dep.attn_flops_at(L) for L in contexts], rtol=1e-12)
        from roofline import prefill
        assert page["prefill"][0] == prefill.prefill_attn_flops(m) and page["prefill"][1] == prefill.prefill_latent_flops(m)
        np.testing.assert_allclose(page["prefill"][2], [prefill.prefill_attn_flops(m, max(L, 1.0)) for L in contexts],
                                   rtol=1e-12)
        q = {"active_params": m.active_params, "total_params": m.total_params, "layers": m.layers,
             "hidden_size": m.hidden_size, "kv_bytes": m.kv_bytes_per_token(2)}
        for key, sliders in your_model.SLIDERS.items():
            for name, expr in sliders.items():
                x = float(expr.subs({sp.Symbol(k, positive=True): v for k, v in q.items()}))
                assert page["sliders"][key][name] == your_model.nearest_stop(web.LIVE[key].control(name), x)
        link = page["link"]
        for f in ("total_params", "active_params", "layers", "attention", "kv_lora_rank", "n_kv_heads",
                  "full_attention_layers", "sliding_window", "routed_experts", "dense_layers"):
            assert link[f] == getattr(m, f), f
