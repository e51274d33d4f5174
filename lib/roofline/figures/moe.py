"""Figures of chapter 2: the lecture's diagrams of an MoE layer over a rack, and the step with communication.

The ``draw_*`` diagrams redraw the blackboard (00:32:08-00:42:38) with matplotlib
patches: an MoE layer, expert parallelism, a layer split over two racks, the NVL72
switch topology and the cable-density argument. :func:`draw_step_parts` and
:class:`MoeFigure` plot a deployment's decode step against batch size with the
all-to-all of :mod:`roofline.moe` beside chapter 1's three terms. Every number comes
from the library; this module uses matplotlib only. :func:`live` declares chapter 2's live figure (in the
vocabulary of :mod:`roofline.figures.declare`), and :func:`live_frame` draws its static frame.

>>> from roofline import Deployment, hardware, models
>>> d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), n_chips=64, price_usd_per_hour=2.0)
>>> fig = MoeFigure(d, len_ctx=2048, marker_batch=4096)
>>> fig.update(n_racks=2)
'communication'
"""

import numbers

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from .. import _check, hardware, models, moe, moe_data
from ..deployment import Deployment, deploy
from .declare import (Mark, Panel, Plot, Series, Span, Style, _keys, argmax, batch_axis, curves, data, decades,
                      deployments, eq, high, inert_where, int_slider, log_slider, low, maximum, minimum, position,
                      ref, roofline_eq, select, setting, value, when, window_tables)
from .decode import (COLORS, MS, _batch, _set_wall, _wall_span, legend_below, log_axes,  # noqa: F401 (legend_below:
                     memory_wall)                                                  # for chapter 2's notebook)
from .live import LiveFigure, batch_grid, new_figure, live_settings

COMM = "tab:orange"
GPU_FILL, SWITCH_FILL, EXPERT_FILL = "#dbe9f6", "#f3d9c4", "#e6f2df"


# -- the blackboard diagrams -------------------------------------------------------------------
DRAWN = 64
"""The most boxes of one kind (experts, GPUs, trays, cables) a blackboard diagram draws, one patch each."""


def _box(ax, x, y, w, h, text="", fill="white", fs=9, **kw):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02", fc=fill, ec="0.3", lw=1, **kw))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fs)


def _arrow(ax, a, b, color="0.3", lw=1.0, style="-|>", **kw):
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle=style, mutation_scale=9, color=color, lw=lw, **kw))


def _blank(ax, xlim, ylim):
    ax.set(xlim=xlim, ylim=ylim, aspect="equal")
    ax.axis("off")
    return ax


def draw_moe_layer(ax, n_experts=8, chosen=(1, 4, 6)):
    """One MoE layer (00:32:08): router, a row of experts (each an MLP), the sum, and the residual path."""
    _check.axes(ax)
    n_experts = _check.whole("n_experts", n_experts, 1, DRAWN)  # one box each: a drawing, not a count
    if isinstance(chosen, (str, bytes)) or not hasattr(chosen, "__iter__") or not all(
            isinstance(e, numbers.Integral) and 0 <= e < n_experts for e in chosen):
        raise ValueError(f"chosen must be experts' indices, whole numbers in [0, n_experts); "
                         f"got {_check.short(chosen)}")
    _blank(ax, (-2.2, n_experts + 0.6), (-0.3, 6.4))
    mid = n_experts / 2
    _box(ax, mid - 1, 0, 2, 0.6, "token", fs=10)
    _box(ax, mid - 1, 1.3, 2, 0.6, "router", fill=SWITCH_FILL, fs=10)
    _arrow(ax, (mid, 0.6), (mid, 1.3))
    for e in range(n_experts):
        used = e in chosen
        _box(ax, e + 0.08, 2.7, 0.84, 1.2, "MLP" if used else "", fill=EXPERT_FILL if used else "white", fs=9)
        if used:
            _arrow(ax, (mid, 1.9), (e + 0.5, 2.7), color=COMM)
            _arrow(ax, (e + 0.5, 3.9), (mid, 4.6), color=COMM)
    ax.text(-0.1, 3.3, "experts", ha="right", va="center", fontsize=10)
    _box(ax, mid - 0.6, 4.6, 1.2, 0.5, "sum", fs=10)
    _box(ax, mid - 0.4, 5.6, 0.8, 0.5, "+", fs=11)
    _arrow(ax, (mid, 5.1), (mid, 5.6))
    # the residual path: around the left of the experts, into the final "+"
    ax.plot([mid - 1, -1.6, -1.6, mid - 0.4], [0.3, 0.3, 5.85, 5.85], color="0.45", lw=1.4)
    _arrow(ax, (mid - 0.9, 5.85), (mid - 0.4, 5.85), color="0.45", lw=1.4)
    ax.text(-1.75, 3.0, "residual", rotation=90, ha="right", va="center", fontsize=10, color="0.35")
    return ax


def draw_expert_parallel(ax, n_gpus=4, per_gpu=2, n_racks=1):
    """Expert parallelism (00:33:46): experts grouped by GPU, the same GPUs routing tokens all-to-all;
    with ``n_racks=2``, a rack boundary through the middle (00:36:01) and the traffic that crosses it."""
    _check.axes(ax)
    n_gpus, per_gpu = _check.whole("n_gpus", n_gpus, 1, DRAWN), _check.whole("per_gpu", per_gpu, 1, DRAWN)
    n_racks = _check.whole("n_racks", n_racks, 1, 2)
    n = n_gpus * per_gpu
    _check.work("draw_expert_parallel", DRAWN, {"n_gpus": n_gpus, "per_gpu": per_gpu}, 1, "experts drawn")
    if n < 2:
        raise ValueError(f"n_gpus x per_gpu must be at least 2 experts (each router sends to two); got {n}")
    _blank(ax, (-0.4, n + 0.4), (-0.6, 5.8))
    for g in range(n_gpus):
        x = g * per_gpu
        ax.add_patch(Rectangle((x + 0.05, -0.2), per_gpu - 0.1, 4.9, fc=GPU_FILL, ec="0.5", lw=1, zorder=0))
        ax.text(x + per_gpu / 2, 4.85, f"GPU {g}", ha="center", fontsize=10)
        _box(ax, x + 0.15, 0.2, per_gpu - 0.3, 0.6, "router", fill=SWITCH_FILL, fs=9)
        for e in range(per_gpu):
            _box(ax, x + e + 0.12, 3.0, 0.76, 0.9, f"E{x + e}", fill=EXPERT_FILL, fs=9)
    rng = np.random.default_rng(2)
    for g in range(n_gpus):
        for dest in rng.choice(n, size=2, replace=False):
            src = g * per_gpu + per_gpu / 2
            crosses = n_racks > 1 and (g < n_gpus / 2) != (dest < n / 2)
            _arrow(ax, (src, 0.8), (dest + 0.5, 3.0), color="tab:red" if crosses else COMM, lw=1.8 if crosses else 1)
    if n_racks > 1:
        ax.plot([n / 2, n / 2], [-0.5, 5.2], color="black", lw=2, ls="--")
        ax.text(n / 4, 5.45, "rack 1", ha="center", fontsize=10)
        ax.text(3 * n / 4, 5.45, "rack 2", ha="center", fontsize=10)
    return ax


def draw_nvl72(ax, n_gpus=8, n_switches=3):
    """The rack (00:37:55), as a sketch: GPUs on the outside, NVSwitches in the middle, every GPU cabled to
    every switch (the scale-up network, two hops GPU to GPU), and a slower NIC link from every GPU up to the
    data-center switch (the scale-out network). A few GPUs and switches stand for 72 and 18."""
    _check.axes(ax)
    n_gpus, n_switches = _check.whole("n_gpus", n_gpus, 2, DRAWN), _check.whole("n_switches", n_switches, 1, DRAWN)
    _check.work("draw_nvl72", 4 * DRAWN, {"n_gpus": n_gpus, "n_switches": n_switches}, 1, "cables drawn")
    _blank(ax, (-0.6, 10.6), (-0.8, 8.2))
    half = n_gpus // 2
    dc = (5.0, 7.3)
    for side, x in ((0, 0.0), (1, 8.6)):
        for i in range(half):
            y = 0.3 + i * 1.45
            _box(ax, x, y, 1.4, 0.9, "GPU", fill=GPU_FILL, fs=9)
            for s in range(n_switches):
                sy = 1.2 + s * 1.8
                a = (x + 1.4, y + 0.45) if side == 0 else (x, y + 0.45)
                ax.plot([a[0], 4.3 if side == 0 else 5.7], [a[1], sy + 0.4], color="tab:green", lw=0.8, alpha=0.7)
            # the NIC link leaves the outer edge of the GPU and runs up the side to the data-center switch
            edge = x - 0.25 if side == 0 else x + 1.65
            ax.plot([x if side == 0 else x + 1.4, edge, edge], [y + 0.45, y + 0.45, dc[1]], color="0.55", lw=0.8)
    for s in range(n_switches):
        _box(ax, 4.3, 1.2 + s * 1.8, 1.4, 0.8, "NVSwitch", fill=SWITCH_FILL, fs=9, zorder=3)
    _box(ax, -0.45, dc[1], 10.5, 0.7, "data-center switch: scale-out network (NICs, grey)", fs=9)
    ax.text(5.0, -0.6, "green: NVLink, the scale-up network (any GPU to any GPU in two hops)", ha="center",
            fontsize=9, color="tab:green")
    return ax


def draw_cable_density(ax, trays_per_side=2, cables_per_tray=2, title=""):
    """Cable density (00:41:51): switches in the middle, trays of GPUs on each side, each tray's cables
    running to the switches. Twice the GPUs per rack is twice the cables through the same backplane."""
    _check.axes(ax)
    trays_per_side = _check.whole("trays_per_side", trays_per_side, 1, 16)
    cables_per_tray = _check.whole("cables_per_tray", cables_per_tray, 1, 16)
    _check.work("draw_cable_density", DRAWN, {"trays_per_side": trays_per_side, "cables_per_tray": cables_per_tray},
                1, "cables drawn a side")
    _check.instance("title", title, str, "a str")
    _blank(ax, (-0.3, 9.3), (-0.9, 7.0))
    h = 5.8 / trays_per_side
    gap = 0.9 / (trays_per_side * cables_per_tray + 1)  # every cable its own lane between trays and switches
    for side, x in ((0, 0.0), (1, 7.0)):
        for t in range(trays_per_side):
            y = 0.2 + t * h
            # the box is narrower than "GPU tray" at 9 pt: the name on two lines, inside it
            _box(ax, x, y, 2.0, h * 0.75, "GPUs" if trays_per_side > 2 else "GPU\ntray", fill=GPU_FILL, fs=9)
            for c in range(cables_per_tray):
                lane = (t * cables_per_tray + c + 1) * gap
                cx = x + 2.0 + lane if side == 0 else x - lane
                ax.plot([x + 2.0 if side == 0 else x, cx], [y + 0.2 + 0.15 * c] * 2, color="tab:green", lw=1)
                ax.plot([cx, cx], [y + 0.2 + 0.15 * c, 6.1], color="tab:green", lw=1)
    _box(ax, 3.15, 0.2, 2.7, 5.9, "switches", fill=SWITCH_FILL, fs=10)
    n = 2 * trays_per_side * cables_per_tray
    ax.text(4.5, -0.55, f"{n} vertical cables", ha="center", fontsize=10)
    if title:
        ax.text(4.5, 6.55, title, ha="center", fontsize=10)
    return ax


# -- the step with communication -----------------------------------------------------------------
def step_parts(deployment, batch, len_ctx, n_racks=1, hop_latency=None, scaleout_bw=None, act_bytes=None,
               scaleup_bw=None):
    """Compute, weights + KV (memory), all-to-all and the step with it (added, and hidden), ms, over ``batch``.

    ``hop_latency``: seconds; default the deployment's (its scale-up tier's, where published; else 0).
    ``scaleout_bw`` and ``scaleup_bw`` (bytes/s per chip) and ``act_bytes`` (bytes per value, dispatch
    and combine averaged: :func:`roofline.moe_data.act_bytes_per_value`): default the deployment's.
    """
    if not isinstance(deployment, Deployment):
        raise ValueError(f"deployment must be a roofline.Deployment; got {_check.short(deployment)}")
    b = _check.check_value("batch", batch)
    tau = hop_latency if hop_latency is not None else deployment.values.get("hop_latency", 0.0)
    given = dict(batch=b, len_ctx=len_ctx, n_racks=n_racks, hop_latency=tau)
    for name, value in (("scaleout_bw", scaleout_bw), ("act_bytes", act_bytes), ("scaleup_bw", scaleup_bw)):
        if value is not None:
            given[name] = _check.check_value(name, value)
    t = deployment.terms(b, len_ctx)
    out = {"compute": t["compute"], "weights": t["weights"], "kv": t["kv"], "memory": t["memory"],
           "comm": deployment.evaluate(moe.comm_time_s, **given),
           "step": deployment.evaluate(moe.step_with_comm_s, **given),
           "hidden": deployment.evaluate(moe.step_with_comm_s.under(overlap="full"), **given)}
    shape = np.shape(out["step"])
    return {k: np.broadcast_to(v, shape) * MS for k, v in out.items()}


def draw_step_parts(ax, deployment, batch, len_ctx, n_racks=1, hop_latency=None, scaleout_bw=None,
                    act_bytes=None, scaleup_bw=None):
    """Draw the step's parts against batch: chapter 1's compute, weight fetch, KV fetch and their memory
    sum, the all-to-all, and the step with the all-to-all added (bold) or hidden (dash-dot). Returns the
    artists by name."""
    _check.axes(ax)
    x = _batch(batch)
    y = step_parts(deployment, x, len_ctx, n_racks, hop_latency, scaleout_bw, act_bytes, scaleup_bw)
    art = {
        "compute": ax.plot(x, y["compute"], color=COLORS["compute"], lw=1, label="compute")[0],
        "weights": ax.plot(x, y["weights"], color=COLORS["weights"], lw=1, label="weight fetch")[0],
        "kv": ax.plot(x, y["kv"], color=COLORS["kv"], lw=1, label="KV fetch")[0],
        "memory": ax.plot(x, y["memory"], color=COLORS["memory"], lw=1, ls="--", label="weight + KV fetch")[0],
        "comm": ax.plot(x, y["comm"], color=COMM, lw=1.5, label="all-to-all")[0],
        "hidden": ax.plot(x, y["hidden"], color="0.45", lw=2, ls="-.", label="step, all-to-all hidden")[0],
        "step": ax.plot(x, y["step"], color=COLORS["total"], lw=3, alpha=0.8, label="step, all-to-all added")[0],
    }
    art["wall"] = _wall_span(ax, memory_wall(deployment, len_ctx), x)
    ax.set_xlabel("batch size (sequences)")
    ax.set_ylabel("time per decode step (ms)")
    return art


class MoeFigure(LiveFigure):
    """The step with communication against batch, one panel, updated in place for a widget.

    Parameters
    ----------
    deployment : Deployment
        The expert-parallel group: ``n_chips`` chips over ``n_racks`` racks.
    len_ctx : float
        Context length, tokens.
    n_racks : int
        Racks one expert layer spans.
    marker_batch : float
        Batch marked with a vertical line; the label names what sets the step there.
    hop_latency : float, optional
        Seconds per all-to-all; default the deployment's.
    scaleout_bw, act_bytes, scaleup_bw : float, optional
        The scale-out bandwidth per chip (bytes/s), the bytes per activation value and the scale-up
        bandwidth per chip (bytes/s); default the deployment's. :func:`roofline.moe_data.link_values`
        gives ``hop_latency``, ``scaleup_bw`` and ``scaleout_bw``.
    """

    def __init__(self, deployment, len_ctx, n_racks=1, marker_batch=4096, hop_latency=None, scaleout_bw=None,
                 act_bytes=None, scaleup_bw=None, *, batch_range=(1, 1e5), n_points=100, figsize=(7.0, 4.8),
                 dpi=100):
        lo, hi, self.batch = batch_grid(batch_range, n_points)
        self.fig = new_figure(figsize, dpi)
        ax = self.fig.subplots()
        self.axes = (ax,)
        self.fig.subplots_adjust(left=0.11, right=0.955, bottom=0.36, top=0.97)
        self.deployment, self.len_ctx, self.n_racks = deployment, len_ctx, n_racks
        self.marker_batch, self.hop_latency = marker_batch, hop_latency
        self.scaleout_bw, self.act_bytes, self.scaleup_bw = scaleout_bw, act_bytes, scaleup_bw
        self.parts = draw_step_parts(ax, deployment, self.batch, len_ctx, n_racks, hop_latency, scaleout_bw,
                                     act_bytes, scaleup_bw)
        self.parts["wall"].set_label("KV cache does not fit")
        log_axes(ax).set_xlim(lo, hi)
        ax.tick_params(labelsize=10)
        self.marker = ax.axvline(marker_batch, color="gray", lw=1, ls=":", label="batch B (label)")
        self.fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncols=3, fontsize=9, frameon=False)
        self.label = ax.text(0.03, 0.97, "", transform=ax.transAxes, va="top", fontsize=10,
                             bbox=dict(facecolor="white", alpha=0.85, lw=0, pad=1))
        self.update()

    def update(self, deployment=None, len_ctx=None, n_racks=None, marker_batch=None, hop_latency=None,
               scaleout_bw=None, act_bytes=None, scaleup_bw=None):
        """Redraw with any input changed; returns what sets the step at the marker: 'compute',
        'memory' or 'communication' (the largest of the three)."""
        if deployment is not None:
            if not isinstance(deployment, Deployment):
                raise ValueError(f"deployment must be a roofline.Deployment; got {_check.short(deployment)}")
            self.deployment = deployment
        for name, value in (("len_ctx", len_ctx), ("n_racks", n_racks), ("marker_batch", marker_batch),
                            ("hop_latency", hop_latency), ("scaleout_bw", scaleout_bw), ("act_bytes", act_bytes),
                            ("scaleup_bw", scaleup_bw)):
            if value is not None:
                setattr(self, name, _check.check_value(name, value, "nonnegative" if name == "hop_latency"
                                                       else "positive"))
        d, L, b = self.deployment, self.len_ctx, self.marker_batch
        links = (self.n_racks, self.hop_latency, self.scaleout_bw, self.act_bytes, self.scaleup_bw)
        y = step_parts(d, self.batch, L, *links)
        for key in ("compute", "weights", "kv", "memory", "comm", "hidden", "step"):
            self.parts[key].set_ydata(y[key])
        wall = memory_wall(d, L)
        _set_wall(self.parts["wall"], wall, self.batch)
        self.marker.set_xdata([b, b])
        at = step_parts(d, np.array([b, b]), L, *links)
        parts = {"compute": at["compute"][0], "memory": at["memory"][0], "communication": at["comm"][0]}
        self.regime = max(parts, key=parts.get)
        share = at["comm"][0] / max(at["compute"][0], at["memory"][0])
        fits = "KV fits" if b <= wall else "KV does NOT fit"
        self.label.set_text(f"{d.model.key}, {d.n_chips_used} x {d.hardware.key} in {self.n_racks:g} rack(s)\n"
                            f"B = {b:,.0f}, L = {L:,.0f}; {fits}\n"
                            f"all-to-all = {share:.0%} of the step without it"
                            # few experts: every layout already gives each expert its own GPU
                            + ("\none expert a GPU: no layout adds GPUs"
                               if d.n_chips_used >= d.model.routed_experts else ""))
        ax = self.axes[0]
        top = max(y["step"].max(), y["comm"].max()) * 3
        low = max(min(y["step"].min(), y["comm"].min()) / 30, top / 1e6)
        ax.set_ylim(10.0 ** np.floor(np.log10(low)), 10.0 ** np.ceil(np.log10(top)), auto=None)
        self._request_redraw()
        return self.regime

    def _changing(self):
        return list(self.parts.values()) + [self.marker, self.label]


def live_frame(settings):
    """Chapter 2's live figure as matplotlib draws it at ``settings`` (model, chip, top_k, racks, layout, links,
    batch, context): top-K at fixed active parameters (experts split finer: only the all-to-all's bytes follow
    K), the layer over the GPUs :func:`roofline.moe.layout_chips` gives, FP4 weights, activations out in FP8
    and back in BF16, the links' latency and bandwidths from :func:`roofline.moe_data.link_values`."""
    import dataclasses

    s = live_settings(settings, ("model", "chip", "top_k", "racks", "layout", "links", "batch", "context"))
    m = models.get(s["model"])
    m = dataclasses.replace(m, active_routed_experts=min(s["top_k"], m.routed_experts))
    h = hardware.get(s["chip"])
    chips, racks = moe.layout_chips(m.routed_experts, h.scaleup_domain, s["racks"], s["layout"])
    d = dataclasses.replace(deploy(s["model"], s["chip"], LIVE_PRECISION, n_chips=chips), model=m)
    return MoeFigure(d, len_ctx=s["context"], n_racks=racks, marker_batch=s["batch"],
                     act_bytes=moe_data.act_bytes_per_value(*LIVE_ACTIVATIONS),
                     **moe_data.link_values(h, racks, s["links"]))


LIVE_PRECISION = "fp4"
"""The weights' precision in chapter 2's live figure (FP4, or the chip's lowest precision)."""
LIVE_ACTIVATIONS = ("fp8", "bf16")
"""The activations' precisions out (dispatch) and back (combine) in chapter 2's live figure."""


# -- the live figure's declaration: the step with the all-to-all -----------------------------------
_LAYOUTS = (("one rack's, split", "split"), ("each rack's", "widen"))  # moe.layout_chips
_LINKS = (("64-byte floor", "floor"), ("calibrated", "calibrated"))  # moe_data.link_values


def moe_models():
    """The models chapter 2's controls offer: those with MoE layers."""
    return tuple(m.key for m in models.REGISTRY if m.moe_layers)


def moe_chips():
    """The chips chapter 2's controls offer: those with a published scale-out network."""
    return tuple(h.key for h in hardware.REGISTRY if h.scaleout_bw)


def _live_data(live):
    keys = _keys(map(roofline_eq, live.equations), ("batch", "len_ctx", "n_racks", "hop_latency", "n_chips",
                                                     "scaleout_bw", "act_bytes"))
    racks = live.control("racks").grid
    table = deployments(moe_models(), moe_chips(), (LIVE_PRECISION,), keys)
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
            "act_bytes": moe_data.act_bytes_per_value(*LIVE_ACTIVATIONS),
            "windows": window_tables(keys, live.control("context").grid,
                                     lambda m: deploy(m, "GB200", LIVE_PRECISION))}


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


def live():
    """Chapter 2's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["moe"]``) and the
    notebook: the decode step with the all-to-all against batch, for the MoE models of :func:`moe_models` on the
    chips of :func:`moe_chips`.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations, controls (DeepSeek-V3 on GB200 in one rack at its balance batch), data and static frame
        (:func:`live_frame`).
    """
    domain = hardware.get("GB200").scaleup_domain
    ep = deploy("DeepSeek-V3", "GB200", LIVE_PRECISION, n_chips=moe.ep_chips(256, domain))
    racks = int_slider("racks", "racks", 1, 8, 1)
    controls = (
        select("model", "model", moe_models(), "DeepSeek-V3"),
        select("chip", "hardware", moe_chips(), "GB200"),
        int_slider("top_k", "top-k K", 1, 32, 8),
        racks,
        select("layout", "GPUs", _LAYOUTS, "split").unless(*_layout_inert(racks.grid)),
        select("links", "links", _LINKS, "calibrated"),
        log_slider("batch", "batch B", 0, 5, ep.balance_batch()),
        log_slider("context", "context (tokens)", 1, 6, 2048),  # chapter 2's chat-length context
    )
    return curves("moe", "02_moe_layout", controls, _live_plot(), _live_data,
                  "The decode step with the all-to-all against batch.", frame=live_frame)


def _live_plot():
    """Chapter 2's live figure as the page draws it: :func:`step_parts` (ms) against batch, as the widget cell
    sets it up: top-K routing, on the GPUs of the layout (:func:`roofline.moe.layout_chips`), over the links of
    :func:`roofline.moe_data.link_values`, FP8 out and BF16 back."""
    t = {k: eq(k) for k in ("decode.compute_time_s", "decode.weight_time_s", "decode.kv_time_s",
                            "decode.memory_time_s", "moe.comm_time_s", "moe.step_with_comm_s",
                            "moe.step_with_comm_s[overlap=full]")}
    chip, model = setting("chip"), setting("model")
    link = lambda key: data("links", chip, setting("links"), key)  # noqa: E731
    layout = lambda i: data("layout_chips", chip, model, setting("layout"), position("racks"), i)  # noqa: E731
    shown = ("step", "comm")
    top = high(*shown) * 3
    return Plot(
        panels=(Panel("batch", tuple(batch_axis(MoeFigure)), "batch size (sequences)", "time per decode step (ms)", (
            Series("compute", "compute", t["decode.compute_time_s"] * MS, Style("compute", 1)),
            Series("weights", "weight fetch", t["decode.weight_time_s"] * MS, Style("weights", 1)),
            Series("kv", "KV fetch", t["decode.kv_time_s"] * MS, Style("kv", 1)),
            Series("memory", "weight + KV fetch", t["decode.memory_time_s"] * MS, Style("memory", 1, "5 3")),
            Series("comm", "all-to-all", t["moe.comm_time_s"] * MS, Style("comm", 1.5)),
            Series("hidden", "step, all-to-all hidden", t["moe.step_with_comm_s[overlap=full]"] * MS,
                   Style("grey", 2, "8 3 2 3")),
            Series("step", "step, all-to-all added", t["moe.step_with_comm_s"] * MS, Style("total", 3, "", 0.8)),
        ), spans=(Span("wall", "KV cache does not fit", ref("wall")),),
            marks=(Mark("batch", "batch B", setting("batch")),), xlog=True, ylog=True,
            ylim=decades(maximum(low(*shown) / 30, top / 1e6), top),
            note="{model}, {n_chips} x {chip} in {n_racks} rack(s)\nB = {batch:count}, L = {context:count}; {fits}\n"
                 "all-to-all = {share:.0%} of the step without it{one_each}", note_width=330),),
        keywords={"batch": "batch", "len_ctx": "context",
                  "top_k": minimum(setting("top_k"), data("experts", model)),
                  "n_chips": layout(0), "n_racks": layout(1),
                  "hop_latency": when(value("n_racks") > 1, link("racks"), link("rack")),
                  "scaleout_bw": link("scaleout_bw"), "scaleup_bw": link("scaleup_bw"), "act_bytes": data("act_bytes")},
        deployment=("model", "chip", None),
        values={"wall": eq("decode.max_batch_n"), "n_chips": value("n_chips"), "n_racks": value("n_racks"),
                "hop_latency": value("hop_latency"),
                "regime": argmax(compute=t["decode.compute_time_s"], memory=t["decode.memory_time_s"],
                                 communication=t["moe.comm_time_s"]),
                "share": t["moe.comm_time_s"] / maximum(t["decode.compute_time_s"], t["decode.memory_time_s"]),
                "fits": when(setting("batch") <= ref("wall"), "KV fits", "KV does NOT fit"),
                "one_each": when(value("n_chips") >= data("experts", model), "\none expert a GPU: no layout adds GPUs",
                                 "")},
        boxes=((72, 12, 620, 270),), height=330,
        legend=("compute", "weights", "kv", "memory", "comm", "hidden", "step", "wall", "batch"))
