"""Figures of the decode roofline: step time and cost per token against batch size.

The two blackboard plots of the lecture (00:08:02 and 00:13:12). Each ``draw_*``
helper takes a matplotlib ``ax``, a :class:`~roofline.Deployment`, an array of
batch sizes and a context length, draws with numbers from the library only,
labels the axes in lowercase with units and returns the artists it made.
:class:`DecodeFigure` puts both on one small figure and updates them in place,
fast enough to follow a slider. This module uses matplotlib only (no widgets).
:func:`live` declares chapter 1's live figure (in the vocabulary of :mod:`roofline.figures.declare`), and
:func:`live_frame` draws its static frame.

>>> from roofline import Deployment, hardware, models
>>> d = Deployment(models.get("lecture"), hardware.get("GB200"), price_usd_per_hour=2.0)
>>> fig = DecodeFigure(d, len_ctx=512, marker_batch=2000)
>>> fig.update(marker_batch=20_000)
'compute-bound'
"""

import numpy as np
from matplotlib import ticker
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.offsetbox import AnnotationBbox, OffsetImage

from .. import _check, decode, hardware, lecture, models, registry
from . import PNG_SCALE
from ..deployment import Deployment, deploy
from .declare import (Mark, Panel, Plot, Point, Series, Span, Style, _keys, batch_axis, checkbox, curves, decades,
                      deployments, eq, high, inert_where, log_slider, low, maximum, ref, roofline_eq, select, setting,
                      when, window_tables)
from .live import LiveFigure, batch_grid, new_figure, live_settings

MS = 1e3          # s -> ms
PER_MILLION = 1e6  # USD/token -> USD per million tokens
COLORS = {"compute": "tab:red", "weights": "tab:blue", "kv": "tab:green", "memory": "tab:purple",
          "total": "black", "wall": "0.88"}


def _short(x, _pos=None):
    """Tick label without mathtext (faster to draw): 0.001, 1, 10k, 1M, 10B, 1T."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return f"{x / scale:g}{suffix}"
    return f"{x:g}"


def log_axes(ax):
    """Logarithmic x and y axes with plain tick labels (1, 10, 1k, 0.01): no mathtext, quick to draw."""
    _check.axes(ax)
    ax.set(xscale="log", yscale="log")
    ax.minorticks_off()
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ticker.FuncFormatter(_short))
    return ax


def _batch(batch):
    b = _check.check_value("batch", batch)
    if np.ndim(b) != 1 or len(b) < 2:
        raise ValueError(f"batch must be a 1-D array of at least 2 batch sizes; got {batch!r}")
    return b


def _deployment(deployment):
    if not isinstance(deployment, Deployment):
        raise ValueError(f"deployment must be a roofline.Deployment; got {deployment!r}")
    return deployment


def latency_terms(deployment, batch, len_ctx, refined=False):
    """Compute, weight, KV, memory and step time in ms for each batch size (a dict of arrays).

    ``refined``: attention FLOPs and only the experts touched (:meth:`roofline.Deployment.terms`).
    """
    t = _deployment(deployment).terms(_batch(batch), len_ctx, refined)
    return {k: v * MS for k, v in t.items()}


def cost_terms(deployment, batch, len_ctx, refined=False):
    """The same terms as cost per token, USD per million tokens (each term x price / batch)."""
    b = _batch(batch)
    t = _deployment(deployment).terms(b, len_ctx, refined)
    usd_per_step_s = deployment.cost_per_token_usd(b, len_ctx) / deployment.step_time_s(b, len_ctx)
    return {k: v * usd_per_step_s * PER_MILLION for k, v in t.items()}  # each term x G x price / 3600 / B


def can_refine(deployment):
    """Whether the deployment knows its experts' shapes, which the refined terms need."""
    return "n_routed" in _deployment(deployment).values


def memory_wall(deployment, len_ctx):
    """The batch beyond which the KV cache of ``len_ctx``-token sequences no longer fits in HBM."""
    return float(_deployment(deployment).max_batch(_check.scalar("len_ctx", len_ctx, "nonnegative")))


def _wall_span(ax, wall, batch, always_label=False):
    """Shade the batches whose KV cache does not fit (from ``wall`` to the axis' end).

    The span is in the legend only where it shows, unless ``always_label`` (a live figure's fixed key).
    """
    lo = min(max(wall, batch[0]), batch[-1])
    label = "KV cache does not fit" if always_label or lo < batch[-1] else "_nolegend_"
    return ax.axvspan(lo, batch[-1], color=COLORS["wall"], lw=0, zorder=0, label=label)


def _set_wall(span, wall, batch):
    lo = min(max(wall, batch[0]), batch[-1])
    span.set_x(lo)
    span.set_width(batch[-1] - lo)


def cost_floor(deployment, batch, len_ctx):
    """The slow-mode floor, USD per million tokens, as a line over ``batch`` (it does not depend on it)."""
    floor = _deployment(deployment).evaluate(decode.cost_floor_usd, len_ctx=len_ctx) * PER_MILLION
    return np.full(np.shape(_batch(batch)), floor)


def _balance_xy(deployment, len_ctx, terms, batch):
    """The bend of the bold line: where compute meets weight + KV fetch; empty if off the axis or never."""
    b = float(deployment.balance_batch(len_ctx=len_ctx))
    if not (np.isfinite(b) and batch[0] <= b <= batch[-1]):
        return [], []
    return [b], [terms(deployment, [b, 2 * b], len_ctx)["step"][0]]  # terms want two or more batches


def _draw(ax, x, y):
    return {
        "compute": ax.plot(x, y["compute"], color=COLORS["compute"], lw=1, label="compute")[0],
        "weights": ax.plot(x, y["weights"], color=COLORS["weights"], lw=1, label="weight fetch")[0],
        "kv": ax.plot(x, y["kv"], color=COLORS["kv"], lw=1, label="KV fetch")[0],
        "memory": ax.plot(x, y["memory"], color=COLORS["memory"], lw=1, ls="--", label="weight + KV")[0],
        "total": ax.plot(x, y["step"], color=COLORS["total"], lw=3, alpha=0.8, label="total")[0],
    }


def _mark_balance(ax, deployment, len_ctx, terms, batch):
    xy = _balance_xy(deployment, len_ctx, terms, batch)
    return ax.plot(*xy, "o", color="black", ms=6, label="balance point", zorder=3)[0]


def _draw_refined(ax, x, y, suffix=""):
    return {
        "total_refined": ax.plot(x, y["step"], color="0.45", lw=2.5, ls="-.", zorder=2.5,
                                 label="total, experts touched + attention FLOPs" + suffix)[0],
        "weights_touched": ax.plot(x, y["weights"], color=COLORS["weights"], lw=2, ls=":", zorder=2.6,
                                   label="weight fetch, experts touched" + suffix)[0],
    }


def legend_below(ax, ncols=2):
    """The axes' legend under the axes, where it covers no curve (a static figure's key)."""
    _check.axes(ax)
    ncols = _check.whole("ncols", ncols, 1, 64)
    return ax.legend(ncols=ncols, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)


def _finish(ax, artists, deployment, x, len_ctx, terms, refined):
    artists["balance"] = _mark_balance(ax, deployment, len_ctx, terms, x)
    artists["wall"] = _wall_span(ax, memory_wall(deployment, len_ctx), x)
    if refined:
        artists |= _draw_refined(ax, x, terms(deployment, x, len_ctx, refined=True))
    return artists


def draw_latency(ax, deployment, batch, len_ctx, refined=False):
    """Draw step time against batch size: the lecture's latency plot (00:08:02).

    Compute is a line through the origin, weight fetch a floor, KV fetch a
    shallower line, their sum dashed and the step time (the larger of compute
    and memory) in bold; the dot is the balance batch, where the bold line bends.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    deployment : Deployment
    batch : array_like
        Batch sizes for the x axis (at least two, all > 0).
    len_ctx : float
        Context length, tokens.

    Returns
    -------
    dict
        Line artists 'compute', 'weights', 'kv', 'memory', 'total' and 'balance'; 'wall', the
        shaded batches whose KV cache does not fit in HBM; with ``refined``, 'weights_touched'
        and 'total_refined'.
    """
    _check.axes(ax)
    x = _batch(batch)
    len_ctx = _check.scalar("len_ctx", len_ctx, "nonnegative")  # one curve per term
    artists = _draw(ax, x, latency_terms(deployment, x, len_ctx))
    artists = _finish(ax, artists, deployment, x, len_ctx, latency_terms, refined)
    ax.set_xlabel("batch size (sequences)")
    ax.set_ylabel("time per decode step (ms)")
    return artists


def draw_cost(ax, deployment, batch, len_ctx, refined=False):
    """Draw cost per token against batch size: the lecture's cost plot (00:13:12).

    Dividing each latency term by the batch turns compute and KV fetch into
    floors and weight fetch into a hyperbola. The bold total falls to the
    higher floor, where a "slow mode" would sit (00:15:31), drawn as a grey band.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    deployment : Deployment
        Needs a price: pass ``price_usd_per_hour`` where the hardware has none.
    batch : array_like
        Batch sizes for the x axis (at least two, all > 0).
    len_ctx : float
        Context length, tokens.
    refined : bool
        Also draw, dotted, the weight fetch of only the experts touched and the total with
        attention FLOPs (needs the model's expert shapes, :func:`can_refine`).

    Returns
    -------
    dict
        Line artists 'compute', 'weights', 'kv', 'memory', 'total', 'balance', 'wall' and
        'floor' (and, with ``refined``, 'weights_touched' and 'total_refined').
    """
    _check.axes(ax)
    x = _batch(batch)
    len_ctx = _check.scalar("len_ctx", len_ctx, "nonnegative")  # one curve per term
    y = cost_terms(deployment, x, len_ctx)
    artists = _draw(ax, x, y)
    artists = _finish(ax, artists, deployment, x, len_ctx, cost_terms, refined)
    artists["floor"] = ax.plot(x, cost_floor(deployment, x, len_ctx), color="gray", lw=6, alpha=0.3,
                               label="slow-mode floor")[0]
    ax.set_xlabel("batch size (sequences)")
    ax.set_ylabel("cost (USD per million tokens)")
    return artists


class DecodeFigure(LiveFigure):
    """Latency and cost per token against batch, side by side, updated in place.

    Parameters
    ----------
    deployment : Deployment
        Must have a price (``price_usd_per_hour``) for the cost panel.
    len_ctx : float
        Context length, tokens.
    batch_range : (float, float)
        Smallest and largest batch on the (logarithmic) x axes.
    marker_batch : float
        Batch marked with a vertical line; the label names its regime.
    figsize, dpi :
        720 x 420 px: the width of the book's text column, with 10-pt text.
    refined : bool
        Also show, dotted, the weight fetch of only the experts touched and the step with
        attention FLOPs (where the model's expert shapes are known).

    Attributes
    ----------
    fig : matplotlib.figure.Figure
        Drawn by the Agg canvas; show it with ``display(fig)`` or just ``fig``.
    latency, cost : dict
        The artists returned by :func:`draw_latency` and :func:`draw_cost`.
    """

    def __init__(self, deployment, len_ctx, batch_range=(1, 1e5), marker_batch=2000, *, refined=False,
                 n_points=120, figsize=(7.2, 4.2), dpi=100):
        lo, hi, self.batch = batch_grid(batch_range, n_points)
        if not isinstance(refined, bool):
            raise ValueError(f"refined must be True or False; got {_check.short(refined)}")
        self.fig = new_figure(figsize, dpi)
        ax_t, ax_c = self.fig.subplots(1, 2)
        self.fig.subplots_adjust(left=0.095, right=0.975, bottom=0.42, top=0.97, wspace=0.33)
        self.axes = (ax_t, ax_c)
        self.deployment = _deployment(deployment)
        self.len_ctx = _check.scalar("len_ctx", len_ctx)
        self.marker_batch = _check.scalar("marker_batch", marker_batch)
        self.refined = refined
        self.latency = draw_latency(ax_t, deployment, self.batch, len_ctx)
        self.cost = draw_cost(ax_c, deployment, self.batch, len_ctx)
        blank = {"weights": self.batch * np.nan, "step": self.batch * np.nan}  # filled in by update()
        for ax, artists in zip((ax_t, ax_c), (self.latency, self.cost)):
            artists |= _draw_refined(ax, self.batch, blank, suffix=" (option)")
            artists["wall"].set_label("KV cache does not fit")  # the key is drawn once, for every state
        for ax in self.axes:
            log_axes(ax).set_xlim(lo, hi)
            ax.tick_params(labelsize=10)
            ax.xaxis.label.set_size(10)
            ax.yaxis.label.set_size(10)
        self.markers = [ax.axvline(self.marker_batch, color="gray", lw=1, ls=":", label="batch B (label)")
                        for ax in self.axes]
        self.label = ax_t.text(0.03, 0.97, "", transform=ax_t.transAxes, va="top", fontsize=10,
                               bbox=dict(facecolor="white", alpha=0.85, lw=0, pad=1))
        self.key = self._paste_key(ax_c)
        self.regime = None
        self.update()

    def update(self, deployment=None, len_ctx=None, marker_batch=None, refined=None):
        """Redraw with any of the inputs changed; returns the regime at the marker.

        Only line data, limits and one label change; the figure is redrawn
        lazily by interactive backends (``draw_idle``) and on display otherwise.
        ``refined`` shows or hides the dotted lines (experts touched, attention FLOPs); they
        stay hidden for a model without expert shapes (:func:`can_refine`).
        """
        if deployment is not None:
            self.deployment = _deployment(deployment)
        if len_ctx is not None:
            self.len_ctx = _check.scalar("len_ctx", len_ctx)
        if marker_batch is not None:
            self.marker_batch = _check.scalar("marker_batch", marker_batch)
        if refined is not None:
            if not isinstance(refined, bool):
                raise ValueError(f"refined must be True or False; got {_check.short(refined)}")
            self.refined = refined
        d, L, b = self.deployment, self.len_ctx, self.marker_batch
        show_refined = self.refined and can_refine(d)
        wall = memory_wall(d, L)
        for artists, terms in ((self.latency, latency_terms), (self.cost, cost_terms)):
            y = terms(d, self.batch, L)
            for key in ("compute", "weights", "kv", "memory"):
                artists[key].set_ydata(y[key])
            artists["total"].set_ydata(y["step"])
            artists["balance"].set_data(*_balance_xy(d, L, terms, self.batch))
            _set_wall(artists["wall"], wall, self.batch)
            if show_refined:
                r = terms(d, self.batch, L, refined=True)
                artists["weights_touched"].set_ydata(r["weights"])
                artists["total_refined"].set_ydata(r["step"])
            for key in ("weights_touched", "total_refined"):
                artists[key].set_visible(show_refined)
        self.cost["floor"].set_ydata(cost_floor(d, self.batch, L))
        for line in self.markers:
            line.set_xdata([b, b])
        self.regime = d.regime(b, L)
        p = d.values
        fits = "KV fits" if b <= wall else f"KV does NOT fit (max B {wall:,.0f})"
        self.label.set_text(f"{d.model.key}\n{p['n_chips']:.0f} x {d.hardware.key}, {d.weight_precision}\n"
                            f"B = {b:,.0f}, L = {L:,.0f}\n{self.regime}; {fits}")
        for ax, artists in zip(self.axes, (self.latency, self.cost)):
            ax.relim(visible_only=True)
            ax.autoscale_view(scalex=False)
            total = artists["total"].get_ydata()
            # near the bold line, on whole decades: the axes (and their cached image) change less often
            low = max(ax.get_ylim()[0], total.min() / 30)
            ax.set_ylim(10.0 ** np.floor(np.log10(low)), 10.0 ** np.ceil(np.log10(total.max() * 3)), auto=None)
        self._request_redraw()
        return self.regime

    def _paste_key(self, ax):
        """Draw ``ax``'s legend once into an image and pin it under both panels.

        The key never changes; pasted as an image it redraws in well under a millisecond,
        where a live legend costs about a quarter of each redraw in text layout. The image has the pixels of the
        static frame (:func:`roofline.figures.sharp_png` draws at :data:`~roofline.figures.PNG_SCALE` times the
        figure's dpi), so the key there is as sharp as the text around it; a widget's frame at the figure's own dpi
        scales it down.
        """
        tmp = Figure(figsize=(16, 3), dpi=PNG_SCALE * self.fig.dpi)  # room for the whole key, cropped below
        FigureCanvasAgg(tmp)
        tmp.patch.set_alpha(0)
        legend = tmp.legend(*ax.get_legend_handles_labels(), fontsize=10, frameon=False, ncols=2)
        tmp.canvas.draw()
        x0, y0, x1, y1 = np.round(legend.get_window_extent().extents).astype(int)
        rgba = np.asarray(tmp.canvas.buffer_rgba())
        image = OffsetImage(rgba[len(rgba) - y1:len(rgba) - y0, x0:x1], zoom=72 / tmp.dpi)
        return self.fig.add_artist(AnnotationBbox(image, (0.5, 0.0), xycoords="figure fraction",
                                                  box_alignment=(0.5, 0.0), frameon=False, pad=0.2))

    def _changing(self):
        return [a for group in (self.latency, self.cost) for a in group.values()] + self.markers + [self.label]


def live_frame(settings):
    """Chapter 1's live figure as matplotlib draws it at ``settings`` (its controls' values, by name: model, chip,
    precision, batch, context, refined): the static frame of :func:`live`."""
    s = live_settings(settings, ("model", "chip", "precision", "batch", "context", "refined"))
    return DecodeFigure(deploy(s["model"], s["chip"], s["precision"]), len_ctx=s["context"],
                        marker_batch=s["batch"], refined=s["refined"])


# -- the live figure's declaration: step time and cost per token against batch ---------------------
def _live_data(live):
    keys = _keys(map(roofline_eq, live.equations), ("batch", "len_ctx"))
    precisions = live.control("precision").options
    table = deployments(models.names(), hardware.names(), precisions, keys)
    return {"deployments": table,
            "windows": window_tables(keys, live.control("context").grid)}


def _refined_inert(precisions):
    """Where chapter 1's "experts touched + attention FLOPs" box cannot change the figure: a model without its
    experts' shapes (can_refine), a chip without the attention rate the refined terms need."""
    def cannot(model, chip, precision):
        d = deploy(model, chip, precision)
        if not can_refine(d):
            return True
        try:
            latency_terms(d, [1.0, 2.0], 1, refined=True)
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
    by default). Chapter 8's precision (roofline.figures.prefill) takes the same rules."""
    def fallback(chip):
        ds = [[deploy(m, chip, p) for p in precisions] for m in (names or models.names())]
        same = all(len({(d.weight_precision, tuple(sorted(d.values.items()))) for d in row}) == 1 for row in ds)
        return ds[0][0].weight_precision if same else None

    falls = {chip: fallback(chip) for chip in hardware.names()}
    return tuple(inert_where(f"on {{chip}} every choice falls back to {p.upper()}, the one of these precisions it "
                             "has a rate for", {"chip": hardware.names()}, lambda chip, p=p: falls[chip] == p)
                 for p in dict.fromkeys(v for v in falls.values() if v))


def live():
    """Chapter 1's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["decode"]``) and the
    notebook: step time and cost per token against batch, for any model, chip and precision of the registry.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations, controls (the lecture model on GB200 in FP4 at the board's batch and context), data and
        static frame (:func:`live_frame`).
    """
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
    return curves("decode", "01_batch_size", controls, _live_plot(), _live_data,
                  "Step time (left) and cost per token (right) against batch.", frame=live_frame)


def _live_plot():
    """Chapter 1's live figure as the page draws it: the terms of :func:`latency_terms` (ms) and
    :func:`cost_terms` (each times the cost per token over the step time) against batch, the refined ones where
    the box is ticked and the deployment knows its experts, the cost floor, the memory wall, the balance point."""
    t = {k: eq(f"decode.{k}") for k in ("compute_time_s", "weight_time_s", "kv_time_s", "memory_time_s",
                                        "step_time_s", "weight_time_touched_s", "step_time_refined_s")}
    per_step = eq("decode.cost_per_token_usd") / t["step_time_s"]  # USD per token per second of step
    refined = setting("refined")

    def terms(unit, floor=()):
        return floor + (
            Series("compute", "compute", unit(t["compute_time_s"]), Style("compute", 1)),
            Series("weights", "weight fetch", unit(t["weight_time_s"]), Style("weights", 1)),
            Series("kv", "KV fetch", unit(t["kv_time_s"]), Style("kv", 1)),
            Series("memory", "weight + KV", unit(t["memory_time_s"]), Style("memory", 1, "5 3")),
            Series("step", "total", unit(t["step_time_s"]), Style("total", 3, "", 0.8)),
            Series("refined_step", "total, experts touched + attention FLOPs (option)",
                   unit(t["step_time_refined_s"]), Style("grey", 2.5, "8 3 2 3"), when=refined, optional="refined"),
            Series("refined_weights", "weight fetch, experts touched (option)", unit(t["weight_time_touched_s"]),
                   Style("weights", 2, "2 2"), when=refined, optional="refined"))

    batch = tuple(batch_axis(DecodeFigure))
    others = dict(spans=(Span("wall", "KV cache does not fit", ref("wall")),),
                  marks=(Mark("batch", "batch B", setting("batch")),),
                  points=(Point("balance", "", eq("decode.balance_batch_with_kv_n"), on="step", within=True),),
                  xlog=True, ylog=True, ylim=decades(maximum(low(), low("step") / 30), high("step") * 3))
    floor = Series("floor", "slow-mode floor (cost)", eq("decode.cost_floor_usd") * PER_MILLION,
                   Style("grey", 6, "", 0.3))
    return Plot(
        panels=(Panel("batch", batch, "batch size (sequences)", "time per decode step (ms)",
                      terms(lambda y: y * MS), note="{model}\n{n_chips} x {chip}, {precision}\nB = {batch:count}, "
                      "L = {context:count}\n{regime}; {fits}", note_width=250, **others),
                Panel("batch", batch, "batch size (sequences)", "cost (USD per million tokens)",
                      terms(lambda y: y * per_step * PER_MILLION, (floor,)), **others)),
        keywords={"batch": "batch", "len_ctx": "context"},
        deployment=("model", "chip", "precision"),
        values={"wall": eq("decode.max_batch_n"),
                "regime": when(t["compute_time_s"] >= t["weight_time_s"] + eq("decode.kv_time_s"), "compute-bound",
                               when(t["weight_time_s"] >= t["kv_time_s"], "weight-bound", "KV-bound")),
                "fits": when(setting("batch") <= ref("wall"), "KV fits", "KV does NOT fit (max B {wall:count})")},
        boxes=((62, 12, 280, 250), (432, 12, 280, 250)), height=320,
        legend=("compute", "weights", "kv", "memory", "step", "floor", "wall", "batch", "refined_step",
                "refined_weights"))
