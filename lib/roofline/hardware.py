"""Accelerators: dense FLOP/s per precision, HBM, interconnect and price, each with its source.

The numbers ship in ``data/hardware.csv`` inside the package (compiled from
vendor datasheets and documentation; see the ``sources`` column). FLOP/s are
**dense** (NVIDIA and AMD headline 2:4-sparse figures are halved), a
multiply-add counts as 2 FLOPs, bandwidths are bytes/s and scale-up bandwidth
is bidirectional per chip.

>>> h100 = get("H100")
>>> print(f"{h100.flops('bf16') / 1e12:,.0f} TFLOP/s, {h100.hbm_bw / 1e12:.2f} TB/s")
989 TFLOP/s, 3.35 TB/s
>>> get("Rubin").preliminary
True
"""

import dataclasses

from . import _check, _data

PRECISIONS = ("bf16", "fp8", "fp4")


@dataclasses.dataclass(frozen=True)
class Hardware:
    """One accelerator, or one rack counted as a single device.

    Vary a field with :func:`dataclasses.replace`, e.g.
    ``replace(get("Rubin"), hbm_bw=20e12)`` for the lecture's 20 TB/s.
    """

    key: str                      # registry name
    name: str                     # full name in the source
    vendor: str
    granularity: str              # per_gpu, per_chip, per_gpu_package or per_rack_72gpu
    flops_bf16: float | None      # FLOP/s, dense
    flops_fp8: float | None       # FLOP/s, dense
    flops_fp4: float | None       # FLOP/s, dense (Rubin: NVIDIA's "NVFP4 inference", convention unstated)
    hbm_bytes: float              # byte
    hbm_bw: float                 # byte/s
    scaleup_interconnect: str
    scaleup_domain: int           # chips in one scale-up (NVLink / ICI) domain
    scaleup_bw_bidir: float | None  # byte/s per chip, both directions
    scaleout_bw: float | None     # byte/s per chip, one direction (NIC)
    tdp_w: float | None           # W
    price_usd_per_hour: float | None  # 3-year rental, USD per chip-hour (SemiAnalysis InferenceX)
    tco_usd_per_hour: float | None    # owned by a hyperscaler, USD per chip-hour
    source: str
    confidence: str               # high, medium or low
    notes: str = ""

    @property
    def preliminary(self):
        """True where the numbers are pre-release or press-only (confidence ``low``)."""
        return self.confidence == "low"

    def flops(self, precision):
        """Dense FLOP/s at ``precision`` ('bf16', 'fp8' or 'fp4'); ValueError if unpublished."""
        key = _check.choice("precision", precision, {p: p for p in PRECISIONS})
        value = getattr(self, f"flops_{key}")
        if value is None:
            have = [p for p in PRECISIONS if getattr(self, f"flops_{p}") is not None]
            raise ValueError(f"{self.key} publishes no dense {key} rate; precision must be one of "
                             f"{', '.join(repr(p) for p in have)}")
        return value

    def precisions(self):
        """The precisions with a published dense rate."""
        return tuple(p for p in PRECISIONS if getattr(self, f"flops_{p}") is not None)


def _from_row(row):
    return Hardware(
        key=row["key"], name=row["name"], vendor=row["vendor"], granularity=row["granularity"],
        flops_bf16=_data.number(row["bf16_dense_flops"]), flops_fp8=_data.number(row["fp8_dense_flops"]),
        flops_fp4=_data.number(row["fp4_dense_flops"]), hbm_bytes=float(row["hbm_bytes"]),
        hbm_bw=float(row["hbm_bw_bytes_per_s"]), scaleup_interconnect=row["scaleup_interconnect"],
        scaleup_domain=int(row["scaleup_domain_size"]),
        scaleup_bw_bidir=_data.number(row["scaleup_bw_bidir_bytes_per_s"]),
        scaleout_bw=_data.number(row["scaleout_nic_bytes_per_s"]), tdp_w=_data.number(row["tdp_w"]),
        price_usd_per_hour=_data.number(row["rental_usd_per_gpu_hr_3yr"]),
        tco_usd_per_hour=_data.number(row["tco_usd_per_gpu_hr_hyperscaler_owned"]),
        source=row["sources"], confidence=row["confidence"], notes=row["notes"],
    )


REGISTRY, _ALIASES = _data.load("hardware.csv", _from_row)


def get(name):
    """The :class:`Hardware` called ``name`` (case, spaces and dashes ignored; aliases accepted)."""
    return _check.choice("hardware", name, REGISTRY, _ALIASES)


def names():
    """Registry names, in the order of the data file."""
    return list(REGISTRY)
