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

from roofline import equations
from roofline import symbols as s
from roofline.symbols import USD

UNIT = {q.symbol: q.dimension for q in s.TABLE.values()}
EVERY = equations.every_variant()


def in_units(expr):
    """``expr`` with each symbol x replaced by x times its unit, in seconds, bytes and USD.

    Keeping the symbol beside its unit stops a difference of like terms (``F L k - N W c``)
    from cancelling to zero.
    """
    with_units = expr.subs({sym: sym * unit for sym, unit in UNIT.items()})
    return _base(with_units.replace(lambda e: isinstance(e, sp.Max), _max_in_units))


def _base(expr):
    # expanded first: convert_to (sympy 1.14) multiplies a unit factor into a nested sum twice
    return sp.simplify(u.convert_to(sp.expand(expr), [u.second, u.byte]))


def _max_in_units(m):
    """max(a, b) has the unit of a and b, which must agree: pull it out of the Max."""
    args = [_base(a) for a in m.args]
    units = {unit_of(a) for a in args if a != 0}  # zero has every unit: max(0, x) has x's
    assert len(units) == 1, f"max of unlike quantities: {units}"
    unit = units.pop()
    return sp.Max(*[sp.simplify(a / unit) for a in args]) * unit


def unit_of(expr):
    """The product of unit quantities left in ``expr`` once its numbers and symbols are stripped."""
    quantities = expr.atoms(u.Quantity) | ({USD} & expr.free_symbols)
    rest = expr.subs({q: 1 for q in quantities})
    return sp.simplify(expr / rest)


def _dimensionless_sum(expr):
    """A sum of dimensionless symbols alone (speculation's 1 - alpha^l): dimensionless whatever it is, so the unit
    check lets it stand as one symbol (convert_to would multiply a unit into it)."""
    return isinstance(expr, sp.Add) and bool(expr.free_symbols) and all(UNIT.get(x) == 1 for x in expr.free_symbols)


def test_every_symbol_has_a_unit_and_a_meaning():
    """The symbol table (shown on the notation page) gives every symbol a unit, a dimension and a meaning."""
    for q in s.TABLE.values():
        assert q.unit and q.meaning and q.dimension is not None, q.keyword


def test_every_registered_equation_declares_its_dimension():
    assert all(eq.dimension is not None for eq in EVERY)


def _variant_id(e):
    return f"{e.module}.{e.name}-{'-'.join(e.options.values())}"


SAME = {}  # (expression, dimension) -> the variants that have it: a variant rebuilds the equations its option
for _e in EVERY:  # does not touch as they were, so nearly half the variants repeat an earlier one
    SAME.setdefault((_e.expr, _e.dimension), []).append(_e)


@pytest.mark.parametrize("eqs", list(SAME.values()),
                         ids=[_variant_id(g[0]) + (f"+{len(g) - 1}" if len(g) > 1 else "") for g in SAME.values()])
def test_equation_has_the_stated_unit(eqs):
    """The equation's unit, derived from its symbols' units, is the one it declares (every variant; the variants
    of one expression and dimension are one check, named by the first and how many more)."""
    expr = eqs[0].expr.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[-1][0])  # the finite branch
    expr = expr.replace(_dimensionless_sum, lambda e: sp.Dummy("dimensionless", positive=True))
    want = sp.simplify(u.convert_to(eqs[0].dimension, [u.second, u.byte]))
    ratio = sp.simplify(in_units(expr) / want)
    names = ", ".join(_variant_id(e) for e in eqs)
    assert not ratio.atoms(u.Quantity) and USD not in ratio.free_symbols, f"{names}: off by the unit {unit_of(ratio)}"


def test_a_wrong_formula_fails_the_check():
    """The check can fail: bytes over a FLOP rate is not a time."""
    wrong = s.N_total * s.bytes_per_param / (s.n_chips * s.flops)
    ratio = sp.simplify(in_units(wrong) / u.second)
    assert ratio.atoms(u.Quantity), "bytes x seconds should not reduce to seconds"
