"""Published decode throughput, set against the roofline of the same deployment.

The roofline of :mod:`roofline.decode` is a lower bound on the time of a decode
step, so the tokens per second it predicts are an upper bound. This module keeps
a few published **decode** measurements of models and chips the registries hold,
each with the setup needed to build the matching :class:`~roofline.Deployment`:
chips, sequences per chip, context length, weight precision and KV-cache bytes;
and its all-to-all as the source describes it, the dispatch's format and how the
run overlaps the all-to-all with compute (:data:`A2A_DISPATCHES`, :data:`A2A_OVERLAPS`).
The numbers ship in ``data/measurements.csv`` with their sources; values derived
from them (per GPU = per node / 8) are stated in the ``notes`` column.

A measurement's batch is given **per chip**, as the sources give it. A
Deployment's step is for ``batch`` sequences spread over ``n_chips`` chips, so
the Deployment gets ``batch_per_chip * n_chips`` sequences.

>>> m = get("LMSYS H100 EP72")
>>> print(f"{m.roofline_tokens_per_s_per_chip():,.0f} vs {m.out_tokens_per_s_per_chip:,.0f} tokens/s per GPU")
13,939 vs 2,785 tokens/s per GPU
>>> print(f"measured / roofline = {m.measured_over_roofline():.3f} (lecture's terms: "
...       f"{m.measured_over_roofline(refined=False):.3f})")
measured / roofline = 0.200 (lecture's terms: 0.147)

``SPEED_COST`` keeps published pairs of operating points of one system, a faster and a
cheaper one, to set beside the roofline's own trade of speed for cost:

>>> p = SPEED_COST.get("InferenceX B200 R1")
>>> print(f"{p.speedup():.2f}x the speed for {p.cost_ratio():.1f}x the cost per token")
1.69x the speed for 4.7x the cost per token
"""

import dataclasses

from . import _check, hardware, models, registry
from .deployment import Deployment

GPUS_PER_NODE = 8  # HGX H100 / H800 nodes in the sources: 8 GPUs each

A2A_DISPATCHES = {"bf16": "bf16", "fp8": "fp8", "nvfp4": "fp4"}
"""A run's MoE dispatch format and the precision whose bytes per value it carries, scales left out
(``registry.PRECISIONS``): FP8 as DeepSeek's kernels send it, NVFP4 as four-bit values in blocks of 16."""

A2A_OVERLAPS = {
    "two-batch": "two micro-batches, one computing while the other communicates: the whole all-to-all "
                 "can hide behind compute",
    "combine": "one batch, the combine overlapped with part of the MoE arithmetic: the dispatch is exposed",
    "none": "no overlap: the all-to-all adds to the step",
}
"""How a run overlaps its all-to-all with compute, as its source states."""


_KV_PRECISIONS = {b: p for p, b in registry.PRECISIONS.items()}  # bytes per cached value -> its precision


def _named(field, check):
    """Run ``check`` (a registry lookup); a ValueError it raises names ``field``, the record's own name for it."""
    with _check.naming(field):
        check()


@dataclasses.dataclass(frozen=True)
class Measurement:
    """One published decode measurement and the setup it ran with."""

    key: str
    hardware_key: str              # a name in roofline.hardware (H800 runs use "H100"; see notes)
    model_key: str                 # a name in roofline.models
    n_chips: int                   # GPUs serving decode together (the expert-parallel group)
    batch_per_chip: float          # sequences decoded together on each chip
    len_ctx: float                 # tokens of context (KV length) per sequence
    precision: str                 # weights and FLOP rate: 'fp4', 'fp8' or 'bf16'
    kv_bytes_per_elem: float       # byte per cached value: 2 for BF16, 1 for FP8
    kv_bytes_per_token_published: float | None  # byte/token where the cache layout adds scales; else None
    out_tokens_per_s_per_node: float | None     # output token/s per 8-GPU node, where the source gives it
    out_tokens_per_s_per_chip: float            # output token/s per chip (per node / 8 where so published)
    a2a_dispatch: str              # the MoE dispatch's format: a key of A2A_DISPATCHES ('fp8', 'nvfp4', 'bf16')
    a2a_overlap: str               # how the all-to-all overlaps compute: a key of A2A_OVERLAPS
    source: str
    confidence: str                # high, medium or low
    notes: str = ""

    def __post_init__(self):
        for name in ("n_chips", "batch_per_chip", "len_ctx", "kv_bytes_per_elem", "out_tokens_per_s_per_chip"):
            _check.scalar(name, getattr(self, name), where="Measurement field")
        for name in ("kv_bytes_per_token_published", "out_tokens_per_s_per_node"):
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), where="Measurement field")
        _check.whole("n_chips", self.n_chips, where="Measurement field")
        if self.kv_bytes_per_elem not in _KV_PRECISIONS:
            raise ValueError(f"Measurement field: kv_bytes_per_elem must be one of "
                             f"{', '.join(f'{b:g} ({p})' for b, p in _KV_PRECISIONS.items())}; "
                             f"got {self.kv_bytes_per_elem!r}")
        _named("hardware_key", lambda: hardware.get(self.hardware_key).flops(self.precision))  # unknown, unpublished
        _named("model_key", lambda: models.get(self.model_key))
        for name, accepted in (("a2a_dispatch", A2A_DISPATCHES), ("a2a_overlap", A2A_OVERLAPS)):
            value = getattr(self, name)
            if not isinstance(value, str) or value not in accepted:
                raise ValueError(f"Measurement {self.key!r}: {name} must be one of {list(accepted)}; "
                                 f"got {_check.short(value)}")
        _check.record(self)  # every other field's type

    @property
    def hardware(self):
        """The :class:`~roofline.hardware.Hardware` it ran on (or stands in for it)."""
        return hardware.get(self.hardware_key)

    @property
    def model(self):
        """The :class:`~roofline.models.Model` it served."""
        return models.get(self.model_key)

    @property
    def batch(self):
        """Sequences in one step of the whole deployment, per chip times chips."""
        return self.batch_per_chip * self.n_chips

    @property
    def kv_bytes(self):
        """KV-cache bytes per token, the published layout if given, else the model's formula."""
        if self.kv_bytes_per_token_published is not None:
            return self.kv_bytes_per_token_published
        return self.model.kv_bytes_per_token(self.kv_bytes_per_elem)

    @property
    def kv_precision(self):
        """The KV cache's precision, 'bf16' or 'fp8', from its bytes per element; attention math runs at it."""
        return _KV_PRECISIONS[self.kv_bytes_per_elem]

    def deployment(self):
        """The :class:`~roofline.Deployment` with the measurement's chips, precisions and KV bytes."""
        return Deployment(self.model, self.hardware, precision=self.precision, n_chips=self.n_chips,
                          kv_bytes=self.kv_bytes, kv_precision=self.kv_precision)

    def terms(self, refined=True):
        """The roofline's compute, weight-fetch, KV-fetch and step time of one step, s.

        ``refined`` (default): attention FLOPs at the KV precision's rate and only the experts
        touched read (:meth:`roofline.Deployment.terms`); False: the lecture's three terms.
        """
        return self.deployment().terms(self.batch, self.len_ctx, refined)

    def roofline_tokens_per_s_per_chip(self, refined=True):
        """Output tokens/s per chip that the roofline allows: batch / step time / chips."""
        return self.batch / self.deployment().step_time_s(self.batch, self.len_ctx, refined) / self.n_chips

    def measured_step_time_s(self):
        """Step time implied by the measurement, s: sequences per chip / tokens per s per chip."""
        return self.batch_per_chip / self.out_tokens_per_s_per_chip

    def measured_over_roofline(self, refined=True):
        """Measured over roofline throughput; below 1, since the roofline is an upper bound."""
        return self.out_tokens_per_s_per_chip / self.roofline_tokens_per_s_per_chip(refined)


def _from_row(r):
    return Measurement(
        key=r["key"], hardware_key=r["hardware"], model_key=r["model"], n_chips=int(r["n_chips"]),
        batch_per_chip=float(r["batch_per_chip"]), len_ctx=float(r["len_ctx"]), precision=r["precision"],
        kv_bytes_per_elem=float(r["kv_bytes_per_elem"]),
        kv_bytes_per_token_published=registry.number(r["kv_bytes_per_token"]),
        out_tokens_per_s_per_node=registry.number(r["out_tokens_per_s_per_node"]),
        out_tokens_per_s_per_chip=float(r["out_tokens_per_s_per_chip"]),
        a2a_dispatch=r["a2a_dispatch"], a2a_overlap=r["a2a_overlap"],
        source=r["sources"], confidence=r["confidence"], notes=r["notes"],
    )


REGISTRY = registry.Registry("measurements.csv", _from_row, "measurement")
get = REGISTRY.get
names = REGISTRY.names


@dataclasses.dataclass(frozen=True)
class SpeedCost:
    """Two measured operating points of one serving system: a faster one and a cheaper one.

    Throughput per chip at one price sets the cost per token, so the cost of the fast point
    over the slow one is ``slow_tok_s_per_chip / fast_tok_s_per_chip``.
    """

    key: str
    model_key: str
    hardware_key: str
    fast_point: str                    # what the faster point is (per-user speed, latency bound)
    slow_point: str
    fast_user_tok_s: float | None      # output tokens per second one user sees; None where unpublished
    slow_user_tok_s: float | None
    fast_tok_s_per_chip: float         # output tokens per second per chip
    slow_tok_s_per_chip: float
    source: str
    confidence: str
    notes: str = ""

    def __post_init__(self):
        for name in ("fast_tok_s_per_chip", "slow_tok_s_per_chip"):
            _check.scalar(name, getattr(self, name), where="SpeedCost field")
        for name in ("fast_user_tok_s", "slow_user_tok_s"):
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), where="SpeedCost field")
        if self.fast_tok_s_per_chip > self.slow_tok_s_per_chip:
            raise ValueError(f"SpeedCost {self.key!r}: the fast point must not have the higher throughput "
                             f"(fast_tok_s_per_chip {self.fast_tok_s_per_chip:g} > slow_tok_s_per_chip "
                             f"{self.slow_tok_s_per_chip:g})")
        _named("hardware_key", lambda: hardware.get(self.hardware_key))
        _named("model_key", lambda: models.get(self.model_key))
        _check.record(self)  # every other field's type

    def speedup(self):
        """Per-user speed of the fast point over the slow one, or None where a speed is unpublished."""
        if self.fast_user_tok_s is None or self.slow_user_tok_s is None:
            return None
        return self.fast_user_tok_s / self.slow_user_tok_s

    def cost_ratio(self):
        """Cost per token of the fast point over the slow one: slow throughput / fast throughput."""
        return self.slow_tok_s_per_chip / self.fast_tok_s_per_chip


def _speed_cost_row(r):
    return SpeedCost(
        key=r["key"], model_key=r["model"], hardware_key=r["hardware"], fast_point=r["fast_point"],
        slow_point=r["slow_point"], fast_user_tok_s=registry.number(r["fast_user_tok_s"]),
        slow_user_tok_s=registry.number(r["slow_user_tok_s"]),
        fast_tok_s_per_chip=float(r["fast_tok_s_per_chip"]), slow_tok_s_per_chip=float(r["slow_tok_s_per_chip"]),
        source=r["sources"], confidence=r["confidence"], notes=r["notes"],
    )


SPEED_COST = registry.Registry("speed_cost.csv", _speed_cost_row, "speed-cost measurement")
"""Published pairs of operating points (faster vs cheaper) of real serving systems."""


# -- links: published all-to-all times, and a latency + bandwidth model fitted to them ---------------
LINK_CLASSES = ("scale-up", "scale-out")


@dataclasses.dataclass(frozen=True)
class LinkMeasurement:
    """One published MoE all-to-all (dispatch or combine) on one link class, with its setup.

    Each GPU sends (dispatch) or receives (combine) ``tokens_per_gpu x top_k`` copies of a ``hidden``-wide
    activation at ``bytes_per_value``: the **payload**. With experts spread evenly over ``ep`` GPUs,
    ``gpus_per_node`` to a node, the share of it that crosses the link is :attr:`link_share`: off-node
    copies for the scale-out link (the NIC), on-node copies to other GPUs for the scale-up link (NVLink).
    """

    key: str
    link_class: str                # 'scale-up' (NVLink) or 'scale-out' (the NIC)
    system: str
    kernel: str                    # 'low-latency' or 'normal' (DeepEP's two kernel families)
    operation: str                 # 'dispatch' or 'combine'
    ep: int                        # expert-parallel GPUs
    gpus_per_node: int
    tokens_per_gpu: int
    hidden: int
    top_k: int
    bytes_per_value: float         # FP8 with per-128 FP32 scales: 1.03125; BF16: 2
    time_s: float | None           # published time of one all-to-all; None where only a bandwidth is
    bandwidth_bytes_per_s: float   # as published (the source's own byte count over its time)
    line_rate_bytes_per_s: float   # the link's maximum, one direction
    use: str                       # 'fit' (fitted and floor-checked), 'floor' (floor-checked), 'shown'
    source: str
    date: str
    confidence: str
    notes: str = ""

    def __post_init__(self):
        _check.choice("link_class", self.link_class, {c: c for c in LINK_CLASSES})
        _check.choice("operation", self.operation, {"dispatch": 0, "combine": 0})
        _check.choice("use", self.use, {"fit": 0, "floor": 0, "shown": 0})
        for name in ("ep", "gpus_per_node", "tokens_per_gpu", "hidden", "top_k", "bytes_per_value",
                     "bandwidth_bytes_per_s", "line_rate_bytes_per_s"):
            _check.scalar(name, getattr(self, name), where="LinkMeasurement field")
        if self.time_s is not None:
            _check.scalar("time_s", self.time_s, where="LinkMeasurement field")
        elif self.use == "fit":
            raise ValueError(f"LinkMeasurement {self.key!r}: use 'fit' needs a published time (time_us)")
        _check.record(self)  # every other field's type

    @property
    def payload_bytes(self):
        """The bytes one GPU sends in a dispatch or receives in a combine, tokens x top-k x hidden x bytes per
        value."""
        return self.tokens_per_gpu * self.top_k * self.hidden * self.bytes_per_value

    @property
    def link_share(self):
        """The share of the payload on this link, with the experts spread evenly over ``ep`` GPUs.

        Scale-out: the copies bound for other nodes. Scale-up: the copies bound for the node's other GPUs.
        """
        on_node = min(self.ep, self.gpus_per_node)
        if self.link_class == "scale-out":
            return (self.ep - on_node) / self.ep
        return (on_node - 1) / self.ep

    @property
    def link_bytes(self):
        """Payload bytes that cross this link."""
        return self.payload_bytes * self.link_share

    def floor_s(self):
        """The datasheet floor: link bytes at the line rate, s. No measurement can beat it."""
        return self.link_bytes / self.line_rate_bytes_per_s


def _link_row(r):
    return LinkMeasurement(
        key=r["key"], link_class=r["link_class"], system=r["system"], kernel=r["kernel"], operation=r["operation"],
        ep=int(r["ep"]), gpus_per_node=int(r["gpus_per_node"]), tokens_per_gpu=int(r["tokens_per_gpu"]),
        hidden=int(r["hidden"]), top_k=int(r["top_k"]), bytes_per_value=float(r["bytes_per_value"]),
        time_s=None if registry.number(r["time_us"]) is None else registry.number(r["time_us"]) * 1e-6,
        bandwidth_bytes_per_s=float(r["bandwidth_gb_per_s"]) * 1e9,
        line_rate_bytes_per_s=float(r["line_rate_gb_per_s"]) * 1e9, use=r["use"],
        source=r["sources"], date=r["date"], confidence=r["confidence"], notes=r["notes"],
    )


LINKS = registry.Registry("links.csv", _link_row, "link measurement")
"""Published all-to-all times and bandwidths (DeepEP on H800 with ConnectX-7 InfiniBand), with their setups."""


@dataclasses.dataclass(frozen=True)
class LinkFit:
    """``t = alpha + link_bytes / beta``, fitted by least squares to one link class's measured all-to-alls.

    ``alpha`` is the fit's intercept, s: what an all-to-all costs beyond its bytes at ``beta``. It is not a
    constant of the link: it also absorbs what differs between the kernels fitted together (dispatch casts
    to FP8, combine reduces), the on-node traffic moving at the same time, waiting for the slowest sender
    and per-peer costs, and it moves with the rows chosen (fit dispatch or combine alone with
    ``operation``). ``beta`` is the bandwidth the link achieves, bytes/s per direction; ``residuals``
    (measured - fitted) / measured, in the order of ``keys``.
    """

    link_class: str
    alpha_s: float
    beta_bytes_per_s: float
    keys: tuple
    residuals: tuple

    def __post_init__(self):
        _check.scalar("beta_bytes_per_s", self.beta_bytes_per_s, where="LinkFit")
        _check.record(self)  # every other field's type

    def time_s(self, link_bytes):
        """One all-to-all moving ``link_bytes`` over the link, s (calibrated)."""
        return self.alpha_s + _check.check_value("link_bytes", link_bytes, "nonnegative") / self.beta_bytes_per_s


def fit_link(link_class, operation=None):
    """The :class:`LinkFit` of ``link_class`` ('scale-up' or 'scale-out') over its rows marked ``use = fit``
    (only ``operation``'s, 'dispatch' or 'combine', if given).

    >>> f = fit_link("scale-out")
    >>> print(f"alpha {f.alpha_s * 1e6:.0f} us, beta {f.beta_bytes_per_s / 1e9:.1f} GB/s, "
    ...       f"worst residual {max(abs(r) for r in f.residuals):.0%} over {len(f.keys)} all-to-alls")
    alpha 20 us, beta 41.8 GB/s, worst residual 6% over 10 all-to-alls
    """
    link_class = _check.choice("link_class", link_class, {c: c for c in LINK_CLASSES})
    if operation is not None:
        operation = _check.choice("operation", operation, {"dispatch": "dispatch", "combine": "combine"})
    rows = [m for m in LINKS if m.link_class == link_class and m.use == "fit"
            and operation in (None, m.operation)]
    if len(rows) < 2 or len({m.link_bytes for m in rows}) < 2:
        raise ValueError(f"fit_link: {link_class!r} ({operation or 'both operations'}) needs two measured "
                         "all-to-alls of different sizes")
    x = [m.link_bytes for m in rows]
    t = [m.time_s for m in rows]
    n, sx, st = len(x), sum(x), sum(t)
    slope = (n * sum(a * b for a, b in zip(x, t)) - sx * st) / (n * sum(a * a for a in x) - sx * sx)
    alpha = (st - slope * sx) / n
    return LinkFit(link_class, alpha, 1 / slope, tuple(m.key for m in rows),
                   tuple((ti - alpha - slope * xi) / ti for xi, ti in zip(x, t)))
