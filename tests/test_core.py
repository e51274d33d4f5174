"""The shared core: the equation registry, variants, the import graph and the input contracts users meet.

Each test names what a user would do and what they must get: a documented ``inf``, a ``ValueError``
naming the field they set, a chip count they can read the reason for.
"""

import ast
import dataclasses
import math
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import roofline
from roofline import Deployment, check, decode, equations, hardware, models, symbols

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None)
PAIRS = [(m, h) for m in models.names() for h in hardware.names()]


# -- the registry and variants -----------------------------------------------------------------
def test_every_registered_equation_is_an_equation_with_its_expression():
    """The registry holds each equation once, under module.name, with its sympy expression and keywords."""
    assert len(equations.REGISTRY) >= 14
    for key, eq in equations.REGISTRY.items():
        assert key == f"{eq.module}.{eq.name}"
        assert set(eq.args) == {symbols.by_symbol(s).keyword for s in eq.expr.free_symbols}


@pytest.mark.parametrize("model, chip", PAIRS, ids=[f"{m}-{h}" for m, h in PAIRS])
def test_balance_batch_at_the_balance_context_is_inf(model, chip):
    """At the balance context the KV fetch alone matches compute: no batch is compute-bound, and
    balance_batch says so with the documented inf (it used to divide by zero), under both attentions."""
    for attention in ("dense", "sqrt"):
        d = Deployment(models.get(model), hardware.get(chip), attention=attention)
        assert math.isinf(d.balance_batch(len_ctx=d.balance_context()))
        if attention == "dense" or not d.model.window_layers:  # square-root reads of a windowed cache: no closed form
            assert math.isfinite(d.balance_batch(len_ctx=d.balance_context() * 0.99))


def test_sparse_attention_follows_into_the_balance_context():
    """Square-root attention squares the balance context (L* -> L*^2), because the variant is applied to the
    equation and the balance point is solved again: 842.4 tokens dense, 709,707 sparse for the lecture."""
    dense = Deployment(models.get("DeepSeek (lecture)"), hardware.get("GB200"), precision="fp4")
    sparse = dataclasses.replace(dense, attention="sqrt")
    assert dense.balance_context() == pytest.approx(2 * 37e9 * 8e12 / (10e15 * 70272))
    assert sparse.balance_context() == pytest.approx(dense.balance_context() ** 2)
    assert round(sparse.balance_context()) == 709_707


def test_replicated_kv_multiplies_the_kv_fetch_by_the_chip_count():
    """Tensor-parallel MLA keeps every sequence's latent on each chip: each chip reads G times more KV."""
    split = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"))
    repl = dataclasses.replace(split, kv_sharding="replicated")
    assert repl.terms(64, 4096)["kv"] == pytest.approx(72 * split.terms(64, 4096)["kv"])
    assert repl.balance_context() == pytest.approx(split.balance_context() / 72)


def test_deployment_evaluates_any_registered_equation():
    """d.evaluate works for every registered equation, given what the deployment does not know."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"))
    for eq in equations.REGISTRY.values():
        assert d.evaluate(eq, batch=64, len_ctx=4096, n_racks=2, hop_latency=3e-6, tok_rate=1e3,
                          weight_share=0.5, stage_layers=2, n_stages=4, n_micro=8, n_chunks=2,
                          micro_batch=16, tp_ways=2, d_ff=2048, **CH5_VALUES, **CH6_VALUES, **CH7_VALUES,
                          **CH8_VALUES) >= 0
    with pytest.raises(ValueError, match="needs batch"):
        d.evaluate(decode.step_time_s, len_ctx=4096)
    with pytest.raises(ValueError, match="registered roofline Equation"):
        d.evaluate(lambda x: x)


CH5_VALUES = dict(tokens_pre=1e13, tokens_rl=1e12, tokens_inf=1e13, rl_flops=4, decode_mfu=0.33, traffic=5e7,
                  deploy_s=5e6, tokens_per_param=20, loss_floor=1.8, loss_a=482, loss_b=2085, alpha_n=0.35,
                  beta_d=0.37, loss=2.0, train_flops=1e24, mfu=0.4, tokens_prefill=4e12, tokens_decode=2e12,
                  prefill_mfu=0.9)

CH6_VALUES = dict(pass_len=1000, kv_layers=61, head_dim=128, kv_heads=8, kv_elem_bytes=1, attn_sparsity=8,
                  tier_bytes=3.84e12, tier_bw=7e9, tier_price=0.1, hold_s=300, n_reuse=3)
CH7_VALUES = dict(n_layers=61, n_heads=128, saved_act_bytes=2)
CH8_VALUES = dict(accept_rate=0.875, prefill_rate=7e3, decode_rate=1.8e3)


def test_default_chip_count_is_visible_and_sensible():
    """NVL72: the rack (the lecture's 72); HGX: a node of 8, or as many nodes as the weights need; a TPU pod
    of 9,216: the smallest power-of-two slice that holds the weights, not the whole pod."""
    v3, llama = models.get("DeepSeek-V3"), models.get("Llama 3.1 405B")
    assert Deployment(v3, hardware.get("GB200")).n_chips_used == 72
    assert Deployment(llama, hardware.get("H100"), precision="fp8").n_chips_used == 8
    bf16 = Deployment(llama, hardware.get("H100"), precision="bf16")
    assert bf16.n_chips_used == 16 and "do not fit in one" in bf16.n_chips_reason
    pod = Deployment(v3, hardware.get("Ironwood"))
    assert pod.n_chips_used == 4 and "power-of-two slice" in pod.n_chips_reason  # 671 GB in 4 x 206 GB
    assert Deployment(v3, hardware.get("GB200"), n_chips=64).n_chips_reason == "64 chips, as given"


def test_kv_precision_is_apart_from_weight_precision():
    """FP4 weights with an FP8 KV cache: the weights' bytes stay 0.5, the cache halves from BF16."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4", kv_precision="fp8")
    assert d.values["bytes_per_param"] == 0.5
    assert d.values["kv_bytes"] == 70_272 / 2


def test_windows_enter_the_kv_fetch_at_short_context():
    """gpt-oss at 4,096 tokens: the KV fetch uses 38,016 B per token (window layers included), not 36,864."""
    d = Deployment(models.get("gpt-oss-120b"), hardware.get("H100"))
    expected = 64 * 4096 * 38_016 / (d.n_chips_used * d.values["mem_bw"])
    assert d.terms(64, 4096)["kv"] == pytest.approx(expected)


# -- construction checks name the field the user set --------------------------------------------
@pytest.mark.parametrize("field, bad", [("n_kv_heads", -8), ("n_kv_heads", "8"), ("layers", 0), ("layers", 61.5),
                                        ("head_dim", True), ("total_params", np.array([1e9, 2e9])),
                                        ("active_params", math.nan), ("routed_experts", 10**400),
                                        ("attention", "MQA"), ("kv_lora_rank", None)])
def test_model_fields_are_checked_when_built(field, bad):
    """A Model built or replaced with a bad field fails naming that field."""
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(models.get("DeepSeek-V3"), **{field: bad})


@pytest.mark.parametrize("field, bad", [("hbm_bw", 0), ("hbm_bytes", -1), ("flops_fp4", "10e15"),
                                        ("scaleup_domain", 0), ("scaleup_domain", 7.5), ("scaleup_bw", math.inf),
                                        ("hbm_bw", [8e12, 8e12])])
def test_hardware_fields_are_checked_when_built(field, bad):
    """Zero bandwidth, strings, arrays and fractional domains fail naming the field."""
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(hardware.get("GB200"), **{field: bad})


@FAST
@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(), st.binary(),
                 st.complex_numbers(), st.lists(st.integers()), st.dictionaries(st.text(), st.integers()),
                 st.just(10**400), st.just(np.array([1.0, 2.0])), st.just(object())),
       st.one_of(st.none(), st.floats(allow_nan=True), st.integers(), st.text(), st.just(10**400)),
       st.one_of(st.floats(allow_nan=True), st.text(), st.none(), st.integers()),
       st.one_of(st.text(), st.none(), st.integers()))
def test_check_never_raises(answer, expected, rel_tol, what):
    """roofline.check.check prints a verdict and returns a bool whatever it is given."""
    assert check.check(answer, expected, rel_tol=rel_tol, what=what) in (True, False)


# -- the import graph flows one way -------------------------------------------------------------
LAYERS = [("_check",), ("symbols",), ("equations",), ("decode",), ("moe",), ("pipeline",), ("memory",), ("training",), ("serving",),
          ("prefill",), ("speculation",), ("revnet",), ("registry",),
          ("hardware", "models", "lecture", "prices"), ("hf",), ("deployment",), ("measured", "memory_runs", "training_runs", "pipeline_runs", "moe_data", "prefill_runs"), ("scoreboard", "ledger"), ("figures",),
          ("notebook",), ("web",), ("widget",), ("model_report",), ("__main__",), ("check",)]


def _imports(path, root):
    """The top-level roofline modules that ``path`` imports, relative imports resolved from its package."""
    package = list(path.relative_to(root).parent.parts)  # [] for roofline/x.py, ["figures"] for figures/x.py
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package[:len(package) - (node.level - 1)]
            names = (node.module.split(".") if node.module else [])
            targets = [base + names] if node.module else [base + [a.name] for a in node.names]
        elif (node.module or "").startswith("roofline."):
            targets = [node.module.split(".")[1:]]
        else:
            continue
        out.update(t[0] for t in targets if t)
    return out


def test_no_module_imports_a_higher_one():
    """symbols -> equations -> topics -> data -> deployment -> figures -> notebook: no back-edges."""
    level = {name: i for i, group in enumerate(LAYERS) for name in group}
    root = pathlib.Path(roofline.__file__).parent
    files = [p for p in root.rglob("*.py") if p.name != "__init__.py" or p.parent != root]
    for path in files:
        rel = path.relative_to(root)
        me = rel.parts[0].removesuffix(".py")
        assert me in level, f"{rel} is not placed in LAYERS"
        for other in _imports(path, root) - {me}:
            assert level[other] <= level[me], f"{rel} imports {other}, a higher module"


def test_windowed_balance_context_balances_the_windowed_kv_fetch():
    """gpt-oss: at the balance context the KV fetch (window layers included) equals compute."""
    d = Deployment(models.get("gpt-oss-120b"), hardware.get("B200"))
    L = d.balance_context()
    kv, compute = (d.evaluate(eq, batch=1, len_ctx=L) for eq in (decode.kv_time_s, decode.compute_time_s))
    assert kv == pytest.approx(compute, rel=1e-9)


def test_deployment_refuses_what_it_cannot_mean():
    """A misspelt keyword, a fraction of a chip and an unknown precision are errors, not silent choices."""
    d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"))
    with pytest.raises(ValueError, match="unknown keywords"):
        d.evaluate(decode.step_time_s, batch=1, len_ctx=1, batchsize=3)
    with pytest.raises(ValueError, match="n_chips"):
        Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), n_chips=2.5)
    with pytest.raises(ValueError, match="unknown precision"):
        roofline.notebook.deploy("DeepSeek-V3", "H100", "nonsense")
    assert roofline.notebook.deploy("DeepSeek-V3", "H100", "BF-16").weight_precision == "bf16"


@pytest.mark.parametrize("bad", [np.timedelta64(3, "s"), np.ma.masked_array([1.0, 2.0], mask=[0, 1])])
def test_timedeltas_and_masked_arrays_are_refused(bad):
    with pytest.raises(ValueError, match="batch"):
        decode.step_time_s(batch=bad, n_total=1, n_active=1, bytes_per_param=1, flops=1, mem_bw=1, n_chips=1,
                           len_ctx=1, kv_bytes=1)


def test_overflow_is_an_error_even_where_inf_is_documented():
    """balance_context may be inf (no KV cache), but an overflowing product is still an error."""
    with pytest.raises(ValueError, match="overflows"):
        decode.balance_context_tokens(n_active=1e300, flops=1e-10, mem_bw=1e10, kv_bytes=1)
    assert math.isinf(decode.balance_context_tokens(n_active=1, flops=1, mem_bw=1, kv_bytes=0))


def test_symbol_names_are_unique():
    """Two declarations with one sympy name would be one symbol: a chapter's M would be chapter 1's HBM."""
    from roofline import symbols

    names = [str(q.symbol) for q in symbols.TABLE.values()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_the_api_page_documents_every_module():
    """book/api.md lists and renders every public module of the package."""
    root = pathlib.Path(roofline.__file__).parent
    page = (root.parents[1] / "book" / "api.md").read_text()
    modules = [".".join(("roofline",) + p.relative_to(root).with_suffix("").parts)
               for p in root.rglob("*.py") if not p.name.startswith("_")]
    missing = [m for m in modules if f".. automodule:: {m}\n" not in page or f"| `{m}` |" not in page]
    assert not missing, f"book/api.md does not document {missing}"


def test_links_replace_the_datasheet_network_figures():
    """Deployment(links=...) takes the calibrated latency and bandwidths like any other field: its values
    and every equation evaluated on it use them; a bad key or value is refused by name."""
    from roofline import moe, moe_data

    gb200 = hardware.get("GB200")
    calibrated = moe_data.link_values("GB200", 2, "calibrated")
    plain = Deployment(models.get("DeepSeek-V3"), gb200, precision="fp4", n_chips=64)
    linked = Deployment(models.get("DeepSeek-V3"), gb200, precision="fp4", n_chips=64, links=calibrated)
    for key, value in calibrated.items():
        assert linked.values[key] == value
    assert plain.values["scaleout_bw"] == gb200.scaleout_bw == 50e9
    given = dict(batch=5667, n_racks=2)
    assert linked.evaluate(moe.comm_time_s, **given) == plain.evaluate(moe.comm_time_s, **given, **calibrated)
    assert hash(linked) and linked == Deployment(models.get("DeepSeek-V3"), gb200, precision="fp4", n_chips=64,
                                                  links=dict(calibrated))
    with pytest.raises(ValueError, match="unknown keys \\['latency'\\]"):
        Deployment(models.get("DeepSeek-V3"), gb200, links={"latency": 1e-5})
    with pytest.raises(ValueError, match="scaleout_bw"):
        Deployment(models.get("DeepSeek-V3"), gb200, links={"scaleout_bw": -1})
    with pytest.raises(ValueError, match="links must be a mapping"):
        Deployment(models.get("DeepSeek-V3"), gb200, links=[1, 2])


@pytest.mark.parametrize("display", [False, True])
@pytest.mark.parametrize("value", [2400.5, "259T", 3])
def test_glue_sends_what_myst_nb_sends(monkeypatch, value, display):
    """roofline.notebook.glue speaks myst-nb's protocol without importing it: the same message."""
    import IPython.display
    from myst_nb.ext import glue as mystglue
    sent = []
    record = lambda obj, **kw: sent.append((obj, kw))  # noqa: E731
    monkeypatch.setattr(mystglue, "ipy_display", record)
    monkeypatch.setattr(IPython.display, "display", record)
    mystglue.glue("x", value, display=display)
    roofline.notebook.glue("x", value, display=display)
    assert len(sent) == 2 and sent[0] == sent[1]
    assert roofline.notebook.GLUE_PREFIX == mystglue.GLUE_PREFIX
    with pytest.raises(ValueError, match="name"):
        roofline.notebook.glue("", value)


def test_glue_in_a_kernel_keeps_the_order_of_printed_text_and_displays():
    """In a kernel, glue flushes only a stream with text waiting, and a hidden record not at all
    (roofline.notebook._flush_only_pending): printed lines and visible displays still reach the notebook in the
    order the cell made them, and every hidden record arrives."""
    import nbformat
    from nbclient import NotebookClient

    source = ("from roofline.notebook import glue, keep\n"
              "print('a')\nglue('x', 1.5, display=False)\nkeep('y', 2.5, '.1f')\n"
              "import sys; print('err', file=sys.stderr)\nglue('z', 'shown')\nprint('b')")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for _ in range(2)])
    # and cells that print only at their end, and nothing: under the streams' lighter flush, which the first glue set
    ends = ["print('end')", "x = 1", "import sys; print('last', sys.stdout._roofline_flush, sys.stderr._roofline_flush)"]
    # and a cell that ends while the I/O thread's timed flush (0.2 s after its print) has taken its text but not yet
    # sent it, the flush held there by a slow hook: its text must still come before the cell's end
    slow = ("import threading, time\nheld = threading.Event()\n"
            "sys.stdout.pub_thread.schedule(lambda: (sys.stdout.register_hook(lambda m: time.sleep(0.3) or m), "
            "held.set()))\nassert held.wait(5)")
    ends += [slow, "time.sleep(0.7)  # past the first moments after the lighter flush was set",
             "print('held'); time.sleep(0.25)"]
    nb.cells += [nbformat.v4.new_code_cell(s) for s in ends]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    assert [[o.text for o in c.outputs] for c in nb.cells[2:]] == [["end\n"], [], ["last True True\n"], [], [],
                                                                  ["held\n"]]
    for cell in nb.cells[:2]:  # the first glue installs the lighter flush; the second cell runs under it
        hidden, shown = [], []
        for o in cell.outputs:
            if o.output_type == "stream":
                if shown and shown[-1][:2] == ("stream", o.name):  # one stream, however the kernel sent it
                    shown[-1] = ("stream", o.name, shown[-1][2] + o.text)
                else:
                    shown.append(("stream", o.name, o.text))
            elif any(k.startswith("application/papermill.record/") for k in o.data):
                hidden.append((o.metadata["scrapbook"]["name"], next(iter(o.data.values()))))
            else:
                shown.append(("display_data", o.metadata["scrapbook"]["name"], o.data["text/plain"]))
        assert shown == [("stream", "stdout", "a\ny = 2.5\n"), ("stream", "stderr", "err\n"),
                         ("display_data", "z", "'shown'"), ("stream", "stdout", "b\n")], shown
        assert hidden == [("x", "1.5"), ("y", "2.5")], hidden


def test_same_is_cancels_verdict_and_refuses_what_is_not_an_expression():
    import sympy as sp

    x, y, a = sp.symbols("x y a", positive=True)
    pairs = [(1 / x + 1 / y, (x + y) / (x * y)), (x / (x + y), 1 - y / (x + y)), (a**(x + 1), a * a**x),
             (sp.sqrt(x) ** 2, x), (x, y), (x / (x + y), x / (x + 2 * y)),
             (decode.balance_batch, 2 * decode.balance_batch), (sp.Max(x, y) + 1, 1 + sp.Max(y, x))]
    for p, q in pairs:
        assert symbols.same(p, q) == (sp.cancel(p - q) == 0), (p, q)
    for bad in ("x", [x], sp.Eq(x, 1), None, sp.Matrix([x]), sp.MatrixSymbol("M", 2, 2)):
        with pytest.raises(ValueError, match="a and b must be sympy expressions or numbers"):
            symbols.same(bad, x)
