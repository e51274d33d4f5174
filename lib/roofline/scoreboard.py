"""Every published measurement the library holds, beside what the library predicts for it.

The scoreboard appendix is drawn from :func:`entries` when the book is built. Each :class:`Entry` says
what was measured, in which regime, the prediction, the measurement and their ratio, which way the
prediction bounds the measurement, and which term the residual belongs to:

- **decode** (``roofline.measured.REGISTRY``): the roofline's output tokens/s per chip, an upper
  bound on throughput;
- **all-to-all** (:data:`roofline.measured.LINKS`, the rows with a published time): link bytes at the
  link's line rate, a lower bound on time, and beside it the latency + bandwidth model fitted to the same
  link class (:func:`roofline.measured.fit_link`);
- **training** (:data:`roofline.training.REPORTED`): 6ND against the compute a lab reports, and the
  hours of a run at full utilisation, a lower bound on its GPU-hours;
- **pipeline bubble** (:data:`roofline.pipeline_runs.RUNS`, the profiled bubble rates): chapter 3's bubble for
  the run's stages and micro-batches, equal passes and free sends, a lower bound on the idle share;
- **KV capacity** (:data:`roofline.memory_runs.RUNS`, the layouts that give sequences per GPU): the
  sequences whose cache fits beside the weights each GPU holds (data-parallel attention), an upper bound
  on the batch a server runs.

>>> rows = entries()
>>> worst = summary(rows)["all-to-all, scale-out (InfiniBand)"]
>>> print(f"{worst['n']} all-to-alls: median {worst['median']:.2f}x the floor, worst {worst['worst']:.2f}x")
10 all-to-alls: median 1.33x the floor, worst 1.56x
"""

import dataclasses
import math
import statistics

from . import _check, hardware, measured, memory_runs, models, pipeline_runs, training

LINK_REGIMES = {"scale-up": "all-to-all, scale-up (NVLink, one node)", "scale-out": "all-to-all, scale-out (InfiniBand)"}


@dataclasses.dataclass(frozen=True)
class Entry:
    """One measurement beside its prediction."""

    key: str
    what: str             # the quantity, with its unit
    regime: str           # the group it is summarised in
    predicted: float
    measured: float
    bound: str            # 'upper' (prediction >= measurement), 'lower' (<=) or 'estimate'
    residual: str         # the term the gap belongs to
    source: str
    calibrated: float | None = None  # the calibrated model's prediction, where there is one

    def __post_init__(self):
        _check.record(self)  # every field's type

    @property
    def ratio(self):
        """Measured over predicted."""
        return self.measured / self.predicted

    @property
    def holds(self):
        """Whether the prediction bounds the measurement the way it claims to."""
        return {"upper": self.ratio <= 1, "lower": self.ratio >= 1}.get(self.bound, True)


def _decode():
    out = []
    for m in measured.REGISTRY:
        d = m.deployment()
        where = "one scale-up domain" if m.n_chips <= m.hardware.scaleup_domain else "across scale-up domains"
        refined, lecture = d.regime(m.batch, m.len_ctx, True), d.regime(m.batch, m.len_ctx, False)
        out.append(Entry(
            key=m.key, what="output tokens/s per chip", regime=f"decode ({refined}; {lecture} in the lecture's terms)",
            predicted=m.roofline_tokens_per_s_per_chip(), measured=m.out_tokens_per_s_per_chip, bound="upper",
            residual=f"{where}: the all-to-all, MoE matmuls and attention kernels below peak, scheduling overheads",
            source=m.source))
    return out


def _links():
    fits = {c: measured.fit_link(c) for c in measured.LINK_CLASSES}
    out = []
    for m in measured.LINKS:
        if m.use != "fit":  # a bandwidth only, over DeepEP's own de-duplicated byte count: see its notes
            continue
        out.append(Entry(
            key=m.key, what="s per all-to-all", regime=LINK_REGIMES[m.link_class], predicted=m.floor_s(),
            measured=m.time_s, bound="lower",
            residual="the fit's intercept (alpha) and a link below its line rate (beta)",
            source=m.source, calibrated=fits[m.link_class].time_s(m.link_bytes)))
    return out


def _training():
    out = []
    llama = models.get("Llama 3.1 405B")
    out.append(Entry(
        key="Llama 3.1 405B", what="pre-training FLOPs", regime="training compute (6ND)",
        predicted=training.pretrain_flops(n_active=llama.active_params, tokens_pre=llama.pretrain_tokens),
        measured=training.REPORTED["Llama 3.1 405B"]["flops"], bound="estimate",
        residual="none to speak of: the reported figure is itself about 6ND (attention FLOPs left out)",
        source=training.REPORTED["Llama 3.1 405B"]["source"]))
    v3, h800 = models.get("DeepSeek-V3"), hardware.get("H100")  # the H800 has the H100's tensor cores
    flops = training.pretrain_flops(n_active=v3.active_params, tokens_pre=v3.pretrain_tokens)
    out.append(Entry(
        key="DeepSeek-V3", what="H800 GPU-hours of pre-training", regime="training time (BF16-equivalent peak)",
        predicted=training.training_gpu_hours(train_flops=flops, mfu=1.0, flops=h800.flops_bf16),
        measured=training.REPORTED["DeepSeek-V3"]["gpu_hours"], bound="lower",
        residual="utilisation below the peak (trained with FP8 matmuls), attention FLOPs 6ND leaves out, "
                 "communication, restarts",
        source=training.REPORTED["DeepSeek-V3"]["source"]))
    return out


def _pipeline():
    out = []
    for r in pipeline_runs.RUNS:
        predicted = r.predicted_bubble() if r.quantity == "bubble_rate" else None
        if not predicted:  # throughput rows, interleaved runs and the bubble-free schedules
            continue
        out.append(Entry(
            key=r.key, what="bubble rate", regime="training pipeline bubble (profiled)", predicted=predicted,
            measured=r.value, bound="lower",
            residual="passes of unequal length (forward, backward, weight gradient) and the sends between "
                     "stages, which the formula takes as equal and free",
            source=f"{r.source}, {r.table}"))
    return out


def _memory():
    out = []
    for r in memory_runs.RUNS:
        if r.sequences_per_gpu is None:
            continue
        out.append(Entry(
            key=r.key, what="sequences per GPU", regime="decode KV capacity (sequences per GPU)",
            predicted=r.predicted_max_sequences(layout=True), measured=r.sequences_per_gpu, bound="upper",
            residual="memory the engine keeps for activations, graphs and communication buffers; contexts "
                     "still growing; a batch set by latency rather than memory",
            source=r.source))
    return out


def entries():
    """Every measurement the library holds, with its prediction: decode, all-to-all, training, pipeline
    bubble, KV capacity."""
    return _decode() + _links() + _training() + _pipeline() + _memory()


def summary(rows):
    """Per regime: how many, the median ratio and the worst (farthest from 1 on a log scale)."""
    if not isinstance(rows, (list, tuple)) or not all(isinstance(e, Entry) for e in rows):
        raise ValueError(f"rows must be a list of scoreboard Entries (see entries()); got {_check.short(rows)}")
    groups = {}
    for e in rows:
        groups.setdefault(e.regime, []).append(e.ratio)
    return {regime: {"n": len(r), "median": statistics.median(r), "worst": max(r, key=lambda x: abs(math.log(x)))}
            for regime, r in groups.items()}
