"""Chapter 2's data: the all-to-all's links, its bytes per value, and NVIDIA's racks in packages and dies.

:mod:`roofline.moe` holds the equations; this module draws the values they take from the
registries (the layers below it cannot reach them).

Links: floor and calibrated (:func:`link_values`)
--------------------------------------------------
``tau``, ``W_up`` and ``W_out`` come in two versions. The *floor*: the datasheet's bandwidths and
the latency of a 64-byte message (the H800's where the chip has none published). *Calibrated*:
the intercepts and bandwidths of :func:`roofline.measured.fit_link`, fitted to DeepEP's measured
all-to-alls, each bandwidth as the fitted share of the H800's rate. Across racks ``tau`` is the
larger of the two tiers'.

Bytes per value (:func:`act_bytes_per_value`)
---------------------------------------------
``b_a`` is the mean of the dispatch's and the combine's bytes per value (FP8 out and BF16
back: 1.5). Both phases move the same count of values over the same networks, so the two
phases at their own bytes take exactly the time of two at the mean.

The step with its all-to-all (:func:`step_with_a2a_s`)
-------------------------------------------------------
Chapter 1's step and the all-to-all's chains of dispatches and of combines, under the overlap a measured
run uses (:data:`roofline.measured.A2A_OVERLAPS`): two micro-batches hide the whole all-to-all, a
combine-only overlap leaves the dispatches exposed and hides the combines only behind the work it runs
beside (:func:`combine_hideable_s`: the down GEMMs and the shared expert), no overlap adds both.

GB200's measured all-to-all (:func:`trtllm_a2a_s`)
--------------------------------------------------
NVIDIA's TensorRT-LLM one-sided NVLink kernels timed on GB200 NVL72 (tech blog 18): one dispatch and one
combine at 1 to 2,048 tokens per GPU on 8 to 64 GPUs, DeepSeek-V3's shape, BF16 both ways
(``data/trtllm_a2a.csv``), read between the blog's rows and, for a dispatch in fewer bytes, at the BF16
token count that carries the same bytes.

Racks (:data:`RACKS`)
---------------------
NVIDIA's scale-up domains in GPU packages and compute dies, with the count each name uses
(``data/scaleup_racks.csv``, sourced per row).
"""

import dataclasses

import numpy as np

from . import _check, hardware, measured, registry

LINKS = ("floor", "calibrated")  # link_values: the datasheet floor or the fit to measured all-to-alls
STAND_IN = "H100"                # the chip whose measured 64-byte latencies stand in where none is published
H800_NVLINK_NOMINAL = 200e9      # bytes/s per direction, the H800's nominal NVLink: DeepEP issue #16
                                 # (github.com/deepseek-ai/DeepEP/issues/16, maintainer's reply, 2025-02-26)
H800_NVLINK_DEEPEP_MAX = 160e9   # bytes/s, "~160 GB/s NVLink maximum bandwidth" of the H800 as DeepEP's
                                 # README states it (Performance, normal kernels; V1 section)
TPU_V5P_MAX_SLICE = 6144         # chips, TPU v5p's largest slice (one job's ICI network); the pod is 8,960
                                 # (docs.cloud.google.com/tpu/docs/v5p, the source of hardware.csv's row)


def act_bytes_per_value(dispatch="fp8", combine="bf16"):
    """Bytes per activation value over an MoE layer's two all-to-alls: the mean of the dispatch's and the
    combine's, each a precision name ('fp8', 'bf16', ...), a dispatch format of a measured run ('nvfp4':
    :data:`roofline.measured.A2A_DISPATCHES`) or bytes per value.

    DeepSeek's kernels dispatch in FP8 and combine in BF16 (its scales of one FP32 per 128 values,
    3% more, left out); an NVFP4 dispatch carries half a byte a value (its FP8 scale per 16 values,
    12.5% more, left out the same way):

    >>> act_bytes_per_value(), act_bytes_per_value("bf16", "bf16"), act_bytes_per_value(1.03125, 2)
    (1.5, 2.0, 1.515625)
    >>> act_bytes_per_value("nvfp4")
    1.25
    """
    names = {p: p for p in registry.PRECISIONS} | measured.A2A_DISPATCHES

    def one(name, value):
        if isinstance(value, str):
            return registry.PRECISIONS[_check.choice(name, value, names)]
        return _check.check_value(name, value)
    return (one("dispatch", dispatch) + one("combine", combine)) / 2


def step_with_a2a_s(core_s, dispatch_s, combine_s, overlap, hideable_s=None):
    """A decode step with its all-to-all, s: chapter 1's step ``core_s`` and the step's chains of dispatches
    ``dispatch_s`` and of combines ``combine_s``, under ``overlap`` (a key of
    :data:`roofline.measured.A2A_OVERLAPS`, as a measured run's data row gives it).

    'two-batch': the longer of the step and the whole all-to-all (one micro-batch computes while the other
    communicates); 'combine': the step plus the dispatches, the combines hidden; 'none': all three added.

    With 'combine', ``hideable_s`` is the part of the step the combines can hide behind, at the roofline
    (:func:`combine_hideable_s`): the rest of the step, ``core_s - hideable_s``, runs beside no
    communication, the dispatches are exposed, and the combines and that work take the longer of the two:
    ``core_s - hideable_s + dispatch_s + max(combine_s, hideable_s)``. Without it the combines count as
    wholly hidden, the loosest floor (the same as any ``hideable_s`` of ``combine_s`` or more). The caller
    checks that ``core_s - hideable_s`` bounds the rest of the step, as it does where the step stays
    compute-bound without that work.

    >>> [step_with_a2a_s(20, 5, 15, o) for o in ("two-batch", "combine", "none")]
    [20.0, 25.0, 40.0]
    >>> step_with_a2a_s(20, 5, 15, "combine", hideable_s=3), step_with_a2a_s(20, 5, 15, "combine", 18)
    (37.0, 25.0)
    """
    overlap = _check.choice("overlap", overlap, {k: k for k in measured.A2A_OVERLAPS})
    core, d, c = (_check.check_value(n, v, "nonnegative") for n, v in
                  (("core_s", core_s), ("dispatch_s", dispatch_s), ("combine_s", combine_s)))
    if hideable_s is not None:
        if overlap != "combine":
            raise ValueError(f"hideable_s applies to overlap 'combine' only; got overlap {overlap!r}")
        h = _check.check_value("hideable_s", hideable_s, "nonnegative")
        if np.any(h > core):
            raise ValueError(f"hideable_s must be at most core_s (part of the step); got hideable_s "
                             f"{_check.short(hideable_s)} against core_s {_check.short(core_s)}")
    if overlap == "two-batch":
        out = np.maximum(core, d + c)
    elif overlap == "combine":
        out = core + d if hideable_s is None else core - h + d + np.maximum(c, h)
    else:
        out = core + d + c
    return float(out) if np.ndim(out) == 0 else out


def combine_hideable_s(run):
    """The work a run's combines can hide behind in one batch, s a step at the roofline's FLOP rate: each
    token's down GEMMs in its routed experts and its whole shared expert (three matrices), in every MoE
    layer, for the run's sequences per chip. ``run``: a :class:`roofline.measured.Measurement` or its key.

    SGLang's GB200 run overlaps the combine "with both the down GEMM and the shared experts" (LMSYS's GB200
    part II post): DeepSeek-V3, 1,408 tokens per GPU, 8 down GEMMs + 3 shared matrices of
    2 x 7,168 x 2,048 FLOP a token in 58 layers = 26.4 TFLOP, at FP4's 10 PFLOP/s:

    >>> print(f"{combine_hideable_s('SGLang GB200 NVL72') * 1e3:.2f} ms")
    2.64 ms
    """
    if isinstance(run, str):
        run = measured.get(run)
    if not isinstance(run, measured.Measurement):
        raise TypeError(f"run must be a Measurement or its key; got {_check.short(run)}")
    m = run.model
    if not m.moe_layers or not m.moe_ffn_dim or m.active_routed_experts is None:
        raise ValueError(f"run {run.key!r}: its model {m.key!r} has no MoE layers of known shape")
    matrices = m.active_routed_experts + 3 * (m.shared_experts or 0)
    flop = 2 * m.hidden_size * m.moe_ffn_dim * matrices * m.moe_layers * run.batch_per_chip
    return flop / run.hardware.flops(run.precision)


def link_values(chip, n_racks=1, links="calibrated"):
    """The latency ``hop_latency`` of one all-to-all and the bandwidths ``scaleup_bw`` and ``scaleout_bw`` of
    ``chip`` (a name or a Hardware) for a layer over ``n_racks`` racks, as keywords for ``Deployment.evaluate``.

    ``"floor"``: the latency of a 64-byte message, measured point to point from CPU-side software (the
    H800's where the chip has none published; not a lower bound on a GPU-initiated all-to-all), and
    the datasheet bandwidths. ``"calibrated"``: the intercepts of :func:`roofline.measured.fit_link`,
    NVLink at the share of the H800's nominal 200 GB/s its scale-up fit achieves
    (``H800_NVLINK_NOMINAL``), and the NIC at the share of its line rate the scale-out fit achieves.
    In one rack ``tau`` is NVLink's; across racks it is the larger of the two tiers', since a layer
    over several racks still runs the all-to-all inside each. Both fits are the H800's with
    ConnectX-7; elsewhere they are stand-ins.

    >>> f, c = link_values("GB200", 2, "floor"), link_values("GB200", 2)
    >>> print(f"{f['hop_latency'] * 1e6:.2f} us at {f['scaleout_bw'] / 1e9:.0f} GB/s; "
    ...       f"{c['hop_latency'] * 1e6:.1f} us at {c['scaleout_bw'] / 1e9:.1f} GB/s, "
    ...       f"NVLink {c['scaleup_bw'] / 1e9:.0f} GB/s")
    3.33 us at 50 GB/s; 37.6 us at 41.8 GB/s, NVLink 757 GB/s
    """
    links = _check.choice("links", links, {k: k for k in LINKS})
    with _check.naming("chip"):
        h = chip if isinstance(chip, hardware.Hardware) else hardware.get(chip)
    r = _check.check_value("n_racks", n_racks)
    if not h.scaleout_bw:
        raise ValueError(f"link_values: {h.key} has no published scale-out bandwidth")
    tiers = ("scaleup_latency_s", "scaleout_latency_s") if r > 1 else ("scaleup_latency_s",)
    if links == "floor":
        tau = max(getattr(h, t) or getattr(hardware.get(STAND_IN), t) for t in tiers)
        return {"hop_latency": tau, "scaleup_bw": h.scaleup_bw, "scaleout_bw": h.scaleout_bw}
    up, out = measured.fit_link("scale-up"), measured.fit_link("scale-out")
    rows = [measured.LINKS.get(k) for k in out.keys]
    line = sum(m.line_rate_bytes_per_s for m in rows) / len(rows)
    tau = max(up.alpha_s, out.alpha_s) if r > 1 else up.alpha_s
    return {"hop_latency": tau, "scaleup_bw": h.scaleup_bw * up.beta_bytes_per_s / H800_NVLINK_NOMINAL,
            "scaleout_bw": h.scaleout_bw * out.beta_bytes_per_s / line}


@dataclasses.dataclass(frozen=True)
class ScaleUpRack:
    """One scale-up domain as its maker sells it: GPU packages, dies in each, and the count in its name.

    The lecture's "Jensen math" (00:41:21): NVIDIA names its racks by packages (NVL72) or, from
    Rubin on, by dies (NVL144, NVL576), so the name can grow faster than the domain.
    """

    key: str
    vendor: str
    packages: int            # GPU packages (what a Hopper or Blackwell "GPU" is) in the domain
    dies_per_package: int    # compute dies in each package
    name_count: int          # the number in the product's name
    status: str              # 'shipping' or 'announced'
    year: int
    regime: str
    source: str
    date: str
    confidence: str
    notes: str = ""

    def __post_init__(self):
        for name in ("packages", "dies_per_package", "name_count", "year"):
            value = _check.scalar(name, getattr(self, name), where="ScaleUpRack field")
            if value != int(value):
                raise ValueError(f"ScaleUpRack field {name} must be a whole number; got {value!r}")
        _check.choice("status", self.status, {"shipping": 0, "announced": 0})
        if self.name_count not in (self.packages, self.dies):
            raise ValueError(f"ScaleUpRack {self.key!r}: name_count {self.name_count} counts neither its "
                             f"{self.packages} packages nor its {self.dies} dies")
        _check.required_text(f"ScaleUpRack {self.key!r}", self, ("source",))
        _check.record(self)  # every field's type

    @property
    def dies(self):
        """Compute dies in the domain, packages times dies per package."""
        return self.packages * self.dies_per_package


def _rack_row(r):
    return ScaleUpRack(key=r["key"], vendor=r["vendor"], packages=int(r["packages"]),
                       dies_per_package=int(r["dies_per_package"]), name_count=int(r["name_count"]),
                       status=r["status"], year=int(r["year"]), regime=r["regime"], source=r["sources"],
                       date=r["date"], confidence=r["confidence"], notes=r["notes"])


RACKS = registry.Registry("scaleup_racks.csv", _rack_row, "scale-up rack")
"""NVIDIA's scale-up domains, Hopper to Rubin Ultra, in packages and dies, with their sources."""


@dataclasses.dataclass(frozen=True)
class A2AAnchor:
    """One published all-to-all figure set beside the chapter's links: a time (``unit`` 'us') or a
    bandwidth (``unit`` 'GB/s'), with its system, kernel, regime and source."""

    key: str
    system: str
    kernel: str
    operation: str           # 'dispatch' or 'combine'
    ep: int                  # GPUs in the expert-parallel group
    tokens_per_gpu: int
    value: float
    unit: str                # 'us' or 'GB/s'
    regime: str
    source: str
    date: str
    confidence: str
    notes: str = ""

    def __post_init__(self):
        _check.choice("operation", self.operation, {"dispatch": 0, "combine": 0})
        _check.choice("unit", self.unit, {"us": 0, "GB/s": 0})
        for name in ("ep", "tokens_per_gpu", "value"):
            _check.scalar(name, getattr(self, name), where="A2AAnchor field")
        _check.required_text(f"A2AAnchor {self.key!r}", self, ("source", "regime"))
        _check.record(self)  # every field's type

    @property
    def si(self):
        """The value in seconds or bytes per second."""
        return self.value * (1e-6 if self.unit == "us" else 1e9)


def _anchor_row(r):
    return A2AAnchor(key=r["key"], system=r["system"], kernel=r["kernel"], operation=r["operation"],
                     ep=int(r["ep"]), tokens_per_gpu=int(r["tokens_per_gpu"]), value=float(r["value"]),
                     unit=r["unit"], regime=r["regime"], source=r["sources"], date=r["date"],
                     confidence=r["confidence"], notes=r["notes"])


ANCHORS = registry.Registry("moe_a2a_anchors.csv", _anchor_row, "all-to-all anchor")
"""Published all-to-all latencies and bandwidths set beside the chapter's links (pplx-kernels, DeepEP V2,
Hybrid-EP), with their sources."""


TRTLLM_DISPATCH_BYTES = {"bf16": 14336, "mxfp8": 7392, "nvfp4": 4032, "fp8": 7392}
"""Bytes a DeepSeek-V3 token (hidden 7,168) carries in a TensorRT-LLM dispatch, scales included, by recipe:
tech blog 18's Post-Quant Dispatch table (BF16, MXFP8, NVFP4). MXFP8's 7,392 (a byte a value, a scale byte
per 32) equals DeepSeek's FP8 with one FP32 scale per 128 values (7,168 + 56 x 4), so 'fp8', the dispatch
format of DeepEP and of :data:`roofline.measured.A2A_DISPATCHES`, reads the same bytes (not a row of the
blog's). NVFP4's 4,032: half a byte a value and an FP8 scale per 16 (3,584 + 448)."""
TRTLLM_MXFP8_2048_US = 172.2     # us, the blog's measured MXFP8 dispatch at 2,048 tokens per GPU (same table;
                                 # its BF16 row, 311.8 us, is the ep_size=8 table's)
TRTLLM_NVFP4_2048_US = 101.7     # us, the same table's NVFP4 dispatch at 2,048 tokens per GPU


@dataclasses.dataclass(frozen=True)
class TrtA2ARow:
    """One row of TensorRT-LLM tech blog 18's GB200 NVL72 tables: the dispatch and the combine of
    ``tokens_per_gpu`` tokens on ``ep`` GPUs, BF16 both ways, in us and the blog's logical GB/s."""

    key: str
    ep: int
    tokens_per_gpu: int
    dispatch_us: float
    dispatch_gbs: float
    combine_us: float
    combine_gbs: float
    source: str

    def __post_init__(self):
        for name in ("ep", "tokens_per_gpu", "dispatch_us", "dispatch_gbs", "combine_us", "combine_gbs"):
            _check.scalar(name, getattr(self, name), where="TrtA2ARow field")
        _check.required_text(f"TrtA2ARow {self.key!r}", self, ("source",))
        _check.record(self)  # every field's type


def _trt_row(r):
    return TrtA2ARow(key=r["key"], ep=int(r["ep"]), tokens_per_gpu=int(r["tokens_per_gpu"]),
                     dispatch_us=float(r["dispatch_us"]), dispatch_gbs=float(r["dispatch_gbs"]),
                     combine_us=float(r["combine_us"]), combine_gbs=float(r["combine_gbs"]), source=r["sources"])


TRTLLM_A2A = registry.Registry("trtllm_a2a.csv", _trt_row, "TensorRT-LLM all-to-all row")
"""TensorRT-LLM tech blog 18's four GB200 NVL72 tables (ep_size 8, 16, 32, 64; 1 to 2,048 tokens per GPU)."""


def trtllm_a2a_s(operation, ep, tokens_per_gpu, dispatch="bf16"):
    """Seconds of one TensorRT-LLM one-sided NVLink ``operation`` ('dispatch' or 'combine') on ``ep`` GPUs
    of a GB200 NVL72 (8, 16, 32 or 64: the blog's tables) at ``tokens_per_gpu`` tokens per GPU, read
    linearly between the blog's rows.

    The kernel moves opaque bytes, so a dispatch in the recipe ``dispatch`` ('bf16', 'mxfp8', 'nvfp4'; 'fp8',
    DeepSeek's, has MXFP8's bytes) is
    read at the BF16 token count carrying the same bytes, ``tokens_per_gpu`` x bytes / 14,336; the combine
    is BF16 whatever ``dispatch`` says. The token count read must lie in the tables' 1 to 2,048.

    >>> print(f"{trtllm_a2a_s('dispatch', 64, 128) * 1e6:.1f} us; "
    ...       f"{trtllm_a2a_s('dispatch', 8, 2048, 'mxfp8') * 1e6:.1f} us (measured 172.2)")
    41.6 us; 170.8 us (measured 172.2)
    """
    op = _check.choice("operation", operation, {"dispatch": "dispatch", "combine": "combine"})
    eps = sorted({r.ep for r in TRTLLM_A2A})
    if ep not in eps:
        raise ValueError(f"ep must be one of the blog's EP sizes {eps}; got {ep!r}")
    n = _check.check_value("tokens_per_gpu", tokens_per_gpu)
    if op == "dispatch":
        n *= _check.choice("dispatch", dispatch, TRTLLM_DISPATCH_BYTES) / TRTLLM_DISPATCH_BYTES["bf16"]
    rows = sorted((r for r in TRTLLM_A2A if r.ep == ep), key=lambda r: r.tokens_per_gpu)
    lo, hi = rows[0].tokens_per_gpu, rows[-1].tokens_per_gpu
    if not (np.all(n >= lo) and np.all(n <= hi)):
        raise ValueError(f"tokens_per_gpu must give {lo} to {hi} BF16 tokens per GPU (the blog's rows); "
                         f"got {_check.short(tokens_per_gpu)}, read as {_check.short(n)}")
    us = np.interp(n, [r.tokens_per_gpu for r in rows], [getattr(r, f"{op}_us") for r in rows]) * 1e-6
    return float(us) if np.ndim(us) == 0 else us
