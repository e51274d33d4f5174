"""The published page's live figures: JavaScript generated from the library's equations, and registry data.

A reader of the published book has no kernel.
For each chapter's main live figure this module writes what a browser needs to redraw it as the reader
moves a control: every equation the figure plots, printed from its sympy expression by sympy's
JavaScript code printer (no formula is typed a second time), the values of the registry's models and
chips the figure can be set to, and the controls themselves. The live figures' script
(``roofline/static/roofline-live.js``, served by the book) draws the figure from these; the book's
Sphinx extension regenerates :func:`bundle` at every build and fails the build if the committed copy
(:data:`PACKAGED`, ``roofline/static/roofline-generated.js``) is stale. In a notebook, :mod:`roofline.widget`
shows the same script's figure under ipywidgets controls made from the same declaration, loading that committed
copy (kept current by ``tests/test_web.py``) rather than printing every equation again in each kernel.

A chapter's figure is declared once, in the chapter's figure module, as a function ``live()`` returning one
:class:`~roofline.figures.declare.Live` (``roofline.figures.decode.live()`` for chapter 1; the vocabulary is
:mod:`roofline.figures.declare`): the equations it evaluates (registered ones, and the few sympy
expressions of :data:`~roofline.figures.declare.EXPRESSIONS` that a library algorithm solves, such as
chapter 5's optimum condition), its controls (name, label in the lecture's terms, options or stops,
start; with :meth:`~roofline.figures.declare.Control.unless`, the settings at which it cannot change the
figure, found by the library, where the page and the notebook disable it with a note), a function that
exports the data it needs, computed by the library (a deployment's values by keyword, the chips an expert
layer uses), and ``frame``, the chapter's matplotlib figure at given settings (the static frame a reader
without JavaScript sees; ``live_frame`` in the same module), and ``plot``, the figure itself as a
:class:`~roofline.figures.declare.Plot`: panels of series (Terms: equations with values put in place, their
sums, products and ratios), lines, shaded spans, marks at a control's value, points, limits, label templates
and the key. The page's script draws any such declaration with one generic renderer; where a figure needs an
algorithm rather than a formula it names one of the script's primitives (a
:func:`~roofline.figures.declare.timeline`: chapter 3's pipeline schedule, chapter 7's memory timeline; a root
finder, :func:`~roofline.figures.declare.solve`: chapter 5's cheapest model of a loss), which calls the
generated equations and types no formula. The script holds no chapter's code.
This module holds no chapter's knowledge: it collects the declarations into :data:`LIVE`.

The reader's own model
----------------------
The generated script also holds what the page needs to read a reader's ``config.json`` with no kernel
(:func:`reader_script`): each family's program of :func:`roofline.hf.program` with its formulas printed as
JavaScript (:func:`js_formula`), the Model's formulas (:data:`roofline.models.FORMULAS`, and prefill's,
:data:`roofline.prefill.FORMULAS`), the expert layouts' (:data:`roofline.moe.LAYOUT_CHIPS`), the chip count's
(:data:`roofline.deployment.DEFAULT_CHIPS`) and :func:`roofline.figures.your_model.reader_data`.
``roofline/static/roofline-model.js`` runs them and offers the model in the figures
:mod:`roofline.figures.your_model` names.

Adding a chapter's live figure
------------------------------
1. In the chapter's figure module (``roofline/figures/KEY.py``): a function ``live()`` that returns its
   :class:`~roofline.figures.declare.Live` (with :func:`~roofline.figures.declare.curves` and a
   :class:`~roofline.figures.declare.Plot`), its data from
   :func:`~roofline.figures.declare.deployments` and :func:`~roofline.figures.declare.window_tables` or
   any other library call, its ``frame`` the module's ``live_frame(settings)``; here, that ``live()``
   added to :data:`LIVE`.
2. In the chapter notebook: a cell ``widget.frame("KEY")`` (the static frame), just after it a markdown
   cell holding ``<div class="roofline-live" data-figure="KEY"></div>`` (:func:`placeholder`; the page
   draws the live figure there and hides the frame), and a cell ``controls = widget.controls("KEY")``,
   ``widget.figure("KEY", controls)`` (the notebook's live figure).
3. ``python -m roofline.web lib/roofline/static/roofline-generated.js``.
4. In ``tests/browser/test_live.py``: ``expect_KEY`` (what the figure plots, from the
   library) and ``got_KEY`` (the same values read from the page), and a second starting state.
   ``tests/test_web.py`` checks the notebook's controls against the declaration and the placeholder;
   ``tests/browser/test_widget.py`` drives the notebook's figure.

>>> print(js_function(roofline_eq("pipeline.bubble_fraction")))
function (n_stages, n_micro) { return (n_stages - 1)/(n_stages + n_micro - 1); }
>>> sorted(LIVE)
['decode', 'memory', 'moe', 'pipeline', 'prefill', 'revnet', 'serving', 'training']
"""

import html
import json
import pathlib
import sys

import sympy as sp
from sympy.printing.jscode import JavascriptCodePrinter

from . import _check, deployment, equations, hf, models, moe, prefill, symbols
from .figures import your_model as fig_your_model
from .figures import decode as fig_decode, memory as fig_memory, moe as fig_moe, revnet as fig_revnet
from .figures import live as fig_live, pipeline as fig_pipeline, prefill as fig_prefill, serving as fig_serving
from .figures import training as fig_training
# The declaration's vocabulary and the chapters' constants, as this module held them before they moved to
# roofline.figures.declare and the chapters' figure modules (tests, notebooks and the book use them from here).
from .figures.declare import (EXPRESSIONS, MAX_STOPS, Control, Expression, Inert, Live, Panel,  # noqa: F401
                              Plot, Series, _compact, batch_axis, checkbox, curves, deployments, equation_id,
                              float_slider, inert_where, int_slider, log_slider, roofline_eq, select,
                              selection_slider, window_tables)
from .figures.moe import moe_chips, moe_models  # noqa: F401
from .figures.prefill import MODELS as PREFILL_MODELS  # noqa: F401
from .figures.revnet import HEAD_DIM  # noqa: F401
from .figures.serving import serving_chips  # noqa: F401

GENERATED = "roofline-generated.js"
PACKAGED = pathlib.Path(__file__).resolve().parent / "static" / GENERATED
"""Where the committed generated script lies, in the package beside the live figures' script. It holds what
:func:`bundle` returns (``tests/test_web.py`` fails while it is stale), for the book's pages and for
:mod:`roofline.widget`."""
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


class _NamePrinter(JavascriptCodePrinter):
    """sympy's JavaScript printer, with each symbol printed as the field ``v.NAME`` of one argument ``v``."""

    def _print_Symbol(self, expr):
        if not expr.name.isidentifier():
            raise ValueError(f"symbol {expr.name!r} is not usable as a JavaScript property name")
        return f"v.{expr.name}"

    def _print_BooleanTrue(self, expr):
        return "true"

    def _print__LargestDivisor(self, expr):
        return f"largestDivisor({', '.join(self._print(a) for a in expr.args)})"

    def _print_BooleanFalse(self, expr):
        return "false"


def js_formula(expr):
    """One JavaScript function of an object ``v`` computing the sympy expression ``expr`` from ``v``'s fields
    (each symbol by its name): the config reader's formulas (:func:`roofline.hf.program`), the model's
    (:data:`roofline.models.FORMULAS`) and the chip count's (:data:`roofline.deployment.DEFAULT_CHIPS`).

    >>> import sympy as sp
    >>> print(js_formula(sp.floor(sp.Symbol("hidden_size") / sp.Symbol("num_attention_heads"))))
    function (v) { return Math.floor(v.hidden_size/v.num_attention_heads); }
    """
    if isinstance(expr, bool):
        expr = sp.true if expr else sp.false
    if isinstance(expr, int):
        expr = sp.Integer(expr)
    if not isinstance(expr, sp.Basic):
        raise ValueError(f"expr must be a sympy expression; got {_check.short(expr)}")
    body = _NamePrinter().doprint(expr)
    body = " ".join(line.strip() for line in body.splitlines())
    return f"function (v) {{ return {body}; }}"


def _js_value(x):
    """A program's field as JavaScript: a sympy expression as a function, anything else as JSON."""
    if isinstance(x, sp.Basic):
        return js_formula(x)
    if isinstance(x, tuple):
        return "[" + ", ".join(_js_value(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_js_value(v)}" for k, v in x.items()) + "}"
    return json.dumps(x)


_READ_DEFAULTS = {"kind": "int", "minimum": 1, "default": "required", "optional": sp.false, "when": sp.true,
                  "truth": "", "predicate": None}


def _compact_step(step):
    """A program's step without the fields at their defaults (the reader assumes :data:`_READ_DEFAULTS`)."""
    if step["op"] != "read":
        return step
    return {k: v for k, v in step.items() if not (k in _READ_DEFAULTS and v == _READ_DEFAULTS[k])}


LARGEST_DIVISOR_JS = """const largestDivisor = function (e, g) {  // roofline.moe.ep_chips: the most of at most g dividing e
  if (g >= e) return e;
  let best = 1;
  for (let d = 1; d * d <= e; d++) {
    if (e % d === 0) {
      if (d <= g && d > best) best = d;
      if (e / d <= g && e / d > best) best = e / d;
    }
  }
  return best;
};"""
"""The one primitive the printed formulas call that JavaScript lacks, :func:`roofline.moe.ep_chips` (in
:data:`roofline.moe.LAYOUT_CHIPS`), by trial of the divisor pairs up to the square root as ep_chips finds them."""


DEPLOYMENT_JS = """const deployment = function (table, m, h, p) {  // a factored table's values at model m, chip h, precision p
  const v = {};
  for (const k in table.by_model) v[k] = table.by_model[k][m];
  for (const k in table.by_chip) v[k] = table.by_chip[k][h][p];
  for (const k in table.full) v[k] = table.full[k][m][h][p];
  for (const k in v) if (v[k] === null) delete v[k];
  return v;
};"""
"""A deployment's values by keyword from the factored table :func:`roofline.figures.declare.deployments` writes
(``by_model``, ``by_chip``, ``full``; None where the value does not apply): read by the live figures and by the
reader's own model, which runs before them, so it is in the generated script both load first."""


def reader_script():
    """The part of the generated script the page's config reader (``roofline-model.js``) runs: every family's
    program (:func:`roofline.hf.program`), its messages and limits, the model's formulas, the chip count's, and
    :func:`roofline.figures.your_model.reader_data`. It defines ``reader``."""
    parts = [LARGEST_DIVISOR_JS, "const reader = {"]
    parts.append(f"  families: {json.dumps(hf.FAMILIES)},")
    parts.append(f"  messages: {json.dumps(hf.MESSAGES)},")
    parts.append(f"  limits: {json.dumps(hf.LIMITS)},")
    parts.append(f"  source: {json.dumps(hf.SOURCE)}, notes: {json.dumps(hf.NOTES)}, mtp_note: {json.dumps(hf.MTP_NOTE)},")
    parts.append("  programs: {")
    for family in hf.FAMILIES:
        p = hf.program(family)
        parts.append(f"    {json.dumps(family)}: {{steps: [")
        parts += [f"      {_js_value(_compact_step(step))}," for step in p["steps"]]
        parts.append(f"    ], parts: {_js_value(p['parts'])},")
        parts.append(f"    fields: {_js_value(p['fields'])}}},")
    parts.append("  },")
    parts.append("  formulas: {")
    parts += [f"    {json.dumps(name)}: {js_formula(expr)},"
              for name, expr in (models.FORMULAS | prefill.FORMULAS).items()]
    parts.append("  },")
    parts.append(f"  default_chips: {js_formula(deployment.DEFAULT_CHIPS)},")
    parts.append(f"  layouts: {_js_value(moe.LAYOUT_CHIPS)},")
    parts.append(f"  sliders: {_js_value(fig_your_model.SLIDERS)},")
    parts.append(f"  data: {json.dumps(fig_your_model.reader_data(), separators=(',', ':'))},")
    parts.append("};")
    return "\n".join(parts)


# -- the chapters' live figures, each declared in its figure module ---------------------------------
LIVE = {live.key: live for live in (fig_decode.live(), fig_moe.live(), fig_pipeline.live(), fig_memory.live(),
                                    fig_training.live(), fig_serving.live(), fig_revnet.live(), fig_prefill.live())}
"""Every chapter's live figure on the published page (each chapter figure module's ``live()``, chapters 1 to 8),
by the name its placeholder uses.

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
             "// Regenerate with: python -m roofline.web lib/roofline/static/" + GENERATED,
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
    # the rule of roofline.figures.live.count, which the page's count reads as the library's does
    rule = fig_live.COUNT_RULE
    formats = {"count": {"units": [[_compact(scale), unit] for scale, unit in rule["units"]],
                         "decimals": [list(d) for d in rule["decimals"]], "below_one": rule["below_one"],
                         "carry": rule["carry"]}}
    lines.append("const formats = " + json.dumps(formats, separators=(",", ":")) + ";")
    lines.append(reader_script())
    lines.append(DEPLOYMENT_JS)
    lines += ["window.RooflineGenerated = {equations: equations, figures: figures, formats: formats, reader: reader, "
              "deployment: deployment};",
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
