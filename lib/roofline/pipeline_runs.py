"""Published results of training pipeline schedules, beside chapter 3's bubble (:mod:`roofline.pipeline`).

``data/pipeline_runs.csv`` keeps the zero-bubble paper's tables (Qi, Wan, Huang and Lin, arXiv 2401.10241v1,
"Zero Bubble Pipeline Parallelism"; the ICLR 2024 version is titled "Zero Bubble (Almost) Pipeline
Parallelism"): Table 4, the measured throughput of 1F1B, interleaved
1F1B, ZB-1p and ZB-2p; Table 5, bubble rates the authors computed from profiled pass times. Every row has its
source, table, date and regime, and ``decimals``: the digits after the point of the value as transcribed
(3.5 has one). Whether the paper printed the throughputs below 10 that read with one decimal here (3.5, 1.4,
0.8) as such or with a trailing zero (3.50) is not confirmed; chapter 3 bounds each value by half a unit in the
last digit both ways.

>>> r = RUNS.get("ZB 1.5B P8 m24 1f1b bubble")
>>> print(f"{r.value:.3f} published, {r.predicted_bubble():.3f} from (P - 1)/(m + P - 1)")
0.243 published, 0.226 from (P - 1)/(m + P - 1)
"""

import dataclasses

from . import _check, pipeline, registry
RUN_SCHEDULES = ("1f1b", "1f1b-i", "zb-h1", "zb-h2", "zb-1p", "zb-2p")


@dataclasses.dataclass(frozen=True)
class PipelineRun:
    """One published result of a training pipeline: a schedule on ``n_stages`` GPUs with ``n_micro``
    micro-batches, its throughput (``quantity`` 'throughput', samples per GPU per second, ``kind``
    'measured') or its bubble rate ('bubble_rate', the idle share of the step, ``kind`` 'profiled' where
    the source computes it from profiled pass times)."""

    key: str
    model: str
    gpus: int
    n_stages: int
    n_micro: int
    schedule: str
    quantity: str
    value: float
    decimals: int
    unit: str
    kind: str
    source: str
    table: str
    date: str
    regime: str
    notes: str = ""

    def __post_init__(self):
        for name in ("gpus", "n_stages", "n_micro"):
            pipeline._whole(name, getattr(self, name))
        _check.choice("schedule", self.schedule, {s: s for s in RUN_SCHEDULES})
        _check.choice("quantity", self.quantity, {"throughput": 0, "bubble_rate": 0})
        _check.choice("kind", self.kind, {"measured": 0, "profiled": 0})
        _check.scalar("value", self.value, where="PipelineRun field")
        if not (isinstance(self.decimals, int) and 0 <= self.decimals <= 6):
            raise ValueError(f"decimals must be a whole number from 0 to 6; got {self.decimals!r}")
        if round(self.value, self.decimals) != self.value:
            raise ValueError(f"value {self.value!r} has more digits than decimals={self.decimals} allows")
        if self.quantity == "bubble_rate" and not self.value < 1:
            raise ValueError(f"value must be a bubble rate below 1; got {self.value!r}")
        _check.required_text("", self, ("source", "table", "date", "regime"))  # the registry names file and row
        _check.record(self)  # every field's type

    def half_unit(self, decimals=None):
        """Half a unit in the last printed digit: 0.05 for one decimal, 0.005 for two (``decimals`` given
        overrides the row's, for a reading of the table at another precision).

        >>> RUNS.get("ZB 6.2B P8 m24 1f1b throughput").half_unit()
        0.05
        >>> RUNS.get("ZB 6.2B P8 m24 1f1b throughput").half_unit(decimals=2)
        0.005
        """
        d = self.decimals if decimals is None else decimals
        pipeline._whole("decimals", d, minimum=0)
        return 0.5 * 10.0 ** -d

    def predicted_bubble(self):
        """The chapter's bubble for this run's P and m: (P - 1)/(m + P - 1) for 1F1B, (P - 1)/(3 m + P - 1)
        for ZB-H1 and ZB-1p (same memory), 0 for ZB-H2 and ZB-2p; None for interleaved (its v is uneven)."""
        given = dict(n_stages=self.n_stages, n_micro=self.n_micro)
        if self.schedule == "1f1b":
            return pipeline.bubble_fraction(**given)
        if self.schedule in ("zb-h1", "zb-1p"):
            return pipeline.bubble_fraction.under(schedule="zb-h1")(**given)
        if self.schedule in ("zb-h2", "zb-2p"):
            return 0.0
        return None


def _run_row(r):
    return PipelineRun(key=r["key"], model=r["model"], gpus=int(r["gpus"]), n_stages=int(r["n_stages"]),
                       n_micro=int(r["n_micro"]), schedule=r["schedule"], quantity=r["quantity"],
                       value=float(r["value"]), decimals=int(r["decimals"]), unit=r["unit"], kind=r["kind"], source=r["sources"],
                       table=r["table"], date=r["date"], regime=r["regime"], notes=r["notes"])


RUNS = registry.Registry("pipeline_runs.csv", _run_row, "pipeline run")
"""Published pipeline-schedule results of Qi et al. 2024 (zero bubble), Table 4 (measured throughput) and Table 5
(bubble rates from profiled pass times), GPT-3-like models on 8-32 A100s."""
