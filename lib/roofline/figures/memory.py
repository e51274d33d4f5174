"""Figures of chapter 4: memory per GPU against pipeline stages, and the weight-fetch floor against scale-up size.

:func:`draw_memory_vs_stages` plots the weights and the KV cache per GPU as the
pipeline deepens (weights fall, the cache stays flat); :func:`draw_floor_vs_scaleup`
plots chapter 1's weight-fetch floor against the number of chips that read the
weights at once. :class:`MemoryFigure` puts both side by side for a widget. Every
number comes from :mod:`roofline.memory` and :mod:`roofline.decode` through a
:class:`~roofline.Deployment`; matplotlib only. :func:`live` declares chapter 4's live figure (in the
vocabulary of :mod:`roofline.figures.declare`: a :class:`~roofline.figures.declare.Plot` the page draws with
no code of its own), and :func:`live_frame` draws its static frame.

>>> from roofline import Deployment, hardware, models
>>> d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4", n_chips=64)
>>> fig = MemoryFigure(d, micro_batch=500, len_ctx=32768, n_stages=4)
>>> print(f"{fig.update(n_stages=2):.1f} GB per GPU")
20.6 GB per GPU
"""

import inspect

import numpy as np

from .. import _check, decode, hardware, memory, models
from ..deployment import Deployment, deploy
from .declare import (Line, Mark, Panel, Plot, Point, Series, Style, Ticks, _keys, _number, curves, deployments, eq,
                      high, int_slider, log_slider, roofline_eq, select, setting, value, window_tables)
from .decode import COLORS, log_axes
from .live import LiveFigure, new_figure, live_settings

GB = 1e9
STAGES = np.arange(1, 17)


def _deployment(d):
    if not isinstance(d, Deployment):
        raise ValueError(f"deployment must be a roofline.Deployment; got {_check.short(d)}")
    return d


def memory_parts(deployment, micro_batch, len_ctx, stages=STAGES):
    """Weights, KV cache and their sum per GPU, GB, for each pipeline depth in ``stages``."""
    d = _deployment(deployment)
    micro_batch, len_ctx = _check.scalar("micro_batch", micro_batch), _check.scalar("len_ctx", len_ctx, "nonnegative")
    stages = _check.check_value("stages", stages, "count")
    given = dict(micro_batch=micro_batch, len_ctx=len_ctx, n_stages=np.asarray(stages, dtype=float))
    w = d.evaluate(memory.weights_per_gpu_bytes, **given) / GB
    kv = np.broadcast_to(d.evaluate(memory.kv_per_gpu_bytes, **given) / GB, np.shape(w))
    return {"weights": w, "kv": kv, "total": w + kv}


def draw_memory_vs_stages(ax, deployment, micro_batch, len_ctx, stages=STAGES):
    """Weights (falling as 1/P), KV cache (flat) and their sum per GPU against P, with the HBM line."""
    _check.axes(ax)
    y = memory_parts(deployment, micro_batch, len_ctx, stages)
    art = {
        "weights": ax.plot(stages, y["weights"], "o-", color=COLORS["weights"], ms=3, label="weights")[0],
        "kv": ax.plot(stages, y["kv"], "o-", color=COLORS["kv"], ms=3, label="KV cache")[0],
        "total": ax.plot(stages, y["total"], color=COLORS["total"], lw=2.5, label="total")[0],
        "hbm": ax.axhline(deployment.hardware.hbm_bytes / GB, color="0.5", ls="--", label="HBM per GPU"),
    }
    ax.set(xlabel="pipeline stages P", ylabel="GB per GPU", ylim=(0, None))
    return art


def floor_vs_scaleup(deployment, chips):
    """Chapter 1's weight-fetch floor, ms, when ``chips`` GPUs read the weights at once."""
    d = _deployment(deployment)
    return d.evaluate(decode.weight_time_s, n_chips=np.asarray(chips, dtype=float)) * 1e3


def draw_floor_vs_scaleup(ax, deployment, chips=np.geomspace(1, 1024, 60), marks=()):
    """The weight-fetch floor against the chips that read the weights at once (the scale-up domain),
    log-log; ``marks`` are (chips, label) pairs to point out (an 8-GPU box, a 72-GPU rack)."""
    _check.axes(ax)
    if isinstance(marks, (str, bytes)) or not hasattr(marks, "__iter__"):
        raise ValueError(f"marks must be a list of (chips, label) pairs; got {_check.short(marks)}")
    marks = _check.items("marks", marks, 64, "(chips, label) pairs")
    if len(marks) > 64 or not all(isinstance(m, tuple) and len(m) == 2 and isinstance(m[1], str) for m in marks):
        raise ValueError(f"marks must be at most 64 (chips, label) pairs; got {_check.short(marks)}")
    ms = floor_vs_scaleup(deployment, chips)
    art = {"floor": ax.plot(chips, ms, color=COLORS["weights"], lw=2.5, label="weight-fetch floor")[0]}
    for g, label in marks:
        y = float(floor_vs_scaleup(deployment, [g])[0])
        ax.plot([g], [y], "o", color="black", ms=5)
        ax.annotate(f"{label}: {y:.2g} ms", (g, y), xytext=(6, 4), textcoords="offset points", fontsize=9)
    log_axes(ax)
    ax.set(xlabel="chips reading the weights at once", ylabel="ms per step (weights alone)")
    return art


class MemoryFigure(LiveFigure):
    """Memory per GPU against P (left) and the weight-fetch floor against scale-up size (right), for a widget."""

    def __init__(self, deployment, micro_batch, len_ctx, n_stages=4, *, figsize=(7.0, 3.6), dpi=100):
        _check.scalar("n_stages", n_stages, "count")
        self.fig = new_figure(figsize, dpi)
        self.axes = tuple(self.fig.subplots(1, 2))
        self.fig.subplots_adjust(left=0.09, right=0.98, bottom=0.32, top=0.9, wspace=0.35)
        self.deployment = _deployment(deployment)
        self.micro_batch, self.len_ctx, self.n_stages = micro_batch, len_ctx, n_stages
        self.mem = draw_memory_vs_stages(self.axes[0], deployment, micro_batch, len_ctx)
        self.marker = self.axes[0].axvline(n_stages, color="gray", ls=":", lw=1)
        self.chips = np.geomspace(1, 1024, 60)
        self.floor = draw_floor_vs_scaleup(self.axes[1], deployment, self.chips)
        self.dot = self.axes[1].plot([], [], "o", color="black", ms=6)[0]
        self.fig.legend(*self.axes[0].get_legend_handles_labels(), loc="lower center", ncols=4, fontsize=9,
                        frameon=False)
        self.title = self.fig.suptitle("", fontsize=10)
        self.update()

    def update(self, deployment=None, micro_batch=None, len_ctx=None, n_stages=None):
        """Redraw with any input changed; returns the memory per GPU at the marked P, GB."""
        if deployment is not None:
            self.deployment = _deployment(deployment)
        for name, value in (("micro_batch", micro_batch), ("len_ctx", len_ctx), ("n_stages", n_stages)):
            if value is not None:
                _check.scalar(name, value, "count" if name == "n_stages" else "positive")
        for name, value in (("micro_batch", micro_batch), ("len_ctx", len_ctx), ("n_stages", n_stages)):
            if value is not None:
                setattr(self, name, _check.check_value(name, value))
        d = self.deployment
        y = memory_parts(d, self.micro_batch, self.len_ctx)
        for key in ("weights", "kv", "total"):
            self.mem[key].set_ydata(y[key])
        self.mem["hbm"].set_ydata([d.hardware.hbm_bytes / GB] * 2)
        self.marker.set_xdata([self.n_stages] * 2)
        ax0 = self.axes[0]
        ax0.set_ylim(0, max(y["total"].max(), d.hardware.hbm_bytes / GB) * 1.1)
        ms = floor_vs_scaleup(d, self.chips)
        self.floor["floor"].set_ydata(ms)
        g = d.n_chips_used
        self.dot.set_data([g], [float(floor_vs_scaleup(d, [g])[0])])
        self.axes[1].set_ylim(10.0 ** np.floor(np.log10(ms.min())), 10.0 ** np.ceil(np.log10(ms.max())))
        at = float(memory_parts(d, self.micro_batch, self.len_ctx, [self.n_stages])["total"][0])
        self.title.set_text(f"{d.model.key} on {g} x {d.hardware.key} per stage; micro-batch "
                            f"{self.micro_batch:,.0f}, L = {self.len_ctx:,.0f}: {at:.1f} GB per GPU at P = "
                            f"{self.n_stages:g}")
        self._request_redraw()
        return at

    def _changing(self):
        return list(self.mem.values()) + [self.marker, self.floor["floor"], self.dot, self.title]


def live_frame(settings):
    """Chapter 4's live figure as matplotlib draws it at ``settings`` (model, chip, gpus, stages, micro,
    context): FP8 weights, or the chip's lowest precision, on ``gpus`` GPUs per stage."""
    s = live_settings(settings, ("model", "chip", "gpus", "stages", "micro", "context"))
    return MemoryFigure(deploy(s["model"], s["chip"], LIVE_PRECISION, n_chips=s["gpus"]),
                        micro_batch=round(s["micro"]), len_ctx=s["context"], n_stages=s["stages"])


LIVE_PRECISION = "fp8"
"""The weights' precision in chapter 4's live figure (FP8, or the chip's lowest precision)."""


# -- the live figure's declaration: memory per GPU against stages, the weight floor against scale-up size ---
def _live_data(live):
    keys = _keys(map(roofline_eq, live.equations), ("micro_batch", "len_ctx", "n_stages", "n_chips"))
    return {"deployments": deployments(models.names(), hardware.names(), (LIVE_PRECISION,), keys + ["hbm_bytes"]),
            "windows": window_tables(keys, live.control("context").grid,
                                     lambda m: deploy(m, "H100", LIVE_PRECISION))}


def live():
    """Chapter 4's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["memory"]``) and the
    notebook: memory per GPU against pipeline stages, and the weight-fetch floor against scale-up size, curves
    of the registered equations the page draws from their :class:`~roofline.figures.declare.Plot` alone.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations, controls (Kimi K2 on 8 H100s per stage), plot, data and static frame
        (:func:`live_frame`).
    """
    controls = (
        select("model", "model", models.names(), "Kimi K2"),
        select("chip", "hardware", hardware.names(), "H100"),
        int_slider("gpus", "GPUs G", 1, 128, 8),
        int_slider("stages", "stages P", 1, 16, 4),
        log_slider("micro", "micro b", 0, 4, 64, whole=True),
        log_slider("context", "context (tokens)", 2, 6, 8192),
    )
    per_gb = 1 / GB
    weights = eq("memory.weights_per_gpu_bytes") * per_gb
    kv = eq("memory.kv_per_gpu_bytes") * per_gb
    chips = inspect.signature(draw_floor_vs_scaleup).parameters["chips"].default
    plot = Plot(
        panels=(
            Panel("n_stages", tuple(int(p) for p in STAGES), "pipeline stages P", "GB per GPU", (
                Series("weights", "weights", weights, Style("weights"), markers=True),
                Series("kv", "KV cache", kv, Style("kv"), markers=True),
                Series("total", "total", weights + kv, Style("total", 2.5)),
            ), lines=(Line("hbm", "HBM per GPU", value("hbm_bytes") * per_gb),),
                marks=(Mark("stages", "stages P", setting("stages")),),
                xlim=(int(STAGES[0]) - 0.75, int(STAGES[-1]) + 0.75), ylim=(0, high() * 1.1),
                xticks=Ticks("plain", 6, inside=True), yticks=Ticks("plain")),
            Panel("n_chips", tuple(_number(c) for c in chips), "chips reading the weights at once",
                  "ms per step (weights alone)", (
                      Series("floor", "weight-fetch floor", eq("decode.weight_time_s") * 1e3, Style("weights", 2.5)),
                  ), points=(Point("dot", "", value("n_chips"), on="floor", r=4),), xlog=True, ylog=True),
        ),
        keywords={"n_chips": "gpus", "n_stages": "stages", "micro_batch": "micro", "len_ctx": "context"},
        values={"at": weights + kv},
        title="{model} on {gpus} x {chip} per stage; micro-batch {micro:,}, L = {context:,}: {at:.1f} GB per GPU "
              "at P = {stages}",
        boxes=((62, 26, 249, 230), (411, 26, 249, 230)), height=300)
    return curves("memory", "04_pipelining_memory", controls, plot, _live_data,
                  "Memory per GPU against pipeline stages (left); the weight-fetch floor against scale-up size "
                  "(right).", frame=live_frame)
