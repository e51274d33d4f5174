"""Published decode throughput, set against the roofline of the same deployment.

The roofline of :mod:`roofline.decode` is a lower bound on the time of a decode
step, so the tokens per second it predicts are an upper bound. This module keeps
a few published **decode** measurements of models and chips the registries hold,
each with the setup needed to build the matching :class:`~roofline.Deployment`:
chips, sequences per chip, context length, weight precision and KV-cache bytes.
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
    source: str
    confidence: str                # high, medium or low
    notes: str = ""

    def __post_init__(self):
        for name in ("n_chips", "batch_per_chip", "len_ctx", "kv_bytes_per_elem", "out_tokens_per_s_per_chip"):
            _check.check_value(name, getattr(self, name), where="Measurement field")
        hardware.get(self.hardware_key).flops(self.precision)  # raises if unknown or unpublished
        models.get(self.model_key)

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
        names = {b: p for p, b in registry.PRECISIONS.items()}
        return names[self.kv_bytes_per_elem]

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
            _check.check_value(name, getattr(self, name), where="SpeedCost field")
        if self.fast_tok_s_per_chip > self.slow_tok_s_per_chip:
            raise ValueError(f"SpeedCost {self.key!r}: the fast point must not have the higher throughput")
        hardware.get(self.hardware_key)
        models.get(self.model_key)

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
