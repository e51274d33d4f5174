"""The published page's live figures (:mod:`roofline.web`), without a browser.

The committed generated script is what the library generates now (so a changed expression or
registry row with a stale script fails here, and the book build fails too); every registered
equation, in every variant, prints as JavaScript that Node evaluates to numpy's value; each live
figure's notebook controls (:mod:`roofline.widget`) are its declaration's; each chapter shows it from the
declaration and puts its placeholder on the page. The browser test (tests/browser/test_live.py) moves the controls on the built pages.
"""

import json
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest

from roofline import Deployment, equations, hardware, models, symbols, training, web

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMITTED = web.PACKAGED
NODE = shutil.which("node")


def test_committed_script_is_what_the_library_generates():
    """A changed expression, symbol or registry row makes the committed copy stale: regenerate it."""
    assert COMMITTED.is_file(), f"{COMMITTED} missing: python -m roofline.web {COMMITTED.relative_to(ROOT)}"
    assert COMMITTED.read_text() == web.bundle(), (
        f"{COMMITTED.relative_to(ROOT)} is stale: run python -m roofline.web {COMMITTED.relative_to(ROOT)}")


def test_check_mode_reports_a_stale_script(tmp_path, capsys):
    stale = tmp_path / web.GENERATED
    stale.write_text("// old\n")
    assert web.main(["--check", str(stale)]) == 1
    assert web.main([str(stale)]) == 0
    assert web.main(["--check", str(stale)]) == 0
    assert "stale" in capsys.readouterr().out


def test_every_equation_prints_as_javascript():
    """sympy's JavaScript printer knows every function the library uses (Max, Min, Piecewise, sqrt, ...)."""
    for eq in equations.every_variant():
        text = web.js_function(eq)
        assert "Not supported" not in text and "//" not in text, f"{eq.name}: {text}"


def test_equation_names_round_trip():
    for name in ("decode.step_time_s", "moe.step_with_comm_s[overlap=full]", "decode.kv_time_s[attention=sqrt]",
                 "training.OPTIMUM_CONDITION"):
        assert web.equation_id(web.roofline_eq(name)) == name
    with pytest.raises(ValueError, match="not a registered equation"):
        web.roofline_eq("decode.no_such_thing")


# -- the generated functions against numpy -------------------------------------------------------
def _base_values():
    """Typical values for every keyword: DeepSeek-V3 on GB200, and a step's batch and context."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), price_usd_per_hour=2.0)
    base = dict(d.values, batch=1000.0, len_ctx=4096.0, n_racks=2.0, micro_batch=64.0, n_stages=4.0,
                n_micro=16.0, n_chunks=2.0, stage_layers=4.0, tok_rate=100.0, weight_share=0.5,
                loss=2.2, tokens_pre=1e13, usage_flops=1e16, **training.law("epoch").values())
    return {k: base.get(k, 1.0) for k in symbols.TABLE}


def _cases(eq, rng, n=12):
    base = _base_values()
    out = []
    for i in range(n):
        case = {a: float(base[a] * 10 ** rng.uniform(-1, 1)) for a in eq.args}
        if i == n - 1:  # the zero branches: an empty context, no KV cache, no latency
            case.update({a: 0.0 for a in eq.args if symbols.TABLE[a].domain == "nonnegative"})
        out.append(case)
    return out


def _encode(x):
    return x if np.isfinite(x) else repr(float(x))


@pytest.mark.skipif(NODE is None, reason="needs Node.js (apt-get install nodejs)")
def test_generated_functions_agree_with_numpy(tmp_path):
    """Every equation, every variant, and every expression the page solves: Node's value of the generated
    function equals numpy's to 1e-12."""
    rng = np.random.default_rng(14)
    eqs = {f"{eq.module}.{eq.name}[{i}]": eq for i, eq in enumerate(equations.every_variant())}
    eqs |= web.EXPRESSIONS
    cases = {name: _cases(eq, rng) for name, eq in eqs.items()}
    script = ["const out = {};"]
    for name, eq in eqs.items():
        script.append(f"{{ const f = {web.js_function(eq)};")
        script.append(f"  out[{json.dumps(name)}] = {json.dumps([[c[a] for a in eq.args] for c in cases[name]])}"
                      ".map(a => { const y = f.apply(null, a); return isFinite(y) ? y : String(y); }); }")
    script.append("console.log(JSON.stringify(out));")
    path = tmp_path / "eval.js"
    path.write_text("\n".join(script))
    got = json.loads(subprocess.run([NODE, str(path)], capture_output=True, text=True, check=True).stdout)
    bad = []
    for name, eq in eqs.items():
        for case, js in zip(cases[name], got[name]):
            with np.errstate(all="ignore"):
                want = float(eq.fast(*(np.float64(case[a]) for a in eq.args)))
            want = _encode(want)
            js = {"Infinity": "inf", "-Infinity": "-inf", "NaN": "nan"}.get(js, js)
            if isinstance(want, str) or isinstance(js, str):
                ok = want == js
            else:
                ok = js == pytest.approx(want, rel=1e-12, abs=1e-300)
            if not ok:
                bad.append(f"{name} at {case}: JavaScript {js}, numpy {want}")
    assert not bad, "\n".join(bad[:10])


# -- the notebook's controls are the declaration's ------------------------------------------------------
WIDGET_KINDS = {"Dropdown": "select", "ToggleButtons": "select", "SelectionSlider": "range", "Checkbox": "check"}


@pytest.mark.parametrize("key", sorted(web.LIVE))
def test_notebook_controls_are_the_declarations(key):
    """roofline.widget.controls: one ipywidgets control per declared control, with its label, its options or
    stops (a slider's read out as the page reads them), its start; the figure reads the same settings back."""
    from roofline import widget

    live = web.LIVE[key]
    made = widget.controls(key)
    assert list(made) == [c.name for c in live.controls]
    for c in live.controls:
        w = made[c.name]
        assert WIDGET_KINDS[type(w).__name__] == c.kind, f"{key}.{c.name}: {type(w).__name__} is not a {c.kind}"
        assert w.description == c.label and w.value == c.value, f"{key}.{c.name}"
        if c.kind == "select":
            assert tuple(w.options) == tuple(zip(c.labels or map(str, c.options), c.options)), f"{key}.{c.name}"
        if c.kind == "range":
            assert tuple(w.options) == tuple(zip(c.readouts, c.grid)), f"{key}.{c.name}"
    fig = widget.figure(key, made)
    assert fig.view.state == live.defaults
    for c in live.controls:  # the last option or stop of each, one at a time, then back
        w = made[c.name]
        last = (not c.value) if c.kind == "check" else w.options[-1][1]
        w.value = last
        assert fig.view.state == dict(live.defaults, **{c.name: last}), f"{key}.{c.name}"
        w.value = c.value


def test_a_notebook_figure_takes_only_its_own_controls():
    from roofline import widget

    with pytest.raises(ValueError, match="key must name a live figure"):
        widget.controls("bogus")
    with pytest.raises(ValueError, match=r"controls must be live figure pipeline's, by name"):
        widget.figure("pipeline", widget.controls("decode"))
    with pytest.raises(ValueError, match=r"has no control 'bogus'"):
        widget.frame("pipeline", bogus=1)


@pytest.mark.parametrize("key", sorted(web.LIVE))
def test_each_chapter_shows_its_declared_figure(key):
    """The chapter's notebook shows live figure ``key`` from its declaration, its static frame and its widget, and
    types no control of its own for it."""
    nb = json.loads((ROOT / "notebooks" / f"{web.LIVE[key].chapter}.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert any(f'widget.frame("{key}"' in src for src in code), f"{key}: no cell draws widget.frame({key!r})"
    assert any(f'widget.figure("{key}", controls)' in src for src in code), f"{key}: no cell shows the widget"
    assert not any(re.search(r"^controls = dict\(", src, re.M) for src in code), f"{key}: controls typed by hand"


@pytest.mark.parametrize("key", sorted(web.LIVE))
def test_each_chapter_places_its_live_figure(key):
    nb = json.loads((ROOT / "notebooks" / f"{web.LIVE[key].chapter}.ipynb").read_text())
    marks = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert any(web.placeholder(key) in m for m in marks), f"{key}: no markdown cell holds {web.placeholder(key)}"


def test_training_offers_every_loss_law():
    """Chapter 5's law dropdown (options=list(tr.LOSS_LAWS) in the widget cell) and the exported constants."""
    live = web.LIVE["training"]
    assert live.control("law_name").options == tuple(training.LOSS_LAWS)
    data = live.data(live)
    assert data["laws"] == {name: law.values() for name, law in training.LOSS_LAWS.items()}


def test_serving_offers_the_priced_chips_and_the_figures_axes():
    """Chapter 6's hardware dropdown (chips with a price, as the widget cell lists them), the figure's axes and
    price step, and the starting KV bytes and decode batch as the notebook computes them."""
    from roofline import serving
    from roofline.figures import serving as fig_serving
    from roofline.notebook import deploy

    live = web.LIVE["serving"]
    assert live.control("chip").options == tuple(h for h in hardware.names() if hardware.get(h).price_usd_per_hour)
    data = live.data(live)
    contexts, passes = (panel.grid for panel in live.plot.panels)  # the axes, in the figure's declaration
    np.testing.assert_array_equal(contexts, np.linspace(*fig_serving.CONTEXTS))
    np.testing.assert_array_equal(passes, np.geomspace(*fig_serving.PASS_LENGTHS))
    assert (data["step_tokens"], data["premium"]) == (200e3, 0.5)
    d = deploy("DeepSeek (lecture)", "GB200", "fp4")
    k = live.control("kv").value
    assert k == pytest.approx(800, rel=1e-12)  # GB200's crossover at the 200K price step
    v = dict(d.values, n_active=1e11, n_total=1e12, kv_bytes=k, len_ctx=32000.0, pass_len=1.0,
             batch=live.control("decode_batch").value)
    ratio = serving.pass_memory_over_compute(**{a: v[a] for a in serving.pass_memory_over_compute.args})
    assert ratio == pytest.approx(5, rel=1e-12)  # decode five times memory-bound (the output/input price ratio)


def test_revnet_draws_what_the_timeline_figure_draws():
    """Chapter 7's equations are the variants TimelineFigure draws (FlashAttention, no dropout), its timelines the
    three kinds' with a backward layer two forward ones, its heads those of 128 dimensions."""
    from roofline import revnet
    from roofline.figures import revnet as fig_revnet

    live = web.LIVE["revnet"]
    want = revnet.layer_activation_bytes.under(scores="flash", dropout="off").options
    names = {web.equation_id(web.roofline_eq(n)) for n in live.equations}
    assert names == {web.equation_id(revnet.layer_activation_bytes.under(**want))} | {
        web.equation_id(revnet.training_activation_bytes.under(**dict(want, activations=k))) for k in fig_revnet.KINDS}
    timelines = [s.y.args[0].as_json() for s in live.plot.panels[0].series]  # each series: a timeline / GB
    assert [t[2] for t in timelines] == list(fig_revnet.KINDS) and {t[5] for t in timelines} == {2.0}
    assert all(web.roofline_eq(t[3]).options == dict(want, activations=t[2]) for t in timelines)
    assert live.data(live)["heads"] == [w // 128 for w in live.control("d_model").grid]


def test_prefill_offers_chapter_8s_models_and_a_fresh_prompts_values():
    """Chapter 8's model dropdown (figures.prefill.MODELS, the notebook's names), the figure's axes, and per model what a fresh prompt's
    pass takes (roofline.figures.prefill._prompt_values) at the panel's prompts and the prompt slider's stops."""
    from roofline import prefill
    from roofline.figures import prefill as fig_prefill
    from roofline.notebook import deploy

    names = fig_prefill.MODELS  # the chapter's models (its notebook takes them from here)
    live = web.LIVE["prefill"]
    assert live.control("model").options == tuple(names) == web.PREFILL_MODELS
    assert live.control("chip").options == fig_prefill.chips() == tuple(h for h in hardware.names() if h != "Rubin")
    data = live.data(live)
    prompts, batch = (panel.grid for panel in live.plot.panels)  # the axes, in the figure's declaration
    np.testing.assert_array_equal(prompts, np.geomspace(*fig_prefill.PROMPTS))
    np.testing.assert_array_equal(batch, np.geomspace(*fig_prefill.BATCHES))
    grids = {"panel": np.array(prompts), "control": np.array(live.control("prompt").grid)}
    for m in names:
        d = deploy(m, "GB200", "fp4")
        assert data["prompt"][m]["latent_flops"] == prefill.prefill_latent_flops(d.model)
        for name, x in grids.items():
            got = data["prompt"][m][name]
            np.testing.assert_array_equal(np.broadcast_to(got["attn_flops"], x.shape),
                                          np.broadcast_to(prefill.prefill_attn_flops(d.model, x), x.shape))
            np.testing.assert_array_equal(np.broadcast_to(got["kv_bytes"], x.shape),
                                          np.broadcast_to(d.kv_bytes_at(x), x.shape))
    i, j = names.index("Llama 3.1 70B"), live.control("chip").options.index("H100")
    k = live.control("precision").options.index("fp8")
    assert data["prompt_wall"][i][j][k] == fig_prefill.prompt_wall(deploy("Llama 3.1 70B", "H100", "fp8"))
    assert web.placeholder("prefill") == '<div class="roofline-live" data-figure="prefill"></div>'


def test_controls_refuse_a_value_off_their_range():
    with pytest.raises(ValueError, match="not one of"):
        web.select("chip", "hardware", ("H100",), "GB200")
    with pytest.raises(ValueError, match="not on its grid"):
        web.Control("stages", "stages P", "range", 13, grid=tuple(range(1, 13)))
    with pytest.raises(ValueError, match="key must name a live figure"):
        web.placeholder("nonsense")
    with pytest.raises(ValueError, match="must rise"):
        web.selection_slider("d_model", "width D", (2048, 1024), 1024)


def test_dropdown_of_labelled_values():
    c = web.select("bytes", "bytes/act.", (("FP32 (4 B)", 4), ("BF16 (2 B)", 2)), 2)
    assert (c.options, c.labels, c.value) == ((4, 2), ("FP32 (4 B)", "BF16 (2 B)"), 2)
    assert list(c.as_json()["labels"]) == ["FP32 (4 B)", "BF16 (2 B)"]


# -- the page's formatters --------------------------------------------------------------------------
LIVE_JS = ROOT / "lib" / "roofline" / "static" / "roofline-live.js"


def _page_formatters(tmp_path, values):
    """The page's count and tick labels of ``values``, run in Node with the generated script and the page's."""
    script = tmp_path / "formats.js"
    script.write_text("\n".join([
        "global.window = global; global.document = {readyState: 'complete', querySelectorAll: () => [],",
        "  documentElement: {}};",
        "global.getComputedStyle = () => ({getPropertyValue: () => ''});",
        "global.MutationObserver = class { observe() {} };",
        COMMITTED.read_text(), LIVE_JS.read_text(),
        "const f = window.rooflineLive._internals;",
        f"const xs = {json.dumps(values)};",
        "console.log(JSON.stringify([xs.map(f.count), xs.map(f.tickValue)]));"]))
    return json.loads(subprocess.run([NODE, str(script)], capture_output=True, text=True, check=True).stdout)


@pytest.mark.skipif(NODE is None, reason="needs Node.js (apt-get install nodejs)")
def test_page_counts_as_the_library_does(tmp_path):
    """The page's count (its units generated from the library's) writes every value as roofline.figures.live.count
    does, character for character: unit boundaries, the roundings to 1,000, ties, and random values; its tick
    labels never read "0" for a positive value (a log axis's ticks), and write what is below 1 as Python's "g"."""
    from roofline.figures.live import count

    rng = np.random.default_rng(21)
    edges = [b * 10.0 ** e * f for e in range(-6, 16) for b in (1, 2, 5) for f in (1, 1 - 1e-12, 1 + 1e-12)]
    ties = [x / 1000 for x in range(0, 20000, 5)] + [999.5, 999.95, 9.995, 99.95, 999_500.0, 1e12 * 999.5]
    values = edges + ties + list(10 ** rng.uniform(-5, 15, 3000)) + [0.0, 0.5, 1.0, 160.0, 4096.0, 32768.0, 96e3]
    counts, ticks = _page_formatters(tmp_path, [float(v) for v in values])
    bad = [(v, page, count(v)) for v, page in zip(values, counts) if page != count(v)]
    assert not bad, f"{len(bad)} values differ, e.g. {bad[:5]}"
    for v, page in zip(values, ticks):
        number = page.replace(",", "").replace("K", "e3").replace("M", "e6").replace("B", "e9").replace("T", "e12")
        assert float(number) > 0 or v == 0, f"tick {v}: {page}"
        if 0 < v < 1:
            assert page == f"{float(f'{v:.3g}'):g}", f"tick {v}: {page}"


def test_the_pages_script_holds_no_chapters_code():
    """Every live figure is its declaration (a Plot), drawn by the script's one renderer: the script names no
    registered equation and keeps no table of figures; each figure's plot names only controls it has, the
    equations it evaluates are the plot's, and its key only elements a panel draws."""
    from roofline import equations
    from roofline.figures import declare

    script = LIVE_JS.read_text()
    assert not [name for name in equations.REGISTRY if name in script]
    assert "FIGURES" not in script
    for live in web.LIVE.values():
        assert isinstance(live.plot, declare.Plot), live.key
        assert live.equations == live.plot.equations()
    with pytest.raises(ValueError, match="legend names"):
        declare.Plot(panels=(), keywords={}, legend=("nothing",))
    with pytest.raises(ValueError, match="op must be one of"):
        declare.Term("sqrt", (1,))
    with pytest.raises(ValueError, match="takes 2 arguments"):
        declare.Term("+", (1,))
    with pytest.raises(ValueError, match="kind must be one of"):
        declare.timeline("gantt", 1)
    term = declare.when(declare.setting("batch") <= declare.ref("wall"), "fits", None) * 2
    assert term.as_json() == ["*", ["if", ["<=", ["setting", "batch"], ["ref", "wall"]], "fits", None], 2]


def test_inert_rules_hold_exactly_where_their_test_does():
    """inert_where's compact alternatives (a whole value of one control, then single settings) cover exactly the
    settings its test finds, on random tables; and chapter 2's layout is disabled in one rack and enabled in two."""
    import itertools

    rng = np.random.default_rng(6)
    over = {"a": (1, 2, 3), "b": ("x", "y"), "c": (True, False)}
    for _ in range(200):
        table = {s: bool(rng.random() < 0.4) for s in itertools.product(*over.values())}
        if rng.random() < 0.3:  # a whole value of one control
            table.update({s: True for s in table if s[0] == 2})
        control = web.Control("d", "d", "check", False).unless(
            web.inert_where("{a} {b}", over, lambda a, b, c: table[a, b, c]))
        for s, dead in table.items():
            assert (control.inert_note(dict(zip(over, s))) is not None) == dead, (s, control.inert)
    layout = web.LIVE["moe"].control("layout")
    assert layout.inert_note({"model": "DeepSeek-V3", "chip": "GB200", "racks": 1})
    assert layout.inert_note({"model": "DeepSeek-V3", "chip": "GB200", "racks": 2}) is None
    with pytest.raises(ValueError, match="cannot depend on the control itself"):
        layout.unless(web.inert_where("", {"layout": ("split",)}, lambda layout: True))
