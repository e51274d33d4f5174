"""Figures of chapter 3: the layer stack cut into racks, and pipeline timelines drawn from computed schedules.

:func:`draw_layer_stack` redraws the board's stack of MoE layers with rack changes
(00:48:28). :func:`draw_timeline` draws a Gantt chart of the operations that
:func:`roofline.pipeline.schedule` computes (no block is placed by hand), and
:class:`PipelineFigure` redraws it for sliders. Matplotlib only. :func:`live` declares chapter 3's live
figure (in the vocabulary of :mod:`roofline.figures.declare`), and :func:`live_frame` draws its static frame.

>>> fig = PipelineFigure(n_stages=4, n_micro=4, kind="gpipe")
>>> print(f"{fig.update(kind='1f1b'):.3f}")
0.429
"""

import inspect

import numpy as np
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from .. import _check, pipeline
from .declare import (Blocks, Panel, Plot, Ticks, curves, eq, int_slider, one_of, ref, select, setting, timeline,
                      when)
from .moe import COMM, EXPERT_FILL, SWITCH_FILL, _arrow, _blank, _box
from .live import LiveFigure, new_figure, live_settings

FWD, BWD, IDLE = "tab:blue", "tab:red", "0.9"


def draw_layer_stack(ax, n_layers=6, per_stage=2):
    """MoE layers stacked bottom to top, a rack change every ``per_stage`` layers (00:48:28). Inside a rack
    each token fans out to several experts (orange); at a rack change it is sent once (red)."""
    _check.axes(ax)
    n_layers = _check.whole("n_layers", n_layers, 1, 16)  # one row of boxes each: a drawing, not a count
    per_stage = _check.whole("per_stage", per_stage, 1, n_layers)
    _blank(ax, (-1.6, 10.6), (-0.4, n_layers * 1.3))
    for layer in range(n_layers):
        y = layer * 1.3
        _box(ax, 0.5, y, 1.3, 0.7, "router", fill=SWITCH_FILL, fs=9)
        for e in range(5):
            _box(ax, 2.6 + e * 0.9, y + 0.35, 0.7, 0.55, "", fill=EXPERT_FILL if e in (1, 3) else "white")
        for e in (1, 3):  # the token fans out to its experts (and comes back: the all-to-all)
            _arrow(ax, (1.8, y + 0.35), (2.95 + e * 0.9, y + 0.35), color=COMM, connectionstyle="arc3,rad=0.35")
        ax.text(7.2, y + 0.55, f"MoE layer {layer + 1}", va="center", fontsize=9)
        if layer % per_stage == 0:
            ax.text(-0.2, y + 0.35 + (per_stage - 1) * 0.65, f"rack {layer // per_stage}", ha="right",
                    va="center", fontsize=10)
        if layer % per_stage == per_stage - 1 and layer < n_layers - 1:
            cut = y + 1.05
            ax.plot([-1.5, 9.2], [cut, cut], color="tab:red", lw=2, ls="--")
            ax.text(9.25, cut, "change rack", va="center", fontsize=9, color="tab:red")
            _arrow(ax, (1.15, y + 0.7), (1.15, y + 1.3), color="tab:red", lw=2)
    return ax


def draw_timeline(ax, ops, n_stages, labels=True):
    """A Gantt chart of ``ops`` (from :func:`roofline.pipeline.schedule`): stages up the y axis, time along
    x, forward blocks blue and backward blocks red, idle time grey. Returns the bar collections."""
    _check.axes(ax)
    P = _check.whole("n_stages", n_stages, 1, 256)  # one bar of idle time per stage
    ops = list(_check.instance("ops", ops, (list, tuple), "a list of Ops (see roofline.pipeline.schedule)"))
    if not ops or not all(isinstance(o, pipeline.Op) and 0 <= o.stage < P for o in ops):
        raise ValueError(f"ops must be a non-empty list of Ops on stages 0 to n_stages - 1 (see "
                         f"roofline.pipeline.schedule); got {_check.short(ops)}")
    if not isinstance(labels, bool):
        raise ValueError(f"labels must be True or False; got {_check.short(labels)}")
    span = max(o.end for o in ops)
    collections = []
    for s in range(P):
        collections.append(ax.broken_barh([(0, span)], (s - 0.4, 0.8), facecolors=IDLE))
    for kind, color in (("F", FWD), ("B", BWD)):
        for s in range(P):
            bars = [(o.start, o.end - o.start) for o in ops if o.stage == s and o.kind == kind]
            if bars:
                collections.append(ax.broken_barh(bars, (s - 0.4, 0.8), facecolors=color, edgecolors="white"))
    texts = []
    if labels and len(ops) <= 64:
        for o in ops:
            texts.append(ax.text((o.start + o.end) / 2, o.stage, f"{o.kind}{o.micro}", ha="center",
                                 va="center", fontsize=9, color="white", clip_on=True))
    ax.set(xlim=(0, span), ylim=(-0.6, P - 0.4), yticks=range(P), yticklabels=[f"rack {s}" for s in range(P)],
           xlabel="time (forward passes)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return collections + texts


class PipelineFigure(LiveFigure):
    """The timeline of one schedule, redrawn for sliders; the label gives its idle share and the formula's.

    Parameters
    ----------
    n_stages, n_micro : int
        Stages (racks) and micro-batches.
    kind : str
        'gpipe', '1f1b', 'inference' or 'naive' (see :func:`roofline.pipeline.schedule`).
    labels : bool
        Name each block (F0, B3, ...); a widget leaves them out to redraw faster.
    """

    def __init__(self, n_stages=4, n_micro=4, kind="gpipe", *, labels=True, figsize=(7.0, 3.6), dpi=100):
        if not isinstance(labels, bool):
            raise ValueError(f"labels must be True or False; got {_check.short(labels)}")
        self.labels = labels
        self.fig = new_figure(figsize, dpi)
        ax = self.fig.subplots()
        self.axes = (ax,)
        self.fig.subplots_adjust(left=0.12, right=0.97, bottom=0.3, top=0.86)
        handles = [Patch(color=FWD, label="forward"), Patch(color=BWD, label="backward"),
                   Patch(color=IDLE, label="idle (bubble)")]
        self.fig.legend(handles=handles, loc="lower center", ncols=3, fontsize=10, frameon=False)
        self.title = ax.set_title("", fontsize=10)
        self.artists = []
        self.n_stages, self.n_micro, self.kind = n_stages, n_micro, kind
        self.update()

    def update(self, n_stages=None, n_micro=None, kind=None):
        """Recompute the schedule and redraw; returns the idle share of the timeline."""
        n_stages = self.n_stages if n_stages is None else n_stages
        n_micro = self.n_micro if n_micro is None else n_micro
        kind = self.kind if kind is None else kind
        ops = pipeline.schedule(n_stages, n_micro, kind)  # checks them before the figure keeps them
        _check.whole("n_stages", n_stages, 1, 256)  # one bar of idle time per stage
        self.n_stages, self.n_micro, self.kind = n_stages, n_micro, kind
        for a in self.artists:
            a.remove()
        ax = self.axes[0]
        self.artists = draw_timeline(ax, ops, self.n_stages, self.labels)
        self.idle = pipeline.idle_fraction(ops)
        P, M = int(self.n_stages), int(self.n_micro)
        if self.kind in ("gpipe", "1f1b"):
            formula = pipeline.bubble_fraction(n_stages=P, n_micro=M)
            note = f"; (P - 1)/(m + P - 1) = {formula:.1%}"
        else:
            note = ""
        self.title.set_text(f"{self.kind}: P = {P} stages, m = {M} micro-batches; idle {self.idle:.1%}{note}")
        self._request_redraw()
        return self.idle

    def render(self):
        """A full redraw: the axes change with every schedule, so no background is reused."""
        self.fig.canvas.draw()
        return self.fig.canvas.buffer_rgba()

    def _changing(self):
        return list(self.artists)



class CutFigure(LiveFigure):
    """The cut condition, live: a stage's all-to-all time over one send across the cut, against MoE layers per
    stage, for a chip of the registry and ``top_k`` activated experts (:data:`roofline.pipeline.cut_ratio`).
    The cut is cheap where the ratio is 1 or more; the title gives :data:`roofline.pipeline.min_stage_layers`.

    >>> fig = CutFigure(top_k=8, chip="GB200")
    >>> print(f"{fig.update(top_k=16):.2f}")
    0.57
    """

    LAYERS = tuple(range(1, 9))

    def __init__(self, top_k=8, chip="GB200", n_chips=64, *, figsize=(7.0, 3.6), dpi=100):
        from .. import hardware
        self._hardware = hardware
        self.fig = new_figure(figsize, dpi)
        ax = self.fig.subplots()
        self.axes = (ax,)
        self.fig.subplots_adjust(left=0.11, right=0.97, bottom=0.16, top=0.88)
        ax.axhline(1.0, color="0.3", ls="--", lw=1.2)
        ax.text(0.02, 1.0, "cut cheap at 1 or more", transform=ax.get_yaxis_transform(), ha="left", va="bottom",
                fontsize=10, color="0.3", zorder=5, bbox=dict(facecolor="white", edgecolor="none", pad=1))
        ax.set(xlabel="MoE layers per stage", ylabel="stage all-to-alls / cut", xlim=(0.4, 8.6))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        self.bars = ax.bar(self.LAYERS, [1.0] * len(self.LAYERS), color=FWD, width=0.7)
        self.title = ax.set_title("", fontsize=10)
        self.top_k, self.chip, self.n_chips = top_k, chip, n_chips
        self.update()

    def update(self, top_k=None, chip=None, n_chips=None):
        """Recompute for new controls and redraw; returns the fewest MoE layers per stage for a cheap cut."""
        top_k = self.top_k if top_k is None else top_k
        chip = self.chip if chip is None else chip
        n_chips = self.n_chips if n_chips is None else n_chips
        with _check.naming("chip"):
            h = self._hardware.get(chip)
        if h.scaleup_bw is None or h.scaleout_bw is None:
            raise ValueError(f"chip {h.key!r} publishes no scale-up or scale-out bandwidth; pick one that does")
        links = dict(top_k=top_k, n_chips=n_chips, scaleup_bw=h.scaleup_bw, scaleout_bw=h.scaleout_bw)
        ratios = [pipeline.cut_ratio(stage_layers=ls, **links) for ls in self.LAYERS]  # checks them first
        if np.ndim(top_k) or np.ndim(n_chips):
            raise ValueError(f"top_k and n_chips must be single numbers; got {_check.short(top_k)}, "
                             f"{_check.short(n_chips)}")
        self.top_k, self.chip, self.n_chips = top_k, chip, n_chips
        for bar, r in zip(self.bars, ratios):
            bar.set_height(r)
            bar.set_color(FWD if r >= 1 else IDLE)
        self.axes[0].set_ylim(0, max(2.0, 1.1 * max(ratios)))
        self.min_layers = pipeline.min_stage_layers(**links)
        self.title.set_text(f"{h.key}, K = {self.top_k:g}, G = {self.n_chips:g}: up/out = "
                            f"{h.scaleup_bw / h.scaleout_bw:.0f}x, cheap from {self.min_layers:.2f} layers")
        self._request_redraw()
        return self.min_layers

    def render(self):
        """A full redraw (the y range follows the bars)."""
        self.fig.canvas.draw()
        return self.fig.canvas.buffer_rgba()

    def _changing(self):
        return list(self.bars) + [self.title]


def live_frame(settings):
    """Chapter 3's live figure as matplotlib draws it at ``settings`` (stages, micro, kind), unlabelled."""
    settings = live_settings(settings, ("stages", "micro", "kind"))
    return PipelineFigure(settings["stages"], settings["micro"], settings["kind"], labels=False)


# -- the live figure's declaration: the timeline of one schedule ------------------------------------
def _live_data(live):
    return {}


def _live_plot():
    """Chapter 3's live figure as the page draws it: the schedule's timeline (the script's
    :func:`roofline.pipeline.schedule`, a :func:`~roofline.figures.declare.timeline`), its idle share, and the
    closed form of the bubble where the schedule has one (GPipe, 1F1B)."""
    params = inspect.signature(pipeline.schedule).parameters
    run = lambda part: timeline("schedule", setting("stages"), setting("micro"), setting("kind"),  # noqa: E731
                                params["fwd"].default, params["bwd"].default, part)
    formula = one_of(setting("kind"), "gpipe", "1f1b")  # the schedules whose idle share has the closed form
    return Plot(
        panels=(Panel("", (), "time (forward passes)", "", (), blocks=(
            Blocks("schedule", run("ops"), setting("stages"), {"F": ("fwd", "forward"), "B": ("bwd", "backward")},
                   ("idle", "idle (bubble)"), "rack {}"),),
            xlim=(0, ref("end")), ylim=(-0.6, setting("stages") - 0.4),
            xticks=Ticks("plain", 8, narrow=5, whole=True)),),
        keywords={"n_stages": "stages", "n_micro": "micro"},
        deployment=(None, None, None),
        values={"end": run("end"), "idle": run("idle"), "bubble": when(formula, eq("pipeline.bubble_fraction"), None),
                "formula": when(formula, "; (P - 1)/(m + P - 1) = {bubble:.1%}", "")},
        title="{kind}: P = {stages} stages, m = {micro} micro-batches; idle {idle:.1%}{formula}",
        boxes=((84, 26, 610, 230),), height=300)


def live():
    """Chapter 3's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["pipeline"]``) and the
    notebook: the timeline of one schedule, its bubble fraction from the closed form where there is one.

    Returns
    -------
    roofline.figures.declare.Live
        Its equation, controls (8 stages, 16 micro-batches, 1F1B), plot and static frame (:func:`live_frame`).
    """
    controls = (
        int_slider("stages", "stages P", 1, 12, 8),
        int_slider("micro", "micro m", 1, 32, 16),
        select("kind", "schedule", ("gpipe", "1f1b", "inference", "naive"), "1f1b"),
    )
    return curves("pipeline", "03_pipeline_parallelism", controls, _live_plot(), _live_data,
                  "The timeline of one schedule.", frame=live_frame)
