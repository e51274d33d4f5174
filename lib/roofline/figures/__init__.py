"""Figures, one module per chapter: ``draw_*`` helpers that take an ``ax``, and live figure classes.

Figures compute nothing of their own: every number comes from the library's
equations through a :class:`~roofline.Deployment`. They use matplotlib only; the
notebooks put them under ipywidgets controls.

decode      chapter 1: step time and cost per token against batch size
moe         chapter 2: the lecture's rack diagrams, and the step with the all-to-all
pipeline    chapter 3: the layer stack cut into racks, and pipeline timelines from computed schedules
memory      chapter 4: memory per GPU against pipeline stages, the weight floor against scale-up size
revnet      chapter 7: the Feistel and RevNet diagrams, mixing measured, training memory over time
serving     chapter 6: cost against context with a two-tier price, against pass length; drain times
training    chapter 5: costs of one quality against pre-training tokens, over-training against traffic
prefill     chapter 8: time to first token against prompt length, a user's speed against batch with speculation
live        what every live figure shares: a cached background, a PNG for a widget

A chapter's figures go to its page as PNGs drawn at twice their size (:func:`sharp_png`): sharp on a
high-density screen, and in a palette of 256 colours, lighter than one pixel per px in full colour.
"""

STYLE = {
    "figure.figsize": (7.0, 4.0), "figure.dpi": 100, "savefig.dpi": 100,
    "font.size": 11, "axes.labelsize": 11, "axes.titlesize": 11,
    "xtick.labelsize": 10.5, "ytick.labelsize": 10.5, "legend.fontsize": 10, "legend.frameon": False,
    "axes.titley": 1.0,
}
"""matplotlib rcParams for the book's static figures: 700 px wide, at least the book's text column (about
690 px at a 1280-px window), so no text is shrunk below 10 pt (:func:`use_style` applies it in each
chapter's first cell). Titles sit at the axes' top (``axes.titley`` 1.0, matplotlib's default place) rather than
being placed at each draw above whatever the top of the axes holds: no figure of the book has ticks, tick labels or
an offset text there, and the placement measured every y tick label of a titled axes at each draw (the eight live
frames drew in 757 ms against 812 ms; the 37 static figures are the same bytes either way)."""

import io  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import scale, ticker  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from PIL import Image  # noqa: E402 (matplotlib's own dependency)

from .._check import SUPERSCRIPT  # noqa: E402


def plain_log_label(label):
    r"""A log axis's mathtext tick label as plain text with Unicode superscripts.

    >>> plain_log_label(r"$\mathdefault{10^{-3}}$"), plain_log_label(r"$\mathdefault{2\times10^{4}}$")
    ('10⁻³', '2×10⁴')
    >>> plain_log_label(r"$\mathdefault{0}$"), plain_log_label("")
    ('0', '')
    """
    if not isinstance(label, str):
        raise ValueError(f"label must be a tick label (str); got {label!r:.60}")
    math = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", label)
    if not math:
        return label
    text = math.group(1).replace(r"\times", "×")
    return re.sub(r"\^\{(-?\d+)\}", lambda m: m.group(1).translate(SUPERSCRIPT), text)


class PlainLogFormatter(ticker.LogFormatterSciNotation):
    """matplotlib's log-axis labels (``10³``, ``2×10⁴``) in plain text rather than mathtext: the same look,
    without a mathtext parse for every new label (about 5 ms each; a chapter's log axes have dozens)."""

    def __call__(self, x, pos=None):
        return plain_log_label(super().__call__(x, pos))


def _in_view(locs, vmin, vmax):
    """The ticks of ``locs`` that lie on a log axis from ``vmin`` to ``vmax``, give or take a millionth of its span
    in decades: every tick matplotlib draws (it keeps those within 1e-10 of the span), without the ticks a decade
    beyond either end that ``LogLocator`` adds, each of which matplotlib would build as five artists and lay out at
    every draw only to leave it undrawn (a fifth to a third of a log figure's ticks)."""
    lo, hi = sorted((vmin, vmax))
    if not (lo > 0 and np.isfinite(hi) and hi > lo):
        return locs
    a, b = np.log10(lo), np.log10(hi)
    pad = 1e-6 * (b - a)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = np.log10(locs)
    return locs[(at >= a - pad) & (at <= b + pad)]


class InViewLogLocator(ticker.LogLocator):
    """matplotlib's ``LogLocator`` returning only the ticks on the axis (:func:`_in_view`); the same ticks drawn.
    ``ax.get_xticks()`` on a log axis therefore lists the ticks on the axis, not also the decade beyond each end.

    >>> [float(t) for t in InViewLogLocator().tick_values(3, 3000)]
    [10.0, 100.0, 1000.0]
    """

    def tick_values(self, vmin, vmax):
        return _in_view(np.asarray(super().tick_values(vmin, vmax)), vmin, vmax)


class OneTwoFiveLocator(InViewLogLocator):
    """Minor ticks of a log axis at 2 and 5 of each decade (the 1-2-5 series); at 2, 3, ..., 9 where the axis
    spans under two decades, and none beyond ten, as matplotlib's own.

    Each tick is four artists that matplotlib lays out on every draw: a chapter's log figures with eight
    minor ticks a decade drew in about twice the time (0.12 s against 0.07 s for a 4 x 4-decade plot).

    >>> loc = OneTwoFiveLocator(subs="auto")
    >>> [float(t) for t in loc.tick_values(1, 1000) if 1 < t < 100]
    [2.0, 5.0, 20.0, 50.0]
    >>> [float(t) for t in loc.tick_values(1, 10) if 1 < t < 10]
    [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    """

    def tick_values(self, vmin, vmax):
        lo, hi = sorted((vmin, vmax))
        wide = lo > 0 and np.isfinite(hi) and 2 <= np.log10(hi / lo) <= 10
        self._subs = np.array([2.0, 5.0]) if wide else "auto"
        return super().tick_values(vmin, vmax)


class PlainLogScale(scale.LogScale):
    """The ``"log"`` scale, labelled by :class:`PlainLogFormatter`, its minor ticks placed by
    :class:`OneTwoFiveLocator` (registered by :func:`use_style`). Its constructor names no axis, as matplotlib 3.11
    asks of a scale (one that does is pending deprecation, with a warning at its registration); it still takes the
    ``axis=None`` that matplotlib's own norms pass (``imshow(..., norm="log")`` builds its norm from the scale)."""

    def __init__(self, *, base=10, subs=None, nonpositive="clip", **given):
        given.pop("axis", None)  # matplotlib's norms pass axis=None (colors.make_norm_from_scale)
        if given:
            raise TypeError(f"PlainLogScale got unexpected keyword arguments {sorted(given)}")
        super().__init__(base=base, subs=subs, nonpositive=nonpositive)

    def set_default_locators_and_formatters(self, axis):
        super().set_default_locators_and_formatters(axis)
        axis.set_major_locator(InViewLogLocator(self.base))
        if self.subs is None:
            axis.set_minor_locator(OneTwoFiveLocator(self.base, subs="auto"))
        axis.set_major_formatter(PlainLogFormatter(self.base))
        axis.set_minor_formatter(PlainLogFormatter(self.base, labelOnlyBase=(self.subs is not None)))


PNG_SCALE = 2
"""Pixels per CSS px of the book's figures: :func:`sharp_png` draws at this many times a figure's dpi."""


def sharp_png(fig, bbox_inches="tight", scale=PNG_SCALE, colors=256):
    """``(png, size)``: the figure drawn at ``scale`` times its dpi and reduced to a palette of ``colors`` colours
    without dithering, and the width to show it at, ``{"width": px}`` at its own dpi (the height follows).

    A page that shows the PNG at that width has ``scale`` pixels per CSS px, sharp on a high-density screen. The
    book's figures are lines, text and flat fills, whose antialiased edges 256 colours hold: on the eight live
    figures' frames 99.997% of pixels lie within 20 of 255 of full colour (none further than 37), the mean within
    0.4, white exactly white; and the palette makes a 2x PNG lighter than one pixel per px in full colour. The
    palette is an octree's (Pillow's FASTOCTREE): against a median cut, a tenth of the time and PNGs 29% lighter,
    with a smaller worst error (37 against 87) and a larger mean (0.1-0.3 against under 0.1). The width is rounded down, so the PNG is at least
    ``scale`` times as wide as shown. ``bbox_inches="tight"`` (as IPython's inline figures) cuts the canvas to what
    is drawn on it, with matplotlib's padding (:func:`_content_box`); ``None`` keeps the whole canvas.

    >>> fig = plt.figure(figsize=(2.0, 1.0), dpi=100); _ = fig.gca().plot([0, 1], [1, 0])
    >>> png, size = sharp_png(fig, bbox_inches=None); plt.close(fig)
    >>> png[:4], size
    (b'\\x89PNG', {'width': 200})
    >>> from PIL import Image
    >>> Image.open(io.BytesIO(png)).size, Image.open(io.BytesIO(png)).mode
    ((400, 200), 'P')
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= 4:
        raise ValueError(f"scale must be a whole number from 1 to 4; got {scale!r}")
    if isinstance(colors, bool) or not isinstance(colors, int) or not 2 <= colors <= 256:
        raise ValueError(f"colors must be a whole number from 2 to 256; got {colors!r}")
    if bbox_inches not in (None, "tight"):
        raise ValueError(f"bbox_inches must be None or 'tight'; got {bbox_inches!r}")
    if bbox_inches == "tight":  # drawn once, on the canvas grown to hold whatever is drawn past it
        pixels = _drawn(fig, scale, _drawing_region(fig, scale))
        box = _content_box(pixels, fig, scale)
        if box is None:  # ink at the edge all the same (a frame drawn round the figure's edge): drawn again, at the
            # cost of a second draw, on matplotlib's own tight box with its padding, and cut to the ink as any other
            pixels = _drawn(fig, scale, "tight")
            box = _content_box(pixels, fig, scale)
        if box is not None:
            pixels = _padded_crop(pixels, box, fig)
    else:
        pixels = _drawn(fig, scale, None)
    width = pixels.shape[1]
    image = Image.fromarray(np.ascontiguousarray(pixels), "RGBA")
    if pixels[..., 3].min() == 255:  # opaque: the palette on RGB
        image = image.convert("RGB")
    image = image.quantize(colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    # an octree's colours are its buckets' centres, full white one short of 255: snapped back, white stays white
    image.putpalette([255 if v >= 254 else v for v in image.getpalette()])
    out = io.BytesIO()
    image.save(out, format="png", compress_level=6)
    return out.getvalue(), {"width": width // scale}


def _drawn(fig, scale, bbox_inches):
    """The figure drawn at ``scale`` times its dpi, as an array (rows, columns, RGBA): the Agg canvas's own pixels,
    taken as matplotlib writes them for ``format="rgba"``, and kept as an array until the palette, for the same PNG
    bytes. An uncompressed TIFF written and read back as a PIL image made a chapter figure's :func:`sharp_png` 59 ms
    against 51 ms; measuring and cutting the array rather than the PIL image saves 2 ms more."""
    out = _Pixels()
    fig.savefig(out, format="rgba", dpi=scale * fig.dpi, bbox_inches=bbox_inches,
                facecolor=fig.get_facecolor(), edgecolor=fig.get_edgecolor())
    return out.pixels


class _Pixels:
    """A file for ``savefig(format="rgba")`` that keeps the canvas's buffer as an array (rows, columns, RGBA):
    matplotlib's Agg backend writes it as one buffer of that shape. Anything else (a backend that writes bytes
    without a shape) is refused, not guessed."""

    pixels = None

    def write(self, data):
        pixels = np.asarray(data)
        if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] != 4:
            raise RuntimeError(f"savefig(format='rgba') wrote {pixels.dtype} of shape {pixels.shape}, not the "
                               "(rows, columns, 4) buffer of matplotlib's Agg canvas")
        self.pixels = pixels.copy()  # the canvas is drawn over at the next savefig
        return pixels.nbytes

    def seek(self, *_):  # matplotlib takes an object with seek and write for a file
        return 0


def _background(fig):
    return np.array([int(round(255 * c)) for c in fig.get_facecolor()], dtype=np.uint8)


def _content_box(pixels, fig, scale):
    """The pixels that differ from the figure's background, as a box ``(left, top, right, bottom)`` with
    matplotlib's tight padding (``savefig.pad_inches``) around it, or None where they reach the image's edge.

    This is the tight box from the one drawing: matplotlib's ``bbox_inches="tight"`` measures every artist and
    draws the figure a second time (a third of a chapter figure's time); its box is the artists' extents, so it
    keeps a few pixels more around text than the ink does."""
    ink = pixels.view(np.uint32)[..., 0] != _background(fig).view(np.uint32)[0]  # a pixel as one 32-bit word
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not len(rows):
        return (0, 0, pixels.shape[1], pixels.shape[0])
    height, width = ink.shape
    if rows[0] == 0 or cols[0] == 0 or rows[-1] == height - 1 or cols[-1] == width - 1:
        return None
    pad = int(round(plt.rcParams["savefig.pad_inches"] * fig.dpi * scale))
    return (int(cols[0]) - pad, int(rows[0]) - pad, int(cols[-1]) + 1 + pad, int(rows[-1]) + 1 + pad)


def _drawing_region(fig, scale):
    """The part of the figure to draw, in inches: None (the canvas) where everything drawn lies on it; else the
    canvas grown to hold it, with a margin (a legend set below the plot, a note beneath it, a second y axis's label
    beside it).

    What is drawn is measured as matplotlib measures it for ``bbox_inches="tight"`` (``Figure.get_tightbbox``), at
    ``scale`` times the figure's dpi, on the renderer the drawing at that dpi then reuses (an Agg canvas keeps its
    renderer while its size and dpi stay), so that each text is laid out once: the axes' limits set and their
    labels placed, as a drawing places them. Measured before the first drawing without that, the labels sat at the
    canvas's edge and grew every figure (and a legend anchored to the figure moved down with the grown canvas,
    under a gap); a text in data units sat where the unset limits (0 to 1) put it."""
    dpi = fig.dpi
    fig.dpi = scale * dpi
    try:
        box = fig.get_tightbbox(fig._get_renderer())  # the canvas's renderer, or an Agg one for a figure without pyplot
    finally:
        fig.dpi = dpi
    width, height = fig.get_size_inches()
    slack = 0.5 / dpi  # half a pixel at the figure's own dpi
    if box.x0 >= -slack and box.y0 >= -slack and box.x1 <= width + slack and box.y1 <= height + slack:
        return None
    grown = Bbox.union([Bbox([[0, 0], [width, height]]), box])
    if grown.width > 10 * width or grown.height > 10 * height:
        raise ValueError(f"the figure's artists reach over {grown.width:.3g} x {grown.height:.3g} inches, more than ten "
                         f"times the figure's {width:.3g} x {height:.3g}: an artist placed far outside it (a text in "
                         "data units outside the axes' limits?)")
    return grown.padded(2 * plt.rcParams["savefig.pad_inches"])


def _padded_crop(pixels, box, fig):
    """``pixels`` cut to ``box`` (left, top, right, bottom), which may reach past their edges: filled with the figure's
    background there."""
    left, top, right, bottom = box
    height, width = pixels.shape[:2]
    if left >= 0 and top >= 0 and right <= width and bottom <= height:
        return pixels[top:bottom, left:right]
    out = np.empty((bottom - top, right - left, 4), dtype=np.uint8)
    out[...] = _background(fig)
    x0, y0, x1, y1 = max(left, 0), max(top, 0), min(right, width), min(bottom, height)
    out[y0 - top:y1 - top, x0 - left:x1 - left] = pixels[y0:y1, x0:x1]
    return out


def use_style():
    """The book's look for every figure drawn from here on: :data:`STYLE`, and log axes labelled in plain
    text (:class:`PlainLogScale` registered as ``"log"``). In IPython, figures are shown as :func:`sharp_png`
    (twice their size in a palette, displayed at their size) in place of the inline backend's PNG. Each chapter
    calls it once, in its first cell, after its imports: in IPython it also freezes the heap those imports built
    (:func:`_freeze_imports`)."""
    plt.rcParams.update(STYLE)
    scale.register_scale(PlainLogScale)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        import matplotlib

        if matplotlib.get_backend() in ("inline", "module://matplotlib_inline.backend_inline"):
            # loaded now, the inline backend sets its own PNG printer now, not at the first figure
            import matplotlib_inline.backend_inline  # noqa: F401
        _show_sharp()
        # and again after each cell, should the inline backend be set up again (%config, %matplotlib)
        if _show_sharp not in shell.events.callbacks["post_run_cell"]:
            shell.events.register("post_run_cell", _show_sharp)
        _freeze_imports()


def _freeze_imports():
    """Move every object alive now (a kernel's modules after a chapter's imports: some 160,000-200,000 of numpy's,
    sympy's, matplotlib's and the library's) out of the garbage collector's reach (:func:`gc.freeze`, which takes
    microseconds). They live as long as the kernel; left in, each full collection that the chapter's own work
    triggers walks them all again: 0.1-0.16 s a chapter, against 0.01-0.03 s after. The imports leave almost no
    garbage to keep by it (a full collection just after them finds under 20 unreachable objects)."""
    import gc

    gc.freeze()


def _show_sharp(*_):
    """Have IPython show a matplotlib figure as :func:`sharp_png`."""
    from IPython import get_ipython

    get_ipython().display_formatter.formatters["image/png"].for_type(Figure, sharp_png)


from . import decode, live, memory, moe, pipeline, prefill, revnet, serving, training  # noqa: E402

__all__ = ["PNG_SCALE", "STYLE", "OneTwoFiveLocator", "PlainLogFormatter", "PlainLogScale", "decode", "live", "memory", "moe", "pipeline",
           "plain_log_label", "prefill", "revnet", "serving", "sharp_png", "training", "use_style"]
