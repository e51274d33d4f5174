"""Published training runs, RL costs, serving volumes and serving facts, scaling-law fits and the stock of public
text (chapter 5).

One number a row in ``data/training_runs.csv``, each with its source, date and regime, read through
:class:`roofline.registry.Registry` like the other measurement tables; chapter 5 sets its predictions
(:mod:`roofline.training`) beside them.

>>> print(f"{reported('DeepSeek-V3 pre-training hours'):.4g} H800-hours")
2.664e+06 H800-hours
>>> reported_range("DeepSeek-V3 MTP acceptance")
(0.85, 0.9)
"""

import dataclasses

from . import _check, registry
from ._check import check_value

REPORT_REGIMES = ("pre-training", "training, all stages", "RL", "post-training", "prefill", "decode", "serving",
                  "scaling law", "data")
"""What a :class:`Report` can be about: its ``regime`` is one of these."""


@dataclasses.dataclass(frozen=True)
class Report:
    """One number a lab or a study published: a run's GPU-hours or MFU, a day of serving, a stock of text.

    ``low`` and ``high`` keep a range where the source gives one (``value`` then says which point of it is
    used); ``regime`` says what the number is about (one of :data:`REPORT_REGIMES`)."""

    key: str
    quantity: str
    value: float
    low: float | None
    high: float | None
    unit: str
    regime: str
    model: str
    chip: str
    chips: int | None
    source: str
    date: str
    notes: str = ""

    def __post_init__(self):
        _check.choice("regime", self.regime, {r: r for r in REPORT_REGIMES})
        _check.scalar("value", self.value, "positive", f"Report {self.key!r}")
        for name in ("low", "high", "chips"):
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), "positive", f"Report {self.key!r}")
        if (self.low is not None and self.low > self.value) or (self.high is not None and self.high < self.value):
            raise ValueError(f"Report {self.key!r}: value {self.value:g} lies outside its range "
                             f"[{self.low}, {self.high}]")
        _check.required_text(f"Report {self.key!r}", self, ("source", "date", "unit", "quantity"))
        _check.record(self)  # every field's type


def _report_row(r):
    return Report(key=r["key"], quantity=r["quantity"], value=float(r["value"]), low=registry.number(r["low"]),
                  high=registry.number(r["high"]), unit=r["unit"], regime=r["regime"], model=r["model"],
                  chip=r["chip"], chips=registry.number(r["chips"], int), source=r["sources"], date=r["date"],
                  notes=r["notes"])


RUNS = registry.Registry("training_runs.csv", _report_row, "training report")
"""Published training runs (GPU-hours, MFU, tokens), RL costs, serving volumes, scaling-law fits and the stock
of public text, one number a row, each with its source, date and regime."""


def reported(key):
    """The value of the :data:`RUNS` row called ``key``."""
    with _check.naming("key"):
        return RUNS.get(key).value


def reported_range(key):
    """``(low, high)`` of the :data:`RUNS` row called ``key``: the range its source gives, each end that it does not
    give replaced by the row's value (so a single number comes back as ``(value, value)``)."""
    with _check.naming("key"):
        r = RUNS.get(key)
    return (r.value if r.low is None else r.low, r.value if r.high is None else r.high)
