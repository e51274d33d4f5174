"""Chapter 5's figures: a falling and a rising cost, the costs of one quality against pre-training tokens,
and the over-training factor against traffic, with the lecture's heuristic beside the exact optimum.

:func:`live` declares chapter 5's live figure (in the vocabulary of :mod:`roofline.figures.declare`), and
:func:`live_frame` draws its static frame.
"""

import numpy as np

from .. import _check, lecture, training
from .declare import (INFINITY, Line, Mark, Panel, Plot, Point, Series, Style, Text, Ticks, _compact, _number, curves,
                      data, decade_above, decade_below, eq, float_slider, geomspace, high, item, log_slider, low,
                      maximum, minimum, ref, select, setting, solve, value)
from .live import LiveFigure, count, new_figure, live_settings

DAY = 86_400
MONTH = 30 * DAY  # the lecture's "two months" is 60 days (2.6e15 = 500M x 60 x 86,400)
COLORS = {"pre": "tab:blue", "usage": "tab:orange", "total": "black", "rule": "tab:gray", "opt": "tab:green",
          "equal": "tab:purple"}
LAW_LABELS = {"epoch": "Epoch refit (2024)", "hoffmann": "Hoffmann et al. (2022)"}
"""The loss laws as the widget's dropdown and the page name them (the values stay the keys of
:data:`roofline.training.LOSS_LAWS`)."""
TOKENS_SPAN = (1.05, 100, 160)
"""The left panel's pre-training tokens run from the first factor above the least data that can reach the loss
to the second factor beyond the larger of the equal-cost and the cheapest tokens, in this many geometric steps."""
TRAFFIC = (1e6, 1e10, 81)
"""The right panel's traffic per model in tokens/s, from and to, in this many geometric steps."""


def _grid(name, values):
    """A figure's x values: a 1-D array of 1 to 100,000 numbers > 0."""
    x = _check.check_value(name, values)
    if np.ndim(x) != 1 or not 1 <= len(x) <= 100_000:
        raise ValueError(f"{name} must be a 1-D array of 1 to 100,000 values; got {_check.short(values)}")
    return x


def draw_cost_sum(ax, a=1.0, b=1.0, x=None):
    """The lecture's sketch (01:21:10): ``a/x`` falling, ``b x`` rising, their sum least where they are equal."""
    _check.axes(ax)
    a, b = _check.check_value("a", a), _check.check_value("b", b)
    if np.ndim(a) or np.ndim(b):
        raise ValueError(f"a and b must be single numbers; got {_check.short(a)}, {_check.short(b)}")
    x = np.geomspace(0.1, 10, 200) * np.sqrt(a / b) if x is None else _grid("x", x)
    ax.plot(x, a / x, color=COLORS["pre"], label="cost A = a/x (falling)")
    ax.plot(x, b * x, color=COLORS["usage"], label="cost B = b x (rising)")
    ax.plot(x, a / x + b * x, color=COLORS["total"], lw=2, label="A + B")
    x_eq = np.sqrt(a / b)
    ax.plot([x_eq], [2 * np.sqrt(a * b)], "o", color="black", ms=6, label="minimum: A = B")
    ax.axvline(x_eq, color="gray", ls=":", lw=1)
    ax.set(xscale="log", yscale="log", xlabel="x", ylabel="cost")
    return x_eq


def costs_along_loss(n_active, tokens_inf, decode_mfu, law_name="epoch", tokens=None):
    """Pre-training, serving and total cost of every ``(N(D), D)`` that reaches the heuristic model's loss."""
    cmp = training.compare(n_active, tokens_inf, decode_mfu, law_name)
    c = training.law(law_name)
    if tokens is not None:
        tokens = _grid("tokens", tokens)
    if tokens is None:  # from just above the least data that can reach the loss to 100x the heuristic's
        least = (c.loss_b / (cmp.loss - c.loss_floor)) ** (1 / c.beta_d)
        above, beyond, steps = TOKENS_SPAN
        tokens = np.geomspace(least * above, max(cmp.heuristic.tokens_pre, cmp.optimum.tokens_pre) * beyond, steps)
    n = training.params_for_loss(tokens_pre=tokens, loss=cmp.loss, **c.args(training.params_for_loss))
    pre = training.pretrain_flops(n_active=n, tokens_pre=tokens)
    usage = cmp.usage_flops_per_param * n
    chin = training.optimal_for_loss(cmp.loss, 0.0, law_name)  # the cheapest to train: Chinchilla's point
    return dict(tokens=tokens, pre=pre, usage=usage, total=pre + usage, comparison=cmp, chinchilla=chin)


def draw_costs_vs_tokens(ax, n_active, tokens_inf, decode_mfu, law_name="epoch"):
    """Costs of one quality against pre-training tokens; the equal-cost point and the minimum marked."""
    _check.axes(ax)
    y = costs_along_loss(n_active, tokens_inf, decode_mfu, law_name)
    cmp = y["comparison"]
    lines = {
        "pre": ax.plot(y["tokens"], y["pre"], color=COLORS["pre"], label="pre-training $6ND$")[0],
        "usage": ax.plot(y["tokens"], y["usage"], color=COLORS["usage"],
                         label=r"serving $2N D_\mathrm{inf}/\eta$")[0],
        "total": ax.plot(y["tokens"], y["total"], color=COLORS["total"], lw=2, label="total")[0],
        "equal": ax.plot([cmp.heuristic.tokens_pre], [cmp.heuristic.total_cost], "s", color=COLORS["equal"],
                         mec="black", ms=7, label="equal costs (lecture)")[0],
        "best": ax.plot([cmp.optimum.tokens_pre], [cmp.optimum.total_cost], "o", color=COLORS["opt"], mec="black",
                        ms=7, label="minimum")[0],
        "chin": ax.plot([y["chinchilla"].tokens_pre], [y["chinchilla"].pretrain_cost], "v", color=COLORS["pre"],
                        mec="black", ms=7, label="Chinchilla-optimal")[0],
    }
    ax.set(xscale="log", yscale="log", xlabel=r"pre-training tokens $D_\mathrm{pre}$",
           ylabel="cost (training-FLOP equivalents)")
    return lines


def overtraining_vs_traffic(n_active, deploy_s, decode_mfu, law_name="epoch", traffic=None):
    """Over-training factors against traffic: the heuristic's (against the law and the rule of 20) and the optimum's."""
    traffic = np.geomspace(*TRAFFIC) if traffic is None else _grid("traffic", traffic)
    d_inf = training.tokens_served(traffic=traffic, deploy_s=deploy_s)
    cmp = training.compare(n_active, d_inf, decode_mfu, law_name)
    rule = training.overtraining_factor(tokens_pre=cmp.heuristic.tokens_pre, n_active=n_active,
                                        tokens_per_param=training.CHINCHILLA_RULE)
    return dict(traffic=traffic, heuristic=cmp.overtraining_heuristic, rule=rule,
                optimum=cmp.overtraining_optimum, comparison=cmp)


def draw_overtraining_vs_traffic(ax, n_active, deploy_s, decode_mfu, law_name="epoch"):
    """Over-training factor against traffic per model, heuristic and exact; 1 is Chinchilla-optimal."""
    _check.axes(ax)
    y = overtraining_vs_traffic(n_active, deploy_s, decode_mfu, law_name)
    lines = {
        "heuristic": ax.plot(y["traffic"], y["heuristic"], color=COLORS["equal"], label="equal costs, vs the law")[0],
        "rule": ax.plot(y["traffic"], y["rule"], color="black", ls=":", lw=1.5,
                        label="equal costs, vs rule of 20")[0],
        "optimum": ax.plot(y["traffic"], y["optimum"], color=COLORS["opt"], lw=2, label="minimum, vs the law")[0],
    }
    ax.axhline(1, color="gray", lw=0.8)
    ax.annotate("Chinchilla-optimal", (1.3e6, 1), xytext=(0, 3), textcoords="offset points", fontsize=9,
                color="gray")
    ax.set(xscale="log", yscale="log", xlabel="traffic per model (tokens/s)",
           ylabel="over-training factor")
    return lines


class TrainingFigure(LiveFigure):
    """Costs against pre-training tokens (left) and the over-training factor against traffic (right)."""

    def __init__(self, n_active=100e9, traffic=50e6, months=2, rl_flops=3, decode_mfu=1 / 3, law_name="epoch", *,
                 figsize=(7.0, 3.8), dpi=100):
        for name, value in (("n_active", n_active), ("traffic", traffic), ("months", months),
                            ("rl_flops", rl_flops), ("decode_mfu", decode_mfu)):
            if np.ndim(_check.check_value(name, value)):
                raise ValueError(f"TrainingFigure: {name} must be one number, not an array")
        training.law(law_name)  # ValueError naming the choices
        self.fig = new_figure(figsize, dpi)
        self.axes = tuple(self.fig.subplots(1, 2))
        self.fig.subplots_adjust(left=0.1, right=0.98, bottom=0.36, top=0.86, wspace=0.38)
        self.n_active, self.traffic, self.months = n_active, traffic, months
        self.rl_flops, self.decode_mfu, self.law_name = rl_flops, decode_mfu, law_name
        d_inf = training.tokens_served(traffic=traffic, deploy_s=months * MONTH)
        self.costs = draw_costs_vs_tokens(self.axes[0], n_active, d_inf, decode_mfu, law_name)
        self.factors = draw_overtraining_vs_traffic(self.axes[1], n_active, months * MONTH, decode_mfu, law_name)
        self.dots = {k: self.axes[1].plot([], [], "o", color=self.factors[k].get_color(), mec="black", ms=6)[0]
                     for k in ("heuristic", "optimum")}
        self.marker = self.axes[1].axvline(traffic, color="gray", ls=":", lw=1)
        handles = [self.costs[k] for k in ("pre", "usage", "total", "chin", "equal", "best")] + [
            self.factors[k] for k in ("rule", "heuristic", "optimum")]
        self.fig.legend(handles, [h.get_label() for h in handles], loc="lower center", ncols=3, fontsize=9,
                        frameon=False)
        self.title = self.fig.suptitle("", fontsize=10)
        self.update()

    def update(self, n_active=None, traffic=None, months=None, rl_flops=None, decode_mfu=None, law_name=None):
        """Redraw with any input changed; returns the :class:`~roofline.training.Comparison` at the traffic."""
        names = ("n_active", "traffic", "months", "rl_flops", "decode_mfu", "law_name")
        kept = {name: getattr(self, name) for name in names}
        try:
            return self._update(n_active, traffic, months, rl_flops, decode_mfu, law_name)
        except Exception:  # a refused input leaves the figure as it was
            for name, value in kept.items():
                setattr(self, name, value)
            raise

    def _update(self, n_active, traffic, months, rl_flops, decode_mfu, law_name):
        for name, value in (("n_active", n_active), ("traffic", traffic), ("months", months),
                            ("rl_flops", rl_flops), ("decode_mfu", decode_mfu)):
            if value is not None:
                if np.ndim(_check.check_value(name, value)):
                    raise ValueError(f"TrainingFigure.update: {name} must be one number, not an array")
                setattr(self, name, _check.check_value(name, value))
        if law_name is not None:
            training.law(law_name)  # ValueError naming the choices
            self.law_name = law_name
        d_inf = training.tokens_served(traffic=self.traffic, deploy_s=self.months * MONTH)
        y = costs_along_loss(self.n_active, d_inf, self.decode_mfu, self.law_name)
        cmp = y["comparison"]
        for k in ("pre", "usage", "total"):
            self.costs[k].set_data(y["tokens"], y[k])
        self.costs["equal"].set_data([cmp.heuristic.tokens_pre], [cmp.heuristic.total_cost])
        self.costs["best"].set_data([cmp.optimum.tokens_pre], [cmp.optimum.total_cost])
        self.costs["chin"].set_data([y["chinchilla"].tokens_pre], [y["chinchilla"].pretrain_cost])
        ax0 = self.axes[0]
        # the minimum's total, and the Chinchilla point at the bottom of the pre-training curve, in view
        lo = min(cmp.optimum.total_cost, y["chinchilla"].pretrain_cost) / 3
        hi = cmp.optimum.total_cost * 30
        ax0.set_xlim(10.0 ** np.floor(np.log10(y["tokens"][0])), 10.0 ** np.ceil(np.log10(y["tokens"][-1])))
        ax0.set_ylim(10.0 ** np.floor(np.log10(lo)), 10.0 ** np.ceil(np.log10(hi)))
        f = overtraining_vs_traffic(self.n_active, self.months * MONTH, self.decode_mfu, self.law_name)
        for k in ("rule", "heuristic", "optimum"):
            self.factors[k].set_ydata(f[k])
        self.dots["heuristic"].set_data([self.traffic], [cmp.overtraining_heuristic])
        self.dots["optimum"].set_data([self.traffic], [cmp.overtraining_optimum])
        self.marker.set_xdata([self.traffic] * 2)
        every = np.concatenate([f["rule"], f["heuristic"], f["optimum"]])
        self.axes[1].set_ylim(10.0 ** min(-1, np.floor(np.log10(every.min()))),
                              10.0 ** np.ceil(np.log10(every.max())))
        d_rl = training.equal_cost_rl_tokens(tokens_pre=cmp.heuristic.tokens_pre, decode_mfu=self.decode_mfu,
                                             rl_flops=self.rl_flops)
        t = count
        self.title.set_text(f"{t(self.n_active)} parameters serving {t(d_inf)} tokens. Equal costs: train on "
                            f"{t(cmp.heuristic.tokens_pre)} ({cmp.overtraining_heuristic:,.0f}x), RL on {t(d_rl)}.\n"
                            f"Minimum: {t(cmp.optimum.n_active)} on {t(cmp.optimum.tokens_pre)} "
                            f"({cmp.overtraining_optimum:,.0f}x); the equal-cost model costs "
                            f"{cmp.excess_cost:.0%} more.")
        self._request_redraw()
        return cmp

    def _changing(self):
        return list(self.costs.values()) + list(self.factors.values()) + list(self.dots.values()) + [
            self.marker, self.title]


def live_frame(settings):
    """Chapter 5's live figure as matplotlib draws it at ``settings`` (its keywords, by name)."""
    names = ("n_active", "traffic", "months", "rl_flops", "decode_mfu", "law_name")
    settings = live_settings(settings, names)
    return TrainingFigure(**{k: settings[k] for k in names})


# -- the live figure's declaration: the costs of one quality against pre-training tokens, over-training ------
def _live_data(live):
    laws = {name: {k: _compact(v) for k, v in law.values().items()} for name, law in training.LOSS_LAWS.items()}
    return {"laws": laws, "law_names": {name: law.name for name, law in training.LOSS_LAWS.items()}}


def _compare(tokens_inf):
    """:func:`roofline.training.compare` (no RL) as Terms, at ``tokens_inf`` (a Term): the equal-cost model's
    tokens and loss, and the cheapest model of that loss when each parameter also costs its serving (bisected,
    :func:`~roofline.figures.declare.solve`): its tokens, parameters and Chinchilla tokens."""
    per_param = eq("training.inference_cost_flops", n_active=1, tokens_inf=tokens_inf)
    d_eq = eq("training.equal_cost_pretrain_tokens", tokens_inf=tokens_inf)
    loss = eq("training.chinchilla_loss", tokens_pre=d_eq)
    return d_eq, loss, per_param


def _optimum(loss, usage):
    """The cheapest (N, D) of ``loss`` when each parameter costs ``usage`` FLOPs (optimal_for_loss): 64 halvings
    of log D from the least data that reaches the loss (an unbounded model's) up 30 decades."""
    least = eq("training.tokens_for_loss", loss=loss, n_active=INFINITY)
    d = solve("training.OPTIMUM_CONDITION", "tokens_pre", least, 1e30, loss=loss, usage_flops=usage,
              n_active=INFINITY)
    return d, eq("training.params_for_loss", loss=loss, tokens_pre=d)


def _live_plot():
    """Chapter 5's live figure as the page draws it (:meth:`TrainingFigure.update`): the costs of every model of
    the equal-cost model's loss against its tokens (:func:`costs_along_loss`) with the Chinchilla, equal-cost and
    cheapest points, and the over-training factors against traffic (:func:`overtraining_vs_traffic`); the
    axes' ranges and the title as the figure sets them."""
    above, beyond, steps = TOKENS_SPAN
    traffic = np.geomspace(*TRAFFIC)
    margin = (traffic[-1] / traffic[0]) ** 0.05  # matplotlib's: 5% of the (logarithmic) span each side
    pre = lambda n, d: eq("training.pretrain_flops", n_active=n, tokens_pre=d)  # noqa: E731
    usage = lambda n, d_inf: eq("training.inference_cost_flops", n_active=n, tokens_inf=d_inf)  # noqa: E731
    d_inf = ref("d_inf")
    d_eq, _, per_param = _compare(d_inf)
    d_opt, n_opt = _optimum(ref("loss"), ref("per_param"))
    d_chin, n_chin = _optimum(ref("loss"), 0)  # the cheapest to train: Chinchilla's point
    values = {
        "d_inf": eq("training.tokens_served"), "d_eq": d_eq, "loss": eq("training.chinchilla_loss",
                                                                       tokens_pre=ref("d_eq")),
        "per_param": per_param, "d_opt": d_opt, "n_opt": n_opt, "d_chin": d_chin,
        "chin_pre": pre(n_chin, ref("d_chin")),
        "h_total": pre(value("n_active"), ref("d_eq")) + usage(value("n_active"), d_inf),
        "o_total": pre(ref("n_opt"), ref("d_opt")) + usage(ref("n_opt"), d_inf),
        "ot_h": ref("d_eq") / eq("training.chinchilla_tokens"),
        "ot_o": ref("d_opt") / eq("training.chinchilla_tokens", n_active=ref("n_opt")),
        "excess": (ref("h_total") / ref("o_total") - 1) * 100,
        "d_rl": eq("training.equal_cost_rl_tokens", tokens_pre=ref("d_eq")),
    }
    tokens = geomspace(eq("training.tokens_for_loss", loss=ref("loss"), n_active=INFINITY) * above,
                       maximum(ref("d_eq"), ref("d_opt")) * beyond, steps)
    n_along = eq("training.params_for_loss", loss=ref("loss"))  # every model of the loss, over the tokens
    edge = "ink"
    # right: the same comparison at every traffic of the axis
    r_eq, _, r_per_param = _compare(eq("training.tokens_served"))
    r_opt, r_n = _optimum(ref("r_loss"), ref("r_per_param"))
    shown = ("heuristic", "rule", "optimum")
    return Plot(
        panels=(
            Panel("tokens_pre", tokens, "pre-training tokens D_pre", "cost (training-FLOP equivalents)", (
                Series("pre", "pre-training 6ND", pre(n_along, value("tokens_pre")), Style("pre", 1.5)),
                Series("usage", "serving 2N D_inf/η", usage(n_along, d_inf), Style("usage", 1.5)),
                Series("total", "total", pre(n_along, value("tokens_pre")) + usage(n_along, d_inf),
                       Style("total", 2))),
                points=(Point("chin", "Chinchilla-optimal", ref("d_chin"), y=ref("chin_pre"), color="pre", r=4.5,
                              shape="triangle", edge=edge),
                        Point("equal", "equal costs (lecture)", ref("d_eq"), y=ref("h_total"), color="equal", r=4,
                              shape="square", edge=edge),
                        Point("best", "minimum", ref("d_opt"), y=ref("o_total"), color="opt", r=4.5, edge=edge)),
                xlog=True, ylog=True, xticks=Ticks("pow10"), yticks=Ticks("pow10"),
                xlim=(decade_below(item(value("tokens_pre"), 0)), decade_above(item(value("tokens_pre"), -1))),
                # the minimum's total, and the Chinchilla point at the bottom of the pre-training curve, in view
                ylim=(decade_below(minimum(ref("o_total"), ref("chin_pre")) / 3), decade_above(ref("o_total") * 30))),
            Panel("traffic", tuple(_number(t) for t in traffic), "traffic per model (tokens/s)",
                  "over-training factor", (
                      Series("heuristic", "equal costs, vs the law", ref("r_eq") / eq("training.chinchilla_tokens"),
                             Style("equal", 1.5)),
                      Series("rule", "equal costs, vs rule of 20",
                             eq("training.overtraining_factor", tokens_per_param=training.CHINCHILLA_RULE,
                                tokens_pre=ref("r_eq")), Style("total", 1.5, "1.5 2.5")),
                      Series("optimum", "minimum, vs the law",
                             ref("r_opt") / eq("training.chinchilla_tokens", n_active=ref("r_n")), Style("opt", 2))),
                  values={"r_eq": r_eq, "r_loss": eq("training.chinchilla_loss", tokens_pre=ref("r_eq")),
                          "r_per_param": r_per_param, "r_opt": r_opt, "r_n": r_n},
                  lines=(Line("chinchilla", "", 1, Style("grey", 0.8)),),
                  marks=(Mark("traffic", "traffic", setting("traffic")),),
                  points=(Point("equal_dot", "", setting("traffic"), y=ref("ot_h"), color="equal", r=4, edge=edge),
                          Point("best_dot", "", setting("traffic"), y=ref("ot_o"), color="opt", r=4, edge=edge)),
                  texts=(Text("Chinchilla-optimal", 1.3e6, 1, size=11, above=3),),
                  xlog=True, ylog=True, xlim=(_number(traffic[0] / margin), _number(traffic[-1] * margin)),
                  ylim=(minimum(decade_below(low(*shown)), 0.1), decade_above(high(*shown))))),
        keywords={"n_active": "n_active", "decode_mfu": "decode_mfu", "traffic": "traffic",
                  "deploy_s": setting("months") * MONTH, "rl_flops": "rl_flops"},
        tables=(data("laws", setting("law_name")),),
        deployment=(None, None, None),
        values=values,
        title="{n_active:count} parameters serving {d_inf:count} tokens. Equal costs: train on {d_eq:count} "
              "({ot_h:,.0f}x), RL on {d_rl:count}.\nMinimum: {n_opt:count} on {d_opt:count} ({ot_o:,.0f}x); the "
              "equal-cost model costs {excess:,.0f}% more.",
        boxes=((72, 46, 280, 222), (452, 46, 288, 222)), height=318,
        legend=("pre", "usage", "total", "chin", "equal", "best", "rule", "heuristic", "optimum", "traffic"))


def live():
    """Chapter 5's live figure, declared once for the page (:data:`roofline.web.LIVE` ``["training"]``) and the
    notebook: the costs of the lecture model's quality against pre-training tokens, and over-training against
    traffic, under any loss law of :data:`roofline.training.LOSS_LAWS`.

    Returns
    -------
    roofline.figures.declare.Live
        Its equations (with the optimum condition the page bisects), controls (the lecture's model, traffic
        and months), data and static frame (:func:`live_frame`).
    """
    month_s = lecture.CH5["deploy_months"].value
    controls = (
        log_slider("n_active", "N active", 9, 12, lecture.CH5["n_active"].value),
        log_slider("traffic", "tokens/s", 6, 10, lecture.CH5["traffic_model"].value),
        float_slider("months", "months", 0.5, 24, month_s, 0.5),
        float_slider("rl_flops", "RL FLOPs/token", 2, 6, 3, 0.5),
        float_slider("decode_mfu", "decode MFU", 0.05, 1, 1 / 3, 0.05),
        select("law_name", "law", tuple((LAW_LABELS[k], k) for k in training.LOSS_LAWS), "epoch"),
    )
    return curves("training", "05_overtraining", controls, _live_plot(), _live_data,
                "Costs of the lecture model's quality against pre-training tokens (left); over-training against "
                "traffic (right).", frame=live_frame)
