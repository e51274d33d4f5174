"""Experts laid out over the chips of a rack, and the all-to-all between them (lecture chapter 2, 00:32:09-00:47:12).

Expert parallelism puts different experts on different chips (00:33:46). Every chip
holds ``B/G`` of the step's tokens and routes each to ``K`` experts, wherever they
live, so each MoE layer moves activations twice: *dispatch*, a copy of the token
to each chosen expert, and *combine*, the expert outputs back to the token's chip
(00:34:34-00:35:46). The pattern is all-to-all, and under uniform routing a token's
copy stays on its own chip with probability ``1/G``.

When one layer spans ``R_k`` racks (scale-up domains), a copy leaves the rack with
probability ``1 - 1/R_k`` (half, for two racks, 00:39:39) and crosses the slower
scale-out network; the rest moves over the scale-up network. Both networks run at
once, so each phase takes the longer of the two. Every all-to-all also waits a
network latency ``tau`` besides its bytes.

Dispatch variants
-----------------
``dispatch``: ``"per_copy"`` (the lecture's picture: every copy that leaves the rack
crosses on its own, ``K (1 - 1/R_k)`` per token) or ``"per_rack"`` (a token crosses once
to each other rack its experts live in and fans out there over NVLink, as DeepEP's
normal kernels and DeepSeek's node-limited routing do: ``(R_k - 1)(1 - (1 - 1/R_k)^K)``
crossings per token). The fan-out inside the receiving rack is left on NVLink's side.

Overlap variants
----------------
``overlap``: ``"none"`` (communication adds to the step: ``max(compute, memory) +
comm``) or ``"full"`` (perfectly hidden behind the other work, as two micro-batches
in flight can do: ``max(compute, memory, comm)``). The truth lies between; the
lecture does not say.

Capacity bounds (00:46:44)
--------------------------
"Active parameters are bounded by compute, total parameters by the scale-up
domain": ``max_active_params`` is the largest ``N_active`` a chip serves at ``T``
tokens per second when compute-bound; ``max_total_params`` the largest
``N_total`` whose weights fit in a share ``f_w`` of the domain's HBM.

>>> print(f"{experts_per_chip(n_experts=256, n_chips=64):.0f} experts per GPU")
4 experts per GPU
>>> print(ep_chips(256, 72), "of 72 GPUs hold experts")
64 of 72 GPUs hold experts

Links, bytes per value and racks
--------------------------------
The latency ``tau`` and scale-out bandwidth ``W_out`` at the datasheet floor or calibrated on
measured all-to-alls, ``b_a`` from the dispatch's and the combine's precisions, and NVIDIA's
racks in packages and dies come from the registries: :mod:`roofline.moe_data`.
"""

import math
from statistics import NormalDist

import numpy as np
import sympy as sp
from sympy.physics import units as u

from . import _check, decode, equations
from .equations import Spec
from .symbols import (B, N_active, N_total, act_bytes, bytes_per_param, d_model, flops, hbm_bytes, hop_latency,
                      moe_layers, n_chips, n_experts, n_racks, scaleout_bw, scaleup_bw, tok_rate, top_k,
                      weight_share)

OVERLAP = ("none", "full")  # the variant axes, defaults first
DISPATCH = ("per_copy", "per_rack")
LAYOUTS = ("split", "widen")  # layout_chips: one domain's GPUs split over the racks, or each rack's added
_S = u.second


MAX_EXPERTS = 10**12
"""The most experts :func:`ep_chips` splits (its divisors are found by trial up to the square root)."""


def ep_chips(n_experts, domain):
    """Chips an expert layer uses in a domain of ``domain`` chips: the most that split the experts evenly.

    The lecture's rack of 72 GPUs holds 256 experts on 64 of them, "72 isn't a power of two"
    (00:34:00): 64 is the largest count of at most 72 that divides 256.
    """
    e = _check.whole("n_experts", n_experts, maximum=MAX_EXPERTS)
    g = _check.whole("domain", domain)
    if g >= e:
        return e
    # the divisors come in pairs (d, e / d) with d <= sqrt(e): a million candidates at most, one numpy pass
    low = np.arange(1, math.isqrt(e) + 1, dtype=np.int64)
    low = low[e % low == 0]
    divisors = np.concatenate((low, e // low))
    return int(divisors[divisors <= g].max())


def layout_chips(n_experts, domain, n_racks=1, layout="split"):
    """GPUs and racks of one expert layer over ``n_racks`` racks of ``domain`` GPUs: ``(n_chips, n_racks)``.

    ``"split"``: the GPUs one domain would use (:func:`ep_chips`), shared out over the racks, as the
    lecture's two-rack picture (00:36:01). ``"widen"``: each rack adds its GPUs, the most of
    ``n_racks x domain`` that split the experts evenly, as DeepSeek spreads its experts over many
    nodes. Racks beyond the GPUs count once per GPU.

    >>> layout_chips(256, 72, 2), layout_chips(256, 72, 2, "widen"), layout_chips(256, 8, 4, "widen")
    ((64, 2), (128, 2), (32, 4))
    """
    layout = _check.choice("layout", layout, {k: k for k in LAYOUTS})
    r = _check.whole("n_racks", n_racks)
    e = _check.whole("n_experts", n_experts, maximum=MAX_EXPERTS)
    g = _check.whole("domain", domain)
    chips_expr, racks_expr = LAYOUT_CHIPS[layout]
    at = {_LAYOUT_SYMBOLS[0]: sp.Integer(e), _LAYOUT_SYMBOLS[1]: sp.Integer(g), _LAYOUT_SYMBOLS[2]: sp.Integer(r)}
    return int(chips_expr.xreplace(at)), int(racks_expr.xreplace(at))


class _LargestDivisor(sp.Function):
    """:func:`ep_chips` of ``(n_experts, domain)`` as a sympy function, so that a layout's chip count is a
    formula (:data:`LAYOUT_CHIPS`) that the published page evaluates too; it evaluates on whole numbers only."""

    @classmethod
    def eval(cls, e, g):
        if isinstance(e, sp.Integer) and isinstance(g, sp.Integer):
            return sp.Integer(ep_chips(int(e), int(g)))
        return None


_LAYOUT_SYMBOLS = tuple(sp.Symbol(n, positive=True, integer=True) for n in ("n_experts", "scaleup_domain", "n_racks"))
LAYOUT_CHIPS = {
    "split": (_LargestDivisor(_LAYOUT_SYMBOLS[0], _LAYOUT_SYMBOLS[1]),
              sp.Min(_LAYOUT_SYMBOLS[2], _LargestDivisor(_LAYOUT_SYMBOLS[0], _LAYOUT_SYMBOLS[1]))),
    "widen": (_LargestDivisor(_LAYOUT_SYMBOLS[0], _LAYOUT_SYMBOLS[2] * _LAYOUT_SYMBOLS[1]),
              sp.Min(_LAYOUT_SYMBOLS[2], _LargestDivisor(_LAYOUT_SYMBOLS[0], _LAYOUT_SYMBOLS[2] * _LAYOUT_SYMBOLS[1]))),
}
""":func:`layout_chips` as formulas, layout -> (GPUs, racks), in ``n_experts``, ``scaleup_domain`` and ``n_racks``:
the GPUs one domain would use (``split``) or the most of every rack's that split the experts evenly (``widen``), and
the racks, at most one per GPU. Evaluated here, and printed for the published page."""


def build(overlap="none", dispatch="per_copy"):
    """The chapter-2 equations under one variant, as {numeric function name: Spec}."""
    equations.check_variant(__name__, overlap=overlap, dispatch=dispatch)
    per_chip = B / n_chips                                   # tokens whose router sits on each chip (00:35:20)
    copies = per_chip * top_k * d_model * act_bytes          # bytes of one phase if every copy left the chip
    leave_chip = 1 - 1 / n_chips                             # uniform routing: a copy stays with prob. 1/G
    leave_rack = 1 - 1 / n_racks                             # ... leaves its rack with prob. 1 - 1/R_k (00:39:39)
    in_rack = copies * (1 / n_racks - 1 / n_chips)           # remote copies that stay in the rack
    if dispatch == "per_copy":
        cross = copies * leave_rack                          # copies that cross the rack boundary
    else:  # one crossing per other rack the token's K experts touch
        cross = per_chip * d_model * act_bytes * (n_racks - 1) * (1 - (1 - 1 / n_racks) ** top_k)
    phase = sp.Max(in_rack / scaleup_bw, cross / scaleout_bw)  # both networks at once; the slower sets it
    t_bw = 2 * moe_layers * phase                            # dispatch + combine in every MoE layer
    t_lat = 2 * moe_layers * hop_latency                     # each all-to-all waits the latency too
    t_comm = t_bw + t_lat
    t_core = decode.step_time_s.expr                         # chapter 1: max(compute, weights + KV)
    if overlap == "none":
        step = t_core + t_comm
    else:
        step = sp.Max(t_core, t_comm)

    fits = (weight_share <= 1, "weight_share must be at most 1")
    one_chip = "0 on one chip: no copy leaves it"
    one_rack = "0 for a layer inside one rack: nothing crosses to another"
    racks = (n_racks <= n_chips, "n_racks must not exceed n_chips (a rack holds at least one chip of the layer)")
    return {
        "experts_per_chip": Spec(n_experts / n_chips, "experts", "Experts each chip holds (256 on 64 = 4, 00:34:18).", 1),
        "remote_fraction": Spec(leave_chip, "dimensionless",
                                "Share of token copies that leave their chip under uniform routing.", 1,
                                zero=one_chip),
        "cross_rack_fraction": Spec(leave_rack, "dimensionless",
                                    "Share of token copies that leave their rack: half for two (00:39:39).", 1,
                                    zero=one_rack),
        "a2a_bytes_per_chip": Spec(copies * leave_chip, "byte",
                                   "Bytes each chip sends in one phase (dispatch or combine) of one MoE layer.", u.byte,
                                   zero=one_chip),
        "cross_rack_bytes_per_chip": Spec(cross, "byte",
                                          "Of those, bytes that cross the rack boundary (scale-out).", u.byte,
                                          requires=(racks,), zero=one_rack),
        "network_ratio": Spec(scaleup_bw / scaleout_bw, "dimensionless",
                              "Scale-up over scale-out bandwidth per chip: the lecture's 'about 8x' (00:38:47).", 1),
        "a2a_bandwidth_time_s": Spec(t_bw, "s", "Time of the all-to-all bytes of one step: 2 phases x MoE layers, "
                                     "the slower network setting each phase.", _S, requires=(racks,),
                                     zero=one_chip),
        "a2a_latency_time_s": Spec(t_lat, "s", "Latency of one step's all-to-alls: 2 x MoE layers x tau.", _S),
        "comm_time_s": Spec(t_comm, "s", "All-to-all time of one step: bandwidth part + latency part.", _S,
                            requires=(racks,)),
        "step_with_comm_s": Spec(step, "s", "Decode step with the all-to-all: added to max(compute, memory) "
                                 "(overlap 'none') or hidden behind it ('full').", _S, requires=(racks,)),
        "max_active_params": Spec(flops / (decode.FLOPS_PER_MAC * tok_rate), "parameters",
                                  "Most active parameters a chip serves at T tokens/s, compute-bound (00:46:44).", 1),
        "max_total_params": Spec(weight_share * n_chips * hbm_bytes / bytes_per_param, "parameters",
                                 "Most total parameters whose weights fit in a share f_w of the domain's HBM "
                                 "(00:46:44).", 1, requires=(fits,)),
    }


EQUATIONS = equations.family(__name__, build, overlap=OVERLAP, dispatch=DISPATCH)

experts_per_chip = EQUATIONS["experts_per_chip"]
remote_fraction = EQUATIONS["remote_fraction"]
cross_rack_fraction = EQUATIONS["cross_rack_fraction"]
a2a_bytes_per_chip = EQUATIONS["a2a_bytes_per_chip"]
cross_rack_bytes_per_chip = EQUATIONS["cross_rack_bytes_per_chip"]
network_ratio = EQUATIONS["network_ratio"]
a2a_bandwidth_time_s = EQUATIONS["a2a_bandwidth_time_s"]
a2a_latency_time_s = EQUATIONS["a2a_latency_time_s"]
comm_time_s = EQUATIONS["comm_time_s"]
step_with_comm_s = EQUATIONS["step_with_comm_s"]
max_active_params = EQUATIONS["max_active_params"]
max_total_params = EQUATIONS["max_total_params"]

t_comm = comm_time_s.expr
t_a2a_bw = a2a_bandwidth_time_s.expr
t_a2a_lat = a2a_latency_time_s.expr
step_with_comm = step_with_comm_s.expr
step_with_comm_hidden = step_with_comm_s.under(overlap="full").expr


def expected_max_normal(n):
    """Expected largest of ``n`` independent standard normal values (Blom's approximation).

    ``Phi^-1((n - 0.375) / (n + 0.25))``: 2.34 for 64, 2.81 for 256 (the exact expectations are
    2.34 and 2.83); 0 for one.
    """
    n = _check.check_value("n", n, "count")  # a count of values: one or more
    z = np.vectorize(lambda v: NormalDist().inv_cdf((v - 0.375) / (v + 0.25)), otypes=[float])(n)
    return z if np.ndim(z) else float(z)


def imbalance(batch, top_k, n_groups):
    """Expected load of the busiest of ``n_groups`` (chips or experts) over the mean, uniform routing.

    Each of ``batch x top_k`` token copies lands on one of ``n_groups`` groups at random, so a
    group's load is binomial with mean ``m = batch top_k / n_groups`` and standard deviation
    ``sigma = sqrt(m (1 - 1/n_groups))``. Treated as normal, the largest of ``n_groups`` loads is
    about ``m + z_n sigma`` with ``z_n`` = :func:`expected_max_normal`, so the factor is
    ``1 + z_n sqrt((1 - 1/n) n / (batch top_k))``. Good while the mean load is tens of copies or
    more; below that the skew of small counts makes the busiest group busier still.

    >>> print(f"{imbalance(256 * 64, 8, 64):.3f}")
    1.051
    """
    b = _check.check_value("batch", batch)
    k = _check.check_value("top_k", top_k)
    n = _check.check_value("n_groups", n_groups, "count")
    try:
        z = expected_max_normal(n)
    except ValueError:
        raise ValueError(f"imbalance: n_groups must hold only finite numbers >= 1; got {_check.short(n_groups)}") \
            from None
    out = 1 + z * np.sqrt((1 - 1 / n) * n / (b * k))
    return out if np.ndim(out) else float(out)
