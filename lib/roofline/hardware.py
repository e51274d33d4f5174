"""Accelerators, one row per chip: FLOP/s, memory tiers, network tiers and price, each with its source.

The numbers ship in ``data/hardware.csv`` inside the package (compiled from
vendor datasheets and documentation; see the ``sources`` column). Conventions:

* FLOP/s are **dense** (NVIDIA and AMD headline 2:4-sparse figures are halved)
  and a multiply-add counts as 2 FLOPs.
* Bytes are SI (1 GB = 1e9 B). ``hbm_bytes`` is the **usable** capacity where a
  system shows it (nvidia-smi, a system description); the vendor's headline is
  kept in ``hbm_bytes_headline``. A vendor's "80 GB" that is really 80 GiB is
  stored as the bytes it is.
* Network bandwidths are **per chip, per direction** (NVLink "1.8 TB/s" is 0.9 TB/s
  each way). Hop latencies are in seconds, where a source publishes one.
* A row is a chip. A rack or pod is derived: the chip times its scale-up domain
  (:meth:`Hardware.domain_total`), so no row mixes a rack's FLOP/s with a chip's
  domain size.

>>> h100 = get("H100")
>>> print(f"{h100.flops('bf16') / 1e12:,.0f} TFLOP/s, {h100.hbm_bw / 1e12:.2f} TB/s")
989 TFLOP/s, 3.35 TB/s
>>> get("Rubin").preliminary
True
>>> gb200 = get("GB200")
>>> print(f"{gb200.domain_total('hbm_bytes') / 1e12:.1f} TB usable in one NVL72 rack "
...       f"({gb200.domain_total('hbm_bytes_headline') / 1e12:.1f} TB headline)")
14.3 TB usable in one NVL72 rack (13.4 TB headline)
"""

import dataclasses
import numbers

import numpy as np

from . import _check, registry
from ._check import check_value

_POSITIVE = ("hbm_bytes", "hbm_bw")
_OPTIONAL_POSITIVE = ("flops_bf16", "flops_fp8", "flops_fp4", "flops_fp4_training", "hbm_bytes_headline", "scaleup_bw",
                      "scaleup_latency_s", "scaleout_bw", "scaleout_latency_s", "ddr_bytes", "ddr_bw",
                      "flash_bytes", "flash_bw", "tdp_w", "tco_usd_per_hour", "price_usd_per_hour")


@dataclasses.dataclass(frozen=True)
class MemoryTier:
    """One level of a chip's memory: capacity and bandwidth per chip, and the time to read it all."""

    name: str            # "HBM", "DDR" (host memory), "flash" or "disk"
    bytes: float         # byte per chip (per device for a storage device)
    bandwidth: float     # byte/s per chip (per device)
    source: str = ""     # where a storage device's figures come from (a chip's are in its row)

    def __post_init__(self):
        for name in ("bytes", "bandwidth"):
            if np.ndim(check_value(name, getattr(self, name), where="MemoryTier field")):
                raise ValueError(f"MemoryTier field {name} must be one number, not an array")
        _check.record(self)  # every other field's type

    @property
    def drain_time_s(self):
        """How long reading the whole tier once takes, in seconds (capacity over bandwidth)."""
        return self.bytes / self.bandwidth


DEVICES = {
    "NVMe PCIe 4.0 (Samsung PM1733, 15.36 TB)": MemoryTier(
        "flash", 15.36e12, 7.0e9, "Samsung PM1733 spec table: 15.36 TB, 7,000 MB/s sequential read (AnandTech, "
        "'Samsung Announces First PCIe 5.0 Enterprise SSD: PM1743', 2021-12-23)"),
    "NVMe PCIe 5.0 (Samsung PM1743, 15.36 TB)": MemoryTier(
        "flash", 15.36e12, 13.0e9, "Samsung PM1743 spec table: 15.36 TB, 13,000 MB/s sequential read (same "
        "AnandTech article)"),
    "HDD (Seagate Exos X20, 20 TB)": MemoryTier(
        "disk", 20e12, 285e6, "Seagate Exos X20: 20 TB, 7,200 rpm, 285 MB/s maximum sustained transfer rate "
        "(blocksandfiles.com, 2022-03-28 and 2023-10-18)"),
}
"""Storage devices outside the chip rows, one drive each. Their drain times are per drive, whatever the
number of drives, since more drives add capacity and bandwidth alike."""


@dataclasses.dataclass(frozen=True)
class NetworkTier:
    """One network a chip sends on: how many chips it joins, bandwidth per direction, latency per hop."""

    name: str                      # "scale-up" or "scale-out"
    interconnect: str
    size: int | None               # chips reachable in one hop domain (None: the whole cluster)
    bandwidth: float | None        # byte/s per chip, one direction
    hop_latency_s: float | None    # s per hop, where published

    def __post_init__(self):
        if self.size is not None:
            _check.whole("size", self.size, where="NetworkTier field")
        for name in ("bandwidth", "hop_latency_s"):
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), where="NetworkTier field")
        _check.record(self)  # every other field's type


@dataclasses.dataclass(frozen=True)
class Hardware:
    """One accelerator chip. Vary a field with :func:`dataclasses.replace`, e.g.
    ``replace(get("Rubin"), hbm_bw=20e12)`` for the lecture's 20 TB/s (the fields are checked again).
    """

    key: str                      # registry name
    name: str                     # full name in the source
    vendor: str
    unit: str                     # gpu, chip (TPU) or gpu_package (Rubin: two dies)
    year: int | None              # first availability
    flops_bf16: float | None      # FLOP/s, dense
    flops_fp8: float | None       # FLOP/s, dense
    flops_fp4: float | None       # FLOP/s, dense (Rubin: NVIDIA's "NVFP4 inference", convention unstated)
    flops_fp4_training: float | None  # FLOP/s, NVIDIA's "NVFP4 training" where it differs (Rubin: 35 PF, dense)
    hbm_bytes: float              # byte, usable
    hbm_bytes_headline: float | None  # byte, the vendor's headline at face value
    hbm_bw: float                 # byte/s
    scaleup_interconnect: str
    scaleup_domain: int           # chips in one scale-up (NVLink / ICI) domain
    scaleup_bw: float | None      # byte/s per chip, one direction
    scaleup_latency_s: float | None
    scaleout_interconnect: str
    scaleout_bw: float | None     # byte/s per chip, one direction (NIC)
    scaleout_latency_s: float | None
    ddr_bytes: float | None       # host memory per chip, byte
    ddr_bw: float | None          # host memory bandwidth per chip, byte/s
    flash_bytes: float | None     # local flash per chip, byte
    flash_bw: float | None        # flash bandwidth per chip, byte/s
    tdp_w: float | None           # W
    tco_usd_per_hour: float | None    # owned by a hyperscaler, USD per chip-hour
    price_usd_per_hour: float | None  # 3-year rental, USD per chip-hour (SemiAnalysis InferenceX)
    source: str
    confidence: str               # high, medium or low
    notes: str = ""

    def __post_init__(self):
        for name in _POSITIVE + _OPTIONAL_POSITIVE:
            value = getattr(self, name)
            if value is None and name in _OPTIONAL_POSITIVE:
                continue
            if np.ndim(check_value(name, value, where="Hardware field")):
                raise ValueError(f"Hardware field {name} must be one number, not an array")
        d = self.scaleup_domain
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or not 1 <= d <= 2**31:
            raise ValueError(f"Hardware field scaleup_domain must be an integer in [1, 2**31]; got {_check.short(d)}")
        if not self.precisions():
            raise ValueError(f"Hardware {self.key!r} needs at least one of flops_bf16, flops_fp8, flops_fp4")
        _check.record(self)  # every other field's type

    @property
    def preliminary(self):
        """True where the numbers are pre-release or press-only (confidence ``low``)."""
        return self.confidence == "low"

    def flops(self, precision):
        """Dense FLOP/s at ``precision`` ('bf16', 'fp8' or 'fp4'); ValueError if unpublished."""
        key = registry.precision_name(precision)
        value = getattr(self, f"flops_{key}")
        if value is None:
            raise ValueError(f"{self.key} publishes no dense {key} rate; precision must be one of "
                             f"{', '.join(repr(p) for p in self.precisions())}")
        return value

    def precisions(self):
        """The precisions with a published dense rate, widest first (the last is the fastest)."""
        return tuple(p for p in registry.PRECISIONS if getattr(self, f"flops_{p}") is not None)

    def memory_tiers(self):
        """HBM, then host DDR and flash where published: :class:`MemoryTier` per chip."""
        tiers = [MemoryTier("HBM", self.hbm_bytes, self.hbm_bw)]
        for name, size, bw in (("DDR", self.ddr_bytes, self.ddr_bw), ("flash", self.flash_bytes, self.flash_bw)):
            if size is not None and bw is not None:
                tiers.append(MemoryTier(name, size, bw))
        return tiers

    def network_tiers(self):
        """The scale-up and scale-out networks: :class:`NetworkTier` per chip, one direction."""
        return [NetworkTier("scale-up", self.scaleup_interconnect, self.scaleup_domain, self.scaleup_bw,
                            self.scaleup_latency_s),
                NetworkTier("scale-out", self.scaleout_interconnect, None, self.scaleout_bw,
                            self.scaleout_latency_s)]

    def domain_total(self, field):
        """A per-chip field times the scale-up domain size: a whole rack's or pod's ``hbm_bytes``, etc."""
        per_chip = _POSITIVE + _OPTIONAL_POSITIVE
        if not isinstance(field, str) or field not in per_chip or getattr(self, field) is None:
            raise ValueError(f"field must name a per-chip number this Hardware has, one of {', '.join(per_chip)}; "
                             f"got {_check.short(field)}")
        return getattr(self, field) * self.scaleup_domain


def _from_row(row):
    n = registry.number
    return Hardware(
        key=row["key"], name=row["name"], vendor=row["vendor"], unit=row["unit"], year=n(row["year"], int),
        flops_bf16=n(row["bf16_dense_flops"]), flops_fp8=n(row["fp8_dense_flops"]),
        flops_fp4=n(row["fp4_dense_flops"]), flops_fp4_training=n(row["fp4_training_flops"]), hbm_bytes=float(row["hbm_bytes"]),
        hbm_bytes_headline=n(row["hbm_bytes_headline"]), hbm_bw=float(row["hbm_bw_bytes_per_s"]),
        scaleup_interconnect=row["scaleup_interconnect"], scaleup_domain=int(row["scaleup_domain_size"]),
        scaleup_bw=n(row["scaleup_bw_per_dir_bytes_per_s"]), scaleup_latency_s=n(row["scaleup_hop_latency_s"]),
        scaleout_interconnect=row["scaleout_interconnect"], scaleout_bw=n(row["scaleout_bw_per_dir_bytes_per_s"]),
        scaleout_latency_s=n(row["scaleout_hop_latency_s"]),
        ddr_bytes=n(row["host_ddr_bytes_per_chip"]), ddr_bw=n(row["host_ddr_bw_per_chip_bytes_per_s"]),
        flash_bytes=n(row["flash_bytes_per_chip"]), flash_bw=n(row["flash_bw_per_chip_bytes_per_s"]),
        tdp_w=n(row["tdp_w"]), tco_usd_per_hour=n(row["tco_usd_per_chip_hr"]),
        price_usd_per_hour=n(row["rental_usd_per_chip_hr_3yr"]),
        source=row["sources"], confidence=row["confidence"], notes=row["notes"],
    )


REGISTRY = registry.Registry("hardware.csv", _from_row, "hardware")
get = REGISTRY.get
names = REGISTRY.names
