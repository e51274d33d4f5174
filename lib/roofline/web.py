"""The published page's live figures: JavaScript generated from the library's equations, and registry data.

A reader of the published book has no kernel.
For each chapter's main live figure this module writes what a browser needs to redraw it as the reader
moves a control: every equation the figure plots, printed from its sympy expression by sympy's
JavaScript code printer (no formula is typed a second time), the values of the registry's models and
chips the figure can be set to, and the controls themselves. The live figures' script
(``roofline/static/roofline-live.js``, served by the book) draws the figure from these; the book's
Sphinx extension regenerates :func:`bundle` at every build and fails the build if the committed copy
(``book/_static/roofline-generated.js``) is stale. In a notebook, :mod:`roofline.widget` shows the
same script's figure under ipywidgets controls made from the same declaration.

A chapter's figure is declared once, as one :class:`Live`: the equations it evaluates (registered
ones, and the few sympy expressions of :data:`EXPRESSIONS` that a library algorithm solves, such as
chapter 5's optimum condition), its controls (name, label in the lecture's terms, options or stops,
start; with :meth:`Control.unless`, the settings at which it cannot change the figure, found by the
library, where the page and the notebook disable it with a note), a function that exports the data it
needs, computed by the library (a deployment's values by keyword, the chips an expert layer uses), and
``frame``, the chapter's matplotlib figure at given settings (the static frame a reader without
JavaScript sees; ``live_frame`` in the chapter's figure module). A figure that is curves of equations
against one keyword per panel is described whole by a :class:`Plot` (chapter 4's is) and needs no
script of its own; a figure with more (chapter 1's balance point and memory wall, chapter 3's
timelines, chapter 5's optimum found by bisection, chapter 6's price step, chapter 7's memory
timelines, chapter 8's fresh prompts and break-even batch) adds a ``compute`` and a ``draw`` function
to the script's ``FIGURES``, which call the generated equations and type no formula.

Adding a chapter's live figure
------------------------------
1. Here: a function that returns its :class:`Live` (with :func:`curves` and a :class:`Plot`
   where that suffices), added to :data:`LIVE`; its data from :func:`deployments` and
   :func:`window_tables` or any other library call; its ``frame`` a ``live_frame(settings)`` in the
   chapter's figure module.
2. In the chapter notebook: a cell ``widget.frame("KEY")`` (the static frame), just after it a markdown
   cell holding ``<div class="roofline-live" data-figure="KEY"></div>`` (:func:`placeholder`; the page
   draws the live figure there and hides the frame), and a cell ``controls = widget.controls("KEY")``,
   ``widget.figure("KEY", controls)`` (the notebook's live figure).
3. ``python -m roofline.web book/_static/roofline-generated.js``.
4. In ``tests/browser/test_live.py``: ``expect_KEY`` (what the figure plots, from the
   library) and ``got_KEY`` (the same values read from the page), and a second starting state.
   ``tests/test_web.py`` checks the notebook's controls against the declaration and the placeholder;
   ``tests/browser/test_widget.py`` drives the notebook's figure.

>>> print(js_function(roofline_eq("pipeline.bubble_fraction")))
function (n_stages, n_micro) { return (n_stages - 1)/(n_stages + n_micro - 1); }
>>> sorted(LIVE)
['decode', 'memory', 'moe', 'pipeline', 'prefill', 'revnet', 'serving', 'training']
"""

import dataclasses
import html
import inspect
import itertools
import json
import pathlib
import sys

import numpy as np
import sympy as sp
from sympy.printing.jscode import JavascriptCodePrinter

from . import (_check, equations, hardware, lecture, models, moe, moe_data, pipeline, prefill, registry, revnet,
               serving, symbols, training, training_runs)
from .figures import decode as fig_decode, memory as fig_memory, moe as fig_moe, revnet as fig_revnet
from .figures import live as fig_live, pipeline as fig_pipeline, prefill as fig_prefill, serving as fig_serving
from .figures import training as fig_training
from .notebook import deploy

GENERATED = "roofline-generated.js"
"""File name of the generated script, in the book's ``_static`` folder."""

_RESERVED = {"break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
             "else", "export", "extends", "finally", "for", "function", "if", "import", "in", "instanceof",
             "new", "return", "super", "switch", "this", "throw", "try", "typeof", "var", "void", "while",
             "with", "yield", "let", "static", "enum", "await", "implements", "package", "protected",
             "interface", "private", "public", "null", "true", "false", "arguments", "eval", "Math"}


# -- equations as JavaScript --------------------------------------------------------------------
class _Printer(JavascriptCodePrinter):
    """sympy's JavaScript printer, with each symbol printed as its keyword (``B`` -> ``batch``)."""

    def _print_Symbol(self, expr):
        name = symbols.by_symbol(expr).keyword
        if not name.isidentifier() or name in _RESERVED:
            raise ValueError(f"keyword {name!r} is not usable as a JavaScript parameter")
        return name


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


def js_function(eq):
    """One JavaScript function computing ``eq``: its keywords as parameters, its expression as the body.

    Max and Min print as ``Math.max``/``Math.min``, a Piecewise as nested conditionals and an infinite
    branch as ``Number.POSITIVE_INFINITY``; the browser test compares every plotted value with numpy.
    """
    if not isinstance(eq, (equations.Equation, Expression)):
        raise ValueError(f"eq must be a registered roofline Equation or an Expression; got {eq!r}")
    body = _Printer().doprint(eq.expr)
    body = " ".join(line.strip() for line in body.splitlines())  # Piecewise prints over several lines
    return f"function ({', '.join(eq.args)}) {{ return {body}; }}"


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

        >>> LIVE["moe"].control("layout").inert_note({"model": "DeepSeek-V3", "chip": "GB200", "racks": 1})
        'in one rack both layouts are its GPUs'
        >>> LIVE["moe"].control("layout").inert_note({"model": "DeepSeek-V3", "chip": "GB200", "racks": 2}) is None
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
@dataclasses.dataclass(frozen=True)
class Series:
    """One curve of a :class:`Panel`: the sum of registered equations, each times ``scale``, over the panel's x.

    ``color`` names a colour of the script's palette (compute, weights, kv, memory, total, comm, grey)
    or is any CSS colour; ``dash`` an SVG dash pattern ("5 3"); ``markers`` a dot at every x.
    """

    name: str
    label: str
    equations: tuple
    scale: float = 1.0
    color: str = "total"
    width: float = 1.5
    dash: str = ""
    markers: bool = False

    def __post_init__(self):
        _check.record(self)


@dataclasses.dataclass(frozen=True)
class Panel:
    """One panel: ``series`` against the keyword ``x`` over ``grid``.

    ``hline``: (label, keyword, scale), a dashed line at a value the figure knows (the HBM per chip);
    ``marker``: a dotted line at the current value of ``x``; ``dot``: the series marked at that value.
    """

    x: str
    grid: tuple
    xlabel: str
    ylabel: str
    series: tuple
    xlog: bool = False
    ylog: bool = False
    hline: tuple = ()
    marker: bool = False
    dot: str = ""

    def __post_init__(self):
        _check.record(self)
        if not all(isinstance(x, Series) for x in self.series):
            raise ValueError(f"Panel: series must be Series; got {_check.short(self.series)}")


@dataclasses.dataclass(frozen=True)
class Plot:
    """A live figure the page draws from this description alone, with no code of its own.

    Parameters
    ----------
    panels : tuple of Panel
        Side by side.
    keywords : dict
        Equation keyword -> control name: the values the controls set (``{"n_chips": "gpus"}``).
    label : str
        The line above the panels, a template of control names and ``scalars``: ``{micro:,}`` (whole,
        thousands separated), ``{at:.1f}``, ``{share:.0%}``.
    scalars : dict
        Name -> (equations, scale): sums evaluated at the current values, for the label.
    deployment : tuple
        The controls that choose the model, the chip and the precision (None: the table's one
        precision); the values come from the data's ``deployments`` (:func:`deployments`) and, for a
        model with sliding-window layers, its ``windows`` at the ``len_ctx`` control's position.
    """

    panels: tuple
    keywords: dict
    label: str = ""
    scalars: dict = dataclasses.field(default_factory=dict)
    deployment: tuple = ("model", "chip", None)

    def __post_init__(self):
        _check.record(self)
        if not all(isinstance(p, Panel) for p in self.panels) or not all(
                isinstance(v, tuple) and len(v) == 2 for v in self.scalars.values()):
            raise ValueError(f"Plot: panels must be Panels and scalars map names to (equations, scale); got "
                             f"{_check.short(self.panels)}, {_check.short(self.scalars)}")

    def equations(self):
        """Every equation the plot evaluates, each once, in order."""
        names = [e for p in self.panels for s in p.series for e in s.equations]
        names += [e for eqs, _ in self.scalars.values() for e in eqs]
        return tuple(dict.fromkeys(names))

    def as_json(self):
        return dataclasses.asdict(self)


def curves(key, chapter, controls, plot, data, caption="", frame=None):
    """A :class:`Live` drawn from ``plot`` alone: its equations are those the plot names."""
    _check.instance("plot", plot, Plot, "a Plot")
    controls = _values("controls", controls)
    if not all(isinstance(c, Control) for c in controls):
        raise ValueError(f"controls must be Controls (see select, int_slider, ...); got {_check.short(controls)}")
    known = {c.name for c in controls}
    missing = [c for c in list(plot.keywords.values()) + [c for c in plot.deployment if c] if c not in known]
    if missing:
        raise ValueError(f"live figure {key}: the plot uses controls {missing} that it does not have")
    return Live(key, chapter, plot.equations(), tuple(controls), data, caption, plot, frame)


# -- chapter 1: step time and cost per token against batch ----------------------------------------
_DECODE_EQS = ("decode.compute_time_s", "decode.weight_time_s", "decode.kv_time_s", "decode.memory_time_s",
               "decode.step_time_s", "decode.cost_per_token_usd", "decode.cost_floor_usd", "decode.max_batch_n",
               "decode.balance_batch_with_kv_n", "decode.compute_time_attn_s", "decode.weight_time_touched_s",
               "decode.step_time_refined_s")


def _decode_data(live):
    keys = _keys(map(roofline_eq, live.equations), ("batch", "len_ctx"))
    precisions = live.control("precision").options
    table = deployments(models.names(), hardware.names(), precisions, keys)
    return {"deployments": table,
            "windows": window_tables(keys, live.control("context").grid),
            "batch": batch_axis(fig_decode.DecodeFigure),
            "ms": fig_decode.MS, "per_million": fig_decode.PER_MILLION}


def _refined_inert(precisions):
    """Where chapter 1's "experts touched + attention FLOPs" box cannot change the figure: a model without its
    experts' shapes (fig_decode.can_refine), a chip without the attention rate the refined terms need."""
    def cannot(model, chip, precision):
        d = deploy(model, chip, precision)
        if not fig_decode.can_refine(d):
            return True
        try:
            fig_decode.latency_terms(d, [1.0, 2.0], 1, refined=True)
        except ValueError:  # no attention FLOP rate at the cache's precision on this chip
            return True
        return False

    every = {"model": models.names(), "chip": hardware.names(), "precision": precisions}
    return (inert_where("{model} lists no expert shapes (only its total and active parameters): nothing to "
                        "refine", {"model": models.names()}, lambda model: cannot(model, "GB200", "fp4")),
            inert_where("the registry gives {chip} no attention FLOP rate at the KV cache's precision, which "
                        "the refined terms need", every, cannot))


def _precision_inert(precisions, names=None):
    """Where chapter 1's precision cannot change the figure: a chip with a rate at one of the precisions only, to
    which every choice falls back (deploy's weight_precision), for every model (of ``names``; all the registry's
    by default)."""
    def fallback(chip):
        ds = [[deploy(m, chip, p) for p in precisions] for m in (names or models.names())]
        same = all(len({(d.weight_precision, tuple(sorted(d.values.items()))) for d in row}) == 1 for row in ds)
        return ds[0][0].weight_precision if same else None

    falls = {chip: fallback(chip) for chip in hardware.names()}
    return tuple(inert_where(f"on {{chip}} every choice falls back to {p.upper()}, the one of these precisions it "
                             "has a rate for", {"chip": hardware.names()}, lambda chip, p=p: falls[chip] == p)
                 for p in dict.fromkeys(v for v in falls.values() if v))


def _decode_live():
    lecture_d = deploy("DeepSeek (lecture)", "GB200", "fp4")
    precisions = tuple(reversed(registry.PRECISIONS))
    board_ctx = 256  # chapter 1's context for the board's picture
    b0 = sum(lecture.CH1["headroom"].value) / 2 * lecture_d.balance_batch(len_ctx=board_ctx)
    controls = (
        select("model", "model", models.names(), "DeepSeek (lecture)"),
        select("chip", "hardware", hardware.names(), "GB200"),
        select("precision", "precision", precisions, "fp4").unless(*_precision_inert(precisions)),
        log_slider("batch", "batch B", 0, 5, b0),
        log_slider("context", "len_ctx", 1, 6, board_ctx),
        checkbox("refined", "experts touched + attention FLOPs").unless(*_refined_inert(precisions)),
    )
    return Live("decode", "01_batch_size", _DECODE_EQS, controls, _decode_data,
                "Step time (left) and cost per token (right) against batch.", frame=fig_decode.live_frame)


# -- chapter 2: the step with the all-to-all --------------------------------------------------------
_MOE_EQS = ("decode.compute_time_s", "decode.weight_time_s", "decode.kv_time_s", "decode.memory_time_s",
            "decode.max_batch_n", "moe.comm_time_s", "moe.step_with_comm_s", "moe.step_with_comm_s[overlap=full]")
_MOE_PRECISION = fig_moe.LIVE_PRECISION  # FP4 weights, or the chip's lowest precision
_MOE_ACT = fig_moe.LIVE_ACTIVATIONS  # dispatch, combine: the activations' precisions (moe_data.act_bytes_per_value)
_MOE_LAYOUTS = (("one rack's, split", "split"), ("each rack's", "widen"))  # moe.layout_chips
_MOE_LINKS = (("64-byte floor", "floor"), ("calibrated", "calibrated"))  # moe_data.link_values


def moe_models():
    """The models chapter 2's controls offer: those with MoE layers."""
    return tuple(m.key for m in models.REGISTRY if m.moe_layers)


def moe_chips():
    """The chips chapter 2's controls offer: those with a published scale-out network."""
    return tuple(h.key for h in hardware.REGISTRY if h.scaleout_bw)


def _moe_data(live):
    keys = _keys(map(roofline_eq, live.equations), ("batch", "len_ctx", "n_racks", "hop_latency", "n_chips",
                                                     "scaleout_bw", "act_bytes"))
    racks = live.control("racks").grid
    table = deployments(moe_models(), moe_chips(), (_MOE_PRECISION,), keys)
    experts = {m: models.get(m).routed_experts for m in moe_models()}
    # per chip, model and layout: [GPUs, racks] at each position of the racks slider
    layouts = {}
    for h in moe_chips():
        domain = hardware.get(h).scaleup_domain
        layouts[h] = {m: {lay: [list(moe.layout_chips(e, domain, r, lay)) for r in racks] for lay in moe.LAYOUTS}
                      for m, e in experts.items()}
    links = {h: {kind: {"rack": moe_data.link_values(h, 1, kind)["hop_latency"],
                        "racks": moe_data.link_values(h, 2, kind)["hop_latency"],
                        "scaleout_bw": moe_data.link_values(h, 2, kind)["scaleout_bw"],
                        "scaleup_bw": moe_data.link_values(h, 1, kind)["scaleup_bw"]}
                 for kind in moe_data.LINKS} for h in moe_chips()}
    return {"deployments": table, "experts": experts, "layout_chips": layouts, "links": links,
            "act_bytes": moe_data.act_bytes_per_value(*_MOE_ACT),
            "windows": window_tables(keys, live.control("context").grid,
                                     lambda m: deploy(m, "GB200", _MOE_PRECISION)),
            "batch": batch_axis(fig_moe.MoeFigure), "ms": fig_moe.MS}


def _layout_inert(racks):
    """Where chapter 2's layout ("GPUs") cannot change the figure: both layouts take the same GPUs
    (moe.layout_chips), in one rack, or where one rack already holds every expert, one a GPU."""
    def same(chip, model, n_racks):
        e, domain = models.get(model).routed_experts, hardware.get(chip).scaleup_domain
        return moe.layout_chips(e, domain, n_racks, "split") == moe.layout_chips(e, domain, n_racks, "widen")

    chips, names = moe_chips(), moe_models()
    return (inert_where("in one rack both layouts are its GPUs", {"racks": racks},
                        lambda racks: all(same(h, m, racks) for h in chips for m in names)),
            inert_where("one {chip} rack already holds each of {model}'s experts on a GPU of its own: no "
                        "layout adds GPUs", {"chip": chips, "model": names},
                        lambda chip, model: all(same(chip, model, r) for r in racks)))


def _moe_live():
    domain = hardware.get("GB200").scaleup_domain
    ep = deploy("DeepSeek-V3", "GB200", _MOE_PRECISION, n_chips=moe.ep_chips(256, domain))
    racks = int_slider("racks", "racks", 1, 8, 1)
    controls = (
        select("model", "model", moe_models(), "DeepSeek-V3"),
        select("chip", "hardware", moe_chips(), "GB200"),
        int_slider("top_k", "top-k K", 1, 32, 8),
        racks,
        select("layout", "GPUs", _MOE_LAYOUTS, "split").unless(*_layout_inert(racks.grid)),
        select("links", "links", _MOE_LINKS, "calibrated"),
        log_slider("batch", "batch B", 0, 5, ep.balance_batch()),
        log_slider("context", "context (tokens)", 1, 6, 2048),  # chapter 2's chat-length context
    )
    return Live("moe", "02_moe_layout", _MOE_EQS, controls, _moe_data,
                "The decode step with the all-to-all against batch.", frame=fig_moe.live_frame)


# -- chapter 3: pipeline timelines --------------------------------------------------------------
def _pipeline_data(live):
    params = inspect.signature(pipeline.schedule).parameters
    return {"fwd": params["fwd"].default, "bwd": params["bwd"].default,
            "with_formula": ["gpipe", "1f1b"]}  # schedules whose idle share has the closed form


def _pipeline_live():
    controls = (
        int_slider("stages", "stages P", 1, 12, 8),
        int_slider("micro", "micro m", 1, 32, 16),
        select("kind", "schedule", ("gpipe", "1f1b", "inference", "naive"), "1f1b"),
    )
    return Live("pipeline", "03_pipeline_parallelism", ("pipeline.bubble_fraction",), controls, _pipeline_data,
                "The timeline of one schedule.", frame=fig_pipeline.live_frame)


# -- chapter 4: memory per GPU against stages, the weight floor against scale-up size ---------------
_MEMORY_PRECISION = fig_memory.LIVE_PRECISION  # FP8 weights, or the chip's lowest precision


def _memory_data(live):
    keys = _keys(map(roofline_eq, live.equations), ("micro_batch", "len_ctx", "n_stages", "n_chips"))
    return {"deployments": deployments(models.names(), hardware.names(), (_MEMORY_PRECISION,), keys + ["hbm_bytes"]),
            "windows": window_tables(keys, live.control("context").grid,
                                     lambda m: deploy(m, "H100", _MEMORY_PRECISION))}


def _memory_live():
    controls = (
        select("model", "model", models.names(), "Kimi K2"),
        select("chip", "hardware", hardware.names(), "H100"),
        int_slider("gpus", "GPUs G", 1, 128, 8),
        int_slider("stages", "stages P", 1, 16, 4),
        log_slider("micro", "micro b", 0, 4, 64, whole=True),
        log_slider("context", "context (tokens)", 2, 6, 8192),
    )
    per_gb = 1 / fig_memory.GB
    weights, kv = "memory.weights_per_gpu_bytes", "memory.kv_per_gpu_bytes"
    chips = inspect.signature(fig_memory.draw_floor_vs_scaleup).parameters["chips"].default
    plot = Plot(
        panels=(
            Panel("n_stages", tuple(int(p) for p in fig_memory.STAGES), "pipeline stages P", "GB per GPU", (
                Series("weights", "weights", (weights,), per_gb, "weights", markers=True),
                Series("kv", "KV cache", (kv,), per_gb, "kv", markers=True),
                Series("total", "total", (weights, kv), per_gb, "total", width=2.5),
            ), hline=("HBM per GPU", "hbm_bytes", per_gb), marker=True),
            Panel("n_chips", tuple(_number(c) for c in chips), "chips reading the weights at once",
                  "ms per step (weights alone)", (
                      Series("floor", "weight-fetch floor", ("decode.weight_time_s",), 1e3, "weights", width=2.5),
                  ), xlog=True, ylog=True, dot="floor"),
        ),
        keywords={"n_chips": "gpus", "n_stages": "stages", "micro_batch": "micro", "len_ctx": "context"},
        scalars={"at": ((weights, kv), per_gb)},
        label="{model} on {gpus} x {chip} per stage; micro-batch {micro:,}, L = {context:,}: {at:.1f} GB per GPU "
              "at P = {stages}")
    return curves("memory", "04_pipelining_memory", controls, plot, _memory_data,
                  "Memory per GPU against pipeline stages (left); the weight-fetch floor against scale-up size "
                  "(right).", frame=fig_memory.live_frame)


# -- chapter 5: the costs of one quality against pre-training tokens, over-training against traffic -----
_TRAINING_EQS = ("training.tokens_served", "training.inference_cost_flops", "training.equal_cost_pretrain_tokens",
                 "training.equal_cost_rl_tokens", "training.chinchilla_loss", "training.chinchilla_tokens",
                 "training.tokens_for_loss", "training.params_for_loss", "training.pretrain_flops",
                 "training.overtraining_factor", "training.OPTIMUM_CONDITION")


def _training_data(live):
    laws = {name: {k: _compact(v) for k, v in law.values().items()} for name, law in training.LOSS_LAWS.items()}
    above, beyond, steps = fig_training.TOKENS_SPAN
    return {"laws": laws, "law_names": {name: law.name for name, law in training.LOSS_LAWS.items()},
            "month": fig_training.MONTH, "rule": training.CHINCHILLA_RULE,
            "traffic": [_number(t) for t in np.geomspace(*fig_training.TRAFFIC)],
            "tokens_span": {"above": above, "beyond": beyond, "steps": steps}}


def _training_live():
    month_s = lecture.CH5["deploy_months"].value
    controls = (
        log_slider("n_active", "N active", 9, 12, lecture.CH5["n_active"].value),
        log_slider("traffic", "tokens/s", 6, 10, lecture.CH5["traffic_model"].value),
        float_slider("months", "months", 0.5, 24, month_s, 0.5),
        float_slider("rl_flops", "RL FLOPs/token", 2, 6, 3, 0.5),
        float_slider("decode_mfu", "decode MFU", 0.05, 1, 1 / 3, 0.05),
        select("law_name", "law", tuple((fig_training.LAW_LABELS[k], k) for k in training.LOSS_LAWS), "epoch"),
    )
    return Live("training", "05_overtraining", _TRAINING_EQS, controls, _training_data,
                "Costs of the lecture model's quality against pre-training tokens (left); over-training against "
                "traffic (right).", frame=fig_training.live_frame)


# -- chapter 6: cost per token against context under a two-tier price, and against pass length ----------
_SERVING_EQS = ("serving.pass_compute_time_s", "serving.pass_memory_time_s", "serving.pass_time_s",
                "serving.pass_cost_per_token_usd", "decode.max_batch_n", "decode.balance_context_tokens")
_SERVING_MODEL, _SERVING_PRECISION = fig_serving.LIVE_MODEL, "fp4"  # deploy(model, chip, "fp4")
_SERVING_BATCH, _SERVING_CONTEXT = 16384, 32000  # chapter 6's figure: a large batch, a 32K context


def serving_chips():
    """The chips chapter 6's controls offer: those with a rental price."""
    return tuple(h for h in hardware.names() if hardware.get(h).price_usd_per_hour)


def _serving_data(live):
    given = ("batch", "len_ctx", "pass_len", "n_active", "n_total", "kv_bytes", "price")
    keys = _keys(map(roofline_eq, live.equations), given)
    params = inspect.signature(fig_serving.ServingFigure.__init__).parameters
    return {"deployments": deployments((_SERVING_MODEL,), serving_chips(), (_SERVING_PRECISION,), keys),
            "contexts": list(fig_serving.CONTEXTS), "pass_lengths": list(fig_serving.PASS_LENGTHS),
            "step_tokens": _number(params["step_tokens"].default), "premium": _number(params["premium"].default)}


def _serving_start():
    """Chapter 6's figure's start, as its notebook takes it from :func:`roofline.figures.serving.lecture_start`:
    the KV bytes that put GB200's crossover at the price step, and the decode batch at which decode's memory
    time is ``output_input`` times its compute."""
    ch6 = lecture.CH6
    values, b = fig_serving.lecture_start(deploy(_SERVING_MODEL, "GB200", _SERVING_PRECISION).values,
                                          ch6["n_active"].value, ch6["price_step_tokens"].value, _SERVING_CONTEXT,
                                          ch6["output_input"].value)
    return float(values["kv_bytes"]), b


def _serving_live():
    k_step, b5 = _serving_start()
    stops = fig_serving.control_stops(k_step, b5)  # the widget cell's stops: 1-2-5 per decade and the starts
    controls = (
        selection_slider("n_active", "N active", stops["n_active"], 1e11, counts=True),
        selection_slider("total_ratio", "N total / N active", fig_serving.TOTAL_RATIOS, 10),
        selection_slider("kv", "KV bytes/token", stops["kv"], k_step, counts=True),
        select("chip", "hardware (per GPU/chip)", serving_chips(), "GB200"),
        float_slider("price", "$/GPU-h", 0.5, 10, 2.0, 0.25),
        selection_slider("batch", "batch (left)", stops["batch"], _SERVING_BATCH, counts=True),
        selection_slider("decode_batch", "decode batch (right)", stops["decode_batch"], b5, counts=True),
        selection_slider("context", "context (right)", stops["context"], _SERVING_CONTEXT, counts=True),
    )
    return Live("serving", "06_api_pricing", _SERVING_EQS, controls, _serving_data,
                "Cost per output token against context under a two-tier price (left); cost per token against "
                "pass length (right).", frame=fig_serving.live_frame)


# -- chapter 7: activations held over a training step, stored, checkpointed and reversible ------------------
_REVNET_VARIANT = {"scores": "flash", "dropout": "off"}  # TimelineFigure's defaults: FlashAttention, no dropout
_REVNET_LAYER = equation_id(revnet.layer_activation_bytes.under(**_REVNET_VARIANT))
_REVNET_HELD = {k: equation_id(revnet.training_activation_bytes.under(activations=k, **_REVNET_VARIANT))
                for k in fig_revnet.KINDS}
HEAD_DIM = fig_revnet.HEAD_DIM  # heads of 128 dimensions (n_heads = d_model // 128)


def _revnet_data(live):
    params = inspect.signature(fig_revnet.TimelineFigure.__init__).parameters
    drawn = {"scores": params["scores"].default, "dropout": params["dropout"].default}
    if drawn != _REVNET_VARIANT:
        raise ValueError(f"TimelineFigure draws {drawn}; the page draws {_REVNET_VARIANT}: update _REVNET_VARIANT")
    return {"kinds": list(fig_revnet.KINDS), "labels": [fig_revnet.LABELS[k] for k in fig_revnet.KINDS],
            "backward": _number(training.BACKWARD_FLOPS_PER_PARAM / training.FORWARD_FLOPS_PER_PARAM),
            "layer": _REVNET_LAYER, "held": _REVNET_HELD, "head_dim": HEAD_DIM, "gb": fig_revnet.GB,
            "hbm_bytes": _number(hardware.get("H100").hbm_bytes),
            "hbm_label": fig_revnet.hbm_label(hardware.get("H100").hbm_bytes, "H100"),
            "ladder": list(fig_revnet.LADDER)}


def _revnet_live():
    llama = models.get("Llama 3.1 70B")  # chapter 7's shape: GPT-style layers at Llama 3.1 70B's width and depth
    controls = (
        int_slider("n_layers", "layers", 1, 160, llama.layers),
        selection_slider("d_model", "width D", (1024, 2048, 4096, 8192, 12288, 16384), llama.hidden_size),
        int_slider("micro_batch", "micro b", 1, 32, 1),
        selection_slider("len_ctx", "length L", [2 ** k for k in range(9, 20)], 4096),
        select("saved_act_bytes", "bytes/act.", (("FP32 (4 B)", 4), ("BF16 (2 B)", 2), ("FP8 (1 B)", 1)), 2),
    )
    return Live("revnet", "07_crypto_and_nets", (_REVNET_LAYER, *_REVNET_HELD.values()), controls, _revnet_data,
                "Activations held over one training step: stored, checkpointed and reversible.",
                frame=fig_revnet.live_frame)


# -- chapter 8: time to first token against prompt length, a user's speed against batch with speculation ------
_PREFILL_EQS = ("prefill.prefill_compute_time_s", "prefill.prefill_memory_time_s", "prefill.prefill_time_s",
                "speculation.spec_pass_time_s", "speculation.spec_user_tokens_per_s", "speculation.spec_speedup",
                "speculation.spec_breakeven_batch", "decode.max_batch_n")
PREFILL_MODELS = ("DeepSeek-V3", "Kimi K2", "Qwen3-235B-A22B", "gpt-oss-120b", "Llama 3.1 405B", "Llama 3.1 70B",
                  "Mixtral 8x7B")
"""The models chapter 8's controls offer (its ``names``: the registry's served models with their layers' shapes)."""


def _prefill_data(live):
    """Chapter 8's figure's data: the deployments' values; per model what a fresh prompt's pass takes
    (roofline.figures.prefill._prompt_values: prefill's attention FLOPs per pair and the cache bytes a token
    writes, at the panel's prompts and at the prompt slider's stops; one number where they do not vary); the
    longest prompt each deployment holds (prompt_wall); the windows' values at the context slider's stops."""
    keys = _keys(map(roofline_eq, live.equations), ("batch", "len_ctx", "pass_len", "accept_rate"))
    precisions = live.control("precision").options
    table = deployments(PREFILL_MODELS, hardware.names(), precisions, keys)
    prompts = [_number(x) for x in np.geomspace(*fig_prefill.PROMPTS)]
    grids = {"panel": prompts, "control": list(live.control("prompt").grid)}

    def at(values):  # one number where every prompt gives the same
        return _compact(values[0]) if np.all(values == values[0]) else [_number(x) for x in values]

    prompt = {}
    for m in PREFILL_MODELS:
        d = deploy(m, "H200", precisions[0])
        kv = {h: [d_.kv_bytes_at(np.array(grids["panel"])) for d_ in (deploy(m, h, p) for p in precisions)]
              for h in hardware.names()}
        if not all(np.array_equal(np.broadcast_to(v, len(prompts)), np.broadcast_to(kv["H200"][0], len(prompts)))
                   for vs in kv.values() for v in vs):
            raise ValueError(f"{m}: a prompt token's cache bytes depend on the chip; the page stores them by model")
        prompt[m] = {"latent_flops": _number(prefill.prefill_latent_flops(d.model))}
        for name, grid in grids.items():
            x = np.array(grid)
            prompt[m][name] = {"attn_flops": at(np.broadcast_to(prefill.prefill_attn_flops(d.model, x), x.shape)),
                               "kv_bytes": at(np.broadcast_to(d.kv_bytes_at(x), x.shape))}
    walls = [[[_number(fig_prefill.prompt_wall(deploy(m, h, p))) for p in precisions] for h in hardware.names()]
             for m in PREFILL_MODELS]
    return {"deployments": table, "prompts": prompts, "prompt": prompt, "prompt_wall": walls,
            "batch": [_number(b) for b in np.geomspace(*fig_prefill.BATCHES)],
            "windows": window_tables(keys, live.control("context").grid, lambda m: deploy(m, "H200", "fp8"))}


def _prefill_live():
    accept = training_runs.RUNS.get("DeepSeek-V3 MTP acceptance").value  # the notebook's ds_mtp
    precisions = tuple(reversed(registry.PRECISIONS))
    controls = (
        select("model", "model", PREFILL_MODELS, "DeepSeek-V3"),
        select("chip", "hardware", hardware.names(), "H200"),
        select("precision", "precision", precisions, "fp8").unless(*_precision_inert(precisions, PREFILL_MODELS)),
        log_slider("prompt", "prompt ℓ_p", 2, 6, 8192),
        log_slider("batch", "batch B", 0, 5, 64),
        log_slider("context", "len_ctx L", 2, 6, 4096),
        float_slider("accept", "accept α_s", 0.3, 1.0, accept, 0.025),
        int_slider("drafts", "drafts k", 1, 7, 1),
    )
    return Live("prefill", "08_prefill_and_speculation", _PREFILL_EQS, controls, _prefill_data,
                "Time to first token against prompt length (left); tokens a second per user against batch, with "
                "and without speculation (right).", frame=fig_prefill.live_frame)


LIVE = {live.key: live for live in (_decode_live(), _moe_live(), _pipeline_live(), _memory_live(),
                                    _training_live(), _serving_live(), _revnet_live(), _prefill_live())}
"""Every chapter's live figure on the published page, by the name its placeholder uses.

:meta hide-value:
"""


# -- the generated script -----------------------------------------------------------------------
def bundle(lives=None):
    """The generated script: every equation the live figures use, as a JavaScript function, and their data.

    It defines ``window.RooflineGenerated = {equations: {id: {args, f}}, figures: {key: {...}}}``.
    """
    if lives is not None:
        _check.mapping("lives", lives, ())
        if not all(isinstance(v, Live) for v in lives.values()):
            raise ValueError(f"lives must map names to Live figures (like LIVE); got {_check.short(lives)}")
    lives = list((lives or LIVE).values())
    ids = sorted({name for live in lives for name in live.equations})
    lines = ["// Generated by roofline.web from the library's sympy expressions: do not edit.",
             "// Regenerate with: python -m roofline.web book/_static/" + GENERATED,
             "(function () {", '"use strict";', "const equations = {"]
    for name in ids:
        eq = roofline_eq(name)
        if equation_id(eq) != name:
            raise ValueError(f"{name!r} names {equation_id(eq)!r}; use that name")
        lines.append(f"  {json.dumps(name)}: {{args: {json.dumps(list(eq.args))}, unit: {json.dumps(eq.unit)},")
        lines.append(f"    f: {js_function(eq)}}},")
    lines.append("};")
    figures = {live.key: live.as_json() for live in lives}
    lines.append("const figures = " + json.dumps(figures, separators=(",", ":"), allow_nan=False) + ";")
    # the units of roofline.figures.live.count, which the page's count writes as the library's does
    formats = {"count_units": [[_compact(scale), unit] for scale, unit in fig_live._UNITS]}
    lines.append("const formats = " + json.dumps(formats, separators=(",", ":")) + ";")
    lines += ["window.RooflineGenerated = {equations: equations, figures: figures, formats: formats};",
              "})();", ""]
    return "\n".join(lines)


def placeholder(key):
    """The HTML a chapter puts beside its static figure, where the page draws the live one."""
    if not isinstance(key, str) or key not in LIVE:
        raise ValueError(f"key must name a live figure, one of {', '.join(LIVE)}; got {_check.short(key)}")
    return f'<div class="roofline-live" data-figure="{html.escape(key)}"></div>'


def write(path):
    """Write :func:`bundle` to ``path``; returns True if the file changed."""
    path = pathlib.Path(path)
    text = bundle()
    if path.is_file() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


def main(argv=None):
    """``python -m roofline.web PATH``: write the generated script; ``--check``: exit 1 if PATH is stale."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [a for a in args if a != "--check"]
    if len(paths) != 1:
        print("usage: python -m roofline.web [--check] PATH", file=sys.stderr)
        return 2
    path = pathlib.Path(paths[0])
    if check:
        fresh = path.is_file() and path.read_text() == bundle()
        print(f"{path}: {'up to date' if fresh else 'stale: run python -m roofline.web ' + str(path)}")
        return 0 if fresh else 1
    print(f"{path}: {'written' if write(path) else 'unchanged'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
