"""Chapter 8's figures: the time to first token against prompt length, and a user's speed against batch with
and without speculative decoding.

Every number comes from :mod:`roofline.prefill` and :mod:`roofline.speculation` through a
:class:`~roofline.Deployment`: a prompt's prefill is the pass of ``pass_len`` = prompt tokens with nothing
cached and attention at prefill's FLOPs per pair (:func:`roofline.prefill.prefill_attn_flops`); decode is
the same pass with ``pass_len = 1`` and attention as the deployment runs it (MLA absorbed), and a
speculative step the pass with ``pass_len = k + 1``. :class:`PrefillFigure` puts both on one figure and
updates them in place for a widget. :func:`live` declares chapter 8's live figure (in the vocabulary of
:mod:`roofline.figures.declare`), for the models of :data:`MODELS`, and :func:`live_frame` draws its static
frame.

>>> from roofline import Deployment, hardware, models
>>> d = Deployment(models.get("DeepSeek-V3"), hardware.get("H200"), precision="fp8")
>>> fig = PrefillFigure(d, prompt_tokens=8192, batch=64, len_ctx=4096)
>>> print(fig.update(accept_rate=0.875, pass_len=2))
1.67x a user's speed
"""

import numpy as np

from .. import _check, hardware, prefill, registry, speculation, training_runs
from ..deployment import Deployment, deploy
from .declare import (Mark, Panel, Plot, Point, Series, Span, Style, _compact, _keys, _number, curves, data,
                      decades, deployments, eq, finite, float_slider, high, int_slider, item, low, position, ref,
                      roofline_eq, select, selection_slider, setting, when, window_tables)
from .decode import _precision_inert
from .live import LiveFigure, count, new_figure, live_settings

COLORS = {"weights": "tab:red", "attention": "tab:purple", "memory": "tab:blue", "total": "black",
          "plain": "tab:blue", "spec": "tab:green", "wall": "0.88"}
PROMPTS = (100, 1e6, 120)
"""The left panel's prompt lengths in tokens, from and to, in this many geometric steps."""
BATCHES = (1, 1e5, 120)
"""The right panel's batches in sequences, from and to, in this many geometric steps."""


def _deployment(deployment):
    if not isinstance(deployment, Deployment):
        raise ValueError(f"deployment must be a roofline.Deployment; got {_check.short(deployment)}")
    return deployment


def _prompt_values(deployment, prompts):
    """What a fresh prompt's prefill pass takes beyond the deployment's values: nothing cached, prefill's
    attention FLOPs per pair and the cache bytes a token of such a prompt writes."""
    d = _deployment(deployment)
    return dict(batch=1.0, len_ctx=0.0, pass_len=prompts, attn_flops=prefill.prefill_attn_flops(d.model, prompts),
                latent_flops=prefill.prefill_latent_flops(d.model), kv_bytes=d.kv_bytes_at(prompts))


def ttft_terms(deployment, prompts):
    """Time to first token (s) of one prompt of each length in ``prompts``, and its parts: the weights' FLOPs,
    attention's FLOPs (their sum is the compute time), and memory (the weights read, the cache written)."""
    prompts = _check.check_value("prompts", prompts)
    d = _deployment(deployment)
    given = _prompt_values(d, prompts)
    compute = d.evaluate(prefill.prefill_compute_time_s, **given)
    weights = d.evaluate(prefill.prefill_compute_time_s, **(given | {"attn_flops": 0.0}))
    out = dict(weights=weights, attention=compute - weights, compute=compute,
               memory=d.evaluate(prefill.prefill_memory_time_s, **given),
               total=d.evaluate(prefill.prefill_time_s, **given))
    return {k: np.broadcast_to(v, np.shape(prompts)) if np.ndim(prompts) else float(v) for k, v in out.items()}


PROMPT_WALL = {"equation": "decode.max_batch_n", "at_least": 1.0, "default_limit": 1e7, "steps": 50}
"""The search :func:`prompt_wall` runs, as data (the published page runs the same one for a reader's model): the
longest context ``len_ctx`` at which ``equation`` is at least ``at_least``, the model's context (or
``default_limit``) if it holds there, else bisected ``steps`` times from 0 (an empty context counted as one token)."""


def prompt_wall(deployment):
    """The longest prompt that one sequence can hold: the model's context, or less where its cache does not fit
    in HBM beside the weights (tokens; 0 if the weights alone do not fit)."""
    d = _deployment(deployment)
    search = PROMPT_WALL
    eq = roofline_eq(search["equation"])
    holds = lambda L: d.evaluate(eq, len_ctx=L) >= search["at_least"]  # noqa: E731
    limit = float(d.model.context_tokens or search["default_limit"])
    if holds(limit):
        return limit
    lo, hi = 0.0, limit  # the cache of one sequence grows with its context: bisect for where it fills HBM
    for _ in range(search["steps"]):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if holds(max(mid, 1.0)) else (lo, mid)
    return lo


def speed_terms(deployment, batches, len_ctx, accept_rate, pass_len):
    """Tokens a second each user gets at each batch: plain decode (``pass_len`` 1) and with speculation
    verifying ``pass_len`` tokens at ``accept_rate`` (the draft's own cost left out), and the break-even batch;
    both read only the routed experts their tokens touch (:mod:`roofline.speculation`'s default)."""
    d = _deployment(deployment)
    b = _check.check_value("batches", batches)
    for name, value in (("len_ctx", len_ctx), ("accept_rate", accept_rate), ("pass_len", pass_len)):
        _check.scalar(name, value, "nonnegative" if name == "len_ctx" else "positive")  # one break-even batch
    spec = dict(len_ctx=len_ctx, accept_rate=accept_rate, pass_len=pass_len)
    # the plain step as the verify pass counts it: a sparse MoE's B tokens read only the experts they touch
    plain = 1.0 / d.evaluate(speculation.spec_pass_time_s, batch=b, len_ctx=len_ctx, pass_len=1.0)
    return dict(plain=plain, spec=d.evaluate(speculation.spec_user_tokens_per_s, batch=b, **spec),
                breakeven=float(d.evaluate(speculation.spec_breakeven_batch, **spec)),
                wall=float(d.max_batch(len_ctx)))


def draw_ttft(ax, deployment, prompts=None):
    """Draw the time to first token against prompt length (log-log): the weights' FLOPs, attention's, the memory
    floor and, bold, the total; prompts beyond the context or the memory are shaded. Returns the artists."""
    _check.axes(ax)
    prompts = np.geomspace(*PROMPTS) if prompts is None else _check.check_value("prompts", prompts)
    if np.ndim(prompts) != 1 or len(prompts) < 2:
        raise ValueError(f"prompts must be a 1-D array of at least 2 prompt lengths; got {_check.short(prompts)}")
    t = ttft_terms(deployment, prompts)
    art = {
        "weights": ax.plot(prompts, t["weights"], color=COLORS["weights"], lw=1, label="weights' FLOPs")[0],
        "attention": ax.plot(prompts, t["attention"], color=COLORS["attention"], lw=1, label="attention's FLOPs")[0],
        "memory": ax.plot(prompts, t["memory"], color=COLORS["memory"], lw=1, label="memory (weights read)")[0],
        "total": ax.plot(prompts, t["total"], color=COLORS["total"], lw=2.5, alpha=0.85,
                         label="time to first token")[0],
    }
    wall = min(prompt_wall(deployment), prompts[-1])
    art["wall"] = ax.axvspan(wall, prompts[-1], color=COLORS["wall"], lw=0, zorder=0, label="beyond context or memory")
    ax.set(xscale="log", yscale="log", xlabel="prompt length (tokens)", ylabel="time to first token (s)")
    return art


def draw_speed(ax, deployment, len_ctx, accept_rate, pass_len, batches=None):
    """Draw each user's tokens a second against batch, plain and with speculation; the batches whose caches
    do not fit are shaded. Returns the artists."""
    _check.axes(ax)
    batches = np.geomspace(*BATCHES) if batches is None else _check.check_value("batches", batches)
    if np.ndim(batches) != 1 or len(batches) < 2:
        raise ValueError(f"batches must be a 1-D array of at least 2 batch sizes; got {_check.short(batches)}")
    s = speed_terms(deployment, batches, len_ctx, accept_rate, pass_len)
    art = {
        "plain": ax.plot(batches, s["plain"], color=COLORS["plain"], lw=2, label="plain decode")[0],
        "spec": ax.plot(batches, s["spec"], color=COLORS["spec"], lw=2, ls="--", label="with speculation")[0],
    }
    lo = min(max(s["wall"], batches[0]), batches[-1])
    art["wall"] = ax.axvspan(lo, batches[-1], color=COLORS["wall"], lw=0, zorder=0, label="KV cache does not fit")
    ax.set(xscale="log", yscale="log", xlabel="batch size (sequences)", ylabel="tokens/s per user")
    return art


def draw_speedup(ax, deployment, len_ctx, cases, batches=None):
    """Draw a user's speed-up from speculation against batch, one line per ``(accept_rate, pass_len)`` in
    ``cases``, with the break-even at 1 and the memory wall shaded. Returns the lines."""
    _check.axes(ax)
    d = _deployment(deployment)
    batches = np.geomspace(*BATCHES) if batches is None else _check.check_value("batches", batches)
    if np.ndim(batches) != 1 or len(batches) < 2:
        raise ValueError(f"batches must be a 1-D array of at least 2 batch sizes; got {_check.short(batches)}")
    if isinstance(cases, (str, bytes)) or not hasattr(cases, "__iter__"):
        raise ValueError(f"cases must be a list of (accept_rate, pass_len) pairs; got {_check.short(cases)}")
    cases = _check.items("cases", cases, 16, "(accept_rate, pass_len) pairs")
    if not 1 <= len(cases) <= 16 or not all(isinstance(c, (tuple, list)) and len(c) == 2 for c in cases):
        raise ValueError(f"cases must be 1 to 16 (accept_rate, pass_len) pairs; got {_check.short(cases)}")
    lines = []
    for alpha, ell in cases:
        y = d.evaluate(speculation.spec_speedup, batch=batches, len_ctx=len_ctx, accept_rate=alpha, pass_len=ell)
        lines.append(ax.plot(batches, y, lw=2, label=f"α = {alpha:g}, {_drafts(ell)}")[0])
    ax.axhline(1, color="gray", lw=1, ls=":")
    wall = min(max(float(d.max_batch(len_ctx)), batches[0]), batches[-1])
    ax.axvspan(wall, batches[-1], color=COLORS["wall"], lw=0, zorder=0, label="KV cache does not fit")
    ax.set(xscale="log", xlabel="batch size (sequences)", ylabel="speed-up of each user")
    return lines


class PrefillFigure(LiveFigure):
    """The time to first token against prompt length (left) and a user's speed against batch with and without
    speculation (right), updated in place.

    Parameters
    ----------
    deployment : Deployment
    prompt_tokens : float
        Prompt marked on the left panel.
    batch : float
        Batch marked on the right panel.
    len_ctx : float
        Context of the decoding sequences, tokens.
    accept_rate, pass_len : float
        Speculation: the chance a draft is accepted, and tokens verified a pass (drafts + 1).
    """

    def __init__(self, deployment, prompt_tokens=8192, batch=64, len_ctx=4096, accept_rate=0.875, pass_len=2, *,
                 figsize=(7.2, 4.1), dpi=100):
        self.fig = new_figure(figsize, dpi)
        self.axes = tuple(self.fig.subplots(1, 2))
        self.fig.subplots_adjust(left=0.1, right=0.98, bottom=0.37, top=0.97, wspace=0.33)
        self.deployment = _deployment(deployment)
        for name, value in (("prompt_tokens", prompt_tokens), ("batch", batch)):
            _check.scalar(name, value)  # a marker each
        self.state = dict(prompt_tokens=prompt_tokens, batch=batch, len_ctx=len_ctx, accept_rate=accept_rate,
                          pass_len=pass_len)
        self.left = draw_ttft(self.axes[0], deployment)
        self.right = draw_speed(self.axes[1], deployment, len_ctx, accept_rate, pass_len)
        self.marks = [self.axes[0].axvline(prompt_tokens, color="gray", lw=1, ls=":"),
                      self.axes[1].axvline(batch, color="gray", lw=1, ls=":")]
        self.even = self.axes[1].plot([], [], "o", color=COLORS["spec"], ms=6, label="break-even batch")[0]
        handles = [self.left[k] for k in ("weights", "attention", "memory", "total", "wall")]
        handles += [self.right["plain"], self.right["spec"], self.even, self.right["wall"]]
        self.fig.legend(handles, [h.get_label() for h in handles], loc="lower center", ncols=3, fontsize=9,
                        frameon=False)
        self.labels = [ax.text(0.03, 0.97, "", transform=ax.transAxes, va="top", fontsize=9,
                               bbox=dict(facecolor="white", alpha=0.85, lw=0, pad=1)) for ax in self.axes]
        self.update()

    def update(self, deployment=None, **state):
        """Redraw with any input changed (``deployment``, ``prompt_tokens``, ``batch``, ``len_ctx``,
        ``accept_rate``, ``pass_len``); returns the speed-up at the marked batch, as text."""
        if deployment is not None:
            self.deployment = _deployment(deployment)
        unknown = sorted(set(state) - set(self.state))
        if unknown:
            raise ValueError(f"update() got unknown inputs {unknown}; accepted: deployment, {', '.join(self.state)}")
        for name, value in state.items():
            if value is not None:
                self.state[name] = _check.check_value(name, value, "nonnegative" if name == "len_ctx" else "positive")
        d, st = self.deployment, self.state
        speculation.tokens_per_step(accept_rate=st["accept_rate"], pass_len=st["pass_len"])  # checks alpha <= 1
        prompts = self.left["total"].get_xdata()
        t = ttft_terms(d, prompts)
        for key in ("weights", "attention", "memory", "total"):
            self.left[key].set_ydata(t[key])
        wall = min(prompt_wall(d), prompts[-1])
        self.left["wall"].set_x(wall)
        self.left["wall"].set_width(prompts[-1] - wall)
        batches = self.right["plain"].get_xdata()
        s = speed_terms(d, batches, st["len_ctx"], st["accept_rate"], st["pass_len"])
        self.right["plain"].set_ydata(s["plain"])
        self.right["spec"].set_ydata(s["spec"])
        lo = min(max(s["wall"], batches[0]), batches[-1])
        self.right["wall"].set_x(lo)
        self.right["wall"].set_width(batches[-1] - lo)
        b_e = s["breakeven"]
        shown = np.isfinite(b_e) and batches[0] <= b_e <= batches[-1]
        self.even.set_data(*(([b_e], [float(np.interp(np.log(b_e), np.log(batches), s["plain"]))]) if shown
                             else ([], [])))
        for line, x in zip(self.marks, (st["prompt_tokens"], st["batch"])):
            line.set_xdata([x, x])
        ttft = ttft_terms(d, st["prompt_tokens"])["total"]
        one = dict(batch=st["batch"], len_ctx=st["len_ctx"], accept_rate=st["accept_rate"], pass_len=st["pass_len"])
        gain = float(d.evaluate(speculation.spec_speedup, **one))
        fits = "fits" if st["batch"] <= s["wall"] else "does NOT fit"
        self.labels[0].set_text(f"{d.model.key}\n{d.n_chips_used} x {d.hardware.key}, {d.weight_precision}\n"
                                f"{count(st['prompt_tokens'])} tokens: {_seconds(ttft)}")
        self.labels[1].set_text(f"B = {count(st['batch'])} at L = {count(st['len_ctx'])} ({fits})\n"
                                f"α {st['accept_rate']:.3g}, {_drafts(st['pass_len'])}: {gain:.2f}x\n"
                                f"break-even B {count(b_e) if np.isfinite(b_e) else 'none (no batch is too large)'}")
        for ax, lines in ((self.axes[0], (t["total"], t["memory"])), (self.axes[1], (s["plain"], s["spec"]))):
            lo_y = min(float(np.min(y)) for y in lines)
            hi_y = max(float(np.max(y)) for y in lines)
            ax.set_ylim(10.0 ** np.floor(np.log10(lo_y / 3)), 10.0 ** np.ceil(np.log10(hi_y * 3)))
        self._request_redraw()
        return f"{gain:.2f}x a user's speed"

    def _changing(self):
        return [*self.left.values(), *self.right.values(), *self.marks, self.even, *self.labels]


def _drafts(pass_len):
    """The drafts of a verify pass of ``pass_len`` tokens, in words: '1 draft', '3 drafts'."""
    k = pass_len - 1
    return f"{k:g} draft" + ("" if k == 1 else "s")


def _seconds(t):
    """A time as a reader writes it: 35 ms, 1.2 s."""
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def live_frame(settings):
    """Chapter 8's live figure as matplotlib draws it at ``settings`` (model, chip, precision, prompt, batch,
    context, accept, drafts): ``drafts`` drafted tokens, so passes of ``drafts + 1``."""
    s = live_settings(settings, ("model", "chip", "precision", "prompt", "batch", "context", "accept", "drafts"))
    return PrefillFigure(deploy(s["model"], s["chip"], s["precision"]), prompt_tokens=s["prompt"],
                         batch=s["batch"], len_ctx=s["context"], accept_rate=s["accept"], pass_len=s["drafts"] + 1)


# -- the live figure's declaration: time to first token against prompt length, a user's speed with speculation --
MODELS = ("DeepSeek-V3", "Kimi K2", "Qwen3-235B-A22B", "gpt-oss-120b", "Llama 3.1 405B", "Llama 3.1 70B",
          "Mixtral 8x7B")
"""The models chapter 8's controls offer (its ``names``: the registry's served models with their layers' shapes)."""


def _live_data(live):
    """Chapter 8's figure's data: the deployments' values; per model what a fresh prompt's pass takes
    (_prompt_values: prefill's attention FLOPs per pair and the cache bytes a token writes, at the panel's
    prompts and at the prompt slider's stops; one number where they do not vary); the longest prompt each
    deployment holds (prompt_wall); the windows' values at the context slider's stops."""
    keys = _keys(map(roofline_eq, live.equations), ("batch", "len_ctx", "pass_len", "accept_rate"))
    precisions = live.control("precision").options
    offered = live.control("chip").options  # the page indexes the chips as the control lists them
    table = deployments(MODELS, offered, precisions, keys)
    prompts = [_number(x) for x in np.geomspace(*PROMPTS)]
    grids = {"panel": prompts, "control": list(live.control("prompt").grid)}

    def at(values):  # one number where every prompt gives the same
        return _compact(values[0]) if np.all(values == values[0]) else [_number(x) for x in values]

    prompt = {}
    for m in MODELS:
        d = deploy(m, "H200", precisions[0])
        kv = {h: [d_.kv_bytes_at(np.array(grids["panel"])) for d_ in (deploy(m, h, p) for p in precisions)]
              for h in offered}
        if not all(np.array_equal(np.broadcast_to(v, len(prompts)), np.broadcast_to(kv["H200"][0], len(prompts)))
                   for vs in kv.values() for v in vs):
            raise ValueError(f"{m}: a prompt token's cache bytes depend on the chip; the page stores them by model")
        prompt[m] = {"latent_flops": _number(prefill.prefill_latent_flops(d.model))}
        for name, grid in grids.items():
            x = np.array(grid)
            prompt[m][name] = {"attn_flops": at(np.broadcast_to(prefill.prefill_attn_flops(d.model, x), x.shape)),
                               "kv_bytes": at(np.broadcast_to(d.kv_bytes_at(x), x.shape))}
    walls = [[[_number(prompt_wall(deploy(m, h, p))) for p in precisions] for h in offered]
             for m in MODELS]
    return {"deployments": table, "prompt": prompt, "prompt_wall": walls,
            "windows": window_tables(keys, live.control("context").grid, lambda m: deploy(m, "H200", "fp8"))}


def chips():
    """The chips chapter 8's live figure offers: the registry's, less those that cannot run a prompt's attention
    (no attention FLOP rate at any of the models' cache precisions: Rubin's preliminary row), which would draw
    only a note."""
    def runs(h):  # the deployment has the rate the prompt's attention is timed at
        return deploy(MODELS[0], h, "fp8").values.get("attn_flops_rate") is not None

    return tuple(h for h in hardware.names() if runs(h))


def live():
    """Chapter 8's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["prefill"]``) and the
    notebook: time to first token against prompt length, and tokens a second per user against batch with and
    without speculation, for the models of :data:`MODELS` on any chip of the registry.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations, controls (DeepSeek-V3 on H200 in FP8, its measured MTP acceptance; prompts, batches and
        contexts at powers of two, so whole sequences and the chapter's round lengths), data and static frame
        (:func:`live_frame`).
    """
    accept = training_runs.RUNS.get("DeepSeek-V3 MTP acceptance").value  # the notebook's ds_mtp
    precisions = tuple(reversed(registry.PRECISIONS))
    controls = (
        select("model", "model", MODELS, "DeepSeek-V3"),
        select("chip", "hardware", chips(), "H200"),
        select("precision", "precision", precisions, "fp8").unless(*_precision_inert(precisions, MODELS)),
        selection_slider("prompt", "prompt ℓ_p", [2 ** e for e in range(7, 21)], 8192, counts=True),
        selection_slider("batch", "batch B", [2 ** e for e in range(17)], 64, counts=True),
        selection_slider("context", "context L", [2 ** e for e in range(7, 21)], 4096, counts=True),
        float_slider("accept", "accept α_s", 0.3, 1.0, accept, 0.025),
        int_slider("drafts", "drafts k_d", 1, 7, 1),
    )
    return curves("prefill", "08_prefill_and_speculation", controls, _live_plot(), _live_data,
                  "Time to first token against prompt length (left); tokens a second per user against batch, with "
                  "and without speculation (right).", frame=live_frame)


def _live_plot():
    """Chapter 8's live figure as the page draws it: :func:`ttft_terms` of one fresh prompt of each length (its
    attention FLOPs and cache bytes from the data, by the prompt's place on the axis or the slider), and
    :func:`speed_terms` against batch with the break-even batch and the walls; the labels as
    :class:`PrefillFigure` writes them."""
    model = setting("model")
    prompt = lambda grid, key, at=None: (data("prompt", model, grid, key) if at is None  # noqa: E731
                                         else item(data("prompt", model, grid, key), at))
    fresh = lambda grid, at=None: dict(batch=1, len_ctx=0, latent_flops=data("prompt", model, "latent_flops"),  # noqa
                                       attn_flops=prompt(grid, "attn_flops", at), kv_bytes=prompt(grid, "kv_bytes", at))
    compute = eq("prefill.prefill_compute_time_s")
    weights = eq("prefill.prefill_compute_time_s", attn_flops=0)
    wall = data("prompt_wall", position("model"), position("chip"), position("precision"))
    ttft = eq("prefill.prefill_time_s", pass_len=setting("prompt"), **fresh("control", position("prompt")))
    return Plot(
        panels=(
            Panel("pass_len", tuple(_number(x) for x in np.geomspace(*PROMPTS)), "prompt length (tokens)",
                  "time to first token (s)", (
                      Series("weights", "weights' FLOPs", weights, Style("compute", 1)),
                      Series("attention", "attention's FLOPs", compute - weights, Style("memory", 1)),
                      Series("memory", "memory (weights read)", eq("prefill.prefill_memory_time_s"),
                             Style("weights", 1)),
                      Series("total", "time to first token", eq("prefill.prefill_time_s"),
                             Style("total", 2.5, "", 0.85))),
                  spans=(Span("wall", "beyond context or memory", wall, clamp=False),),
                  marks=(Mark("prompt", "prompt ℓ_p", setting("prompt")),), xlog=True, ylog=True,
                  ylim=decades(low("total", "memory") / 3, high("total", "memory") * 3),
                  keywords=fresh("panel"), note_width=200,
                  note="{model}\n{n_chips} x {chip}, {precision}\n{prompt:count} tokens: {ttft_text}"),
            Panel("batch", tuple(_number(b) for b in np.geomspace(*BATCHES)), "batch size (sequences)",
                  "tokens/s per user", (
                      Series("plain", "plain decode", 1 / eq("speculation.spec_pass_time_s", pass_len=1),
                             Style("weights", 2)),
                      Series("spec", "with speculation", eq("speculation.spec_user_tokens_per_s"),
                             Style("kv", 2, "6 3"))),
                  spans=(Span("kv_wall", "KV cache does not fit", ref("wall")),),
                  marks=(Mark("batch", "batch B", setting("batch")),),
                  points=(Point("even", "break-even batch", ref("even"), on="plain", interp=True, within=True,
                                color="kv", r=4),), xlog=True, ylog=True,
                  ylim=decades(low("plain", "spec") / 3, high("plain", "spec") * 3), note_width=245,
                  note="B = {batch:count} at L = {context:count} ({fits})\nα {accept:.3g}, {drafts} draft{plural}: "
                       "{gain:.2f}x\nbreak-even B {even_text}")),
        keywords={"batch": "batch", "len_ctx": "context", "accept_rate": "accept", "pass_len": setting("drafts") + 1},
        deployment=("model", "chip", "precision"),
        values={"ttft": ttft, "ttft_ms": ref("ttft") * 1e3,
                "ttft_text": when(ref("ttft") < 1, "{ttft_ms:.3g} ms", "{ttft:.3g} s"),
                "wall": eq("decode.max_batch_n"), "even": eq("speculation.spec_breakeven_batch"),
                "gain": eq("speculation.spec_speedup"),
                "fits": when(setting("batch") <= ref("wall"), "fits", "does NOT fit"),
                "plural": when(setting("drafts") > 1, "s", ""),
                "even_text": when(finite(ref("even")), "{even:count}", "none (no batch is too large)")},
        boxes=((84, 12, 266, 250), (460, 12, 266, 250)), height=320,  # room for the ticks 0.0001
        legend=("weights", "attention", "memory", "total", "wall", "prompt", "plain", "spec", "even", "kv_wall",
                "batch"),
        needs=("attn_flops_rate",),
        missing="the registry gives {chip} no attention FLOP rate at the KV cache's precision, which the prompt's "
                "attention needs")
