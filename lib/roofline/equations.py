"""The machinery every topic module shares: an equation becomes a checked numeric function, registered once.

A topic module (:mod:`roofline.decode` for chapter 1, more to come) writes each
equation once as a sympy expression in the symbols of :mod:`roofline.symbols`
and hands it to :func:`family`. What comes back is an :class:`Equation`: it
keeps the expression (``.expr``), its unit, and a numeric function generated
from it with :func:`sympy.lambdify` that

* takes the symbols' keywords (``batch=``, ``len_ctx=``, ...) and nothing else;
* checks every value against its symbol's domain (finite and > 0, >= 0, or a count >= 1) and
  every set of arrays for broadcasting, raising ``ValueError`` that names the
  parameter, the value and what is accepted;
* never hides an overflow or an undefined result: a NaN, or an infinity that the
  equation does not document (``infinite=`` reason), is a ``ValueError``.

Variants
--------
Some equations come in variants (dense or sparse attention, a KV cache split
over the chips or replicated on each). A topic module writes its equations in a
*builder*, a function of the variant options that returns the expressions, and
registers it with :func:`family`. The registry keeps the default build under
each equation's name; :meth:`Equation.under` rebuilds the same equation under
other options, so every derived quantity (a balance point solved from two
terms, say) follows the variant instead of patching an input.

>>> import sympy as sp
>>> from roofline.symbols import B, n_chips
>>> e = Equation("per_chip", B / n_chips, unit="sequences", doc="Sequences per chip.")
>>> e(batch=64, n_chips=8)
8.0
>>> e(batch=64, n_chips=0.5)
Traceback (most recent call last):
...
ValueError: per_chip: n_chips must be a finite number >= 1; got 0.5
"""

import dataclasses
import functools
import itertools
import math

import numpy as np
import sympy as sp
from sympy.logic.boolalg import ITE

from . import symbols
from ._check import check_value, short as _short

REGISTRY = {}
"""Every registered equation in its default variant, keyed by ``module.name`` (e.g. ``decode.kv_time_s``)."""

_FAMILIES = {}


# -- the equation ------------------------------------------------------------------------------
@dataclasses.dataclass(eq=False)
class Equation:
    """One equation: its sympy expression and the checked numeric function generated from it.

    Parameters
    ----------
    name : str
        The name it is registered under, also the numeric function's name.
    expr : sympy.Expr
        The equation, in the symbols of :mod:`roofline.symbols`.
    unit : str
        Unit of the result (``"s"``, ``"byte"``, ``"USD/token"``, ...).
    doc : str
        One line on what it computes, with the lecture's timestamp where it has one.
    dimension : sympy.Expr, optional
        The unit in :mod:`sympy.physics.units`, checked against the symbols' units by the tests.
    infinite : str, optional
        Why the result may be infinite (e.g. "never compute-bound at or above the balance
        context"); without it an infinite result for finite input is an error.
    zero : str, optional
        Why the result may be zero for valid input (one chip sends nothing to the others); the
        property tests hold every other equation to a positive result.
    requires : tuple
        Pairs of a sympy relational and a message: conditions between arguments (``top_k <= n_experts``) that every call must meet;
        a call that breaks one raises ``ValueError`` with the message and the values.
    """

    name: str
    expr: sp.Expr
    unit: str
    doc: str
    dimension: sp.Expr = None
    infinite: str | None = None
    module: str = ""
    options: dict = dataclasses.field(default_factory=dict)
    requires: tuple = ()
    zero: str | None = None

    def __post_init__(self):
        for field in ("name", "unit", "doc", "module"):
            if not isinstance(getattr(self, field), str):
                raise ValueError(f"Equation: {field} must be a str; got {_short(getattr(self, field))}")
        for field in ("infinite", "zero"):
            if getattr(self, field) is not None and not isinstance(getattr(self, field), str):
                raise ValueError(f"Equation: {field} must be a reason (str) or None; "
                                 f"got {_short(getattr(self, field))}")
        if not isinstance(self.options, dict) or not isinstance(self.requires, (tuple, list)) or not all(
                isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], str) for r in self.requires):
            raise ValueError(f"Equation: options must be a dict and requires a tuple of (relation, message) pairs; "
                             f"got {_short(self.options)}, {_short(self.requires)}")
        try:
            self.expr = sp.sympify(self.expr, strict=True)
        except (sp.SympifyError, TypeError, ValueError):
            raise ValueError(f"Equation: expr must be a sympy expression in roofline.symbols; "
                             f"got {_short(self.expr)}") from None
        if not isinstance(self.expr, sp.Expr):
            raise ValueError(f"Equation: expr must be a sympy expression in roofline.symbols; got {_short(self.expr)}")
        syms = symbols.order(self.expr.free_symbols)
        self.args = tuple(symbols.by_symbol(s).keyword for s in syms)
        self._domains = tuple(symbols.by_symbol(s).domain for s in syms)
        self._syms = syms
        self._piecewise = self.expr.has(sp.Piecewise)
        self._under = {}  # options -> the equation under them (under())
        self._requires = []
        for relation, message in self.requires:
            names = tuple(symbols.by_symbol(x).keyword for x in symbols.order(relation.free_symbols))
            if not set(names) <= set(self.args):
                raise ValueError(f"{self.name}: condition {relation} uses symbols the equation does not take")
            self._requires.append((names, sp.lambdify([symbols.TABLE[n].symbol for n in names], relation,
                                                     "numpy", **_LAMBDIFY), message))
        self.__name__ = self.__qualname__ = self.name
        self.__doc__ = (f"{self.doc}\n\n{self.unit}; keyword arguments: {', '.join(self.args)} "
                        "(SI units, see :mod:`roofline.symbols`).")

    @functools.cached_property
    def fast(self):
        """The numpy function of the arguments in order, unchecked (for benchmarks); built at its first use (a
        family's variant builds every equation of the family, and a caller evaluates one or two of them). Printed
        without common-subexpression elimination: with it, building all 322 took 0.7 s against 0.28 s, and a
        chapter's evaluations (one number, or arrays of some hundreds) ran no faster. Built without a docstring
        (``_LAMBDIFY``)."""
        return sp.lambdify(self._syms, _without_ite(self.expr), "numpy", **_LAMBDIFY)

    def __repr__(self):
        return f"<Equation {self.module + '.' if self.module else ''}{self.name}({', '.join(self.args)}) [{self.unit}]>"

    def _plain(self, kwargs):
        """The arguments as floats, in order, where every one is a plain finite number inside its domain and
        nothing else is given; else None (and the full checks below name what is wrong)."""
        if len(kwargs) != len(self.args):
            return None
        out = []
        try:
            for n, d in zip(self.args, self._domains):
                v = kwargs[n]
                if type(v) is not float and type(v) is not int and type(v) is not np.float64:
                    return None
                x = float(v)
                if not ((x > 0.0) if d == "positive" else (x >= (1.0 if d == "count" else 0.0))) or x == math.inf:
                    return None
                out.append(np.float64(x + 0.0))
        except (KeyError, OverflowError):
            return None
        return out

    def __call__(self, **kwargs):
        plain = self._plain(kwargs)
        if plain is not None:  # one number per argument, the common case: the same checks, fewer steps
            for names, holds, message in self._requires:
                if not holds(*(plain[self.args.index(n)] for n in names)):
                    raise ValueError(f"{self.name}: {message}; got " + ", ".join(f"{n}={_short(kwargs[n])}"
                                                                              for n in names))
            try:
                with np.errstate(over="raise", divide="ignore", invalid="ignore", under="ignore"):
                    out = float(self.fast(*plain))
            except FloatingPointError:
                raise self._overflow(kwargs) from None
            if out != out:
                raise ValueError(f"{self.name} is undefined (NaN) for {self._describe(kwargs)}")
            if self.infinite is None and out in (math.inf, -math.inf):
                raise self._overflow(kwargs)
            return out
        missing = [n for n in self.args if n not in kwargs]
        extra = [k for k in kwargs if k not in self.args]
        if missing or extra:
            raise ValueError(f"{self.name}() takes keyword arguments {', '.join(self.args)}; "
                             f"missing {missing}, unexpected {extra}")
        values = [check_value(n, kwargs[n], d, self.name) for n, d in zip(self.args, self._domains)]
        shapes = {n: np.shape(v) for n, v in zip(self.args, values) if np.ndim(v)}
        if len(shapes) > 1:
            try:
                np.broadcast_shapes(*shapes.values())
            except ValueError:
                raise ValueError(f"{self.name}: arrays cannot broadcast together: "
                                 + ", ".join(f"{n} of shape {s}" for n, s in shapes.items())) from None
        given = dict(zip(self.args, values))
        for names, holds, message in self._requires:
            if not np.all(holds(*(given[n] for n in names))):
                raise ValueError(f"{self.name}: {message}; got " + ", ".join(f"{n}={_short(kwargs[n])}"
                                                                          for n in names))
        try:
            # overflow is an error even where inf is a documented answer (that inf comes from a branch or a
            # division by zero, never from an overflowing product)
            with np.errstate(over="raise", divide="ignore", invalid="ignore", under="ignore"):
                if shapes and self._piecewise:  # numpy's logical_and.reduce needs every condition full-shaped
                    common = np.broadcast_shapes(*shapes.values())
                    out = self.fast(*(np.broadcast_to(v, common) for v in values))
                else:
                    out = self.fast(*(np.float64(v) if np.ndim(v) == 0 else v for v in values))
        except FloatingPointError:
            raise self._overflow(kwargs) from None
        out = np.asarray(out, dtype=float)
        if np.isnan(out).any():
            raise ValueError(f"{self.name} is undefined (NaN) for {self._describe(kwargs)}")
        if self.infinite is None and np.isinf(out).any():
            raise self._overflow(kwargs)
        if any(shapes):
            return np.broadcast_to(out, np.broadcast_shapes(*shapes.values())) if out.ndim == 0 else out
        return float(out)

    def _overflow(self, kwargs):
        return ValueError(f"{self.name} overflows float64 for {self._describe(kwargs)}; "
                          "inputs must keep the result below 1.8e308")

    def _describe(self, kwargs):
        return ", ".join(f"{n}={_short(kwargs[n])}" for n in self.args)

    def under(self, **options):
        """This equation rebuilt under variant ``options`` (e.g. ``attention="sqrt"``).

        Options the equation's family does not know are ignored, so a caller can pass all of
        a deployment's options to any equation; the axes not named keep this equation's own.
        """
        try:  # a deployment asks for the same variant at every evaluation
            return self._under[tuple(sorted(options.items()))]
        except (KeyError, TypeError):
            pass
        fam = _FAMILIES.get(self.module)
        if fam is None or self.name not in fam.defaults:
            return self
        out = fam.build(**(self.options | options))[self.name]  # axes not named keep this equation's
        try:
            self._under[tuple(sorted(options.items()))] = out
        except TypeError:  # an unhashable option's value: not kept
            pass
        return out

    def subs(self, mapping):
        """The expression with ``mapping`` (symbol or keyword -> value) substituted."""
        if not hasattr(mapping, "items"):
            raise ValueError(f"{self.name}.subs: mapping must be a dict of symbols or keywords to values; "
                             f"got {_short(mapping)}")
        unknown = [k for k in mapping if not (k in symbols.TABLE if isinstance(k, str) else isinstance(k, sp.Basic))]
        if unknown:
            raise ValueError(f"{self.name}.subs: mapping has unknown keywords {unknown}; accepted: symbols or "
                             f"{', '.join(symbols.TABLE)}")
        return self.expr.subs({(symbols.TABLE[k].symbol if isinstance(k, str) else k): v
                               for k, v in mapping.items()})


_LAMBDIFY = {"docstring_limit": 0}
"""How the library lambdifies: without the generated function's docstring, which sympy otherwise fills with the
expression and the source code printed a second time (the functions are the library's own, never shown): the
registry's 115 equations' functions build in 73 ms against 106 ms (median of 5)."""


def _without_ite(expr):
    """``expr`` with each boolean if-then-else ``ITE(c, a, b)`` written ``(c & a) | (~c & b)``: sympy's numpy printer
    otherwise reduces a condition holding one with ``simplify_logic`` first (0.1 s for speculation's break-even
    batch, whose condition came from solving with tau's two branches)."""
    if not expr.has(ITE):
        return expr
    return expr.replace(lambda e: isinstance(e, ITE),
                        lambda e: sp.Or(sp.And(e.args[0], e.args[1]), sp.And(sp.Not(e.args[0]), e.args[2])))


@functools.cache
def lambdified(expr):
    """``(names, f)``: ``expr``'s free symbols by name, in sorted order, and a numpy function of them in that order
    (built once an expression; the formula tables of :mod:`roofline.models` and :mod:`roofline.prefill` use it).

    >>> names, f = lambdified(sp.Symbol("b") * 2 + sp.Symbol("a"))
    >>> names, float(f(1.0, 3.0))
    (['a', 'b'], 7.0)
    """
    args = sorted(expr.free_symbols, key=lambda x: x.name)
    return [a.name for a in args], sp.lambdify(args, _without_ite(expr), "numpy", **_LAMBDIFY)


# -- families of equations with variants --------------------------------------------------------
@dataclasses.dataclass
class Spec:
    """What a builder returns for one equation: everything :class:`Equation` takes but the name."""

    expr: sp.Expr
    unit: str
    doc: str
    dimension: sp.Expr = None
    infinite: str | None = None
    requires: tuple = ()
    zero: str | None = None


_OPTIONS = {}


def check_variant(module, **chosen):
    """Check a builder's options against the values :func:`family` registered for ``module``'s axes, naming
    the axis and what it accepts; a builder calls it first, so ``build(attention="bogus")`` fails there."""
    if not isinstance(module, str) or module.rsplit(".", 1)[-1] not in _OPTIONS:
        raise ValueError(f"module must name a module with variants, one of {', '.join(_OPTIONS)}; "
                         f"got {_short(module)}")
    accepted = _OPTIONS[module.rsplit(".", 1)[-1]]
    unknown = [k for k in chosen if k not in accepted]
    if unknown:
        raise ValueError(f"{module}: unknown variant axes {unknown}; accepted: {', '.join(accepted)}")
    for k, v in chosen.items():
        if not any(type(v) is type(o) and v == o for o in accepted[k]):
            raise ValueError(f"{k} must be one of {', '.join(repr(o) for o in accepted[k])}; got {_short(v)}")


class _Family:
    def __init__(self, module, builder, options):
        self.module, self.builder, self.options = module, builder, options
        self.cache = {}
        _OPTIONS[module] = options
        self.defaults = self.build()

    def build(self, **options):
        chosen = {k: options.get(k, v[0]) for k, v in self.options.items()}
        check_variant(self.module, **chosen)
        key = tuple(sorted(chosen.items()))
        if key not in self.cache:
            specs = self.builder(**chosen)
            self.cache[key] = {name: Equation(name, s.expr, s.unit, s.doc, s.dimension, s.infinite,
                                              module=self.module, options=dict(chosen), requires=s.requires,
                                              zero=s.zero)
                               for name, s in specs.items()}
        return self.cache[key]


def family(module, builder, **options):
    """Register the equations ``builder(**options)`` returns, for every variant in ``options``.

    ``options`` maps each variant axis to its accepted values, the default first, e.g.
    ``attention=("dense", "sqrt")``. Returns the default build (name -> :class:`Equation`),
    whose entries also go into :data:`REGISTRY` as ``module.name``.
    """
    if not isinstance(module, str) or not callable(builder) or not all(
            isinstance(v, tuple) and v for v in options.values()):
        raise ValueError(f"family: module must be a module's name (str), builder a callable and each option a "
                         f"non-empty tuple of values; got {_short(module)}, {_short(builder)}, {_short(options)}")
    short = module.rsplit(".", 1)[-1]
    fam = _Family(short, builder, options)
    _FAMILIES[short] = fam
    for name, eq in fam.defaults.items():
        REGISTRY[f"{short}.{name}"] = eq
    return fam.defaults


def every_variant():
    """Every equation of every family under every combination of its options (for tests)."""
    out = []
    for fam in _FAMILIES.values():
        axes = list(fam.options)
        for combo in itertools.product(*(fam.options[a] for a in axes)):
            out.extend(fam.build(**dict(zip(axes, combo))).values())
    return out
