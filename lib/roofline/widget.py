"""A chapter's live figure in a notebook: the published page's own figure, driven by ipywidgets controls.

Each chapter's live figure is declared once, as a :class:`roofline.figures.declare.Live` (its controls, the
equations it plots, the data it needs) that the chapter's figure module returns from ``live()``, collected in
:data:`roofline.web.LIVE`. The published page draws it with the book's script
(``roofline/static/roofline-live.js``) from the generated equations and data (:func:`roofline.web.bundle`).
In a notebook, :func:`figure` shows that very script's figure as an `anywidget
<https://anywidget.dev>`_ (an ipywidgets widget whose view is plain JavaScript, so Jupyter, JupyterLab,
Colab and VS Code draw exactly the page's figure), and :func:`controls` makes the declaration's controls
as ordinary ipywidgets: a Dropdown or ToggleButtons for a choice, a SelectionSlider over the page's stops,
a Checkbox. The controls are linked to the figure in the browser (``ipywidgets.jslink``), so moving one
redraws the figure there, with no round trip to the kernel (about a millisecond a redraw, as on the page).
The kernel hears of each change too: it disables a control that cannot change the figure at the other
controls' settings (the declaration's inert rules; the figure says why under the plot), and
:attr:`LiveView.state` reads the settings back into Python.

A reader without a kernel (the published page, nbval) sees the chapter's static matplotlib frame.

>>> c = controls("pipeline")
>>> [(name, type(w).__name__, w.value) for name, w in c.items()]
[('stages', 'SelectionSlider', 8), ('micro', 'SelectionSlider', 16), ('kind', 'ToggleButtons', '1f1b')]
>>> fig = figure("pipeline", c)
>>> c["stages"].value = 4
>>> fig.view.state
{'stages': 4, 'micro': 16, 'kind': '1f1b'}
"""

import functools
import pathlib

import anywidget  # imported with the module, by the chapter's first cell, not at its first figure
import ipywidgets as widgets
import traitlets

from . import _check

STATIC = pathlib.Path(__file__).resolve().parent / "static"
"""The live figures' script and style, shared by the book (served from its ``_static``) and the notebook widget."""

TOGGLE_MAX = 4
"""A choice of at most this many short options is toggle buttons; a longer one a dropdown."""

_PREFIX = "s_"  # a control's trait on the view: s_NAME (a plain NAME could be a widget's own trait, such as layout)


def _live(key):
    from . import web

    if not isinstance(key, str) or key not in web.LIVE:
        raise ValueError(f"key must name a live figure, one of {', '.join(web.LIVE)}; got {_check.short(key)}")
    return web.LIVE[key]


@functools.lru_cache(maxsize=None)
def _esm(key):
    """Figure ``key``'s view module: the generated equations and data (the committed script the book's pages load,
    :data:`roofline.web.PACKAGED`, every figure's: printing the equations again took 0.1-0.3 s of each chapter's
    kernel), the page's script, and the widget's render (which keeps this module's equations and mount, whatever
    other figures' modules load)."""
    from . import web

    _live(key)  # a known figure
    return "\n".join([
        web.PACKAGED.read_text(),
        "window.rooflineLiveManual = true;  // no page to scan: the widget mounts its figure itself",
        (STATIC / "roofline-live.js").read_text(),
        (STATIC / "widget.js").read_text(),
    ])


def _index_or_value(c):
    """The synced trait of ``c``'s widget that the view follows: a choice's or a slider's index, a box's value."""
    return "value" if c.kind == "check" else "index"


def _make_widget(c):
    style = {"description_width": "initial"}
    if c.kind == "check":
        return widgets.Checkbox(value=c.value, description=c.label, style=style, indent=False)
    if c.kind == "select":
        labels = c.labels or tuple(str(o) for o in c.options)
        options = list(zip(labels, c.options))
        if len(options) <= TOGGLE_MAX and all(len(t) <= 12 for t in labels):
            return widgets.ToggleButtons(options=options, value=c.value, description=c.label, style=style)
        return widgets.Dropdown(options=options, value=c.value, description=c.label, style=style)
    return widgets.SelectionSlider(options=list(zip(c.readouts, c.grid)), value=c.value, description=c.label,
                                   style=style, continuous_update=True)


def controls(key):
    """The ipywidgets controls of live figure ``key``, by name, as its declaration has them (label, stops or
    options, start). Pass them to :func:`figure`; set one (``c["batch"].value = 512``) and the figure follows."""
    return {c.name: _make_widget(c) for c in _live(key).controls}


@functools.lru_cache(maxsize=None)
def _view_class(key):
    traits = {}
    for c in _live(key).controls:
        if c.kind == "check":
            traits[_PREFIX + c.name] = traitlets.Bool(c.value).tag(sync=True)
        else:
            values = c.options if c.kind == "select" else c.grid
            traits[_PREFIX + c.name] = traitlets.Int(values.index(c.value)).tag(sync=True)
    traits["figure"] = traitlets.Unicode(key).tag(sync=True)
    traits["_esm"] = _esm(key)
    traits["_css"] = (STATIC / "roofline-live.css").read_text()
    return type(f"LiveView_{key}", (LiveView, anywidget.AnyWidget), traits)


class LiveView:
    """The page's figure as a widget (an anywidget): one synced trait per control, ``s_NAME``, holding a choice's
    or a stop's index, or a box's value."""

    @property
    def state(self):
        """The settings drawn, control name -> value (as the page's link and CSV name them)."""
        out = {}
        for c in _live(self.figure).controls:
            v = getattr(self, _PREFIX + c.name)
            out[c.name] = v if c.kind == "check" else (c.options if c.kind == "select" else c.grid)[v]
        return out


def figure(key, controls=None):
    """Live figure ``key`` in a notebook: ``controls`` (from :func:`controls`; made afresh if None) above the
    page's own figure, linked in the browser. Returns an ipywidgets ``VBox`` with ``.controls`` and ``.view``
    (the figure widget, a :class:`LiveView`)."""
    live = _live(key)
    made = globals()["controls"](key) if controls is None else controls
    _check.mapping("controls", made, ())
    if sorted(made) != sorted(c.name for c in live.controls):
        raise ValueError(f"controls must be live figure {key}'s, by name: {[c.name for c in live.controls]}; got "
                         f"{sorted(made)} (make them with roofline.widget.controls({key!r}))")
    view = _view_class(key)()
    for c in live.controls:
        w, trait = made[c.name], _index_or_value(c)
        if not isinstance(w, widgets.ValueWidget) or not w.has_trait(trait):
            raise ValueError(f"controls[{c.name!r}] must be the widget roofline.widget.controls made; got "
                             f"{_check.short(w)}")
        setattr(view, _PREFIX + c.name, getattr(w, trait))
        widgets.jslink((w, trait), (view, _PREFIX + c.name))  # the browser redraws; no kernel round trip
        w.observe(lambda change, name=c.name, trait=trait: setattr(view, _PREFIX + name, change["new"]), trait)

    def inert(_=None):  # a control that cannot change the figure here is disabled (the figure's note says why)
        state = view.state
        for c in live.controls:
            if c.inert:
                made[c.name].disabled = c.inert_note(state) is not None

    for c in live.controls:
        view.observe(inert, _PREFIX + c.name)
    inert()
    box = widgets.VBox([widgets.HBox(list(made.values()), layout=widgets.Layout(flex_flow="row wrap")), view])
    box.controls, box.view = made, view
    return box


def frame(key, **settings):
    """Live figure ``key``'s static frame: the chapter's matplotlib figure at its controls' starts (or at
    ``settings``, control name -> value), as the page shows it to a reader without JavaScript (an IPython
    ``Image``, sharp on a high-density screen)."""
    return _live(key).figure(**settings).frame()
