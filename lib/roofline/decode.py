"""The decode step as a roofline (lecture chapter 1, 00:02:37-00:27:50).

Each equation is written once, in :func:`build`, as a sympy expression in the
symbols of :mod:`roofline.symbols`; :mod:`roofline.equations` generates the
checked numeric functions from them. The module-level names hold the default
variant: ``t_compute`` etc. are the sympy expressions, ``compute_time_s`` etc.
the numeric functions (each an :class:`~roofline.equations.Equation` with the
expression in ``.expr``).

FLOP convention
---------------
One multiply-add is 2 FLOPs, as on every datasheet, so the compute term is
``2 B N_active / (G F)``. The lecture counts multiplies (00:18:09), so its
"FLOPs" are half a datasheet's; chapter 1 shows its count beside ours. The
hardware ratio ``F b_w / (2 W)`` is the same number either way: "about 300"
(00:18:32).

Attention and KV-sharding variants
----------------------------------
``attention``: ``"dense"`` (each new token reads its whole context's KV) or
``"sqrt"`` (sparse attention reads about the square root of it, "a square root in
this term", 00:12:20). ``kv_sharding``: ``"split"`` (the lecture's assumption:
the KV cache is divided over the ``G`` chips, as under data-parallel attention)
or ``"replicated"`` (each chip holds and reads the cache of every sequence, as
under tensor-parallel MLA). Every equation that involves the KV fetch, balance
points included, is rebuilt under the variant.

Beyond the lecture
------------------
Chapter 1 sets the lecture's model beside four refinements, each an equation here:
``experts_touched_fraction`` (a step reads only the routed experts its tokens were
sent to, ``1 - (1 - K/E)^B`` of them under uniform routing) and
``weight_time_touched_s``; ``compute_time_attn_s`` (attention's own FLOPs, ``a``
per token of context, see :meth:`roofline.models.Model.attention_flops_per_token`);
``step_time_refined_s``, both together; ``attention_crossover_tokens`` and
``balance_context_attn_tokens``; and
``max_batch_n``, the most sequences whose KV cache fits in HBM beside the weights.

All times are for one decode step of ``B`` sequences on ``G`` chips that split
the weights and the work evenly. Communication and overheads are left out, as in
the lecture: these are lower bounds.

>>> print(f"{ratio(flops=2.5e15, bytes_per_param=2, mem_bw=8e12):.1f}")
312.5
"""

import sympy as sp
from sympy.physics import units as u

from . import equations
from .equations import Spec
from .symbols import (USD, B, N_active, N_total, attn_flops, attn_flops_rate, bytes_per_param, flops, hbm_bytes, kv_bytes,
                      len_ctx, mem_bw, n_chips, n_experts, n_routed, price, top_k)

SECONDS_PER_HOUR = 3600
FLOPS_PER_MAC = 2  # a multiply-add is two floating-point operations (datasheets); the lecture counts one
REGIMES = ("compute-bound", "weight-bound", "KV-bound")
TOKENS_READ = {"dense": len_ctx, "sqrt": sp.sqrt(len_ctx)}  # KV entries each sequence reads, by attention
KV_CHIPS = {"split": n_chips, "replicated": 1}              # chips the KV cache is divided over, by sharding
ATTENTION, KV_SHARDING = tuple(TOKENS_READ), tuple(KV_CHIPS)  # the variant axes, defaults first

_S = u.second


def build(attention="dense", kv_sharding="split"):
    """The chapter-1 equations under one variant, as {numeric function name: Spec}."""
    equations.check_variant(__name__, attention=attention, kv_sharding=kv_sharding)
    tokens_read, kv_chips = TOKENS_READ[attention], KV_CHIPS[kv_sharding]

    t_compute = B * N_active * FLOPS_PER_MAC / (n_chips * flops)  # each sequence multiplies every active weight (00:03:12)
    t_weights = N_total * bytes_per_param / (n_chips * mem_bw)    # every stored weight read once per step (00:05:05)
    t_kv = B * tokens_read * kv_bytes / (kv_chips * mem_bw)       # each sequence reads its context's KV (00:05:30)
    t_mem = t_weights + t_kv                                      # memory time (00:05:46)
    step = sp.Max(t_compute, t_mem)                               # roofline bound, t >= max(compute, memory) (00:02:37)
    drain = hbm_bytes / mem_bw                                    # read all of HBM once: the "train" period (00:23:36)

    b_star = sp.solve(sp.Eq(t_compute, t_weights), B)[0]          # weight fetch = compute, KV dropped (00:16:15)
    b_star_kv = sp.solve(sp.Eq(t_compute, t_mem), B)[0]           # the same with the KV term kept (00:19:57)
    l_star = sp.solve(sp.Eq(t_kv, t_compute), len_ctx)[0]         # KV fetch = compute, for any B (01:38:22)
    kv_slower = len_ctx >= l_star  # at or beyond the balance context the KV fetch alone outruns compute

    # -- beyond the lecture: the refinements chapter 1 measures the simple model against -------------
    touched = 1 - (1 - top_k / n_experts) ** B                     # expected share of routed experts some token uses
    t_weights_touched = (N_total - n_routed + n_routed * touched) * bytes_per_param / (n_chips * mem_bw)
    # attention runs at the KV cache's precision (BF16 or FP8 kernels), the weights' matmuls at theirs
    t_compute_attn = B * (FLOPS_PER_MAC * N_active / flops + attn_flops * tokens_read / attn_flops_rate) / n_chips
    step_refined = sp.Max(t_compute_attn, t_weights_touched + t_kv)
    # KV fetch = compute with attention: never where attention's FLOPs per KV byte outrun the machine's
    kv_per_read, attn_per_read = t_kv / (B * tokens_read), attn_flops / (n_chips * attn_flops_rate)
    l_star_attn = sp.Piecewise((sp.oo, kv_per_read <= attn_per_read),
                               (sp.solve(sp.Eq(t_kv, t_compute_attn), len_ctx)[0], True))
    crossover = sp.solve(sp.Eq(attn_flops * tokens_read, FLOPS_PER_MAC * N_active), len_ctx)[0]
    # memory: every weight (all experts) is stored once over the G chips; each chip holds its share of the KV
    per_chip_free = hbm_bytes - N_total * bytes_per_param / n_chips
    stored = len_ctx * kv_bytes                                       # a sequence stores its whole context
    max_batch = sp.Piecewise((0, per_chip_free < 0), (sp.oo, sp.Eq(stored, 0)),
                             (kv_chips * per_chip_free / stored, True))
    k_le_e = (top_k <= n_experts, "top_k must not exceed n_experts")
    routed_le_total = (n_routed <= N_total, "n_routed must not exceed n_total")

    never = "inf where the step is never compute-bound: the KV fetch per sequence is at least the compute (00:10:34)"
    return {
        "compute_time_s": Spec(t_compute, "s", "Compute time of one decode step.", _S),
        "weight_time_s": Spec(t_weights, "s", "Weight-fetch time of one decode step.", _S),
        "kv_time_s": Spec(t_kv, "s", "KV-fetch time of one decode step.", _S),
        "memory_time_s": Spec(t_mem, "s", "Memory time: weight fetch + KV fetch.", _S),
        "step_time_s": Spec(step, "s", "Step time, max(compute, weight fetch + KV fetch).", _S),
        "tokens_per_s": Spec(B / step, "token/s", "Tokens per second of one replica.", 1 / _S),
        "cost_per_token_usd": Spec(n_chips * price / SECONDS_PER_HOUR * step / B, "USD/token",
                                   "Cost of one output token: chip-seconds x price (00:12:40).", USD),
        "cost_floor_usd": Spec(n_chips * price / SECONDS_PER_HOUR * sp.Max(t_compute.subs(B, 1), t_kv.subs(B, 1)),
                               "USD/token", "Cost per token once the weight fetch is shared by a huge batch: "
                               "the larger per-sequence slope, compute or KV (00:13:12).", USD),
        "ratio": Spec(flops * bytes_per_param / (FLOPS_PER_MAC * mem_bw), "dimensionless",
                      "Hardware ratio F b_w / (2 W), the lecture's 'about 300' (00:18:32).", 1),
        "balance_batch_n": Spec(b_star, "sequences", "Batch where weight fetch equals compute (KV dropped).", 1),
        "balance_batch_with_kv_n": Spec(sp.Piecewise((sp.oo, kv_slower), (b_star_kv, True)), "sequences",
                                        "Batch where compute equals weight fetch + KV fetch.", 1, infinite=never),
        "balance_context_tokens": Spec(l_star, "tokens", "Context where KV fetch equals compute.", 1,
                                       infinite="inf where there is no KV cache (kv_bytes = 0)"),
        "experts_touched_fraction": Spec(touched, "dimensionless",
                                         "Expected share of routed experts at least one of B tokens is sent to, "
                                         "1 - (1 - K/E)^B, under uniform routing.", 1, requires=(k_le_e,)),
        "weight_time_touched_s": Spec(t_weights_touched, "s", "Weight-fetch time when a step reads only the "
                                      "routed experts its tokens use (always-on weights in full).", _S,
                                      requires=(k_le_e, routed_le_total)),
        "compute_time_attn_s": Spec(t_compute_attn, "s", "Compute time with attention's FLOPs: per sequence, "
                                    "2 N_active at F plus a per token of context read at F_a.", _S),
        "step_time_refined_s": Spec(step_refined, "s", "Step time with attention FLOPs and only the experts "
                                    "touched read: max(compute + attention, touched weights + KV).", _S,
                                    requires=(k_le_e, routed_le_total)),
        "balance_context_attn_tokens": Spec(l_star_attn, "tokens", "Context where KV fetch equals compute "
                                            "with attention FLOPs counted.", 1,
                                            infinite="inf where attention alone takes at least as long as its "
                                            "KV reads: never KV-bound"),
        "attention_crossover_tokens": Spec(crossover, "tokens", "Context where attention FLOPs equal the "
                                           "weights' FLOPs, 2 N_active.", 1,
                                           infinite="inf where attention FLOPs are ignored (attn_flops = 0)"),
        "max_batch_n": Spec(max_batch, "sequences", "Most sequences whose KV cache fits in HBM beside the "
                            "weights (0 if the weights alone do not fit).", 1,
                            infinite="inf where a sequence stores no KV (len_ctx = 0 or kv_bytes = 0)"),
        "drain_time_s": Spec(drain, "s", "HBM drain time, capacity / bandwidth: the train period.", _S),
        "worst_latency_s": Spec(2 * drain, "s", "Worst-case wait plus ride under the train schedule (00:23:07).", _S),
        "train_tokens_per_s": Spec(B / drain, "token/s",
                                 "Tokens per second when a step takes one drain time: ~64 x B (00:26:32).", 1 / _S),
    }


EQUATIONS = equations.family(__name__, build, attention=ATTENTION, kv_sharding=KV_SHARDING)

# The numeric functions (default variant) ...
compute_time_s = EQUATIONS["compute_time_s"]
weight_time_s = EQUATIONS["weight_time_s"]
kv_time_s = EQUATIONS["kv_time_s"]
memory_time_s = EQUATIONS["memory_time_s"]
step_time_s = EQUATIONS["step_time_s"]
tokens_per_s = EQUATIONS["tokens_per_s"]
cost_per_token_usd = EQUATIONS["cost_per_token_usd"]
cost_floor_usd = EQUATIONS["cost_floor_usd"]
ratio = EQUATIONS["ratio"]
balance_batch_n = EQUATIONS["balance_batch_n"]
balance_batch_with_kv_n = EQUATIONS["balance_batch_with_kv_n"]
balance_context_tokens = EQUATIONS["balance_context_tokens"]
drain_time_s = EQUATIONS["drain_time_s"]
experts_touched_fraction = EQUATIONS["experts_touched_fraction"]
weight_time_touched_s = EQUATIONS["weight_time_touched_s"]
compute_time_attn_s = EQUATIONS["compute_time_attn_s"]
step_time_refined_s = EQUATIONS["step_time_refined_s"]
attention_crossover_tokens = EQUATIONS["attention_crossover_tokens"]
balance_context_attn_tokens = EQUATIONS["balance_context_attn_tokens"]
max_batch_n = EQUATIONS["max_batch_n"]
worst_latency_s = EQUATIONS["worst_latency_s"]
train_tokens_per_s = EQUATIONS["train_tokens_per_s"]

# ... and their sympy expressions, under the names the lecture's board uses.
t_compute = compute_time_s.expr
t_weights = weight_time_s.expr
t_kv = kv_time_s.expr
t_mem = memory_time_s.expr
step_time = step_time_s.expr
tokens_per_second = tokens_per_s.expr
cost_per_token = cost_per_token_usd.expr
cost_floor = cost_floor_usd.expr
hardware_ratio = ratio.expr
balance_batch = balance_batch_n.expr
balance_batch_kv = balance_batch_with_kv_n.expr.args[-1][0]  # its finite branch: compute = weights + KV
balance_context = balance_context_tokens.expr
drain_time = drain_time_s.expr
worst_latency = worst_latency_s.expr
train_throughput = train_tokens_per_s.expr
experts_touched = experts_touched_fraction.expr
t_weights_touched = weight_time_touched_s.expr
t_compute_attn = compute_time_attn_s.expr
step_time_refined = step_time_refined_s.expr
attention_crossover = attention_crossover_tokens.expr
balance_context_attn = balance_context_attn_tokens.expr.args[-1][0]  # its finite branch
max_batch = max_batch_n.expr

t_kv_sqrt = kv_time_s.under(attention="sqrt").expr
step_time_sqrt = step_time_s.under(attention="sqrt").expr
