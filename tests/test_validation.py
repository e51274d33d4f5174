"""Bad input fails at the boundary with a ValueError that names the parameter (house style, rule 7).

Every numeric function of :mod:`roofline.decode`, every Deployment method and every registry
lookup is fed zero, negatives, NaN, infinities, wrong types and misspelt names; an array with
one bad element must fail just like a bad scalar.
"""

import datetime
import math

import numpy as np
import pytest

from roofline import Deployment, _check, check, decode, equations, hardware, models, symbols

NUMERIC = list(equations.REGISTRY.values())
CASES = [(fn, arg) for fn in NUMERIC for arg in fn.args]
IDS = [f"{f.__name__}-{a}" for f, a in CASES]
BAD_SCALARS = [-1, -0.5, math.nan, math.inf, -math.inf, "64", None, True, False, 1j, [[1, 2], [3]],
               10**400, -10**400, datetime.datetime(2026, 1, 1), np.datetime64("2026-01-01"), object()]
BAD_ARRAYS = [[1.0, 2.0, -1.0], [1.0, math.nan], np.array([[1.0, 2.0], [3.0, -4.0]]), [1.0, math.inf],
              ["1", "2"], np.array([True, True]), [1.0, 2j], [1.0, 10**400], np.array(["2026-01-01"], dtype="M8[D]"),
              [1.0, None]]


GOOD = {"accept_rate": 0.5}  # a probability: at most 1 (speculation's requires)


def good_kwargs(fn):
    return {a: GOOD.get(a, 2.0) for a in fn.args}


def domain(arg):
    return symbols.TABLE[arg].domain


@pytest.mark.parametrize("fn, arg", CASES, ids=IDS)
def test_bad_scalar_is_named(fn, arg):
    """Negatives, NaN, infinities, strings, None, booleans, complex, dates, integers beyond float range:
    ValueError naming ``arg``; zero too where the symbol must be positive."""
    for bad in BAD_SCALARS + ([0, 0.0] if domain(arg) == "positive" else []):
        kwargs = good_kwargs(fn) | {arg: bad}
        with pytest.raises(ValueError, match=rf"\b{arg}\b"):
            fn(**kwargs)


@pytest.mark.parametrize("fn, arg", CASES, ids=IDS)
def test_array_with_one_bad_element_is_named(fn, arg):
    """One bad entry in an array, or an array of strings, booleans, dates or complex numbers, fails."""
    for bad in BAD_ARRAYS + ([[1.0, 0.0]] if domain(arg) == "positive" else []):
        kwargs = good_kwargs(fn) | {arg: bad}
        with pytest.raises(ValueError, match=rf"\b{arg}\b"):
            fn(**kwargs)


@pytest.mark.parametrize("fn, arg", [c for c in CASES if domain(c[1]) == "nonnegative"],
                         ids=[i for c, i in zip(CASES, IDS) if domain(c[1]) == "nonnegative"])
def test_zero_is_accepted_where_it_means_something(fn, arg):
    """An empty context (len_ctx = 0) or no KV cache (kv_bytes = 0) is a valid input: the result is finite,
    or inf where the equation documents it (no KV cache never balances compute)."""
    value = fn(**(good_kwargs(fn) | {arg: 0}))
    assert value >= 0 and (np.isfinite(value) or fn.infinite)


@pytest.mark.parametrize("fn", [f for f in NUMERIC if len(f.args) >= 2], ids=lambda f: f.__name__)
def test_arrays_that_cannot_broadcast_are_named(fn):
    """Two arrays of shapes (3,) and (2,) cannot broadcast: the error names both parameters and shapes."""
    a, b = fn.args[:2]
    kwargs = good_kwargs(fn) | {a: [1.0, 2.0, 3.0], b: [1.0, 2.0]}
    with pytest.raises(ValueError, match=rf"cannot broadcast.*{a} of shape \(3,\).*{b} of shape \(2,\)"):
        fn(**kwargs)


def test_overflow_is_an_error_not_a_silent_inf():
    """Finite inputs whose result exceeds float64 raise; nothing hides it."""
    with pytest.raises(ValueError, match="overflows"):
        decode.weight_time_s(n_total=1e300, bytes_per_param=1e300, n_chips=1, mem_bw=1)


@pytest.mark.parametrize("fn", NUMERIC, ids=[f.__name__ for f in NUMERIC])
def test_missing_or_unknown_keyword(fn):
    """A missing or misspelt keyword is a ValueError listing the keywords the function takes."""
    kwargs = good_kwargs(fn)
    missing = dict(kwargs)
    missing.pop(fn.args[0])
    with pytest.raises(ValueError, match=rf"missing \['{fn.args[0]}'\]"):
        fn(**missing)
    with pytest.raises(ValueError, match=r"unexpected \['batchsize'\]"):
        fn(**kwargs, batchsize=3)


def test_error_message_says_what_is_accepted():
    """The message names the parameter, the value and the accepted range."""
    with pytest.raises(ValueError, match=r"^compute_time_s: batch must be a finite number > 0; got -3$"):
        decode.compute_time_s(batch=-3, n_active=1, n_chips=1, flops=1)
    with pytest.raises(ValueError, match=r"^kv_time_s: len_ctx must hold only finite numbers >= 0; found nan$"):
        decode.kv_time_s(batch=1, len_ctx=[1, math.nan], kv_bytes=1, n_chips=1, mem_bw=1)


def test_valid_arrays_pass_and_broadcast():
    """The same checks let good arrays through and broadcast them (a control for the tests above)."""
    t = decode.kv_time_s(batch=np.array([[1.0], [2.0]]), len_ctx=[10.0, 20.0, 30.0], kv_bytes=1, n_chips=1,
                         mem_bw=1)
    assert t.shape == (2, 3)
    assert t[1, 2] == 60.0


# -- presets: unknown names list close ones ----------------------------------------------------
def test_unknown_hardware_lists_close_names():
    """'H1000' is not a chip; the message suggests H100 and lists what is accepted."""
    with pytest.raises(ValueError, match=r"unknown hardware 'H1000'; did you mean 'H100'.*Accepted: .*'H100'"):
        hardware.get("H1000")


def test_unknown_model_lists_close_names():
    """A misspelt model name suggests the right one."""
    with pytest.raises(ValueError, match=r"unknown model 'Mixtrl 8x7B'; did you mean 'Mixtral 8x7B'"):
        models.get("Mixtrl 8x7B")


@pytest.mark.parametrize("bad", [None, 3, b"H100", ["H100"]])
def test_preset_name_must_be_a_string(bad):
    """Registry lookups take a name; anything else fails naming the kind of preset."""
    with pytest.raises(ValueError, match=r"hardware must be a name \(str\)"):
        hardware.get(bad)


# -- Deployment --------------------------------------------------------------------------------
def deployment(**kw):
    return Deployment(models.get("DeepSeek-V3"), hardware.get(kw.pop("chip", "GB200")), **kw)


def test_h100_has_no_fp4_deployment():
    """A Deployment asking H100 for FP4 fails at construction, saying which precisions H100 has."""
    with pytest.raises(ValueError, match=r"H100 publishes no dense fp4 rate; precision must be one of 'bf16', 'fp8'"):
        deployment(chip="H100", precision="fp4")
    assert deployment(chip="H100", precision="fp8").values["bytes_per_param"] == 1.0


@pytest.mark.parametrize("bad, message", [("fp5", r"unknown precision 'fp5'; did you mean"),
                                          ("int4", r"unknown precision 'int4'"),
                                          (4, r"precision must be a name"),
                                          (["fp4"], r"precision must be a name")])
def test_unknown_precision(bad, message):
    """An unknown precision lists close names and the accepted ones."""
    with pytest.raises(ValueError, match=message):
        deployment(precision=bad)


def test_default_precision_is_the_chips_fastest():
    """Without a precision, a deployment uses the lowest precision the chip has a dense rate for, and says so."""
    assert deployment().weight_precision == "fp4"
    assert deployment(chip="H100").weight_precision == "fp8"


def test_precision_spelling_is_forgiven_everywhere():
    """'FP-4' is accepted by the chip lookup, so the bytes-per-weight lookup must accept it too."""
    assert deployment(precision="FP-4").values["bytes_per_param"] == 0.5
    assert deployment(precision="BF16").balance_batch() == pytest.approx(deployment(precision="bf16").balance_batch())


@pytest.mark.parametrize("field", ["n_chips", "kv_bytes", "price_usd_per_hour"])
@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "8", True, [8, 8], 10**400])
def test_bad_deployment_numbers(field, bad):
    """Deployment's numeric fields are checked when it is built, naming the field (kv_bytes = 0 is allowed)."""
    if field == "kv_bytes" and bad == 0:
        assert deployment(kv_bytes=0).step_time_s(64, 4096) == deployment(kv_bytes=0).step_time_s(64, 1)
        return
    with pytest.raises(ValueError, match=field):
        deployment(**{field: bad})


def test_bad_model_hardware_attention():
    """Model and hardware must be registry objects; attention must be 'dense' or 'sqrt'."""
    with pytest.raises(ValueError, match="model must be a roofline Model"):
        Deployment("DeepSeek-V3", hardware.get("GB200"))
    with pytest.raises(ValueError, match="hardware must be a roofline Hardware"):
        Deployment(models.get("DeepSeek-V3"), "GB200")
    with pytest.raises(ValueError, match="attention must be one of"):
        deployment(attention="sparse")


@pytest.mark.parametrize("method", ["terms", "step_time_s", "tokens_per_s", "cost_per_token_usd", "regime"])
@pytest.mark.parametrize("arg", ["batch", "len_ctx"])
def test_deployment_methods_check_batch_and_context(method, arg):
    """Every per-step method rejects a bad batch or context, scalar or array, naming it."""
    for attention in ("dense", "sqrt"):
        d = deployment(attention=attention)
        for bad in (-5, math.nan, math.inf, None, "64", [64, -1]) + ((0, [64, 0]) if arg == "batch" else ()):
            kwargs = {"batch": 64, "len_ctx": 4096, arg: bad}
            with pytest.raises(ValueError, match=arg):
                getattr(d, method)(**kwargs)


def test_balance_batch_checks_context():
    """balance_batch(len_ctx=...) rejects a bad context under both attention kinds."""
    for attention in ("dense", "sqrt"):
        with pytest.raises(ValueError, match="len_ctx"):
            deployment(attention=attention).balance_batch(len_ctx=-1)


def test_cost_without_a_price():
    """TPUs carry no rental price: asking for cost per token says to pass one."""
    d = Deployment(models.get("Llama 3.1 70B"), hardware.get("TPU v5e"), precision="bf16", n_chips=256)
    with pytest.raises(ValueError, match="needs price.*TPU v5e.*pass price_usd_per_hour"):
        d.cost_per_token_usd(64, 4096)
    priced = Deployment(models.get("Llama 3.1 70B"), hardware.get("TPU v5e"), precision="bf16", n_chips=256,
                        price_usd_per_hour=1.2)
    assert priced.cost_per_token_usd(64, 4096) > 0


def test_regime_takes_scalars():
    """regime() names one regime, so it refuses arrays."""
    with pytest.raises(ValueError, match="scalar"):
        deployment().regime(batch=[1, 2], len_ctx=4096)


# -- models and the small checkers ------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -2, math.nan, "2", None, True])
def test_kv_bytes_per_elem(bad):
    """kv_bytes_per_token(bytes_per_elem=...) checks its argument."""
    with pytest.raises(ValueError, match="bytes_per_elem"):
        models.get("DeepSeek-V3").kv_bytes_per_token(bytes_per_elem=bad)


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, "0.5", None, True])
def test_in_range(bad):
    """in_range rejects values outside [low, high] and non-numbers, naming the parameter."""
    with pytest.raises(ValueError, match="efficiency"):
        _check.in_range("efficiency", bad, 0, 1)
    assert _check.in_range("efficiency", 0.0, 0, 1) == 0.0


@pytest.mark.parametrize("answer", [None, "2400", math.nan, math.inf, True, [2400]])
def test_check_never_raises(answer, capsys):
    """The exercise checker prints a cross and returns False on any bad answer, never raising; None, the
    placeholder a self-check cell ships with, asks for an answer without revealing the expected one."""
    assert check.check(answer, 2400) is False
    out = capsys.readouterr().out
    if answer is None:
        assert out.startswith("·") and "2400" not in out and "2,400" not in out
    else:
        assert out.startswith("✗")


def test_check_accepts_and_rejects_by_tolerance(capsys):
    """Within rel_tol is a tick, outside is a cross with the reason."""
    assert check.check(2450, 2400, rel_tol=0.05) is True
    assert check.check(3000, 2400, rel_tol=0.05, why="use sparsity 8") is False
    assert "use sparsity 8" in capsys.readouterr().out
