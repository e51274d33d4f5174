"""Dimensional analysis of every decode equation.

Each symbol of :mod:`roofline.symbols` is replaced by its unit (counts of sequences,
parameters, tokens and FLOPs are dimensionless; bytes, seconds and dollars are not),
and each equation must reduce to the unit its comment in :mod:`roofline.decode` states.
A retyped or mistyped formula (a bandwidth where a FLOP rate belongs, a missing
``1/B``) changes the unit and fails here.
"""

import pytest
import sympy as sp
from sympy.physics import units as u

from roofline import decode
from roofline import symbols as s

USD = sp.Symbol("USD", positive=True)  # money as its own dimension

UNIT = {
    s.B: 1, s.N_total: 1, s.N_active: 1, s.flops_per_mac: 1, s.n_chips: 1, s.len_ctx: 1,
    s.bytes_per_param: u.byte, s.kv_bytes: u.byte, s.hbm_bytes: u.byte,
    s.flops: 1 / u.second, s.mem_bw: u.byte / u.second,
    s.price: USD / u.hour, s.t: u.second,
}

EXPECTED = {
    "t_compute": u.second, "t_weights": u.second, "t_kv": u.second, "t_mem": u.second,
    "step_time": u.second, "tokens_per_second": 1 / u.second, "cost_per_token": USD,
    "hardware_ratio": 1, "balance_batch": 1, "balance_batch_kv": 1, "balance_context": 1,
    "drain_time": u.second, "worst_latency": u.second, "train_throughput": 1 / u.second,
}


def in_units(expr):
    """``expr`` with each symbol x replaced by x times its unit, in seconds, bytes and USD.

    Keeping the symbol beside its unit stops a difference of like terms (``F L k - N W c``)
    from cancelling to zero.
    """
    with_units = expr.subs({sym: sym * unit for sym, unit in UNIT.items()})
    return _base(with_units.replace(lambda e: isinstance(e, sp.Max), _max_in_units))


def _base(expr):
    return sp.simplify(u.convert_to(expr, [u.second, u.byte]))


def _max_in_units(m):
    """max(a, b) has the unit of a and b, which must agree: pull it out of the Max."""
    args = [_base(a) for a in m.args]
    units = {unit_of(a) for a in args}
    assert len(units) == 1, f"max of unlike quantities: {units}"
    unit = units.pop()
    return sp.Max(*[sp.simplify(a / unit) for a in args]) * unit


def unit_of(expr):
    """The product of unit quantities left in ``expr`` once its numbers and symbols are stripped."""
    quantities = expr.atoms(u.Quantity) | ({USD} & expr.free_symbols)
    rest = expr.subs({q: 1 for q in quantities})
    return sp.simplify(expr / rest)


def test_every_symbol_has_a_unit_here_and_in_the_notation():
    """The unit table above and ``symbols.UNITS`` (shown on the notation page) cover the same symbols."""
    assert set(UNIT) == set(s.UNITS) == set(s.MEANINGS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_equation_has_the_stated_unit(name):
    """The equation's unit, derived from its symbols, is the one its comment states."""
    want = sp.simplify(u.convert_to(EXPECTED[name], [u.second, u.byte]))
    ratio = sp.simplify(in_units(getattr(decode, name)) / want)
    assert not ratio.atoms(u.Quantity) and USD not in ratio.free_symbols, f"{name}: off by the unit {unit_of(ratio)}"


def test_a_wrong_formula_fails_the_check():
    """The check can fail: bytes over a FLOP rate is not a time."""
    wrong = s.N_total * s.bytes_per_param / (s.n_chips * s.flops)
    ratio = sp.simplify(in_units(wrong) / u.second)
    assert ratio.atoms(u.Quantity), "bytes x seconds should not reduce to seconds"
