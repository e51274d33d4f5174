"""Chapter 8's data: published prefill throughputs, times to first token, speculative-decoding gains, the
kernels' published rates and facts of decode layouts.

One number a row in ``data/prefill_runs.csv``, each with the setup it was measured in (system, model,
chip and the registry row that stands for it, GPUs, precision, prompt and output tokens, sequences
or tokens per GPU, tokens verified per pass), its source, date and confidence, and where the setup
is our reading of the source, a note saying so. Rows are checked when the file is read, as every
table of the package is: a value outside its range, an unknown regime, model, chip or precision, a
setup number that is not positive, or a row without its source fails with the file and line.

A row names a model of :mod:`roofline.models` wherever it names a chip (``hardware_key``): its setup then
builds a :class:`~roofline.Deployment`. A row without a chip may name a model outside the registry (a
paper's headline figure), and a ``kernel`` row, a kernel's best published rate on a chip, may name no model.

DeepSeek's day-6 production figures (prefill and decode throughput per node, cache hits, the day's
tokens) and DeepSeek-V3's reported MTP acceptance (85-90%) and 1.8x TPS are chapter 5's rows in
:mod:`roofline.training_runs`; chapter 8 reads them from there, so each is kept once.

>>> r = RUNS.get("SGLang H100 prefill 4K")
>>> print(f"{r.value:,.0f} {r.unit} at {r.prompt_tokens:,.0f}-token prompts on {r.gpus} GPUs")
50,302 tokens/s per node at 4,096-token prompts on 32 GPUs
"""

import dataclasses

from . import _check, hardware, models, registry
from .deployment import Deployment

REGIMES = ("prefill", "time to first token", "speculative decoding", "kernel", "decode")
"""What a :class:`Run` measured (``kernel``: one kernel's best published rate, in TFLOPS or GB/s, on its chip;
``decode``: a fact of a decode layout, such as the copies of a cache tensor parallelism keeps)."""

GPUS_PER_NODE = 8  # the HGX nodes of the sources (H100, H800, H200)

_SETUP = ("gpus", "prompt_tokens", "output_tokens", "batch_per_gpu", "tokens_per_gpu", "pass_len")


@dataclasses.dataclass(frozen=True)
class Run:
    """One published number of chapter 8 and the setup it was measured in.

    ``low`` and ``high`` keep a range where the source gives one; ``hardware`` is the chip as
    published and ``hardware_key`` the registry row used for it (the H100's for an H800);
    ``pass_len`` is the tokens of a sequence one pass processes: those verified (1 without speculation), or a
    chunk of a prompt (chunked prefill).
    Setup numbers the source does not give are None.
    """

    key: str
    quantity: str
    value: float
    low: float | None
    high: float | None
    unit: str
    regime: str
    system: str
    model: str
    hardware: str
    hardware_key: str
    gpus: int | None
    precision: str
    prompt_tokens: float | None
    output_tokens: float | None
    batch_per_gpu: float | None
    tokens_per_gpu: float | None
    pass_len: float | None
    source: str
    date: str
    confidence: str
    notes: str = ""

    def __post_init__(self):
        where = f"Run {self.key!r}"
        _check.choice("regime", self.regime, {r: r for r in REGIMES})
        _check.choice("confidence", self.confidence, {c: c for c in ("high", "medium", "low")})
        _check.scalar("value", self.value, "positive", where)
        for name in ("low", "high") + _SETUP:
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), "positive", where)
        if (self.low is not None and self.low > self.value) or (self.high is not None and self.high < self.value):
            raise ValueError(f"{where}: value {self.value:g} lies outside its range [{self.low}, {self.high}]")
        text = ("quantity", "unit", "system", "source", "date") + (() if self.regime == "kernel" else ("model",))
        _check.required_text(where, self, text)
        if self.hardware_key and self.model.strip():
            models.get(self.model)  # a row with a chip builds a deployment of a registry model
        if self.hardware_key:
            hw = hardware.get(self.hardware_key)
            if self.precision:
                hw.flops(self.precision)  # raises if the chip publishes no such rate
        elif self.precision:
            registry.precision_name(self.precision)

    def deployment(self, **options):
        """The :class:`~roofline.Deployment` of the run's model on its GPUs at its precision
        (``options`` pass on: ``kv_precision=``, ``mla_absorbed=``, ...)."""
        if not (self.hardware_key and self.gpus and self.precision):
            raise ValueError(f"Run {self.key!r} does not give its chip, GPUs and precision")
        return Deployment(models.get(self.model), hardware.get(self.hardware_key), precision=self.precision,
                          n_chips=self.gpus, **options)


def _row(r):
    num = registry.number
    return Run(key=r["key"], quantity=r["quantity"], value=float(r["value"]), low=num(r["low"]),
               high=num(r["high"]), unit=r["unit"], regime=r["regime"], system=r["system"], model=r["model"],
               hardware=r["hardware"], hardware_key=r["hardware_key"], gpus=num(r["gpus"], int),
               precision=r["precision"], prompt_tokens=num(r["prompt_tokens"]), output_tokens=num(r["output_tokens"]),
               batch_per_gpu=num(r["batch_per_gpu"]), tokens_per_gpu=num(r["tokens_per_gpu"]),
               pass_len=num(r["pass_len"]), source=r["source"], date=r["date"], confidence=r["confidence"],
               notes=r["notes"])


RUNS = registry.Registry("prefill_runs.csv", _row, "prefill run")
"""Published prefill throughputs, times to first token and speculative-decoding gains, one number a row."""


def reported(key):
    """The value of the :data:`RUNS` row called ``key``."""
    with _check.naming("key"):
        return RUNS.get(key).value
