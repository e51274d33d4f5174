"""The reader's own model in headless Chromium: a config.json loaded into the page, and the figures offering it.

Every config under ``tests/data/hf_configs`` is loaded through the appendix page's file input and read by the page
into the Model ``roofline.hf.from_hf_config`` gives (every field; the counts exact, and to 1e-9 in any case); bad
configs (a missing field, a string for a number, absurd sizes, a file over 16 MiB) show Python's message naming the
field, with the page otherwise untouched. The model then travels: chapters 1, 2, 4 and 8 start with it
(localStorage) and plot what the library computes for it to 1e-9, on several chips, precisions, layouts and
prompts; a link to the figure's settings, opened in a fresh browser, shows the same; chapter 6's sliders move to
the stops nearest its sizes. Each test uses its own browser contexts, so no other page sees the model.
"""

import dataclasses
import json
import pathlib

import pytest

import test_live
from conftest import block_other_hosts, evaluate_json, page_id
from roofline import hardware, hf, lecture, models, registry, web
from roofline.deployment import Deployment
from roofline.figures import your_model
from roofline.figures.live import count as live_count

pytestmark = pytest.mark.browser

CONFIGS = pathlib.Path(__file__).resolve().parents[1] / "data" / "hf_configs"
FAMILY_DIRS = sorted(d.name for d in CONFIGS.iterdir() if d.is_dir())
APPENDIX = "book/your_model"
LOADER = ".roofline-model-page"
REL = 1e-9


def open_page(browser, base_url, docname, context=None):
    """``docname`` in a context of its own (or ``context``), with its console errors and other hosts recorded."""
    context = context or browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors, page.external = [], []
    block_other_hosts(context, page.external)
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(base_url + docname + ".html", wait_until="load")
    return context, page


def give_file(page, box, name, content):
    """Hand the loader in ``box`` a file, as a reader picks one; wait for it to be read (a model or an error).
    ``content`` is the file's bytes, or a file on disk named ``name``, which the browser then reads from the disk
    itself; bytes are sent to it over the test's connection to the browser (the 16 MiB file that is too large took 4 s
    that way, 0.1 s from the disk)."""
    page.evaluate("() => { window.__seen = window.rooflineModel.current(); }")
    page.evaluate(f"() => {{ document.querySelector('{box} .roofline-model-error').textContent = ''; }}")
    if isinstance(content, pathlib.Path):
        assert content.name == name, f"the file on disk is {content.name}, not {name}"
        files = str(content)
    else:
        files = [{"name": name, "mimeType": "application/json", "buffer": content}]
    page.set_input_files(f"{box} input.roofline-model-file", files=files)
    page.wait_for_function(f"""() => window.rooflineModel.current() !== window.__seen
        || document.querySelector('{box} .roofline-model-error').textContent !== ''""", timeout=10_000)
    return page.evaluate(f"() => [window.rooflineModel.current(), "
                         f"document.querySelector('{box} .roofline-model-error').textContent]")


def same(page_value, python_value):
    if isinstance(python_value, float) or (isinstance(python_value, int) and abs(python_value) > 2 ** 53):
        return page_value == pytest.approx(python_value, rel=REL, abs=0)
    return page_value == python_value


def assert_model(page_model, m):
    for f in dataclasses.fields(m):
        if f.name not in ("key", "name", "source"):
            assert same(page_model[f.name], getattr(m, f.name)), f"{m.key}: {f.name} {page_model[f.name]!r}"


@pytest.mark.parametrize("none", [None], ids=[page_id(APPENDIX, "configs")])
def test_every_config_loads_and_bad_ones_are_named(none, browser, base_url, tmp_path):
    context, page = open_page(browser, base_url, APPENDIX)
    try:
        assert page.locator(f"{LOADER} input.roofline-model-file").count() == 1
        for d in FAMILY_DIRS:
            model, error = give_file(page, LOADER, "config.json", (CONFIGS / d / "config.json").read_bytes())
            assert error == "", f"{d}: {error}"
            assert_model(model, hf.from_hf_config(CONFIGS / d))
            assert f"{model['name']}:" in page.text_content(f"{LOADER} .roofline-model-info")
        # the paste box reads the same
        text = (CONFIGS / "llama3_1_70b" / "config.json").read_text()
        page.fill(f"{LOADER} textarea.roofline-model-text", text)
        page.click(f"{LOADER} button.roofline-model-read")
        page.wait_for_function("() => window.rooflineModel.current().layers === 80")
        assert_model(page.evaluate("() => window.rooflineModel.current()"),
                     hf.from_hf_config(CONFIGS / "llama3_1_70b"))
        kept = page.evaluate("() => window.rooflineModel.current()")

        # bad configs: Python's message, naming the field, and nothing else changes
        for name, (change, key) in BAD_CONFIGS.items():
            content = bad_content(name, change)
            # a new file each time: the same file chosen again does not change the input, and the page reads nothing
            file = tmp_path / name.replace(" ", "_").replace("*", "") / "config.json"
            file.parent.mkdir()
            file.write_bytes(content)
            with pytest.raises(ValueError) as err:
                hf.from_hf_config(file)
            python = str(err.value).replace(hf._shown(file), "config.json")
            model, error = give_file(page, LOADER, "config.json", file)  # the same bytes, from the disk
            assert error == python, f"{name}: page {error[:300]!r}, Python {python[:300]!r}"
            assert key in error, name
            assert model == kept, f"{name}: the model changed"
            assert f"the model is still {kept['name']}" in page.text_content(f"{LOADER} .roofline-model-info"), name
        assert not page.errors, page.errors
        assert not page.external, page.external
    finally:
        context.close()


BAD_CONFIGS = {  # name: (change to Llama 3.1 70B's config, the field the message names)
    "missing field": ({"num_attention_heads": None}, "num_attention_heads"),
    "string for a number": ({"hidden_size": "8192"}, "hidden_size"),
    "float for a count": ({"num_hidden_layers": 80.0}, "num_hidden_layers"),
    "absurd size": ({"vocab_size": 10 ** 30}, "vocab_size"),
    "size beyond 2**53": ({"intermediate_size": 2 ** 53 + 1}, "intermediate_size"),
    "negative size": ({"num_key_value_heads": -8}, "num_key_value_heads"),
    "unknown family": ({"model_type": "bert"}, "model_type"),
    "huge file": ({"padding": "x" * (hf.LIMITS["max_bytes"] + 10)}, "16 MiB"),
}


def bad_content(name, change):
    config = json.loads((CONFIGS / "llama3_1_70b" / "config.json").read_text())
    if name == "missing field":
        del config["num_attention_heads"]
        return json.dumps(config).encode()
    return json.dumps(config | change).encode()


# -- the figures -------------------------------------------------------------------------------------
def python_deploy(option, m):
    """test_live's deploy, knowing the reader's model by its option: roofline.deploy's defaults for a Model."""
    real = test_live.deploy

    def deploy(model, chip, precision=None, price=None, n_chips=None, **options):
        if model != option:
            return real(model, chip, precision, price, n_chips, **options)
        hw = hardware.get(chip)
        if precision is not None and registry.precision_name(precision) not in hw.precisions():
            precision = hw.precisions()[-1]
        price = float(lecture.CH1["gpu_price"].value) if price is None else price
        return Deployment(m, hw, precision=precision, n_chips=n_chips, price_usd_per_hour=price, **options)
    return deploy


def compare_figure(page, key, settings, monkeypatch, option, m):
    """The figure at ``settings`` plots what the library computes for the reader's model (test_live's checks)."""
    monkeypatch.setattr(test_live, "deploy", python_deploy(option, m))
    real_get = models.get.__wrapped__ if hasattr(models.get, "__wrapped__") else models.get
    monkeypatch.setattr(test_live.models, "get", lambda name: m if name == option else real_get(name))
    expect, got = test_live.EXPECT[key]
    page.evaluate("([key, values]) => window.rooflineLive[key].set(values)", [key, settings])
    state, plotted = evaluate_json(page, "(key) => [window.rooflineLive[key].state, window.rooflineLive[key].plotted]",
                                   key)
    assert state["model"] == option
    bad = test_live.mismatches(got(plotted), expect(state, plotted))
    assert not bad, f"{key} at {settings}: {bad[:4]}"


SETTINGS = {
    "decode": [{}, {"chip": "H100", "precision": "fp4"}, {"chip": "GB200", "precision": "bf16", "refined": True},
               {"chip": "MI300X", "context": 1e5, "batch": 100.0}, {"chip": "B200", "context": 10.0, "refined": True}],
    "memory": [{}, {"chip": "B200", "gpus": 16}, {"chip": "GB200", "gpus": 72, "context": 1e5, "stages": 8}],
    "prefill": [{}, {"chip": "B200", "precision": "fp4", "prompt": 1048576, "context": 131072, "drafts": 3},
                {"chip": "H100", "precision": "bf16", "prompt": 128, "batch": 4096}, {"chip": "TPU v5e"}],
    "moe": [{}, {"chip": "H100", "racks": 2, "layout": "widen", "links": "floor"},
            {"chip": "GB200", "racks": 3, "top_k": 2, "context": 1e5}, {"chip": "TPU v5p", "racks": 8, "layout": "widen"}],
}


@pytest.mark.parametrize("none", [None], ids=[page_id(APPENDIX, "figures")])
def test_the_model_travels_to_the_figures(none, browser, base_url, monkeypatch):
    context, page = open_page(browser, base_url, APPENDIX)
    fresh = None
    try:
        gpt = (CONFIGS / "gpt_oss_120b" / "config.json").read_bytes()
        model, error = give_file(page, LOADER, "config.json", gpt)
        assert not error
        option = model["name"] + " (yours)"  # the figures' labels name the model as their control does
        m = hf.from_hf_config(CONFIGS / "gpt_oss_120b", name=option)
        assert "yours=" in page.evaluate("() => window.location.search")
        # chapter 1 and chapter 4 start with it (the choice kept in this browser) and plot the library's numbers
        # gpt-oss (experts, sliding windows) in chapters 8, 2 and 4, then chapter 1, where DeepSeek-V3 (MLA) replaces it
        for key in sorted(your_model.OFFERED, key=lambda k: k == "decode"):
            chapter = context.new_page()
            chapter.errors = []
            chapter.on("pageerror", lambda exc, c=chapter: c.errors.append(str(exc)))
            chapter.goto(base_url + test_live.chapter_page(key) + ".html", wait_until="load")
            chapter.wait_for_function(f"() => window.rooflineLive && window.rooflineLive[{key!r}]")
            control = web.LIVE[key].control(your_model.OFFERED[key])
            options = chapter.evaluate(f"() => [...document.querySelectorAll("
                                       f"'#roofline-{key}-{control.name} option')].map((o) => o.value)")
            assert options == list(control.options) + [option]
            for settings in SETTINGS[key]:
                compare_figure(chapter, key, settings, monkeypatch, option, m)
            if key == "decode":
                # a link to these settings, opened where the model was never loaded, shows it
                link = chapter.get_attribute("div.roofline-live[data-figure=decode] a.roofline-live-link", "href")
                assert "yours=" in link
                fresh = browser.new_context(viewport={"width": 1280, "height": 900})
                shared = fresh.new_page()
                shared.goto(base_url.rstrip("/") + link if link.startswith("/") else link, wait_until="load")
                shared.wait_for_function("() => window.rooflineLive && window.rooflineLive.decode")
                assert shared.evaluate("() => window.rooflineLive.decode.state.model") == option
                compare_figure(shared, "decode", {}, monkeypatch, option, m)
                # another config loaded under the figure replaces it there, and the figure redraws with it
                # the box under the figure is open: the model is loaded
                assert chapter.evaluate("() => document.querySelector("
                                        "'div.roofline-live[data-figure=decode] + details.roofline-model').open")
                v3 = (CONFIGS / "deepseek_v3" / "config.json").read_bytes()
                model3, error = give_file(chapter, "div.roofline-live[data-figure=decode] + details.roofline-model",
                                          "config.json", v3)
                assert not error
                option3 = model3["name"] + " (yours)"
                m3 = hf.from_hf_config(CONFIGS / "deepseek_v3", name=option3)
                assert chapter.evaluate("() => window.rooflineLive.decode.state.model") == option3
                for settings in SETTINGS["decode"][:3]:
                    compare_figure(chapter, "decode", settings, monkeypatch, option3, m3)
                model, m, option = model3, m3, option3
            assert not chapter.errors, chapter.errors
        # chapter 6's sliders, set from the model: the stops nearest its sizes
        serving = context.new_page()
        serving.goto(base_url + test_live.chapter_page("serving") + ".html", wait_until="load")
        serving.wait_for_function("() => window.rooflineLive && window.rooflineLive.serving")
        box = "div.roofline-live[data-figure=serving] + details.roofline-model"
        assert serving.evaluate(f"() => document.querySelector('{box}').open")  # open: a model is loaded
        serving.click(f"{box} button.roofline-model-sliders")
        state = serving.evaluate("() => window.rooflineLive.serving.state")
        q = {"active_params": m.active_params, "total_params": m.total_params, "layers": m.layers,
             "hidden_size": m.hidden_size, "kv_bytes": m.kv_bytes_per_token(2)}
        for name, expr in your_model.SLIDERS["serving"].items():
            x = float(expr.subs({s: q[s.name] for s in expr.free_symbols}))
            assert state[name] == your_model.nearest_stop(web.LIVE["serving"].control(name), x), name
        assert "nearest stops" in serving.text_content(f"{box} .roofline-model-info")
        # gpt-oss's 5.13B active parameters are below the N active slider's range: the button says the stop is
        # the slider's lowest, and writes the model's sizes as counts
        model, error = give_file(serving, box, "config.json", gpt)
        assert not error
        option = model["name"] + " (yours)"
        m = hf.from_hf_config(CONFIGS / "gpt_oss_120b", name=option)
        assert m.active_params < min(web.LIVE["serving"].control("n_active").grid)
        serving.click(f"{box} button.roofline-model-sliders")
        said = serving.text_content(f"{box} .roofline-model-info")
        assert f"(the model's {live_count(m.active_params)}, below the slider's range: the stop is its lowest)" in said
        # a dense model is not chapter 2's (its control lists MoE models only): loaded there, the earlier model's
        # option goes and the figure is back at its start; "forget my model" takes it out of every figure
        moe = context.new_page()
        moe.goto(base_url + test_live.chapter_page("moe") + ".html", wait_until="load")
        moe.wait_for_function("() => window.rooflineLive && window.rooflineLive.moe")
        control = web.LIVE["moe"].control("model")
        listed = "() => [...document.querySelectorAll('#roofline-moe-model option')].map((o) => o.value)"
        assert moe.evaluate(listed) == list(control.options) + [option]
        box = "div.roofline-live[data-figure=moe] + details.roofline-model"
        _, error = give_file(moe, box, "config.json", (CONFIGS / "llama3_1_70b" / "config.json").read_bytes())
        assert not error
        assert moe.evaluate(listed) == list(control.options)
        assert moe.evaluate("() => window.rooflineLive.moe.state.model") == control.value
        assert "cannot offer" in moe.text_content(f"{box} .roofline-model-info")
        decode = context.new_page()
        decode.goto(base_url + test_live.chapter_page("decode") + ".html", wait_until="load")
        decode.wait_for_function("() => window.rooflineLive && window.rooflineLive.decode")
        assert decode.evaluate("() => window.rooflineLive.decode.state.model").endswith(" (yours)")
        decode.click("div.roofline-live[data-figure=decode] + details.roofline-model button.roofline-model-forget")
        assert decode.evaluate("() => window.rooflineModel.current()") is None
        assert decode.evaluate("() => window.rooflineLive.decode.state.model") == web.LIVE["decode"].control("model").value
        assert decode.evaluate("() => [...document.querySelectorAll('#roofline-decode-model option')].length") == len(
            web.LIVE["decode"].control("model").options)
        assert "yours=" not in decode.evaluate("() => window.location.search")
        assert not page.errors, page.errors
    finally:
        context.close()
        if fresh is not None:
            fresh.close()
