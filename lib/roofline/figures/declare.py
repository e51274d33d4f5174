"""The vocabulary a chapter declares its live figure in: controls, the settings they cannot change, the
registry's data, and a figure the page draws from its description alone.

Each chapter's figure module declares its live figure as a function ``live()`` that returns one
:class:`Live` (``roofline.figures.decode.live()`` for chapter 1): the equations the figure evaluates (the
registry's, by :func:`roofline_eq` names, and the few sympy expressions of :data:`EXPRESSIONS` that a
library algorithm solves), its controls (:func:`select`, :func:`int_slider`, :func:`log_slider`,
:func:`float_slider`, :func:`selection_slider`, :func:`checkbox`; with :meth:`Control.unless` and
:func:`inert_where`, the settings at which one cannot change the figure), a function that exports the data
it needs from the library (:func:`deployments`, :func:`window_tables`, :func:`batch_axis`), and the
chapter's static frame, ``live_frame(settings)``. The figure itself is described whole by a :class:`Plot`
(:func:`curves`): its panels (:class:`Panel`) of series (:class:`Series`, each a :class:`Term`: equations
(:func:`eq`) with values put in place, the deployment's (:func:`value`), the controls' (:func:`setting`) and
the data's (:func:`data`), combined with ``+ - * /``, comparisons, :func:`when`, :func:`minimum`,
:func:`maximum`), horizontal lines (:class:`Line`), shaded spans (:class:`Span`), marks at a control's value
(:class:`Mark`), points (:class:`Point`: the balance batch), bars (:class:`Blocks`: a schedule's), texts
(:class:`Text`), limits (:func:`decades`, :func:`low`, :func:`high`), label templates with conditional pieces
(``values``) and the key. Where a figure needs an algorithm rather than a formula, a Term names one of the page
script's primitives: :func:`timeline` (:data:`TIMELINES`) and :func:`solve`, a root finder on a declared expression.

:mod:`roofline.web` prints the declarations for the published page (their equations as JavaScript, their
data as JSON) and :mod:`roofline.widget` puts them under ipywidgets controls in a notebook; this module
knows neither.

>>> int_slider("stages", "stages P", 1, 4, 2).grid
(1, 2, 3, 4)
>>> equation_id(roofline_eq("moe.step_with_comm_s[overlap=full]"))
'moe.step_with_comm_s[overlap=full]'
"""

import dataclasses
import inspect
import itertools

import numpy as np
import sympy as sp

from .. import _check, equations, models, symbols, training
from ..deployment import deploy
from . import live as fig_live


# -- equations a figure evaluates ---------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Expression:
    """A sympy expression in the library's symbols that a figure evaluates but the registry does not hold.

    An algorithm of the library solves it (:func:`roofline.training.optimal_for_loss` bisects
    :data:`roofline.training.OPTIMUM_CONDITION`); the page gets it printed like an equation, with its
    keywords as arguments, and runs the same algorithm on it.
    """

    name: str
    expr: object
    unit: str
    doc: str

    def __post_init__(self):
        _check.record(self)
        if not isinstance(self.expr, sp.Expr) or not all(s in symbols.ALL for s in self.expr.free_symbols):
            raise ValueError(f"Expression {self.name!r}: expr must be a sympy expression in roofline.symbols; "
                             f"got {_check.short(self.expr)}")

    @property
    def args(self):
        return tuple(symbols.by_symbol(x).keyword for x in symbols.order(self.expr.free_symbols))

    @property
    def fast(self):
        """The expression as a numpy function of its keywords, in the order of ``args`` (for the tests)."""
        return sp.lambdify(symbols.order(self.expr.free_symbols), self.expr, "numpy")


EXPRESSIONS = {e.name: e for e in (
    Expression("training.OPTIMUM_CONDITION", training.OPTIMUM_CONDITION, "nat/token",
               "alpha p - beta q (1 + k/(6D)): zero at the cheapest (N, D) for a loss, rising with D"),
)}
"""The expressions beyond the registry that the live figures evaluate, by the name the page uses."""


def roofline_eq(name):
    """A registered equation by ``module.name``, with an optional variant: ``"moe.step_with_comm_s[overlap=full]"``;
    or one of :data:`EXPRESSIONS`."""
    if not isinstance(name, str):
        raise ValueError(f"name must be an equation's name (str), 'module.name[option=value]'; "
                         f"got {_check.short(name)}")
    if name in EXPRESSIONS:
        return EXPRESSIONS[name]
    base, _, variant = name.partition("[")
    if base not in equations.REGISTRY:
        raise ValueError(f"name {base!r} is not a registered equation; see roofline.equations.REGISTRY")
    pairs = [o.split("=") for o in variant.rstrip("]").split(",")] if variant else []
    if any(len(p) != 2 for p in pairs):
        raise ValueError(f"name {name!r}: a variant is written [option=value,option=value]")
    options = dict(pairs)
    return equations.REGISTRY[base].under(**options) if options else equations.REGISTRY[base]


def equation_id(eq):
    """``module.name``, with the options that differ from the default build: ``moe.step_with_comm_s[overlap=full]``."""
    if isinstance(eq, Expression):
        return eq.name
    if not isinstance(eq, equations.Equation) or f"{eq.module}.{eq.name}" not in equations.REGISTRY:
        raise ValueError(f"eq must be a registered roofline Equation or an Expression; got {_check.short(eq)}")
    default = equations.REGISTRY[f"{eq.module}.{eq.name}"]
    changed = {k: v for k, v in eq.options.items() if default.options.get(k) != v}
    return f"{eq.module}.{eq.name}" + (f"[{','.join(f'{k}={v}' for k, v in sorted(changed.items()))}]"
                                       if changed else "")


# -- controls -----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Inert:
    """Where a control cannot change its figure, and why: the page disables it there and shows ``note``.

    ``when``: alternatives, each a tuple of ``(control name, values)`` pairs; the rule holds at a setting
    where, for some alternative, every named control has one of its values. ``note`` may name controls'
    values as ``{model}``. Made by :func:`inert_where`, which finds the settings with the library.
    """

    note: str
    when: tuple

    def __post_init__(self):
        _check.record(self)


def inert_where(note, over, test):
    """An :class:`Inert` rule holding wherever ``test(**setting)`` is true, for every setting of the controls
    in ``over`` (name -> the values to try, usually the control's options).

    The settings found are written compactly: a value of one control at which every setting is inert is one
    alternative (``(("chip", ("Rubin",)),)``); the rest one alternative each.

    >>> inert_where("{racks} rack", {"racks": (1, 2), "k": (3, 4)}, lambda racks, k: racks < 2).when
    ((('racks', (1,)),),)
    """
    _check.instance("note", note, str, "a str")
    _check.mapping("over", over, ())
    if not callable(test):
        raise ValueError(f"test must be a callable of the controls' values; got {_check.short(test)}")
    if not all(isinstance(v, (tuple, list)) for v in over.values()):
        raise ValueError(f"over must map each control's name to a tuple of its values; got {_check.short(over)}")
    _check.work("inert_where", MAX_STOPS, {f"values of {n}": len(v) for n, v in over.items()}, 1, "settings")
    names = list(over)
    settings = list(itertools.product(*over.values()))
    dead = [c for c in settings if test(**dict(zip(names, c)))]
    when, left = [], list(dead)
    for i, name in enumerate(names):
        whole = tuple(v for v in over[name] if all(c in dead for c in settings if c[i] == v))
        if whole:
            when.append(((name, whole),))
            left = [c for c in left if c[i] not in whole]
    when += [tuple((name, (v,)) for name, v in zip(names, c)) for c in left]
    return Inert(note, tuple(when))


@dataclasses.dataclass(frozen=True)
class Control:
    """One control of a live figure, as the chapter's ipywidgets cell has it.

    ``kind`` is 'select' (a dropdown or toggle buttons: ``options``, shown as ``labels`` where the
    widget's options are (label, value) pairs), 'range' (a slider over ``grid``, its positions low to
    high; ``log`` for a FloatLogSlider; a SelectionSlider's options as the grid) or 'check' (a check box).
    ``label`` is the ipywidgets ``description``: the lecture's term. ``inert``: :class:`Inert` rules, the
    settings at which the control cannot change the figure (the page disables it there, with the rule's note).
    """

    name: str
    label: str
    kind: str
    value: object
    options: tuple = ()
    grid: tuple = ()
    log: bool = False
    labels: tuple = ()
    inert: tuple = ()

    def __post_init__(self):
        _check.record(self)
        if isinstance(self.value, (list, dict, set, np.ndarray)):
            raise ValueError(f"control {self.name}: value must be one option, not {_check.short(self.value)}")
        if self.kind == "select" and self.value not in self.options:
            raise ValueError(f"control {self.name}: value {self.value!r} is not one of {self.options}")
        if self.kind == "range" and self.value not in self.grid:
            raise ValueError(f"control {self.name}: value {self.value!r} is not on its grid")
        if self.labels and len(self.labels) != len(self.options):
            raise ValueError(f"control {self.name}: {len(self.labels)} labels for {len(self.options)} options")
        if self.kind not in ("select", "range", "check"):
            raise ValueError(f"control {self.name}: kind must be 'select', 'range' or 'check'; got {self.kind!r}")

    @property
    def readouts(self):
        """What a slider shows at each of its stops (a range control's; empty for others), written once here for
        the notebook's SelectionSlider and the page's readout alike: a log slider's stops as counts
        (:func:`roofline.figures.live.count`: 100B, 32.8K), whole numbers with thousands separated, others to
        three significant figures.

        >>> int_slider("micro", "micro m", 1, 3, 2).readouts, log_slider("b", "batch", 3, 4, 1e3, 0.5).readouts
        (('1', '2', '3'), ('1K', '3.2K', '10K'))
        >>> float_slider("p", "$/GPU-h", 0.5, 1.5, 1 / 3, 0.5).readouts
        ('0.333', '0.5', '1', '1.5')
        """
        if self.kind != "range":
            return ()
        if self.log:
            return tuple(fig_live.count(v) for v in self.grid)
        return tuple(f"{round(v):,}" if float(v).is_integer() else f"{float(v):.3g}" for v in self.grid)

    def as_json(self):
        out = {k: v for k, v in dataclasses.asdict(self).items() if v not in ((), None, "") or k == "value"}
        if self.readouts:
            out["readouts"] = list(self.readouts)
        return out

    def inert_note(self, state):
        """Why this control cannot change its figure at ``state`` (control name -> value), or None: the note of its
        first :class:`Inert` rule that holds, as the page shows it. A notebook can disable its widget the same way.

        >>> from roofline.figures import moe
        >>> layout = moe.live().control("layout")
        >>> layout.inert_note({"model": "DeepSeek-V3", "chip": "GB200", "racks": 1})
        'in one rack both layouts are its GPUs'
        >>> layout.inert_note({"model": "DeepSeek-V3", "chip": "GB200", "racks": 2}) is None
        True
        """
        for rule in self.inert:
            if any(all(state[name] in values for name, values in alt) for alt in rule.when):
                return rule.note.format(**state)
        return None

    def unless(self, *rules):
        """This control, disabled on the page where one of ``rules`` (:class:`Inert`) holds."""
        known = {name for rule in rules for alt in rule.when for name, _ in alt}
        if self.name in known:
            raise ValueError(f"control {self.name}: an inert rule cannot depend on the control itself")
        return dataclasses.replace(self, inert=self.inert + tuple(rules))


def select(name, label, options, value):
    """A dropdown (ipywidgets Dropdown or ToggleButtons); ``options`` as the widget's: values, or (label, value) pairs."""
    options = _values("options", options)
    if options and all(isinstance(o, tuple) for o in options):
        return Control(name, label, "select", value, options=tuple(v for _, v in options),
                       labels=tuple(str(t) for t, _ in options))
    return Control(name, label, "select", value, options=options)


def selection_slider(name, label, options, value, counts=False):
    """An ipywidgets SelectionSlider of numbers: a slider over ``options``, low to high.

    ``counts``: the widget labels its stops with :func:`roofline.figures.live.count` (100B, 32.8K); the page's
    readout then writes them the same way, as it does a log slider's (``log`` set).
    """
    grid = tuple(_compact(o, "options") for o in _values("options", options))
    if list(grid) != sorted(grid):
        raise ValueError(f"control {name}: a selection slider's options must rise; got {grid}")
    return Control(name, label, "range", _compact(value, "value"), grid=grid, log=bool(counts))


def int_slider(name, label, low, high, value, step=1):
    """An ipywidgets IntSlider: whole numbers from ``low`` to ``high``."""
    low, high = _check.whole("low", low, -MAX_STOPS, _check.MAX_EXACT_INT), _check.whole("high", high, low)
    step = _check.whole("step", step, 1)
    _check.work("int_slider", MAX_STOPS, {"(high - low) / step + 1": (high - low) // step + 1}, 1, "stops")
    value = _check.whole("value", value, low, high)
    return Control(name, label, "range", value, grid=tuple(range(low, high + 1, step)))


def log_slider(name, label, low, high, value, step=0.1, whole=False):
    """An ipywidgets FloatLogSlider: ``10**e`` for exponents ``low`` to ``high`` in ``step``; ``value`` joins the grid.

    ``whole``: the chapter rounds the value to a whole number (``round(10**e)``).
    """
    low, high, step = _range(low, high, step, -300, 300)
    exponents = np.round(np.arange(low, high + step / 2, step), 10)
    grid = [float(round(10.0 ** e)) if whole else float(10.0 ** e) for e in exponents]
    value = _check.check_value("value", value)
    if np.ndim(value):
        raise ValueError(f"value must be one number; got {_check.short(value)}")
    return Control(name, label, "range", float(value), grid=tuple(sorted(set(grid) | {float(value)})), log=True)


def float_slider(name, label, low, high, value, step):
    """An ipywidgets FloatSlider: ``low`` to ``high`` in ``step``; ``value`` joins the grid (1/3 on a 0.05 grid)."""
    low, high, step = _range(low, high, step)
    grid = [float(x) for x in np.round(np.arange(low, high + step / 2, step), 10)]
    value = _number(value, "value")
    return Control(name, label, "range", float(value), grid=tuple(sorted(set(grid) | {float(value)})))


def checkbox(name, label, value=False):
    """An ipywidgets Checkbox."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"value must be True or False; got {_check.short(value)}")
    return Control(name, label, "check", bool(value))


# -- data the figures take from the registry ------------------------------------------------------
MAX_STOPS = 10_000
"""The most positions a control may have (a slider's stops, a rule's settings), each one data on the page."""


def _values(name, values):
    """``values`` as a tuple, at most :data:`MAX_STOPS` of them."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__") or hasattr(values, "__len__") \
            and len(values) > MAX_STOPS:
        raise ValueError(f"{name} must be a list of at most {MAX_STOPS:,} values; got {_check.short(values)}")
    return tuple(_check.items(name, values, MAX_STOPS))


def _range(low, high, step, least=-1e15, most=1e15):
    """A slider's ``low``, ``high`` and ``step``: numbers with low <= high, step > 0, and no more than
    :data:`MAX_STOPS` stops between."""
    low, high = (_number(x, n) for n, x in (("low", low), ("high", high)))
    step = _check.check_value("step", step)
    if np.ndim(step) or not least <= low <= high <= most:
        raise ValueError(f"low <= high must lie in [{least:g}, {most:g}] and step be one number; got low={low!r}, "
                         f"high={high!r}, step={_check.short(step)}")
    _check.work("slider", MAX_STOPS, {"(high - low) / step": (high - low) / step}, 1, "stops")
    return low, high, step


def _number(x, name="registry data"):
    try:
        x = float(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a finite number; got {_check.short(x)}") from None
    if not np.isfinite(x):
        raise ValueError(f"{name} must be a finite number; got {x}")
    return x


def _compact(x, name="registry data"):
    """A number as JSON writes it shortest, exactly: a whole float as an int."""
    x = _number(x, name)
    return int(x) if x.is_integer() and abs(x) < 2 ** 53 else x


def deployments(model_names, chip_names, precisions, keys, make=deploy):
    """What the page needs of ``make(model, chip, precision)`` for every combination, factored.

    Each deployment's values by keyword (those in ``keys`` it knows; a missing one is null), plus
    ``n_chips`` (the chips it uses) and ``precision`` (the weights' precision after any fallback).
    A quantity that depends on the model alone is stored once per model (``by_model[key][m]``), one
    that depends on the chip and precision alone once per pair (``by_chip[key][h][p]``), any other in
    full (``full[key][m][h][p]``); indices follow the lists given, as the page's controls do.
    """
    model_names, chip_names, precisions, keys = (_values(n, v) for n, v in (
        ("model_names", model_names), ("chip_names", chip_names), ("precisions", precisions), ("keys", keys)))
    if not callable(make):
        raise ValueError(f"make must be a callable (model, chip, precision) -> Deployment; got {_check.short(make)}")
    _check.work("deployments", 10_000, {"models": len(model_names), "chips": len(chip_names),
                                        "precisions": len(precisions)}, 1, "deployments")
    unknown = [k for k in keys if k not in symbols.TABLE]
    if unknown:
        raise ValueError(f"keys must be keywords of roofline.symbols; got unknown {unknown}")
    rows = {(m, h, p): make(m, h, p) for m in model_names for h in chip_names for p in precisions}
    cols = {k: {i: (_compact(d.values[k]) if k in d.values else None) for i, d in rows.items()} for k in keys}
    cols["n_chips"] = {i: int(d.n_chips_used) for i, d in rows.items()}
    cols["precision"] = {i: d.weight_precision for i, d in rows.items()}
    out = {"by_model": {}, "by_chip": {}, "full": {}}
    for k, col in cols.items():
        if all(len({col[m, h, p] for h in chip_names for p in precisions}) == 1 for m in model_names):
            out["by_model"][k] = [col[m, chip_names[0], precisions[0]] for m in model_names]
        elif all(len({col[m, h, p] for m in model_names}) == 1 for h in chip_names for p in precisions):
            out["by_chip"][k] = [[col[model_names[0], h, p] for p in precisions] for h in chip_names]
        else:
            out["full"][k] = [[[col[m, h, p] for p in precisions] for h in chip_names] for m in model_names]
    return out


def window_tables(keys, contexts, make=lambda m: deploy(m, "GB200")):
    """KV bytes (and attention FLOPs) per token at each context, for the models with sliding-window layers.

    :meth:`roofline.Deployment.evaluate` replaces ``kv_bytes`` and ``attn_flops`` by their value at
    the context given where a model has window layers; the page looks them up here, by the
    position of the context on its slider.
    """
    keys, contexts = _values("keys", keys), _values("contexts", contexts)
    contexts = [_number(L, "contexts") for L in contexts]
    if not callable(make):
        raise ValueError(f"make must be a callable (model) -> Deployment; got {_check.short(make)}")
    out = {}
    for m in models.REGISTRY:
        if not m.window_layers:
            continue
        d = make(m.key)
        out[m.key] = {"kv_bytes": [_number(d.kv_bytes_at(L)) for L in contexts]}
        if "attn_flops" in keys:
            out[m.key]["attn_flops"] = [_number(d.attn_flops_at(L)) for L in contexts]
    return out


def batch_axis(figure):
    """The batch sizes a live figure class plots along x: its default ``batch_range`` in ``n_points`` steps."""
    params = inspect.signature(figure.__init__).parameters if inspect.isclass(figure) else {}
    if "batch_range" not in params or "n_points" not in params:
        raise ValueError(f"figure must be a live figure class with batch_range and n_points (e.g. DecodeFigure); "
                         f"got {_check.short(figure)}")
    low, high = params["batch_range"].default
    return [_number(b) for b in np.geomspace(low, high, params["n_points"].default)]


def _keys(eqs, given):
    """The keywords the figure's equations take, less those the controls set."""
    return sorted({a for eq in eqs for a in eq.args} - set(given), key=list(symbols.TABLE).index)


@dataclasses.dataclass(frozen=True)
class Live:
    """One chapter's live figure on the published page.

    Parameters
    ----------
    key : str
        The figure's name, as the page's placeholder names it (``data-figure="decode"``).
    chapter : str
        The notebook it belongs to.
    equations : tuple of str
        The registered equations it evaluates (:func:`roofline_eq` names).
    controls : tuple of Control
        Its controls, in the order the ipywidgets cell shows them.
    data : callable
        ``data(live)``: what it needs from the registry, as JSON-ready values.
    caption : str
        What the figure shows, for the line above it.
    plot : Plot or None
        The figure's whole description, where the page draws it with no code of its own.
    frame : callable or None
        ``frame(settings)``: the chapter's matplotlib figure (a :class:`roofline.figures.live.LiveFigure`) at
        ``settings`` (control name -> value): the static frame a reader without JavaScript sees, and nbval
        compares (:meth:`figure`, :func:`roofline.widget.frame`).
    """

    key: str
    chapter: str
    equations: tuple
    controls: tuple
    data: object
    caption: str = ""
    plot: object = None
    frame: object = None

    def __post_init__(self):
        _check.record(self)
        if not all(isinstance(c, Control) for c in self.controls) or not callable(self.data) or not (
                self.plot is None or isinstance(self.plot, Plot)) or not (self.frame is None or callable(self.frame)):
            raise ValueError(f"live figure {self.key}: controls must be Controls, data a callable and plot a Plot or "
                             f"None; got {_check.short(self.controls)}, {_check.short(self.data)}, "
                             f"{_check.short(self.plot)}")
        names = [c.name for c in self.controls]
        if len(set(names)) != len(names):
            raise ValueError(f"live figure {self.key}: control names repeat: {names}")
        for name in self.equations:
            roofline_eq(name)  # a ValueError for a name the registry does not hold

    def control(self, name):
        """The control called ``name``."""
        for c in self.controls:
            if c.name == name:
                return c
        raise ValueError(f"live figure {self.key} has no control {name!r}; it has {[c.name for c in self.controls]}")

    @property
    def defaults(self):
        """Every control's start, by name."""
        return {c.name: c.value for c in self.controls}

    def figure(self, **settings):
        """The chapter's matplotlib figure at the controls' starts, changed by ``settings`` (control name ->
        value); ``.frame()`` of it is the static frame."""
        if self.frame is None:
            raise ValueError(f"live figure {self.key} declares no static frame")
        unknown = sorted(set(settings) - set(self.defaults))
        if unknown:
            raise ValueError(f"live figure {self.key} has no control {unknown[0]!r}; it has {list(self.defaults)}")
        return self.frame({**self.defaults, **settings})

    def as_json(self):
        out = {"chapter": self.chapter, "caption": self.caption, "equations": list(self.equations),
               "controls": [c.as_json() for c in self.controls], "data": self.data(self)}
        if self.plot is not None:
            out["plot"] = self.plot.as_json()
        return out


# -- figures the page draws from their description alone ------------------------------------------
_OPS = {  # the operations of a Term, with how many arguments each takes (None: any)
    "eq": 2, "value": 1, "setting": 1, "position": 1, "data": None, "ref": 1, "series": 1,
    "+": 2, "-": 2, "*": 2, "/": 2, ">=": 2, "<=": 2, ">": 2, "<": 2, "==": 2, "min": None, "max": None,
    "if": 3, "argmax": None, "finite": 1, "low": None, "high": None, "decade_below": 1, "decade_above": 1,
    "nice_above": 1, "item": 2, "ladder_below": 2, "ladder_above": 2, "solve": 5, "timeline": None,
    "inf": 0, "geomspace": 3, "in": None,
}


def _term(x, name="term"):
    """``x`` as a Term's argument: a Term, a finite number, a bool, a str (text, filled as a label) or None (no
    value: a value the page shows as null)."""
    if x is None or isinstance(x, (Term, str, bool, np.bool_)):
        return bool(x) if isinstance(x, np.bool_) else x
    return _compact(x, name)


@dataclasses.dataclass(frozen=True, eq=False)
class Term:
    """An expression the page evaluates at the controls' values: registered equations (:func:`eq`), the
    deployment's values (:func:`value`), the controls' (:func:`setting`), the chapter's data (:func:`data`),
    combined with ``+ - * /``, comparisons, :func:`minimum`, :func:`maximum`, :func:`when` and
    :func:`argmax`. Over a panel's x it is an array, elementwise; elsewhere one number (or text).

    >>> (eq("decode.step_time_s") * 1e3).as_json()
    ['*', ['eq', 'decode.step_time_s', {}], 1000]
    """

    op: str
    args: tuple

    def __post_init__(self):
        _check.record(self)
        if self.op not in _OPS:
            raise ValueError(f"op must be one of {sorted(_OPS)}; got {self.op!r}")
        n = _OPS[self.op]
        if n is not None and len(self.args) != n:
            raise ValueError(f"args: the operation {self.op!r} takes {n} arguments; got {len(self.args)}")

    def _with(self, op, other, swap=False):
        other = _term(other, "other")
        return Term(op, (other, self) if swap else (self, other))

    def __add__(self, other):
        return self._with("+", other)

    def __radd__(self, other):
        return self._with("+", other, True)

    def __sub__(self, other):
        return self._with("-", other)

    def __rsub__(self, other):
        return self._with("-", other, True)

    def __mul__(self, other):
        return self._with("*", other)

    def __rmul__(self, other):
        return self._with("*", other, True)

    def __truediv__(self, other):
        return self._with("/", other)

    def __rtruediv__(self, other):
        return self._with("/", other, True)

    def __ge__(self, other):
        return self._with(">=", other)

    def __le__(self, other):
        return self._with("<=", other)

    def __gt__(self, other):
        return self._with(">", other)

    def __lt__(self, other):
        return self._with("<", other)

    def as_json(self):
        return [self.op] + [_as_json(a) for a in self.args]

    def equations(self):
        """The registered equations (and :data:`EXPRESSIONS`) the term evaluates, in order."""
        out = [self.args[0]] if self.op in ("eq", "solve") else []
        if self.op == "timeline":
            out += [a for a in self.args[1:] if isinstance(a, str) and _is_equation(a)]
        for a in self.args:
            out += _equations(a)
        return out


def _is_equation(name):
    try:
        roofline_eq(name)
    except ValueError:
        return False
    return True


def _equations(x):
    if isinstance(x, Term):
        return x.equations()
    if isinstance(x, dict):
        return [e for v in x.values() for e in _equations(v)]
    if isinstance(x, (tuple, list)):
        return [e for v in x for e in _equations(v)]
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return [e for f in dataclasses.fields(x) for e in _equations(getattr(x, f.name))]
    return []


def _as_json(x):
    """A declaration as the page reads it: a Term as [op, args...], a record as an object of its required fields
    and those set (not empty), tuples as arrays."""
    if isinstance(x, Term):
        return x.as_json()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _as_json(getattr(x, f.name)) for f in dataclasses.fields(x)
                if getattr(x, f.name) not in ((), "", None, {}) or (f.default is dataclasses.MISSING and
                                                                 f.default_factory is dataclasses.MISSING)}
    if isinstance(x, dict):
        return {k: _as_json(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_as_json(v) for v in x]
    return x


def _name(what, x):
    if not isinstance(x, str) or not x.isidentifier():
        raise ValueError(f"{what} must be a name (an identifier str); got {_check.short(x)}")
    return x


def eq(name, **at):
    """A registered equation (a :func:`roofline_eq` name), at the figure's values with the keywords ``at``
    (numbers or Terms) put in place: ``eq("prefill.prefill_compute_time_s", attn_flops=0)``.

    >>> eq("pipeline.bubble_fraction", n_micro=8).as_json()
    ['eq', 'pipeline.bubble_fraction', {'n_micro': 8}]
    """
    roofline_eq(name)
    for k in at:
        if k not in symbols.TABLE:
            raise ValueError(f"at: {k!r} is not a keyword of roofline.symbols")
    return Term("eq", (name, {k: _term(v, k) for k, v in at.items()}))


def value(keyword):
    """The figure's value of ``keyword``: a control's, through ``Plot.keywords``, or its deployment's
    (``value("n_chips")``); over a panel's x, its ``x`` keyword is the axis.

    >>> value("hbm_bytes").as_json()
    ['value', 'hbm_bytes']
    """
    return Term("value", (_name("keyword", keyword),))


def setting(control):
    """A control's current value, by the control's name: ``setting("batch")``."""
    return Term("setting", (_name("control", control),))


def position(control):
    """A control's current position among its options (or a slider's stops), from 0: to index the data."""
    return Term("position", (_name("control", control),))


def data(*path):
    """The chapter's data (``Live.data``), down ``path``: names, indices, or Terms such as
    :func:`setting` and :func:`position` (``data("experts", setting("model"))``)."""
    if not path:
        raise ValueError("path must name at least one entry of the figure's data")
    for p in path:
        if not isinstance(p, (str, int, Term)) or isinstance(p, bool):
            raise ValueError(f"path must hold names, indices or Terms; got {_check.short(p)}")
    return Term("data", tuple(path))


def ref(name):
    """One of the plot's ``Plot.values``, by name (one declared before it)."""
    return Term("ref", (_name("name", name),))


def series(name):
    """A series of the panel (for its axis limits, points and marks), by name."""
    return Term("series", (_name("name", name),))


def item(term, index):
    """Element ``index`` (a Term: :func:`position`) of ``term`` where it is an array, else ``term`` itself: a table
    the data stores as one number where it does not vary."""
    return Term("item", (_term(term, "term"), _term(index, "index")))  # a negative index from the end


def minimum(*terms):
    """The least of ``terms`` (elementwise)."""
    return Term("min", tuple(_term(t, "terms") for t in terms))


def maximum(*terms):
    """The greatest of ``terms`` (elementwise)."""
    return Term("max", tuple(_term(t, "terms") for t in terms))


def when(condition, then, otherwise):
    """``then`` where ``condition`` holds, else ``otherwise`` (elementwise over an axis: a price step): a label's
    conditional piece (``when(setting("batch") <= ref("wall"), "KV fits", "KV does NOT fit")``)."""
    return Term("if", (_term(condition, "condition"), _term(then, "then"), _term(otherwise, "otherwise")))


def argmax(**terms):
    """The name of the largest of ``terms`` (the first, where several are): a regime's name."""
    if not terms:
        raise ValueError("terms must name at least one term")
    return Term("argmax", tuple(x for k, v in terms.items() for x in (k, _term(v, k))))


def one_of(term, *values):
    """Whether ``term`` is one of ``values`` (numbers or text): ``one_of(setting("kind"), "gpipe", "1f1b")``."""
    return Term("in", (_term(term, "term"), *(_term(v, "values") for v in values)))


def finite(term):
    """Whether ``term`` is a finite number."""
    return Term("finite", (_term(term, "term"),))


def _series_or_term(x):
    return x if isinstance(x, Term) else _name("names", x)


def low(*names):
    """The least positive finite value of the panel's named series, or of Terms (arrays); of all it draws,
    its lines' too, if none named."""
    return Term("low", tuple(_series_or_term(n) for n in names))


def high(*names):
    """The greatest finite value of the panel's named series, or of Terms (arrays); of all it draws, its
    lines' too, if none named."""
    return Term("high", tuple(_series_or_term(n) for n in names))


def ladder_below(term, ladder):
    """The greatest step of ``ladder`` (a Term: multipliers of a power of ten, such as 1, 2, 5, from the data)
    times a power of ten at or below ``term``."""
    return Term("ladder_below", (_term(term, "term"), _term(ladder, "ladder")))


def ladder_above(term, ladder):
    """The least step of ``ladder`` (or 10) times the power of ten at or below ``term``, at or above it."""
    return Term("ladder_above", (_term(term, "term"), _term(ladder, "ladder")))


INFINITY = Term("inf", ())
"""A model of unbounded size (``n_active``) as a Term, where an equation takes its limit."""


def geomspace(low, high, n):
    """``n`` values from ``low`` to ``high`` (Terms) evenly spaced in log, the ends exact (numpy's geomspace): an
    axis the figure's values set."""
    return Term("geomspace", (_term(low, "low"), _term(high, "high"), _check.whole("n", n, 2, MAX_STOPS)))


def solve(expression, keyword, low, factor, **at):
    """The value of ``keyword`` at which ``expression`` (a :func:`roofline_eq` name; one that rises with the
    keyword) is zero, at the figure's values with ``at`` (keyword -> Term) put in place: 64 halvings of the
    bracket from ``low`` (a Term) to ``low`` times ``factor``, in log, as :func:`roofline.training.optimal_for_loss`
    bisects; elementwise where the values are arrays. A root finder of the page's script, not a formula.

    >>> solve("training.OPTIMUM_CONDITION", "tokens_pre", 1e9, 1e30, usage_flops=0).as_json()[:4]
    ['solve', 'training.OPTIMUM_CONDITION', 'tokens_pre', 1000000000]
    """
    if not isinstance(expression, str):
        raise ValueError(f"expression must be an equation's name (str); got {_check.short(expression)}")
    eq_ = roofline_eq(expression)
    if keyword not in eq_.args:
        raise ValueError(f"keyword must be one of {expression}'s keywords {eq_.args}; got {_check.short(keyword)}")
    for k in at:
        if k not in symbols.TABLE:
            raise ValueError(f"at: {k!r} is not a keyword of roofline.symbols")
    return Term("solve", (expression, keyword, _term(low, "low"), _term(factor, "factor"),
                          {k: _term(v, k) for k, v in at.items()}))


TIMELINES = {
    "activations": "the bytes one training step holds, step by step (roofline.figures.revnet.memory_timeline); "
                   "args: kind, held equation, layer equation, backward, part ('t' or 'held')",
    "schedule": "a pipeline schedule's operations (roofline.pipeline.schedule); args: stages, micro-batches, "
                "kind, forward, backward, part ('ops', 'end' or 'idle': roofline.pipeline.idle_fraction)",
}
"""The timelines the page's script builds, algorithms rather than formulas, by the name :func:`timeline` gives."""


def timeline(kind, *args):
    """A timeline of the page's script (:data:`TIMELINES`) with ``args`` (names of equations, Terms, numbers), the
    last the part of it wanted: ``timeline("activations", "stored", held, layer, backward, "t")``, the times of
    the stored step's points. The script builds each once a redraw."""
    if kind not in TIMELINES:
        raise ValueError(f"kind must be one of {sorted(TIMELINES)}; got {_check.short(kind)}")
    return Term("timeline", (kind, *(_term(a, "args") for a in args)))


def decade_below(term):
    """The power of ten at or below ``term``."""
    return Term("decade_below", (_term(term, "term"),))


def decade_above(term):
    """The power of ten at or above ``term``."""
    return Term("decade_above", (_term(term, "term"),))


def nice_above(term):
    """The next 1, 2 or 5 times a power of ten at or above ``term``."""
    return Term("nice_above", (_term(term, "term"),))


def decades(lo, hi):
    """Axis limits on whole decades: the power of ten at or below ``lo``, at or above ``hi``."""
    return (decade_below(_term(lo, "lo")), decade_above(_term(hi, "hi")))


@dataclasses.dataclass(frozen=True)
class Style:
    """How an element is drawn: ``color`` a name of the script's palette (compute, weights, kv, memory, total,
    comm, wall, grey, ...; the plot's ``palette`` first) or any CSS colour, ``width`` in pixels, ``dash`` an SVG
    dash pattern ("5 3"), ``opacity`` (0: opaque)."""

    color: str = "total"
    width: float = 1.5
    dash: str = ""
    opacity: float = 0.0

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Series:
    """One curve of a :class:`Panel`: ``y``, a :class:`Term`, over the panel's x (or its own ``x``, a Term of
    the same length: a timeline's times).

    ``markers``: a dot at every x; ``step``: "pre" or "post", drawn as matplotlib's steps; ``floor``: a zero
    on a log axis drawn just below it. ``when``: a Term; where false the series is not drawn (null).
    ``optional``: a group's name; where the equations of a series of the group lack a value (a chip without a
    rate), none of the group is drawn.
    """

    name: str
    label: str
    y: Term
    style: Style = Style()
    x: Term | None = None
    markers: bool = False
    step: str = ""
    floor: bool = False
    when: Term | None = None
    optional: str = ""

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Line:
    """A horizontal line at ``y`` (a Term: the HBM per chip), dashed by default."""

    name: str
    label: str
    y: Term | float
    style: Style = Style("grey", 1.0, "5 3")

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Span:
    """A shaded span of x from ``start`` (a Term: the KV-cache wall) to ``end`` (None: the axis' end), kept
    within the axis (``clamp``; else only short of its end)."""

    name: str
    label: str
    start: Term | float
    end: Term | float | None = None
    style: Style = Style("wall", 8.0)
    clamp: bool = True

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Mark:
    """A vertical line at ``x`` (a Term; usually a control's value, :func:`setting`), dotted by default."""

    name: str
    label: str
    x: Term | float
    style: Style = Style("grey", 1.0, "2 2")

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Point:
    """A marker at ``x`` (a Term: the balance batch) on the series ``on`` (its value there; ``interp``: read
    off the drawn line, linear in log x), or at ``y`` if given. ``within``: none where ``x`` is not finite
    or off the axis. ``shape`` circle, square or triangle; ``edge`` an outline colour."""

    name: str
    label: str
    x: Term | float
    on: str = ""
    y: Term | float | None = None
    interp: bool = False
    within: bool = False
    color: str = "total"
    r: float = 3.5
    shape: str = ""
    edge: str = ""

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Text:
    """A text at (``x``, ``y``) in the axes' units, ``above`` pixels higher, ``size`` pixels tall."""

    text: str
    x: float
    y: float
    color: str = "grey"
    size: float = 12.0
    above: float = 0.0

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Blocks:
    """Bars on lanes: ``ops``, a Term of records {stage, kind, start, end} (a :func:`timeline` of a pipeline
    schedule), each drawn on lane ``stage`` from ``start`` to ``end`` in the colour ``colors[kind]`` (a pair:
    colour, label); every lane of ``lanes`` (a Term) first filled in ``background`` (colour, label) over the
    axis. The lanes are the y axis' ticks, written by ``lane_label`` ("rack {}"), at most a dozen."""

    name: str
    ops: Term
    lanes: Term | float
    colors: dict
    background: tuple = ()
    lane_label: str = "{}"

    def __post_init__(self):
        _check.record(self)
        if not all(isinstance(v, tuple) and len(v) == 2 for v in self.colors.values()):
            raise ValueError(f"Blocks: colors must map each kind to (colour, label); got {_check.short(self.colors)}")


@dataclasses.dataclass(frozen=True)
class Ticks:
    """An axis' ticks: ``fmt`` "" (counts, never "0" on a log axis), "plain" (the number), "pow10" (10 to the
    exponent) or "125" (a log axis' powers of ten, or where fewer than two show, 1, 2 and 5 times them, as
    counts); about ``n`` of them on a linear axis (``narrow`` on a phone, if set; ``inside``: between the data's
    ends; ``whole``: whole numbers only)."""

    fmt: str = ""
    n: int = 5
    inside: bool = False
    narrow: int = 0
    whole: bool = False

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Panel:
    """One panel: ``series`` (and lines, spans, marks, points) against the keyword ``x`` over ``grid``.

    ``keywords``: keyword -> Term, values this panel alone sets (a fresh prompt's ``batch`` of 1).
    ``grid`` may be a Term (:func:`geomspace` of the figure's values). ``values``: name -> Term, arrays over the
    panel's x that its series, points and limits :func:`ref`. ``texts``: :class:`Text` annotations.
    ``blocks``: :class:`Blocks`, bars on lanes (a schedule's timeline).
    ``xscale``: the axis shows ``grid`` times it (contexts in thousands of tokens); the x of lines, spans,
    marks and points is in the axis' units.
    ``xlim`` and ``ylim``: pairs of Terms (:func:`decades`, :func:`low`, :func:`high`); by default the grid's
    ends, and the series' whole decades (log) or 0 to 1.1 times their top (linear). ``note``: a label template
    shown in a box in the panel (under the plot on a phone), ``note_width`` its box's width.
    """

    x: str
    grid: tuple | Term
    xlabel: str
    ylabel: str
    series: tuple
    lines: tuple = ()
    spans: tuple = ()
    marks: tuple = ()
    points: tuple = ()
    xlog: bool = False
    ylog: bool = False
    xlim: tuple = ()
    ylim: tuple = ()
    xticks: Ticks | None = None
    yticks: Ticks | None = None
    note: str = ""
    note_width: float = 230.0
    keywords: dict = dataclasses.field(default_factory=dict)
    xscale: float = 1.0
    values: dict = dataclasses.field(default_factory=dict)
    texts: tuple = ()
    blocks: tuple = ()

    def __post_init__(self):
        _check.record(self)
        for field, cls in (("series", Series), ("lines", Line), ("spans", Span), ("marks", Mark),
                           ("points", Point), ("texts", Text), ("blocks", Blocks)):
            if not all(isinstance(x, cls) for x in getattr(self, field)):
                raise ValueError(f"Panel: {field} must be {cls.__name__}s; got {_check.short(getattr(self, field))}")
        for field in ("xlim", "ylim"):
            lim = getattr(self, field)
            if lim and (len(lim) != 2 or not all(isinstance(t, (Term, int, float)) for t in lim)):
                raise ValueError(f"Panel: {field} must be a pair of Terms; got {_check.short(lim)}")

    def names(self):
        return [x.name for group in (self.series, self.lines, self.spans, self.marks, self.points, self.blocks)
                for x in group]


@dataclasses.dataclass(frozen=True)
class Plot:
    """A live figure the page draws from this description alone, with no code of its own.

    Parameters
    ----------
    panels : tuple of Panel
        Their places on a wide screen in ``boxes``.
    keywords : dict
        Equation keyword -> control name, or a :class:`Term` (evaluated in order, after the deployment):
        the values the controls set (``{"n_chips": "gpus"}``).
    title : str
        The line above the panels (under them on a phone), a template of control names, keywords and
        ``values``: ``{micro:,}`` (whole, thousands separated), ``{at:.1f}``, ``{share:.0%}``, ``{b:count}``
        (:func:`roofline.figures.live.count`), ``{t:.3g}``. A value that is text is filled too.
    values : dict
        Name -> Term: numbers and text at the current settings, in order (:func:`ref` names an earlier one),
        for the labels; the page exposes them with what it plots (but an empty text: a label's piece left
        out).
    deployment : tuple
        The controls that choose the model, the chip and the precision (None: the table's one model, chip
        or precision); the values come from the data's ``deployments`` (:func:`deployments`) and, for a
        model with sliding-window layers, its ``windows`` at the ``len_ctx`` control's position.
    boxes : tuple
        Each panel's [x, y, width, height] in a 760-wide view box ``height`` tall.
    legend : tuple
        The key's entries, by the names of series, lines, spans, marks and points (all that have a label,
        in order, if empty).
    palette : str
        A palette of the script's looked up before its common one ("serving").
    tables : tuple
        Terms giving tables (keyword -> value) whose values the figure takes, after the deployment's
        (``data("laws", setting("law_name"))``).
    needs : tuple
        Keywords without which there is no figure (a rate the registry lacks for the chip): where one has no
        value, the page shows ``missing``, a label template, in its place.
    missing : str
        See ``needs``.
    """

    panels: tuple
    keywords: dict
    title: str = ""
    values: dict = dataclasses.field(default_factory=dict)
    deployment: tuple = ("model", "chip", None)
    boxes: tuple = ()
    height: float = 300.0
    legend: tuple = ()
    palette: str = ""
    tables: tuple = ()
    needs: tuple = ()
    missing: str = ""

    def __post_init__(self):
        _check.record(self)
        if not all(isinstance(p, Panel) for p in self.panels) or not all(
                isinstance(v, Term) for v in self.values.values()):
            raise ValueError(f"Plot: panels must be Panels and values map names to Terms; got "
                             f"{_check.short(self.panels)}, {_check.short(self.values)}")
        if self.boxes and len(self.boxes) != len(self.panels):
            raise ValueError(f"Plot: boxes must give each of the {len(self.panels)} panels its place")
        names = {n for p in self.panels for n in p.names()}
        unknown = [n for n in self.legend if n not in names]
        if unknown:
            raise ValueError(f"Plot: legend names {unknown} that no panel draws")

    def equations(self):
        """Every equation the plot evaluates, each once, in order."""
        return tuple(dict.fromkeys(_equations((self.keywords, self.values, self.panels))))

    def as_json(self):
        return _as_json(self)


def curves(key, chapter, controls, plot, data, caption="", frame=None):
    """A :class:`Live` drawn from ``plot`` alone: its equations are those the plot names."""
    _check.instance("plot", plot, Plot, "a Plot")
    controls = _values("controls", controls)
    if not all(isinstance(c, Control) for c in controls):
        raise ValueError(f"controls must be Controls (see select, int_slider, ...); got {_check.short(controls)}")
    known = {c.name for c in controls}
    named = [c for c in plot.keywords.values() if isinstance(c, str)] + [c for c in plot.deployment if c]
    missing = [c for c in named if c not in known]
    if missing:
        raise ValueError(f"live figure {key}: the plot uses controls {missing} that it does not have")
    return Live(key, chapter, plot.equations(), tuple(controls), data, caption, plot, frame)
