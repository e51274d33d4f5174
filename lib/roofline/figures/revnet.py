"""Figures of chapter 7: the Feistel and RevNet diagrams, mixing measured, and training memory over time.

:func:`draw_feistel` and :func:`draw_revnet` redraw the lecture's board diagrams
(02:08:51-02:11:56); :func:`draw_avalanche` plots the measured avalanche of SHA-256, a toy
Feistel cipher and two random MLPs; :func:`memory_timeline` computes the activation bytes a
training step holds over time, stored, checkpointed or reversible (02:12:05-02:13:08), and
:func:`draw_timeline` draws it. :class:`TimelineFigure` is the live version. Every number
comes from :mod:`roofline.revnet`; matplotlib only. :func:`live` declares chapter 7's live figure (in the
vocabulary of :mod:`roofline.figures.declare`), and :func:`live_frame` draws its static frame.

>>> fig = TimelineFigure(n_layers=80, d_model=8192, n_heads=64, micro_batch=1, len_ctx=4096, saved_act_bytes=2)
>>> print(f"{fig.update(n_layers=40):.1f} GB at the peak, stored")
42.9 GB at the peak, stored
"""

import inspect

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from .. import _check, hardware, models, revnet, training
from .declare import (Line, Mark, Panel, Plot, Series, Style, Ticks, _number, curves, data, equation_id, high,
                      int_slider, item, ladder_above, ladder_below, low, maximum, position, ref, select,
                      selection_slider, timeline, when)
from .live import LiveFigure, new_figure, live_settings

GB = 1e9
KINDS = ("stored", "checkpointed", "reversible")
COLORS = {"stored": "tab:red", "checkpointed": "tab:orange", "reversible": "tab:blue", "sha": "0.35",
          "cipher": "tab:purple", "plain": "tab:red", "residual": "tab:green", "hbm": "0.5"}
LABELS = {"stored": "stored (normal training)", "checkpointed": "checkpointed (layer inputs kept)",
          "reversible": "reversible (RevNet)"}


# -- the board diagrams --------------------------------------------------------------------------------
def _box(ax, x, y, text, w=0.5, h=0.36, fill="#eef3fb"):
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.03", fc=fill, ec="0.3", lw=1.2))
    return ax.text(x, y, text, ha="center", va="center", fontsize=12)


def _arrow(ax, a, b, **kw):
    return ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=12, lw=1.4, color="0.2",
                                        shrinkA=0, shrinkB=0, **kw))


def _plus(ax, x, y):
    ax.add_patch(FancyBboxPatch((x - 0.13, y - 0.13), 0.26, 0.26, boxstyle="circle,pad=0", fc="white", ec="0.2"))
    return ax.text(x, y, "+", ha="center", va="center", fontsize=13)


def _frame(ax, xlim, ylim):
    ax.set(xlim=xlim, ylim=ylim, aspect="equal")
    ax.axis("off")


def draw_feistel(ax, op="+"):
    """The Feistel round (D7.1, 02:08:51): x passes through and feeds f; f(x) is added to y (``op``: the
    sign drawn, "+" or "xor"); the outputs are (x, z). Returns the axes."""
    _check.axes(ax)
    if not isinstance(op, str) or op not in ("+", "xor"):
        raise ValueError(f"op must be '+' or 'xor'; got {_check.short(op)}")
    _frame(ax, (-0.2, 3.4), (-1.0, 3.3))
    ax.text(0.5, 3.05, "x", ha="center", fontsize=13)
    ax.text(2.5, 3.05, "y", ha="center", fontsize=13)
    _arrow(ax, (0.5, 2.9), (0.5, 0.25))
    _arrow(ax, (0.5, 1.9), (1.25, 1.9))
    _box(ax, 1.5, 1.9, "f")
    _arrow(ax, (1.75, 1.9), (2.37, 1.9))
    _arrow(ax, (2.5, 2.9), (2.5, 2.03))
    _plus(ax, 2.5, 1.9)
    if op == "xor":
        ax.text(2.72, 1.62, "XOR", fontsize=9, color="0.3")
    _arrow(ax, (2.5, 1.77), (2.5, 0.25))
    ax.text(0.5, -0.05, "x", ha="center", fontsize=13)
    ax.text(2.5, -0.05, "z = y + f(x)", ha="center", fontsize=12)
    ax.text(1.5, -0.75, "inverse: y = z - f(x)", ha="center", fontsize=10, color="0.3")
    return ax


def draw_residual(ax):
    """A standard residual layer, for comparison (02:10:48): the input feeds f and is added back."""
    _check.axes(ax)
    _frame(ax, (-0.2, 2.2), (-1.0, 3.3))
    ax.text(0.5, 3.05, "h", ha="center", fontsize=13)
    _arrow(ax, (0.5, 2.9), (0.5, 1.03))
    _arrow(ax, (0.5, 2.4), (1.5, 2.4), connectionstyle="arc3,rad=0")
    _arrow(ax, (1.5, 2.4), (1.5, 2.08))
    _box(ax, 1.5, 1.9, "f")
    _arrow(ax, (1.5, 1.72), (0.63, 0.95))
    _plus(ax, 0.5, 0.9)
    _arrow(ax, (0.5, 0.77), (0.5, 0.25))
    ax.text(0.5, -0.05, "h + f(h)", ha="center", fontsize=12)
    return ax


def draw_revnet(ax, blocks=2):
    """RevNet blocks stacked (D7.2, 02:10:48-02:11:56): x goes through f and is added to y to make the new
    x; the old x becomes the new y. So each y carries the stream from two blocks back."""
    _check.axes(ax)
    blocks = int(_check.in_range("blocks", blocks, 1, 4))
    height = 2.2 * blocks
    _frame(ax, (-0.3, 3.7), (-0.4, height + 0.5))
    top = height + 0.2
    ax.text(0.5, top + 0.05, "x", ha="center", fontsize=13)
    ax.text(2.5, top + 0.05, "y", ha="center", fontsize=13)
    for i in range(blocks):
        y0 = top - 0.2 - 2.2 * i  # top of this block
        _arrow(ax, (0.5, y0), (0.5, y0 - 0.75))
        _arrow(ax, (0.5, y0 - 0.4), (1.25, y0 - 0.4))
        _box(ax, 1.5, y0 - 0.4, f"f{i + 1}")
        _arrow(ax, (1.75, y0 - 0.4), (2.37, y0 - 0.4))
        _arrow(ax, (2.5, y0), (2.5, y0 - 0.27))
        _plus(ax, 2.5, y0 - 0.4)
        # the swap: y + f(x) becomes the new x, the old x the new y
        end = y0 - 2.2 if i < blocks - 1 else y0 - 1.75  # into the next block's inputs
        ax.plot([2.5, 0.5], [y0 - 0.53, end], color="0.2", lw=1.4)
        ax.plot([0.5, 2.5], [y0 - 0.75, end], color="0.2", lw=1.4)
        ax.text(2.9, y0 - 0.4, f"block {i + 1}", fontsize=9, color="0.4", va="center")
        if i < blocks - 1:  # name the streams between blocks: x', y' after block 1, and so on
            ax.text(0.38, end - 0.12, "x" + "'" * (i + 1), ha="right", va="center", fontsize=11)
            ax.text(2.38, end - 0.12, "y" + "'" * (i + 1), ha="right", va="center", fontsize=11)
    bottom = top - 0.2 - 2.2 * blocks + 0.45
    n = blocks
    xs = ["x" + "'" * k for k in range(n + 1)]  # x, x', x'', ...
    if n == 1:
        x_out, y_out = "x' = y + f1(x)", "y' = x"
    else:  # a residual from two blocks back: x_n = x_(n-2) + f_n(x_(n-1))
        x_out, y_out = f"{xs[n]} = {xs[n - 2]} + f{n}({xs[n - 1]})", "y" + "'" * n + f" = {xs[n - 1]}"
    ax.text(-0.25, bottom - 0.05, x_out, ha="left", va="top", fontsize=10.5)
    ax.text(2.25, bottom - 0.05, y_out, ha="left", va="top", fontsize=10.5)
    return ax


# -- mixing measured -----------------------------------------------------------------------------------
def avalanche_data(rounds=range(1, 13), depth=48, seed=0, nudge=1e-2, gain_nudge=1e-8):
    """The avalanche measurements the figure draws, from :mod:`roofline.revnet` (seeded).

    Signs flipped by a ``nudge`` of one input (1% of a standard deviation); sensitivities ("gain_*") of a
    ``gain_nudge`` small enough not to saturate (an infinitesimal change's, the Jacobian's), with the
    same weights. Three MLPs: plain, residual with LayerNorm, residual without ("residual_noln")."""
    depth, seed = _check.whole("depth", depth, 1, 1024), _check.whole("seed", seed, 0, 2**31)
    nudge, gain_nudge = _check.scalar("nudge", nudge), _check.scalar("gain_nudge", gain_nudge)
    if isinstance(rounds, (str, bytes)) or not hasattr(rounds, "__iter__"):
        raise ValueError(f"rounds must be a list of round counts (whole numbers in [1, 64]); "
                         f"got {_check.short(rounds)}")
    rounds = np.asarray([_check.whole("rounds", r, 1, 64) for r in _check.items("rounds", rounds, 64, "round counts")])
    if not 1 <= rounds.size <= 64:
        raise ValueError(f"rounds must hold 1 to 64 round counts; got {_check.short(rounds)}")
    out = {"rounds": rounds, "cipher": np.array([revnet.toy_avalanche(int(r), seed=seed) for r in rounds]),
           "sha": revnet.sha256_avalanche(seed=seed), "layers": np.arange(1, depth + 1)}
    for name, kw in (("plain", {}), ("residual", {"residual": True}),
                     ("residual_noln", {"residual": True, "layernorm": False})):
        flips, gain = revnet.mlp_avalanche_runs(depth, nudges=(nudge, gain_nudge), seeds=(seed,), **kw)
        out[name], out["gain_" + name] = flips[0, 0], gain[0, 1]  # one pass, the same weights
    return out


def draw_avalanche(axes, data):
    """Left: the share of output bits (signs, for the MLPs) that one small input change flips, against rounds
    or layers. Right: the MLPs' sensitivity (relative change out over relative change in, for an
    infinitesimal change), log scale."""
    if not (isinstance(axes, (list, tuple, np.ndarray)) and len(axes) == 2):
        raise ValueError(f"axes must be two matplotlib Axes (left, right); got {_check.short(axes)}")
    left, right = (_check.axes(a, "axes") for a in axes)
    _check.mapping("data", data, ("sha", "rounds", "cipher", "layers", "plain", "residual", "gain_plain",
                                  "gain_residual"))
    art = {
        "sha": left.axhline(data["sha"].mean(), color=COLORS["sha"], ls="--", lw=1.2,
                            label="SHA-256 (64 rounds)"),
        "cipher": left.plot(data["rounds"], data["cipher"], "o-", ms=3, color=COLORS["cipher"],
                            label="toy Feistel cipher, by rounds")[0],
        "plain": left.plot(data["layers"], data["plain"], color=COLORS["plain"], label="random MLP, plain")[0],
        "residual": left.plot(data["layers"], data["residual"], color=COLORS["residual"],
                              label="random MLP, residual + LayerNorm")[0],
    }
    if "residual_noln" in data:
        art["residual_noln"] = left.plot(data["layers"], data["residual_noln"], color=COLORS["residual"], ls=":",
                                         label="random MLP, residual, no LayerNorm")[0]
        right.semilogy(data["layers"], data["gain_residual_noln"], color=COLORS["residual"], ls=":")
    left.set(xlabel="rounds (cipher) or layers (MLP)", ylabel="share of output bits flipped", ylim=(-0.02, 0.6))
    right.semilogy(data["layers"], data["gain_plain"], color=COLORS["plain"])
    right.semilogy(data["layers"], data["gain_residual"], color=COLORS["residual"])
    right.axhline(1, color="0.7", lw=0.8)
    right.set(xlabel="layers (MLP)", ylabel="sensitivity (out / in)")
    return art


# -- the training memory timeline ---------------------------------------------------------------------
def _variants(kind, scores, dropout):
    return revnet.training_activation_bytes.under(activations=kind, scores=scores, dropout=dropout)


def memory_timeline(n_layers, d_model, n_heads, micro_batch, len_ctx, saved_act_bytes, kind="stored",
                    scores="flash", dropout="off"):
    """Activation bytes held over one training step of one micro-batch, as step points ``(t, bytes)``.

    Time is in units of one layer's forward pass; a layer's backward takes twice as long (4 N
    against 2 N FLOPs, :mod:`roofline.training`), and with ``kind`` "checkpointed" or "reversible" each
    layer's forward runs once more in the backward pass. So the stored step lasts 3 L units and the
    others 4 L: 6ND against 8ND. Stored: each forward layer writes its activations, each backward layer
    frees them (02:12:05); a layer's activations are held through its own backward pass and freed as it
    ends. Checkpointed: each layer keeps its input; the backward rebuilds one layer's activations at a
    time, holds them through that layer's backward, then frees them with the layer's input. Reversible:
    the two streams, plus one layer rebuilt (02:12:57). The peak is
    :data:`roofline.revnet.training_activation_bytes` of ``kind`` (checked in the tests).
    """
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {_check.short(kind)}")
    for name, value in (("d_model", d_model), ("n_heads", n_heads), ("micro_batch", micro_batch),
                        ("len_ctx", len_ctx), ("saved_act_bytes", saved_act_bytes)):
        _check.scalar(name, value, "nonnegative" if name == "len_ctx" else "positive")
    L = _check.scalar("n_layers", n_layers)
    if L != int(L) or L > 10_000:
        raise ValueError(f"n_layers must be a whole number of layers in [1, 10000]; got {n_layers!r}")
    L = int(L)
    shape = dict(d_model=d_model, micro_batch=micro_batch, len_ctx=len_ctx, saved_act_bytes=saved_act_bytes)
    layer_eq = revnet.layer_activation_bytes.under(scores=scores, dropout=dropout)
    layer = layer_eq(**{k: v for k, v in (shape | {"n_heads": n_heads}).items() if k in layer_eq.args})
    stream = revnet.training_activation_bytes.under(activations="checkpointed", scores=scores, dropout=dropout)
    # one layer's input: the checkpointed total for one layer, less the layer rebuilt
    stream = stream(n_layers=1, **{k: v for k, v in (shape | {"n_heads": n_heads}).items()
                                   if k in stream.args}) - layer
    fwd = float(training.FORWARD_FLOPS_PER_PARAM)
    bwd = float(training.BACKWARD_FLOPS_PER_PARAM) / fwd  # a backward layer, in forward-layer units
    t, held = [0.0], [0.0]

    def step(duration, value):
        t.append(t[-1] + duration)
        held.append(value)

    # each step's value holds over the interval that ends at its time (matplotlib's where="pre")
    if kind == "stored":
        for i in range(L):
            step(1, (i + 1) * layer)              # layer i writes its activations
        for j in reversed(range(L)):
            step(bwd, (j + 1) * layer)            # layer j's backward reads them; freed as it ends
        step(0, 0.0)
    elif kind == "checkpointed":
        for i in range(L):
            step(1, (i + 1) * stream)             # layer i's input kept
        for j in reversed(range(L)):
            step(1, (j + 1) * stream + layer)     # rebuild layer j from its kept input
            step(bwd, (j + 1) * stream + layer)   # backpropagate through it; then free it and its input
        step(0, 0.0)
    else:
        for i in range(L):
            step(1, 2 * stream)                   # only the two streams: each block's output overwrites
        for j in reversed(range(L)):
            step(1, 2 * stream + layer)           # invert block j, its activations rebuilt
            step(bwd, 2 * stream + layer)         # backpropagate through it; freed as the next is rebuilt
        step(0, 2 * stream)
    return np.array(t), np.array(held)


def draw_timeline(ax, n_layers, d_model, n_heads, micro_batch, len_ctx, saved_act_bytes, scores="flash",
                  dropout="off", hbm_bytes=None):
    """The three timelines on one axes (GB against time in forward-layer passes), with the HBM line."""
    _check.axes(ax)
    art = {}
    for kind in KINDS:
        t, b = memory_timeline(n_layers, d_model, n_heads, micro_batch, len_ctx, saved_act_bytes, kind, scores,
                               dropout)
        art[kind] = ax.step(t, b / GB, where="pre", color=COLORS[kind], lw=2 if n_layers <= 16 else 1.3,
                            label=LABELS[kind])[0]
    if hbm_bytes is not None:
        art["hbm"] = ax.axhline(hbm_bytes / GB, color=COLORS["hbm"], ls="--", lw=1, label="HBM of one GPU")
    ax.set(xlabel="time (forward passes of one layer)", ylabel="activations held (GB)")
    return art


def _gb(v):
    """GB as the chapter's prose writes them: 85.9, 6.44, 1.21 (three figures below 10)."""
    return f"{v:,.1f}" if v >= 10 else f"{v:.2f}"


GIB = 2**30
LADDER = (1, 1.25, 1.6, 2, 2.5, 3.2, 4, 5, 6.3, 8)
"""The steps of the live figure's y limits, each times a power of ten (so ranges repeat and their backgrounds are
reused), each within 1.26x of the next (so the axis ends close to the data)."""


def hbm_label(hbm_bytes, chip="H100"):
    """The HBM line's label, from the registry's bytes: ``H100 HBM (79.6 GiB = 85.5 GB)`` (the H100's 81,559 MiB
    as the driver reports them, sold as "80 GB").

    >>> hbm_label(80 * 2**30)
    'H100 HBM (80.0 GiB = 85.9 GB)'
    """
    hbm_bytes = _check.check_value("hbm_bytes", hbm_bytes)
    if np.ndim(hbm_bytes) or not isinstance(chip, str):
        raise ValueError(f"hbm_bytes must be one number and chip a name; got {_check.short(hbm_bytes)}, "
                         f"{_check.short(chip)}")
    return f"{chip} HBM ({hbm_bytes / GIB:,.1f} GiB = {_gb(hbm_bytes / GB)} GB)"


def log_limits(values):
    """The live figure's log y range: the ladder's step at or below 1/1.1 of the least positive value, and at or
    above 1.1 times the largest."""
    v = _check.check_value("values", values)
    if np.ndim(v) != 1 or not len(v):
        raise ValueError(f"values must be a non-empty list of numbers > 0; got {_check.short(values)}")
    lo, hi = v.min() / 1.1, v.max() * 1.1
    k_lo, k_hi = np.floor(np.log10(lo)), np.floor(np.log10(hi))
    below = max(m * 10.0**k_lo for m in LADDER if m * 10.0**k_lo <= lo * (1 + 1e-12))
    above = min(m * 10.0**k_hi for m in LADDER + (10,) if m * 10.0**k_hi >= hi * (1 - 1e-12))
    return float(below), float(above)


class TimelineFigure(LiveFigure):
    """The training-memory timeline, live: stored, checkpointed and reversible, time as a share of the
    stored step (so the axes stay put), with one GPU's HBM for scale, on a log axis from the least memory
    any of the three holds to the larger of the stored peak and the HBM (so all three and the HBM line show at
    every setting)."""

    def __init__(self, n_layers, d_model, n_heads, micro_batch, len_ctx, saved_act_bytes, *, scores="flash",
                 dropout="off", hbm_bytes=80e9, chip="H100", figsize=(7.0, 3.6), dpi=100):
        hbm_label(hbm_bytes, chip)  # checks them
        for name, value in (("n_layers", n_layers), ("d_model", d_model), ("n_heads", n_heads),
                            ("micro_batch", micro_batch), ("len_ctx", len_ctx), ("saved_act_bytes", saved_act_bytes)):
            if np.ndim(_check.check_value(name, value)):
                raise ValueError(f"TimelineFigure: {name} must be one number, not an array")
        for kind in KINDS:  # the shape and the variants, checked before anything is drawn
            memory_timeline(n_layers, d_model, n_heads, micro_batch, len_ctx, saved_act_bytes, kind, scores, dropout)
        self.fig = new_figure(figsize, dpi)
        ax = self.fig.subplots()
        self.axes = (ax,)
        self.fig.subplots_adjust(left=0.1, right=0.98, bottom=0.3, top=0.9)
        self.scores, self.dropout, self.hbm_bytes = scores, dropout, hbm_bytes
        self.shape = dict(n_layers=n_layers, d_model=d_model, n_heads=n_heads, micro_batch=micro_batch,
                          len_ctx=len_ctx, saved_act_bytes=saved_act_bytes)
        self.lines = {k: ax.step([], [], where="pre", color=COLORS[k], lw=1.5, label=LABELS[k])[0] for k in KINDS}
        self.hbm = ax.axhline(hbm_bytes / GB, color=COLORS["hbm"], ls="--", lw=1, label=hbm_label(hbm_bytes, chip))
        ax.set(xlabel="time (share of the stored step)", ylabel="activations held (GB)", xlim=(0, 1.4),
               yscale="log")
        ax.axvline(1, color="0.85", lw=0.8, zorder=0)
        ax.axvline(4 / 3, color="0.85", lw=0.8, zorder=0)
        self.fig.legend(loc="lower center", ncols=2, fontsize=9, frameon=False)
        self.title = self.fig.suptitle("", fontsize=10)
        self.update()

    def update(self, **shape):
        """Redraw with any of n_layers, d_model, n_heads, micro_batch, len_ctx, saved_act_bytes changed;
        returns the stored peak, GB."""
        unknown = set(shape) - set(self.shape)
        if unknown:
            raise ValueError(f"update() takes {', '.join(self.shape)}; got {sorted(unknown)}")
        for name, value in shape.items():
            if np.ndim(_check.check_value(name, value)):
                raise ValueError(f"TimelineFigure.update: {name} must be one number, not an array")
        timelines = {kind: memory_timeline(**(self.shape | shape), kind=kind, scores=self.scores,
                                           dropout=self.dropout) for kind in KINDS}  # checked before kept
        self.shape |= shape
        peaks, least = {}, [self.hbm_bytes / GB]
        span = None
        for kind in KINDS:
            t, b = timelines[kind]
            span = span or t[-1]  # the stored step's length, 3 L
            self.lines[kind].set_data(t / span, b / GB)
            peaks[kind] = b.max() / GB
            least.append(b[b > 0].min() / GB)
        self.axes[0].set_ylim(*log_limits(least + [peaks["stored"], self.hbm_bytes / GB]))
        s = self.shape
        self.title.set_text(f"{s['n_layers']:g} layers, width {s['d_model']:,.0f}, batch {s['micro_batch']:g} x "
                            f"{s['len_ctx']:,.0f} tokens, {s['saved_act_bytes']:g} B/value: peaks "
                            f"{' / '.join(_gb(peaks[k]) for k in KINDS)} GB")
        self._request_redraw()
        return peaks["stored"]

    def _changing(self):
        return list(self.lines.values()) + [self.title]


# -- the avalanche of a random MLP, live --------------------------------------------------------------
MAX_DEPTH = 128


class AvalancheFigure(LiveFigure):
    """A random tanh MLP's avalanche under two controls, the weights' scale sigma_w and the depth: left, the
    share of output signs that a 1% nudge of one input flips, layer by layer; right, the sensitivity to an
    infinitesimal change (:func:`roofline.revnet.mlp_avalanche`), with the mean-field growth
    ``sqrt(chi_1)`` per layer (:func:`roofline.revnet.tanh_mean_field`) dashed. Plain and residual +
    LayerNorm, seeded; the axes stay put (up to ``MAX_DEPTH``, 128 layers).

    >>> fig = AvalancheFigure(weight_scale=3.0, depth=48)
    >>> print(f"{fig.update(weight_scale=1.0):.3f} of the signs flipped at the edge of chaos, 48 layers")
    0.000 of the signs flipped at the edge of chaos, 48 layers
    """

    def __init__(self, weight_scale=3.0, depth=48, *, seed=0, figsize=(7.0, 3.6), dpi=100):
        if weight_scale is None or depth is None:
            raise ValueError(f"weight_scale and depth must be given; got {weight_scale!r}, {depth!r}")
        seed = _check.whole("seed", seed, 0, 2**31)
        self.fig = new_figure(figsize, dpi)
        left, right = self.axes = tuple(self.fig.subplots(1, 2))
        self.fig.subplots_adjust(left=0.09, right=0.98, bottom=0.3, top=0.88, wspace=0.3)
        self.seed, self.state = seed, {}
        self.lines = {}
        for name, label in (("plain", "random MLP, plain"), ("residual", "random MLP, residual + LayerNorm")):
            self.lines[name] = left.plot([], [], color=COLORS[name], label=label)[0]
            self.lines["gain_" + name] = right.semilogy([], [], color=COLORS[name])[0]
        self.lines["mean_field"] = right.semilogy([], [], color="0.3", ls="--", lw=1,
                                                  label="mean field, \u221a\u03c7\u2081 per layer")[0]
        left.axhline(0.5, color="0.7", lw=0.8)
        right.axhline(1, color="0.7", lw=0.8)
        left.set(xlabel="layers", ylabel="share of output signs flipped", xlim=(0, MAX_DEPTH), ylim=(-0.02, 0.6))
        right.set(xlabel="layers", ylabel="sensitivity (out / in)", xlim=(0, MAX_DEPTH), ylim=(1e-2, 1e10))
        self.fig.legend(handles=[self.lines["plain"], self.lines["residual"], self.lines["mean_field"]],
                        loc="lower center", ncols=2, fontsize=9, frameon=False)
        self.title = self.fig.suptitle("", fontsize=10)
        self.update(weight_scale=weight_scale, depth=depth)

    def update(self, weight_scale=None, depth=None):
        """Redraw with ``weight_scale`` (sigma_w, in [0.05, 10]) and/or ``depth`` (1 to 128 layers) changed; returns
        the plain MLP's share of signs flipped at the last layer."""
        if weight_scale is not None:
            weight_scale = float(_check.in_range("weight_scale", weight_scale, 0.05, 10))
        if depth is not None:
            depth = _check.whole("depth", depth, 1, MAX_DEPTH)
        if weight_scale is not None:
            self.state["weight_scale"] = weight_scale
        if depth is not None:
            self.state["depth"] = depth
        sw, depth = self.state["weight_scale"], self.state["depth"]
        layers = np.arange(1, depth + 1)
        for name, kw in (("plain", {}), ("residual", {"residual": True})):
            # one batched pass, the same weights: the 1% nudge's flips and an infinitesimal one's gain
            flips, gain = revnet.mlp_avalanche_runs(depth, weight_scale=sw, nudges=(1e-2, 1e-8), seeds=(self.seed,),
                                                    **kw)
            flips, gain = flips[0, 0], gain[0, 1]
            self.lines[name].set_data(layers, flips)
            self.lines["gain_" + name].set_data(layers, gain)
            self.state[name] = flips[-1]
        _, chi = revnet.tanh_mean_field(sw)
        self.lines["mean_field"].set_data(layers, np.minimum(np.sqrt(chi) ** layers, 1e12))
        phase = "chaotic" if chi > 1 + 1e-9 else "ordered" if chi < 1 - 1e-9 else "edge of chaos"
        self.title.set_text(f"\u03c3_w = {sw:g}, {depth} layers: \u03c7\u2081 = {chi:.3g}, {phase}; flipped "
                            f"{self.state['plain']:.3f} plain, {self.state['residual']:.3f} residual + LN")
        self._request_redraw()
        return self.state["plain"]

    def _changing(self):
        return list(self.lines.values()) + [self.title]


def live_frame(settings):
    """Chapter 7's live figure as matplotlib draws it at ``settings`` (n_layers, d_model, micro_batch, len_ctx,
    saved_act_bytes): heads of :data:`HEAD_DIM` dimensions, against an H100's HBM."""
    names = ("n_layers", "d_model", "micro_batch", "len_ctx", "saved_act_bytes")
    s = {k: live_settings(settings, names)[k] for k in names}
    d_model = _check.whole("d_model", s["d_model"], HEAD_DIM)
    return TimelineFigure(n_heads=d_model // HEAD_DIM, hbm_bytes=hardware.get("H100").hbm_bytes, **s)


HEAD_DIM = 128
"""The heads' dimensions in chapter 7's live figure (``n_heads = d_model // 128``)."""


# -- the live figure's declaration: activations held over a training step, stored, checkpointed, reversible ---
_LIVE_VARIANT = {"scores": "flash", "dropout": "off"}  # TimelineFigure's defaults: FlashAttention, no dropout
_LIVE_LAYER = equation_id(revnet.layer_activation_bytes.under(**_LIVE_VARIANT))
_LIVE_HELD = {k: equation_id(revnet.training_activation_bytes.under(activations=k, **_LIVE_VARIANT)) for k in KINDS}


def _live_data(live):
    params = inspect.signature(TimelineFigure.__init__).parameters
    drawn = {"scores": params["scores"].default, "dropout": params["dropout"].default}
    if drawn != _LIVE_VARIANT:
        raise ValueError(f"TimelineFigure draws {drawn}; the page draws {_LIVE_VARIANT}: update "
                         "roofline.figures.revnet._LIVE_VARIANT")
    # the heads at each width of the slider (of HEAD_DIM dimensions, as the widget cell's), the limits' ladder
    return {"heads": [int(w // HEAD_DIM) for w in live.control("d_model").grid], "ladder": list(LADDER)}


def _live_plot():
    """Chapter 7's live figure as the page draws it (:meth:`TimelineFigure.update`): the three kinds'
    :func:`memory_timeline`, time as a share of the stored step, bytes in GB, against an H100's HBM, on the
    ladder's limits (:func:`log_limits`); the title as the figure writes it."""
    backward = _number(training.BACKWARD_FLOPS_PER_PARAM / training.FORWARD_FLOPS_PER_PARAM)
    line = lambda kind, part: timeline("activations", kind, _LIVE_HELD[kind], _LIVE_LAYER, backward, part)  # noqa
    hbm = hardware.get("H100").hbm_bytes
    peaks = {f"peak_{k}": high(line(k, "held")) / GB for k in KINDS}
    texts = {f"peak_{k}_text": when(ref(f"peak_{k}") >= 10, f"{{peak_{k}:,.1f}}", f"{{peak_{k}:.2f}}") for k in KINDS}
    marks = Style("marks", 0.8)
    return Plot(
        panels=(Panel("", (), "time (share of the stored step)", "activations held (GB)", tuple(
            Series(k, LABELS[k], line(k, "held") / GB, Style(k, 1.5), x=line(k, "t") / ref("span"), step="pre",
                   floor=True) for k in KINDS),
            lines=(Line("hbm", hbm_label(hbm, "H100"), _number(hbm / GB), Style("hbm", 1, "5 3")),),
            marks=(Mark("stored_end", "", 1.0, marks), Mark("reversible_end", "", 4 / 3, marks)),
            ylog=True, xlim=(0, 1.4), xticks=Ticks("plain", 7), yticks=Ticks("125"),
            ylim=(ladder_below(low() / 1.1, data("ladder")),
                  ladder_above(maximum(high("stored"), _number(hbm / GB)) * 1.1, data("ladder")))),),
        keywords={"n_layers": "n_layers", "d_model": "d_model", "n_heads": data("heads", position("d_model")),
                  "micro_batch": "micro_batch", "len_ctx": "len_ctx", "saved_act_bytes": "saved_act_bytes"},
        deployment=(None, None, None),
        values={"span": item(line("stored", "t"), -1), **peaks, **texts},  # the stored step's length, 3 L
        title="{n_layers} layers, width {d_model:,.0f}, batch {micro_batch} x {len_ctx:,.0f} tokens, "
              "{saved_act_bytes} B/value: peaks " + " / ".join(f"{{peak_{k}_text}}" for k in KINDS) + " GB",
        boxes=((72, 30, 660, 230),), height=310, palette="revnet")


def live():
    """Chapter 7's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["revnet"]``) and the
    notebook: the activations one training step holds, stored, checkpointed and reversible, against an H100's
    HBM.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations (FlashAttention, no dropout, as :class:`TimelineFigure` draws), controls (Llama 3.1
        70B's width and depth), plot, data and static frame (:func:`live_frame`).
    """
    llama = models.get("Llama 3.1 70B")  # chapter 7's shape: GPT-style layers at Llama 3.1 70B's width and depth
    controls = (
        int_slider("n_layers", "layers", 1, 160, llama.layers),
        selection_slider("d_model", "width D", (1024, 2048, 4096, 8192, 12288, 16384), llama.hidden_size),
        int_slider("micro_batch", "micro b", 1, 32, 1),
        selection_slider("len_ctx", "length L", [2 ** k for k in range(9, 20)], 4096),
        select("saved_act_bytes", "bytes/act.", (("FP32 (4 B)", 4), ("BF16 (2 B)", 2), ("FP8 (1 B)", 1)), 2),
    )
    return curves("revnet", "07_crypto_and_nets", controls, _live_plot(), _live_data,
                  "Activations held over one training step: stored, checkpointed and reversible.", frame=live_frame)
