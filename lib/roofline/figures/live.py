"""What every live figure shares: a background cached per axis range, a PNG for an ipywidgets Image, and a sharp
frame for the page."""

import io
import numbers

import numpy as np
from matplotlib.backend_bases import FigureCanvasBase


COUNT_RULE = {
    "units": ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"), (1.0, "")),
    "decimals": ((100, 0), (10, 1), (0, 2)),
    "below_one": 3,
    "carry": "1,000",
}
"""How :func:`count` writes a count, as data: the one rule the library and the published page read.

``units``: (scale, suffix), largest first; a value at or above a scale is written over it with its suffix.
``decimals``: (bound, decimals): the value over its unit at or above the first bound gets so many decimals
(rounded as Python's ``format`` rounds, thousands separated, trailing zeros dropped). ``below_one``: the
decimals of a value under 1. ``carry``: the text at which a value that rounds up to it is 1 of the next unit.
:func:`count` interprets it with Python's ``format``; the page's ``count`` (``roofline-live.js``) interprets the
same data, which :mod:`roofline.web` prints into the generated script, with its port of Python's fixed-point
rounding; ``tests/test_web.py`` runs the page's in Node against this one on thousands of values.
"""


def count(x):
    """A count (tokens, parameters, sequences) as every live figure and the published page write it: three
    significant figures with K, M, B or T (``160``, ``4.1K``, ``96K``, ``32.8K``, ``1.2M``, ``100B``), by the
    rule :data:`COUNT_RULE`.

    >>> [count(x) for x in (0, 0.5, 1, 160, 999.7, 4096, 32768, 96e3, 1.2e6, 1e11, 2.592e14)]
    ['0', '0.5', '1', '160', '1K', '4.1K', '32.8K', '96K', '1.2M', '100B', '259T']
    """
    from .. import _check

    x = _check.scalar("x", x, "nonnegative")
    rule = COUNT_RULE
    trim = lambda t: t.rstrip("0").rstrip(".") if "." in t else t  # noqa: E731
    if not x >= 1:
        return trim(f"{x:,.{rule['below_one']}f}")
    units = rule["units"]
    for i, (scale, unit) in enumerate(units):
        if x >= scale:
            y = x / scale
            digits = next(d for bound, d in rule["decimals"] if y >= bound)
            text = trim(f"{y:,.{digits}f}")
            return "1" + units[i - 1][1] if text == rule["carry"] and i > 0 else text + unit


def live_settings(settings, names):
    """``settings`` after checking it is a mapping with a value for each of ``names``: a live figure's controls
    (:attr:`roofline.figures.declare.Live.defaults`), as a chapter's ``live_frame`` takes them."""
    from .. import _check

    if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"names must be a tuple of control names (str); got {_check.short(names)}")
    return _check.mapping("settings", settings, names, example="a live figure's Live.defaults")


def new_figure(figsize, dpi):
    """A matplotlib ``Figure`` on an Agg canvas, after checking its size: ``figsize`` a pair (width, height) of
    inches, each in (0, 40], and ``dpi`` in [10, 600] (a figure of gigapixels is refused, not drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .. import _check

    size = np.asarray(_check.items("figsize", figsize, 2, "inches"), dtype=object)
    if size.shape != (2,) or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 < v <= 40
                                     for v in size.tolist()):
        raise ValueError(f"figsize must be (width, height) in inches, each in (0, 40]; got {_check.short(figsize)}")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Real) or not 10 <= dpi <= 600:
        raise ValueError(f"dpi must be a number in [10, 600]; got {_check.short(dpi)}")
    fig = Figure(figsize=tuple(float(v) for v in size.tolist()), dpi=float(dpi))
    FigureCanvasAgg(fig)
    return fig


def batch_grid(batch_range, n_points):
    """``(low, high, batches)``: ``n_points`` (2 to 10,000) batch sizes spaced evenly in log between the two of
    ``batch_range``, checked."""
    from .. import _check

    pair = np.asarray(_check.items("batch_range", batch_range, 2, "batch sizes"), dtype=object)
    if pair.shape != (2,):
        raise ValueError(f"batch_range must be (low, high); got {_check.short(batch_range)}")
    lo, hi = (_check.check_value("batch_range", v) for v in pair.tolist())
    if not lo < hi:
        raise ValueError(f"batch_range must be (low, high) with low < high; got {_check.short(batch_range)}")
    return lo, hi, np.geomspace(lo, hi, _check.whole("n_points", n_points, 2, 10_000))


class LiveFigure:
    """A matplotlib figure on an Agg canvas whose updates redraw only what changed.

    A subclass sets ``self.fig`` and ``self.axes`` and lists in ``_changing()`` the artists an
    update changes; :meth:`render` draws the rest once for each set of y ranges and caches it.
    """

    def _changing(self):
        raise NotImplementedError

    def _dynamic(self):
        """The artists an update changes and the axes' spines (redrawn over shaded spans), lowest first."""
        arts = list(self._changing()) + [sp for ax in self.axes for sp in ax.spines.values()]
        return sorted(arts, key=lambda a: a.get_zorder())

    def _request_redraw(self):
        """Ask an interactive backend for a redraw; Agg draws on :meth:`render` instead. Every update calls it,
        so it also forgets the last PNG (:meth:`to_png`)."""
        self._png = None
        if type(self.fig.canvas).draw_idle is not FigureCanvasBase.draw_idle:
            self.fig.canvas.draw_idle()

    def render(self):
        """Draw the figure into its Agg canvas, reusing the background of earlier frames.

        The axes, ticks, labels and key are drawn once for each set of axis ranges (whole decades,
        so they repeat) and cached; a frame restores them and draws the changing artists.
        Returns the canvas' RGBA buffer.
        """
        canvas = self.fig.canvas
        key = tuple(ax.get_xlim() + ax.get_ylim() for ax in self.axes)
        if not hasattr(self, "_backgrounds"):
            self._backgrounds = {}
        background = self._backgrounds.get(key)
        if background is None or canvas.get_width_height() != self._size:
            dynamic = self._dynamic()
            shown = [a.get_visible() for a in dynamic]
            for a in dynamic:
                a.set_visible(False)
            canvas.draw()
            for a, v in zip(dynamic, shown):
                a.set_visible(v)
            if len(self._backgrounds) >= 16:
                self._backgrounds.clear()
            background = self._backgrounds[key] = canvas.copy_from_bbox(self.fig.bbox)
            self._size = canvas.get_width_height()
        canvas.restore_region(background)
        for a in self._dynamic():
            self.fig.draw_artist(a)
        return canvas.buffer_rgba()

    def to_png(self):
        """The figure as PNG bytes, e.g. for an ``ipywidgets.Image``: rendered once after each update, the same
        bytes again until the next (a chapter shows the static frame, then the widget starts from it)."""
        from PIL import Image  # matplotlib's own dependency

        if getattr(self, "_png", None) is None:
            buf = io.BytesIO()
            Image.fromarray(np.asarray(self.render())).save(buf, format="png", compress_level=1)  # a widget frame
            self._png = buf.getvalue()
        return self._png

    def frame(self):
        """The figure as it stands, for a chapter's page: an IPython ``Image`` of
        ``roofline.figures.sharp_png`` (twice the figure's dpi in a palette, shown at its size, so sharp on a
        high-density screen), its bounding box tight around what is drawn. The widget keeps :meth:`to_png`."""
        from IPython.display import Image

        from . import sharp_png

        png, size = sharp_png(self.fig)
        return Image(data=png, format="png", width=size["width"])
