"""Published deployments measured against chapter 4's memory model (``data/memory_runs.csv``).

Each row is one published serving layout of a model: where it ran (nodes x GPUs per node),
its expert-parallel width ``ep``, how attention was split (``attention_tp`` ways by heads;
1 is data-parallel attention), the routed and shared experts each GPU holds where the source
says, and, where the source gives one, the sequences each GPU holds at a context (published,
or derived from published figures, as ``sequences_basis`` says). Every row carries its source,
date and regime.

:meth:`MemoryRun.weights_per_gpu_bytes` is the weight each GPU of the layout holds: with the
published expert placement where the row has one, else the routed experts spread evenly.

:meth:`MemoryRun.predicted_max_sequences` is the chapter's prediction of the sequences per
GPU whose cache fits beside the weights: perfect sharding (``roofline.memory``), or with
the layout's own weights per GPU (``layout=True``).

>>> r = RUNS.get("DeepSeek inference overview decode EP144")
>>> r.n_gpus, r.n_gpus // r.gpus_per_node
(144, 18)
"""

import dataclasses

from . import _check, hardware, memory, models, registry
from .deployment import Deployment

PHASES = ("prefill", "decode")
BASES = ("published", "derived", "")


@dataclasses.dataclass(frozen=True)
class MemoryRun:
    """One published serving layout, with the sequences per GPU where the source gives them."""

    key: str
    system: str
    hardware: str                  # the registry's chip or a named stand-in (H800: the H100's memory)
    model: str
    phase: str                     # 'prefill' or 'decode'
    nodes: int
    gpus_per_node: int
    ep: int                        # expert-parallel GPUs
    attention_tp: int              # GPUs that split one sequence's attention heads (1: data-parallel)
    routed_experts_per_gpu: float | None
    shared_experts_per_gpu: float | None   # beside the routed ones; 0: on GPUs of their own in a routed one's place
    weight_precision: str
    kv_bytes_per_token: float | None
    len_ctx: float | None
    sequences_per_gpu: float | None
    sequences_basis: str           # 'published', 'derived' or '' (none given)
    regime: str
    source: str
    date: str
    confidence: str
    notes: str = ""

    def __post_init__(self):
        _check.choice("phase", self.phase, {p: p for p in PHASES})
        if self.sequences_basis not in BASES:
            raise ValueError(f"MemoryRun {self.key!r}: sequences_basis must be one of {BASES}; "
                             f"got {self.sequences_basis!r}")
        with _check.naming("weight_precision"):
            registry.precision_name(self.weight_precision)
        for name in ("nodes", "gpus_per_node", "ep", "attention_tp"):
            _check.scalar(name, getattr(self, name), where="MemoryRun field")
        for name in ("routed_experts_per_gpu", "kv_bytes_per_token", "len_ctx", "sequences_per_gpu"):
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), where="MemoryRun field")
        if self.shared_experts_per_gpu is not None:
            _check.scalar("shared_experts_per_gpu", self.shared_experts_per_gpu, "nonnegative",
                               where="MemoryRun field")
        if self.ep > self.n_gpus:
            raise ValueError(f"MemoryRun {self.key!r}: ep = {self.ep} exceeds the {self.n_gpus} GPUs of the unit")
        if (self.sequences_per_gpu is None) != (self.sequences_basis == ""):
            raise ValueError(f"MemoryRun {self.key!r}: sequences_basis must be 'published' or 'derived' exactly "
                             "where sequences_per_gpu is given")
        if self.sequences_per_gpu is not None and (self.len_ctx is None or self.kv_bytes_per_token is None):
            raise ValueError(f"MemoryRun {self.key!r}: sequences_per_gpu needs len_ctx and kv_bytes_per_token")
        _check.record(self)  # every field's type

    @property
    def n_gpus(self):
        """GPUs of the deployment unit, nodes x GPUs per node."""
        return self.nodes * self.gpus_per_node

    def deployment(self):
        """The chapter's deployment of the row: its model on ``n_gpus`` of its chip at its weight precision.

        The H800 is the H100 with a cut-down NVLink: the same 80 GB of HBM, so the H100's row stands in.
        """
        chip = "H100" if self.hardware == "H800" else self.hardware
        return Deployment(models.get(self.model), hardware.get(chip), precision=self.weight_precision,
                          n_chips=self.n_gpus, kv_bytes=self.kv_bytes_per_token)

    def weights_per_gpu_bytes(self):
        """Weight bytes each GPU of the layout holds, one stage.

        With the placement the source publishes (``routed_experts_per_gpu`` and ``shared_experts_per_gpu``
        given): the weights outside the routed experts, shared experts aside, split ``attention_tp`` ways
        (attention, dense layers and embeddings taken as split with attention), plus whole experts, the routed
        ones and the shared ones the GPU holds. DeepSeek's EP144 decode: the 16.6e9 always-on parameters
        (the shared expert among them) plus 2 routed experts of 2.55e9. DeepSeek's EP320 decode: one expert
        per GPU, the shared experts on GPUs of their own in a routed expert's place (same size in
        DeepSeek-V3). Without a published placement and with data-parallel attention:
        :data:`roofline.memory.weights_per_gpu_dp_attention_bytes`, the routed experts spread evenly (1/G).
        """
        d = self.deployment()
        spread = d.evaluate(memory.weights_per_gpu_dp_attention_bytes, n_stages=1)
        if self.routed_experts_per_gpu is None or self.shared_experts_per_gpu is None:
            if self.attention_tp != 1:
                raise ValueError(f"MemoryRun {self.key!r} gives no expert placement (routed_experts_per_gpu "
                                 "and shared_experts_per_gpu) and splits attention "
                                 f"{self.attention_tp} ways; only data-parallel rows may leave it out")
            return spread
        m = models.get(self.model)
        b_w = d.values["bytes_per_param"]
        always_on = spread - m.routed_params * b_w / self.n_gpus  # N_active - K N_routed / E, in bytes
        shared = m.shared_params * b_w
        expert = m.expert_params * b_w
        per_shared = shared / m.shared_experts if m.shared_experts else 0.0
        return ((always_on - shared) / self.attention_tp + self.routed_experts_per_gpu * expert
                + self.shared_experts_per_gpu * per_shared)

    def predicted_max_sequences(self, layout=False):
        """Sequences per GPU whose cache fits in HBM beside the weights at ``len_ctx``, one stage.

        ``layout=False``: the chapter's perfect sharding (:data:`roofline.memory.max_micro_batch_n` over ``G``).
        ``layout=True``: each GPU holds the layout's weights (:meth:`weights_per_gpu_bytes`: the weights outside
        the routed experts whole under data-parallel attention, and the published expert placement where the
        row has one).
        """
        if not isinstance(layout, bool):
            raise ValueError(f"layout must be True or False; got {_check.short(layout)}")
        if self.len_ctx is None or self.kv_bytes_per_token is None:
            raise ValueError(f"MemoryRun {self.key!r} gives no context and KV bytes (len_ctx, kv_bytes_per_token) "
                             "to predict a batch from")
        d = self.deployment()
        if not layout:
            return d.evaluate(memory.max_micro_batch_n, len_ctx=self.len_ctx, n_stages=1) / self.n_gpus
        w = self.weights_per_gpu_bytes()
        return max(d.hardware.hbm_bytes - w, 0.0) / (self.len_ctx * self.kv_bytes_per_token)

    def ratio(self, layout=False):
        """Published (or derived) sequences per GPU over the predicted maximum: the share of the predicted
        capacity in use."""
        if self.sequences_per_gpu is None:
            raise ValueError(f"MemoryRun {self.key!r} gives no sequences per GPU (sequences_per_gpu)")
        return self.sequences_per_gpu / self.predicted_max_sequences(layout)


def _row(r):
    num = registry.number
    return MemoryRun(
        key=r["key"], system=r["system"], hardware=r["hardware"], model=r["model"], phase=r["phase"],
        nodes=int(r["nodes"]), gpus_per_node=int(r["gpus_per_node"]), ep=int(r["ep"]),
        attention_tp=int(r["attention_tp"]), routed_experts_per_gpu=num(r["routed_experts_per_gpu"]),
        shared_experts_per_gpu=num(r["shared_experts_per_gpu"]),
        weight_precision=r["weight_precision"], kv_bytes_per_token=num(r["kv_bytes_per_token"]),
        len_ctx=num(r["len_ctx"]), sequences_per_gpu=num(r["sequences_per_gpu"]),
        sequences_basis=r["sequences_basis"], regime=r["regime"], source=r["sources"], date=r["date"],
        confidence=r["confidence"], notes=r["notes"],
    )


RUNS = registry.Registry("memory_runs.csv", _row, "memory run")
"""Published serving layouts (DeepSeek's, SGLang's) with their sources, for chapter 4's memory model."""
