"""Chapter 6's figures: cost against context under a two-tier price, cost against pass length (prefill and
decode), the chat timeline, and the drain times of the memory tiers.

:func:`live` declares chapter 6's live figure (in the vocabulary of :mod:`roofline.figures.declare`), and
:func:`live_frame` draws its static frame.
"""

import inspect

import numpy as np
import sympy as sp
from matplotlib.patches import Rectangle

from .. import _check, decode, hardware, lecture, serving, symbols
from ..deployment import deploy
from .declare import (Mark, Panel, Plot, Point, Series, Span, Style, Ticks, _keys, _number, curves, data, decades,
                      deployments, eq, float_slider, high, item, low, maximum, minimum, nice_above, ref, roofline_eq,
                      select, selection_slider, series, setting, value, when)
from .live import LiveFigure, count, new_figure, live_settings

COLORS = {"compute": "tab:blue", "memory": "tab:orange", "total": "black", "price": "tab:red",
          "wall": "0.85"}
CONTEXTS = (1e3, 1e6, 400)
"""The left panel's contexts in tokens, from and to, in this many even steps (``numpy.linspace``)."""
PASS_LENGTHS = (1, 1e5, 200)
"""The right panel's pass lengths in tokens, from and to, in this many geometric steps (``numpy.geomspace``)."""


_GIVEN = ("batch", "len_ctx", "pass_len")


def _values(values, *eqs, extra=()):
    """``values`` after checking it holds every keyword ``eqs`` take but the batch, context and pass length."""
    keys = dict.fromkeys([a for eq in eqs for a in eq.args if a not in _GIVEN] + list(extra))
    return _check.mapping("values", values, tuple(keys))


def _grid(name, values, domain="positive"):
    """A figure's x values: a 1-D array of at least two numbers, at most 100,000."""
    x = _check.check_value(name, values, domain)
    if np.ndim(x) != 1 or not 2 <= len(x) <= 100_000:
        raise ValueError(f"{name} must be a 1-D array of 2 to 100,000 values; got {_check.short(values)}")
    return x


def per_token(values, batch, len_ctx, pass_len=1):
    """Compute and memory time per token of a pass, and the cost per token (USD), from the library.

    ``values`` holds every keyword of :mod:`roofline.serving`'s pass equations but the batch, context and
    pass length (a deployment's ``values``); returns a dict of ``compute``, ``memory`` (s) and ``cost``.
    """
    _values(values, serving.pass_compute_time_s, serving.pass_memory_time_s, serving.pass_cost_per_token_usd)
    batch, pass_len = _check.check_value("batch", batch), _check.check_value("pass_len", pass_len)
    v = dict(values, batch=batch, len_ctx=len_ctx, pass_len=pass_len)
    take = lambda eq: eq(**{a: v[a] for a in eq.args})  # noqa: E731
    tokens = batch * np.asarray(pass_len, float)
    shape = np.broadcast_shapes(np.shape(len_ctx), np.shape(pass_len))
    out = dict(compute=take(serving.pass_compute_time_s) / tokens, memory=take(serving.pass_memory_time_s) / tokens,
               cost=take(serving.pass_cost_per_token_usd))
    return {k: np.broadcast_to(x, shape) if shape else float(x) for k, x in out.items()}


def lecture_start(values, n_active, step_tokens, len_ctx, memory_over_compute, total_per_active=10):
    """Chapter 6's figure's starting point on a deployment's ``values``: the lecture's model of ``n_active``
    parameters (``total_per_active`` times as many in all, our assumption), with the KV bytes per token that
    put this machine's crossover at the price step, and the decode batch at which a decode pass's memory time
    is ``memory_over_compute`` times its compute at ``len_ctx`` tokens (solved from the pass equations).

    Returns ``(values, decode_batch)``; the notebook and the published page's figure both start here.
    """
    _values(values, serving.pass_compute_time_s, serving.pass_memory_time_s)
    for name, x in (("n_active", n_active), ("memory_over_compute", memory_over_compute),
                    ("total_per_active", total_per_active), ("len_ctx", len_ctx)):
        if np.ndim(_check.check_value(name, x, "nonnegative" if name == "len_ctx" else "positive")):
            raise ValueError(f"lecture_start: {name} must be one number; got {_check.short(x)}")
    k_step = serving.kv_bytes_at_crossover(n_active=n_active, mem_bw=values["mem_bw"], flops=values["flops"],
                                           len_ctx=step_tokens)
    out = dict(values, n_active=n_active, n_total=total_per_active * n_active, kv_bytes=k_step)
    one = {symbols.pass_len: 1}
    t_mem, t_comp = serving.pass_memory_time_s.expr.subs(one), serving.pass_compute_time_s.expr.subs(one)
    batch = sp.solve(sp.Eq(t_mem, memory_over_compute * t_comp), symbols.B)[0]
    given = {symbols.TABLE[a].symbol: v for a, v in out.items() if a in symbols.TABLE} | {symbols.len_ctx: len_ctx}
    return out, float(batch.subs(given))


def two_tier_price(values, batch, step_tokens, premium, len_ctx):
    """A price list with one step: the cost per output token at the step, and ``1 + premium`` times it above."""
    at_step = per_token(values, batch, step_tokens)["cost"]
    premium = _check.check_value("premium", premium, "nonnegative")
    return np.where(np.asarray(len_ctx) <= step_tokens, at_step, at_step * (1 + premium))


def context_wall(values, batch):
    """The longest context whose KV cache for ``batch`` sequences fits beside the weights (tokens)."""
    _values(values, decode.max_batch_n)
    batch = _check.check_value("batch", batch)
    v = {a: values[a] for a in decode.max_batch_n.args if a != "len_ctx"}
    # max_batch_n is G M_free / (L k): the context at which it equals the batch
    return float(decode.max_batch_n(len_ctx=1.0, **v) / batch)


def draw_cost_vs_context(ax, values, batch, step_tokens, premium, contexts=None):
    """Cost per output token (decode) against context, with a two-tier price drawn above it (01:34:03)."""
    _check.axes(ax)
    contexts = np.linspace(*CONTEXTS) if contexts is None else _grid("contexts", contexts, "nonnegative")
    _values(values, serving.pass_compute_time_s, extra=("n_chips", "price"))
    y = per_token(values, batch, contexts)
    usd = values["n_chips"] * values["price"] / 3600  # the replica's chips, per second
    lines = {
        "compute": ax.plot(contexts / 1e3, y["compute"] * usd * 1e6, color=COLORS["compute"],
                           label="compute", zorder=3)[0],
        "memory": ax.plot(contexts / 1e3, y["memory"] * usd * 1e6, color=COLORS["memory"],
                          label="memory (weights + KV)")[0],
        "cost": ax.plot(contexts / 1e3, y["cost"] * 1e6, color=COLORS["total"], lw=2, label="cost (the max)")[0],
        "price": ax.plot(contexts / 1e3, two_tier_price(values, batch, step_tokens, premium, contexts) * 1e6,
                         color=COLORS["price"], ls="--", drawstyle="steps-post", label="two-tier price")[0],
    }
    wall = context_wall(values, batch)
    lines["wall"] = ax.axvspan(min(wall, contexts[-1]) / 1e3, contexts[-1] / 1e3, color=COLORS["wall"], lw=0,
                               label="cache does not fit")
    ax.set(xlabel="context (thousand tokens)", ylabel="USD per million output tokens", xlim=(0, contexts[-1] / 1e3))
    return lines


def draw_cost_vs_pass_len(ax, values, batch, len_ctx, lengths=None):
    """Cost per token against pass length: compute flat, memory falling as 1/l (01:45:30)."""
    _check.axes(ax)
    lengths = np.geomspace(*PASS_LENGTHS) if lengths is None else _grid("lengths", lengths)
    _values(values, serving.pass_compute_time_s, extra=("n_chips", "price"))
    y = per_token(values, batch, len_ctx, lengths)
    usd = values["n_chips"] * values["price"] / 3600
    lines = {
        "compute": ax.plot(lengths, y["compute"] * usd * 1e6, color=COLORS["compute"], label="compute", zorder=3)[0],
        "memory": ax.plot(lengths, y["memory"] * usd * 1e6, color=COLORS["memory"], label="memory")[0],
        "cost": ax.plot(lengths, y["cost"] * 1e6, color=COLORS["total"], lw=2, label="cost")[0],
        "decode": ax.plot([1], [y["cost"][0] * 1e6], "o", color="black", ms=6)[0],
    }
    ax.set(xscale="log", yscale="log", xlabel="pass length (tokens per sequence)",
           ylabel="USD per million tokens")
    return lines


def draw_chat_timeline(ax):
    """A chat session (01:42:28): prefill the user's turn, decode the answer, prefill the next input."""
    _check.axes(ax)
    parts = [("prefill\n(user turn)", 3, "tab:blue"), ("decode\n(the answer)", 5, "tab:orange"),
             ("prefill\n(tool result)", 2, "tab:blue"), ("decode", 4, "tab:orange")]
    x = 0
    for label, width, color in parts:
        ax.add_patch(Rectangle((x, 0), width, 1, facecolor=color, alpha=0.35, edgecolor="black"))
        ax.text(x + width / 2, 0.5, label, ha="center", va="center", fontsize=10)
        x += width
    ax.set(xlim=(0, x), ylim=(0, 1), xticks=[], yticks=[])
    ax.set_xlabel("time: many tokens per pass (prefill), then one token per pass (decode)")
    for s in ax.spines.values():
        s.set_visible(False)


def draw_drain_times(ax, tiers, marks=()):
    """Drain time (capacity / bandwidth) of each memory device, log scale, with the cache durations marked."""
    _check.axes(ax)
    from ..hardware import MemoryTier

    if isinstance(tiers, (str, bytes, dict)) or not hasattr(tiers, "__iter__"):
        raise ValueError(f"tiers must be a list of (name, MemoryTier) pairs; got {_check.short(tiers)}")
    tiers = _check.items("tiers", tiers, 64, "(name, MemoryTier) pairs")
    if not 1 <= len(tiers) <= 64 or not all(isinstance(t, tuple) and len(t) == 2 and isinstance(t[1], MemoryTier)
                                            for t in tiers):
        raise ValueError(f"tiers must be 1 to 64 (name, MemoryTier) pairs; got {_check.short(tiers)}")
    if isinstance(marks, (str, bytes)) or not hasattr(marks, "__iter__"):
        raise ValueError(f"marks must be a list of (seconds, label) pairs; got {_check.short(marks)}")
    marks = _check.items("marks", marks, 64, "(seconds, label) pairs")
    if len(marks) > 64 or not all(isinstance(m, tuple) and len(m) == 2 and np.ndim(_check.check_value(
            "marks", m[0])) == 0 and isinstance(m[1], str) for m in marks):
        raise ValueError(f"marks must be at most 64 (seconds, label) pairs; got {_check.short(marks)}")
    names = [name for name, _ in tiers]
    times = [serving.drain_time_s(tier_bytes=t.bytes, tier_bw=t.bandwidth) for _, t in tiers]
    ax.barh(range(len(tiers)), times, color="tab:blue", alpha=0.7)
    ax.set_yticks(range(len(tiers)), names)
    ax.invert_yaxis()
    for seconds, label in marks:
        ax.axvline(seconds, color="tab:red", ls="--", lw=1)
        # above the axes' top edge, clear of the frame line (set at the top bar, it ran through the label)
        ax.annotate(label, (seconds, 1.0), xycoords=("data", "axes fraction"), xytext=(3, 2),
                    textcoords="offset points", fontsize=10, color="tab:red", va="bottom", annotation_clip=False)
    ax.set(xscale="log", xlabel="drain time, s (capacity / read bandwidth)")
    return times


def draw_hold_retrieve(ax, share):
    """The lecture's timeline (02:02:36): a token held for a while, then read back; the two costs balance when the
    read takes ``share`` of the hold, the share of the device's capacity the token occupies."""
    _check.axes(ax)
    share = _check.check_value("share", share)
    if np.ndim(share) or share > 100:
        raise ValueError(f"share must be one number in (0, 100]; got {_check.short(share)}")
    ax.add_patch(Rectangle((0, 0), 1, 1, facecolor="tab:blue", alpha=0.35, edgecolor="black"))
    ax.add_patch(Rectangle((1, 0), share, 1, facecolor="tab:orange", alpha=0.6, edgecolor="black"))
    ax.text(0.5, 0.5, "hold: the token fills a share of the capacity", ha="center", va="center", fontsize=10)
    ax.annotate("retrieve: the same share\nof the bandwidth's time", (1 + share / 2, 1), xytext=(0, 8),
                textcoords="offset points", ha="center", va="bottom", fontsize=10)
    ax.set(xlim=(0, 1 + share), ylim=(0, 1.9), xticks=[], yticks=[])
    ax.set_xlabel("time")
    for side in ax.spines.values():
        side.set_visible(False)


class ServingFigure(LiveFigure):
    """Cost against context under a two-tier price (left) and against pass length (right), for a widget."""

    def __init__(self, values, batch, len_ctx, step_tokens=200e3, premium=0.5, decode_batch=None, *,
                 figsize=(7.0, 3.8), dpi=100):
        _values(values, serving.pass_compute_time_s, decode.balance_context_tokens, extra=("n_chips", "price"))
        batch, len_ctx = _check.check_value("batch", batch), _check.check_value("len_ctx", len_ctx)
        if decode_batch is not None:
            decode_batch = _check.check_value("decode_batch", decode_batch)
        step_tokens = _check.check_value("step_tokens", step_tokens)
        premium = _check.check_value("premium", premium, "nonnegative")
        for name, x in (("batch", batch), ("len_ctx", len_ctx), ("decode_batch", decode_batch),
                        ("step_tokens", step_tokens), ("premium", premium)):
            if np.ndim(x):
                raise ValueError(f"ServingFigure: {name} must be one number, not an array")
        self.fig = new_figure(figsize, dpi)
        self.axes = tuple(self.fig.subplots(1, 2))
        self.fig.subplots_adjust(left=0.1, right=0.98, bottom=0.33, top=0.88, wspace=0.35)
        self.values, self.batch, self.len_ctx = dict(values), batch, len_ctx
        self.decode_batch = batch if decode_batch is None else decode_batch
        self.step_tokens, self.premium = step_tokens, premium
        self.left = draw_cost_vs_context(self.axes[0], self.values, batch, step_tokens, premium)
        self.marker = self.axes[0].axvline(len_ctx / 1e3, color="gray", ls=":", lw=1, label="context of the right panel")
        self.right = draw_cost_vs_pass_len(self.axes[1], self.values, self.decode_batch, len_ctx)
        handles = [self.left[k] for k in ("compute", "memory", "cost", "price", "wall")] + [self.marker]
        self.fig.legend(handles, [h.get_label() for h in handles], loc="lower center", ncols=3, fontsize=9,
                        frameon=False)
        self.title = self.fig.suptitle("", fontsize=10)
        self.update()

    def update(self, values=None, batch=None, len_ctx=None, decode_batch=None):
        """Redraw with any input changed; returns decode's memory time over compute time at the context."""
        if values is not None:
            _values(values, serving.pass_compute_time_s, decode.balance_context_tokens, extra=("n_chips", "price"))
        for name, value in (("batch", batch), ("len_ctx", len_ctx), ("decode_batch", decode_batch)):
            if value is not None and np.ndim(_check.check_value(name, value)):
                raise ValueError(f"ServingFigure.update: {name} must be one number, not an array")
        if values is not None:
            self.values = dict(values)
        for name, value in (("batch", batch), ("len_ctx", len_ctx), ("decode_batch", decode_batch)):
            if value is not None:
                setattr(self, name, _check.check_value(name, value))
        v, b = self.values, self.batch
        contexts = self.left["cost"].get_xdata() * 1e3
        y = per_token(v, b, contexts)
        usd = v["n_chips"] * v["price"] / 3600
        self.left["compute"].set_ydata(y["compute"] * usd * 1e6)
        self.left["memory"].set_ydata(y["memory"] * usd * 1e6)
        self.left["cost"].set_ydata(y["cost"] * 1e6)
        price = two_tier_price(v, b, self.step_tokens, self.premium, contexts) * 1e6
        self.left["price"].set_ydata(price)
        wall = min(context_wall(v, b), contexts[-1]) / 1e3
        self.left["wall"].set_x(wall)
        self.left["wall"].set_width(contexts[-1] / 1e3 - wall)
        self.marker.set_xdata([self.len_ctx / 1e3] * 2)
        top = max(price.max(), y["cost"][contexts <= contexts[-1]].max() * 1e6)
        self.axes[0].set_ylim(0, _nice(top * 1.15))
        lengths = self.right["cost"].get_xdata()
        r = per_token(v, self.decode_batch, self.len_ctx, lengths)
        self.right["compute"].set_ydata(r["compute"] * usd * 1e6)
        self.right["memory"].set_ydata(r["memory"] * usd * 1e6)
        self.right["cost"].set_ydata(r["cost"] * 1e6)
        self.right["decode"].set_data([1], [r["cost"][0] * 1e6])
        lo = min(r["compute"].min() / 30, r["memory"][0]) * usd * 1e6
        hi = max(r["compute"].max(), r["memory"].max()) * usd * 1e6
        self.axes[1].set_ylim(10.0 ** np.floor(np.log10(lo)), 10.0 ** np.ceil(np.log10(hi)))
        gap = float(r["memory"][0] / r["compute"][0])
        cross = decode.balance_context_tokens(**{a: v[a] for a in decode.balance_context_tokens.args})
        state = (f"memory-bound ({gap:,.1f}x compute); prefill passes of {count(gap)}+ tokens are compute-bound"
                 if gap > 1 else f"compute-bound (memory {gap:.2f}x compute)")
        self.title.set_text(f"Left, batch {count(b)}: KV fetch = compute at {count(cross)} tokens. Right, "
                            f"decode batch {count(self.decode_batch)} at {count(self.len_ctx)} tokens:\n"
                            f"decode is {state}")
        self._request_redraw()
        return gap

    def _changing(self):
        return [*self.left.values(), self.marker, *self.right.values(), self.title]


def _nice(x):
    """The next 1, 2 or 5 times a power of ten at or above ``x`` (a y limit that repeats across frames)."""
    e = 10.0 ** np.floor(np.log10(x))
    return next(m * e for m in (1, 2, 5, 10) if m * e >= x)


TOTAL_RATIOS = (1, 2, 5, 10, 20, 50, 100)
"""Stops of the figure's "N total / N active" control, a model's total parameters as a multiple of its active
ones (dense 1; the lecture's model, by our assumption, 10; DeepSeek-V3 about 18)."""


def slider_stops(low, high, keep=(), gap=1.3):
    """A slider's stops from ``low`` to ``high``: 1, 2 and 5 times each power of ten, and the values in ``keep``
    (a start, a value an exercise asks for), with any 1-2-5 stop within a factor ``gap`` of a kept value left out,
    so that no two neighbouring stops look alike (31.6K beside 32K).

    >>> slider_stops(1e3, 1e5, keep=(32000,))
    (1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 32000.0, 50000.0, 100000.0)
    >>> slider_stops(100, 1000, keep=(800,))
    (100.0, 200.0, 500.0, 800.0)
    """
    lo, hi = _check.check_value("low", low), _check.check_value("high", high)
    gap = _check.check_value("gap", gap)
    if np.ndim(lo) or np.ndim(hi) or np.ndim(gap) or gap <= 1:
        raise ValueError(f"slider_stops: low, high and gap must be single numbers, gap > 1; got low={low!r}, "
                         f"high={high!r}, gap={gap!r}")
    keep = _check.items("keep", keep, 64)
    if hi <= lo:
        raise ValueError(f"slider_stops: high must exceed low; got low={low!r}, high={high!r}")
    kept = [float(_check.check_value("keep", k)) for k in keep]
    if any(not lo <= k <= hi for k in kept):
        raise ValueError(f"slider_stops: keep must lie in [{low}, {high}]; got {tuple(keep)}")
    grid = [float(m * 10.0 ** e) for e in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
            for m in (1, 2, 5)]
    grid = [g for g in grid if lo * (1 - 1e-12) <= g <= hi * (1 + 1e-12)
            and all(max(g, k) / min(g, k) >= gap for k in kept)]
    return tuple(sorted(set(grid) | set(kept)))


def control_stops(kv_start, decode_batch_start):
    """The stops of chapter 6's sliders (notebook widget and published page alike), by control name: the figure's
    starting values, and DeepSeek-V3's MLA cache at one byte per value (exercise 6.6) on the KV slider."""
    from .. import models

    for name, x, low, high in (("kv_start", kv_start, 100, 1e6), ("decode_batch_start", decode_batch_start, 1, 1e5)):
        x = _check.check_value(name, x)
        if np.ndim(x) or not low <= x <= high:
            raise ValueError(f"control_stops: {name} must be one number in [{low:g}, {high:g}] (its slider's range); "
                             f"got {_check.short(x)}")
    v3_fp8 = float(models.get("DeepSeek-V3").kv_bytes_per_token(1))
    return {"n_active": slider_stops(1e10, 1e12), "kv": slider_stops(100, 1e6, keep=(kv_start, v3_fp8)),
            "batch": slider_stops(10, 1e5, keep=(16384,)),
            "decode_batch": slider_stops(1, 1e5, keep=(decode_batch_start,)),
            "context": slider_stops(1e3, 1e6, keep=(32000,))}


def live_frame(settings):
    """Chapter 6's live figure as matplotlib draws it at ``settings`` (n_active, total_ratio, kv, chip, price,
    batch, decode_batch, context): the lecture's model, FP4, on ``chip`` rented at ``price``, with the
    parameters and cache bytes the controls set."""
    s = live_settings(settings, ("n_active", "total_ratio", "kv", "chip", "price", "batch", "decode_batch", "context"))
    d = deploy(LIVE_MODEL, s["chip"], "fp4", price=s["price"])
    values = dict(d.values, n_active=s["n_active"], n_total=s["n_active"] * s["total_ratio"], kv_bytes=s["kv"])
    return ServingFigure(values, batch=s["batch"], len_ctx=s["context"], decode_batch=s["decode_batch"])


LIVE_MODEL = "DeepSeek (lecture)"
"""The model of chapter 6's live figure, the lecture's, its parameters and cache set by the controls."""


# -- the live figure's declaration: cost per token against context under a two-tier price, and pass length ---
_LIVE_PRECISION = "fp4"  # deploy(LIVE_MODEL, chip, "fp4")
_LIVE_BATCH, _LIVE_CONTEXT = 16384, 32000  # chapter 6's figure: a large batch, a 32K context


def serving_chips():
    """The chips chapter 6's controls offer: those with a rental price."""
    return tuple(h for h in hardware.names() if hardware.get(h).price_usd_per_hour)


def _live_data(live):
    given = ("batch", "len_ctx", "pass_len", "n_active", "n_total", "kv_bytes", "price")
    keys = _keys(map(roofline_eq, live.equations), given)
    params = inspect.signature(ServingFigure.__init__).parameters
    return {"deployments": deployments((LIVE_MODEL,), serving_chips(), (_LIVE_PRECISION,), keys),
            "step_tokens": _number(params["step_tokens"].default), "premium": _number(params["premium"].default)}


def _live_start():
    """Chapter 6's figure's start, as its notebook takes it from :func:`lecture_start`: the KV bytes that put
    GB200's crossover at the price step, and the decode batch at which decode's memory time is ``output_input``
    times its compute."""
    ch6 = lecture.CH6
    values, b = lecture_start(deploy(LIVE_MODEL, "GB200", _LIVE_PRECISION).values, ch6["n_active"].value,
                              ch6["price_step_tokens"].value, _LIVE_CONTEXT, ch6["output_input"].value)
    return float(values["kv_bytes"]), b


def live():
    """Chapter 6's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["serving"]``) and the
    notebook: cost per output token against context under a two-tier price, and cost per token against pass
    length, for the lecture's model on the chips of :func:`serving_chips`.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations, controls (their stops from :func:`control_stops`, GB200 at the lecture's start), data
        and static frame (:func:`live_frame`).
    """
    k_step, b5 = _live_start()
    stops = control_stops(k_step, b5)  # the widget cell's stops: 1-2-5 per decade and the starts
    controls = (
        selection_slider("n_active", "N active", stops["n_active"], 1e11, counts=True),
        selection_slider("total_ratio", "N total / N active", TOTAL_RATIOS, 10),
        selection_slider("kv", "KV bytes/token", stops["kv"], k_step, counts=True),
        select("chip", "hardware (per GPU/chip)", serving_chips(), "GB200"),
        float_slider("price", "$/GPU-h", 0.5, 10, 2.0, 0.25),
        selection_slider("batch", "batch (left)", stops["batch"], _LIVE_BATCH, counts=True),
        selection_slider("decode_batch", "decode batch (right)", stops["decode_batch"], b5, counts=True),
        selection_slider("context", "context (right)", stops["context"], _LIVE_CONTEXT, counts=True),
    )
    return curves("serving", "06_api_pricing", controls, _live_plot(), _live_data,
                  "Cost per output token against context under a two-tier price (left); cost per token against "
                  "pass length (right).", frame=live_frame)


def _live_plot():
    """Chapter 6's live figure as the page draws it (:meth:`ServingFigure.update`): per token of a pass, the cost
    (USD per million) and its compute and memory parts (the cost times each time over the pass's time), against
    context at the left batch with the two-tier price and the context wall, and against pass length at the
    decode batch and context; the title as the figure writes it."""
    cost = eq("serving.pass_cost_per_token_usd") * 1e6
    part = lambda t: cost * eq(t) / eq("serving.pass_time_s")  # noqa: E731
    at_step = eq("serving.pass_cost_per_token_usd", len_ctx=data("step_tokens"))
    parts = lambda: (  # noqa: E731
        Series("memory", "memory (weights + KV)", part("serving.pass_memory_time_s"), Style("memory", 1.5)),
        Series("cost", "cost (the max)", cost, Style("cost", 2)))
    compute = Series("compute", "compute", part("serving.pass_compute_time_s"), Style("compute", 1.5))
    price = Series("price", "two-tier price", when(value("len_ctx") <= data("step_tokens"), at_step,
                                                     at_step * (1 + data("premium"))) * 1e6,
                   Style("price", 1.5, "5 3"), step="post")
    contexts, passes = np.linspace(*CONTEXTS), np.geomspace(*PASS_LENGTHS)
    first = _number(passes[0])
    decode_at = dict(batch=setting("decode_batch"), len_ctx=setting("context"), pass_len=first)
    tm, tc = (eq(f"serving.pass_{k}_time_s", **decode_at) for k in ("memory", "compute"))
    tokens = setting("decode_batch") * first  # decode's memory time over its compute time, as the figure divides
    return Plot(
        panels=(
            Panel("len_ctx", tuple(_number(x) for x in contexts), "context (thousand tokens)",
                  "USD per million output tokens", parts() + (price, compute), xscale=1e-3,
                  spans=(Span("wall", "cache does not fit", minimum(ref("ctx_wall"), _number(contexts[-1])) / 1e3,
                              clamp=False),),
                  marks=(Mark("context", "context of the right panel", setting("context") / 1e3,
                              Style("grey", 1, "1.5 2.5")),),
                  xlim=(0, _number(contexts[-1]) / 1e3),
                  ylim=(0, nice_above(maximum(high("price"), high("cost")) * 1.15)),
                  keywords={"batch": setting("batch"), "pass_len": 1}),
            Panel("pass_len", tuple(_number(x) for x in passes), "pass length (tokens per sequence)",
                  "USD per million tokens", parts() + (compute,),
                  points=(Point("decode", "decode (one token per pass)", first, y=item(series("cost"), 0),
                                color="cost"),),
                  xlog=True, ylog=True, xticks=Ticks("pow10"), yticks=Ticks("pow10"),
                  ylim=decades(minimum(low("compute") / 30, item(series("memory"), 0)),
                               maximum(high("compute"), high("memory"))),
                  keywords={"batch": setting("decode_batch"), "len_ctx": setting("context")})),
        keywords={"price": "price", "n_active": "n_active", "n_total": setting("n_active") * setting("total_ratio"),
                  "kv_bytes": "kv"},
        deployment=(None, "chip", None),
        values={"ctx_wall": eq("decode.max_batch_n", len_ctx=1) / setting("batch"),
                "gap": (tm / tokens) / (tc / tokens), "cross": eq("decode.balance_context_tokens"),
                "state": when(ref("gap") > 1, "memory-bound ({gap:,.1f}x compute); prefill passes of {gap:count}+ "
                              "tokens are compute-bound", "compute-bound (memory {gap:.2f}x compute)")},
        title="Left, batch {batch:count}: KV fetch = compute at {cross:count} tokens. Right, decode batch "
              "{decode_batch:count} at {context:count} tokens:\ndecode is {state}",
        boxes=((72, 46, 280, 222), (452, 46, 288, 222)), height=318, palette="serving",
        legend=("compute", "memory", "cost", "price", "wall", "context", "decode"))
