"""Dimensional analysis of every registered equation.

Each symbol of :mod:`roofline.symbols` has a unit (counts of sequences, parameters, tokens and FLOPs are
dimensionless; bytes, seconds and dollars are not), and each equation must have the unit it declares. The check is
by scaling, exactly: at a random point, each base unit (the second, the byte, the dollar) in turn is made a
different size, every symbol's value rescaled by that size to the power its unit holds; an equation of the unit it
declares then changes by that size to the power the declared unit holds, and by nothing else. A retyped or
mistyped formula (a bandwidth where a FLOP rate belongs, seconds added to bytes) scales otherwise and fails here,
however small the wrong term: the values are exact rationals and the results are compared to 50 digits.
"""

import random

import pytest
import sympy as sp
from sympy.physics import units as u

from roofline import equations
from roofline import symbols as s
from roofline.symbols import USD

EVERY = equations.every_variant()
BASES = (u.second, u.byte, USD)
SIZES = (sp.Rational(7, 3), sp.Rational(11, 5), sp.Rational(13, 17))  # each base unit made this many times larger
DIGITS = 50


def exponents(unit):
    """The powers of the second, the byte and the dollar in ``unit`` (an hour is 3,600 seconds: a second)."""
    powers = sp.Mul(u.convert_to(unit, [u.second, u.byte])).as_powers_dict()
    rest = [b for b in powers if not (b in BASES or b.is_number)]
    assert not rest, f"{unit}: a unit other than seconds, bytes and dollars: {rest}"
    return tuple(int(powers.get(b, 0)) for b in BASES)


UNIT = {q.symbol: exponents(q.dimension) for q in s.TABLE.values()}


def _point(expr, rng):
    """Exact values for ``expr``'s symbols (whole numbers for counts) where it is a finite number other than 0."""
    count = {q.symbol for q in s.TABLE.values() if q.domain == "count"}
    for _ in range(20):
        values = {x: sp.Integer(rng.randint(2, 97)) if x in count else sp.Rational(rng.randint(2, 997), rng.randint(2, 97))
                  for x in expr.free_symbols}
        try:
            at = sp.N(expr.xreplace(values), DIGITS)
        except (ValueError, TypeError):  # a max of numbers sympy cannot order (a negative base to a fractional power)
            continue
        if at.is_number and at.is_finite and at.is_real and at != 0:
            return values, at
    raise AssertionError(f"no point found where {expr} is a finite number other than 0")


def _ratios(expr, seed):
    """``expr`` at a random exact point, and its ratio to that when each base unit in turn is made larger."""
    values, at = _point(expr, random.Random(seed))
    for k, size in enumerate(SIZES):
        scaled = {x: v * size ** UNIT.get(x, (0, 0, 0))[k] for x, v in values.items()}
        yield size, sp.N(expr.xreplace(scaled) / at, DIGITS)


def powers(expr, seed=0):
    """The powers of the second, the byte and the dollar with which ``expr`` scales, exactly (to 40 digits; whole or
    half), or None for a base unit it does not scale with as one power (a sum of unlike quantities)."""
    out = []
    for size, ratio in _ratios(expr, seed):
        power = sp.Rational(round(2 * float(sp.log(ratio) / sp.log(size))), 2) if ratio > 0 else None
        exact = power is not None and abs(ratio / size ** power - 1) < sp.Float("1e-40", DIGITS)
        out.append(power if exact else None)
    return tuple(out)


def assert_unit(expr, unit, what, seed=0):
    """``expr`` has ``unit``: every max in it is of like quantities (each argument other than 0 scales as the others,
    so no point can pick the one of the right unit), and the whole scales as ``unit`` does."""
    named = lambda p: dict(zip(("s", "byte", "USD"), p))  # noqa: E731
    for m in expr.atoms(sp.Max):
        args = {a: powers(a, seed) for a in m.args if a != 0}  # zero has every unit: max(0, x) has x's
        assert len(set(args.values())) == 1 and None not in next(iter(args.values())), (
            f"{what}: max of unlike quantities: " + "; ".join(f"{a} scales as {named(p)}" for a, p in args.items()))
    want, got = exponents(unit), powers(expr, seed)
    assert got == want, f"{what}: scales as {named(got)}, not as {unit} {named(want)}"


def _dimensionless_sum(expr):
    """A sum of dimensionless symbols alone (speculation's 1 - alpha^l): dimensionless whatever it is; it stands as
    one positive symbol, so a point where it is 0 or negative (alpha above 1) cannot void the check."""
    return isinstance(expr, sp.Add) and bool(expr.free_symbols) and all(UNIT.get(x) == (0, 0, 0)
                                                                          for x in expr.free_symbols)


def prepared(expr):
    """``expr`` as the check takes it: each Piecewise its finite branch, and each sum of dimensionless symbols alone
    one positive dimensionless symbol."""
    expr = expr.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[-1][0])
    return expr.replace(_dimensionless_sum, lambda e: sp.Dummy("dimensionless", positive=True))


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
    assert_unit(prepared(eqs[0].expr), eqs[0].dimension, ", ".join(_variant_id(e) for e in eqs))


def test_a_wrong_formula_fails_the_check():
    """The check can fail: bytes over a FLOP rate is not a time; nor is a time plus bytes, however few bytes; and a
    right formula passes."""
    wrong = s.N_total * s.bytes_per_param / (s.n_chips * s.flops)
    with pytest.raises(AssertionError, match="scales as"):
        assert_unit(wrong, u.second, "wrong")
    tiny = s.N_total * s.bytes_per_param / (s.n_chips * s.mem_bw) + sp.Rational(1, 10 ** 30) * s.kv_bytes
    with pytest.raises(AssertionError, match="scales as"):
        assert_unit(tiny, u.second, "tiny")
    # a max whose other argument wins at the point tried: still of unlike quantities
    unlike = sp.Max(s.N_active * s.B / (s.n_chips * s.flops), s.N_total * s.bytes_per_param / (s.n_chips * s.flops))
    with pytest.raises(AssertionError, match="max of unlike quantities"):
        assert_unit(unlike, u.second, "unlike")
    assert_unit(s.N_total * s.bytes_per_param / (s.n_chips * s.mem_bw), u.second, "right")
    assert_unit(s.price * s.n_chips / s.tok_rate, USD, "dollars")
