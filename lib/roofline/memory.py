"""Memory per GPU with expert and pipeline parallelism (lecture chapter 4, 01:03:37-01:18:59).

A model spread over ``G`` GPUs of a stage (the expert-parallel extent, the lecture's
``E``) and ``P`` pipeline stages needs its weights plus every sequence's KV cache:
``C = N_total b_w + B L k`` in all, ``C / (G P)`` per GPU with perfect sharding
(01:04:35-01:06:49). Keeping ``P`` stages busy in a decode loop takes ``P``
micro-batches of ``b`` sequences in flight, ``B = P b`` (01:08:36): so the weights per
GPU fall as ``1/P`` while the KV cache per GPU, ``b L k / G``, does not depend on ``P``
at all (01:10:33-01:11:34). Pipelining fixes weight capacity, not context.

Each token of a decode loop also crosses ``P`` rack boundaries (the last stage hands
back to the first). :data:`token_time_with_hops_s` charges all of them as full hops,
``P`` stage times plus ``P`` hops (01:15:13): an upper bound. One stage is chapter 1's
step for one micro-batch with ``1/P`` of the model, and one hop is
:data:`roofline.pipeline.hop_time_s` for that micro-batch: a latency plus each chip's
share of the micro-batch's activations at the scale-out bandwidth. The wrap-around
from the last stage to the first carries only the sampled token ids, so the loop's
time is :data:`roofline.pipeline.loop_token_time_s`, ``P - 1`` hops plus the latency
``tau``: this bound exceeds it by exactly ``hop - tau``.

Fixed batches and real layouts (beyond the lecture)
---------------------------------------------------
The ``P`` cancels only while each micro-batch stays the same size. With a **fixed
global batch** ``B`` the micro-batch is ``B / P``: the KV cache per GPU falls as
``1/P`` too (:data:`kv_per_gpu_fixed_batch_bytes`), but each stage re-reads its weights
once per micro-batch, so a round of tokens reads the whole model ``P`` times:
:data:`stages_at_balance` is the depth at which ``B / P`` reaches chapter 1's balance
batch (which leaves the KV reads out; at long context a memory-bound stage is dominated
by its cache whatever ``P`` is). :data:`kv_crossover_stages` is the depth at which the weights per GPU
fall to the cache per GPU (fixed micro-batch). :data:`kv_per_gpu_tp_bytes` is the
cache per GPU when attention is split ``n_TP`` ways by heads over ``h_kv`` KV heads:
heads are replicated ``n_TP / min(n_TP, h_kv)`` times (an MLA latent cache is one
"head", so tensor-parallel MLA stores every sequence's cache on every GPU of the group).
:data:`weights_per_gpu_dp_attention_bytes` is what data-parallel attention costs in
weights: each GPU keeps its own copy of everything but the routed experts. Those
always-on weights are counted as the active parameters less the active routed experts',
``N_active - K N_routed / E``, from the architecture's expert shapes: a rounded total
less the routed experts would leave the rounding in a small remainder (Kimi K2's quoted
1.04T gives 25.3B, twice the 11.5B its active count implies).

>>> print(f"{kv_per_gpu_bytes(micro_batch=1000, len_ctx=1e5, kv_bytes=70272, n_chips=64) / 1e9:.1f} GB")
109.8 GB
"""

import sympy as sp
from sympy.physics import units as u

from . import decode, equations, pipeline
from .equations import Spec
from .symbols import (B, N_active, N_total, bytes_per_param, hbm_bytes, kv_bytes, kv_heads, len_ctx, micro_batch,
                      n_chips, n_experts, n_routed, n_stages, top_k, tp_ways)

_B = u.byte


def build():
    """The chapter-4 equations, as {numeric function name: Spec}."""
    batch = n_stages * micro_batch                      # P micro-batches in flight (01:09:47)
    weights = N_total * bytes_per_param                 # every weight, stored once
    kv = batch * len_ctx * kv_bytes                     # every sequence's whole context
    per_gpu = (weights + kv) / (n_chips * n_stages)     # perfect sharding over G x P GPUs (01:06:49)
    weights_gpu = weights / (n_chips * n_stages)
    # data-parallel attention: every GPU holds the weights outside the routed experts whole, the experts 1/G;
    # the always-on weights are the active ones less the K active routed experts (each N_routed / E)
    always_on = N_active - top_k * n_routed / n_experts
    weights_dp = (always_on + n_routed / n_chips) * bytes_per_param / n_stages
    k_le_e = (top_k <= n_experts, "top_k must not exceed n_experts")
    routed_le_active = (top_k * n_routed / n_experts <= N_active,
                        "the active routed experts (top_k n_routed / n_experts) must not exceed n_active")
    kv_gpu = sp.simplify(kv / (n_chips * n_stages))     # the P cancels (01:11:34)
    # the largest micro-batch whose cache fits beside a stage's share of the weights
    fits = sp.solve(sp.Eq(weights_gpu + kv_gpu, hbm_bytes), micro_batch)[0]
    # the fewest stages whose GPUs hold 1/P of the weights beside the micro-batch's cache, as a real number
    room = n_chips * hbm_bytes - micro_batch * len_ctx * kv_bytes  # a stage's HBM less the cache (P-free)
    stages_needed = sp.Piecewise((sp.oo, room <= 0), (weights / room, True))
    # one micro-batch through one stage: chapter 1's step for b sequences with 1/P of the model on G chips
    stage = decode.step_time_s.expr.subs(decode.B, micro_batch).subs(n_chips, n_chips * n_stages)
    hops = sp.Piecewise((0, n_stages <= 1), (n_stages, True))  # the loop wraps from the last stage to the first
    hop = pipeline.hop_time_s.expr.subs(pipeline.B, micro_batch)  # one cut: latency + the micro-batch's bytes
    # a fixed global batch B instead: the micro-batch is B / P
    kv_fixed = B * len_ctx * kv_bytes / (n_chips * n_stages)
    b_bal = decode.balance_batch_n.expr                 # a stage's balance micro-batch: the P cancels (chapter 1's)
    deepest = B / b_bal                                 # B / P >= b_bal
    cross = N_total * bytes_per_param / (micro_batch * len_ctx * kv_bytes)  # weights/(G P) = b L k / G
    # attention split tp ways by heads: b tp / G sequences per group, each GPU 1/min(tp, h_kv) of their cache
    kv_tp = micro_batch * tp_ways * len_ctx * kv_bytes / (n_chips * sp.Min(tp_ways, kv_heads))
    return {
        "total_memory_bytes": Spec(weights + kv, "byte", "All weights plus every sequence's KV cache, "
                                   "B = P b sequences (01:04:35).", _B),
        "memory_per_gpu_bytes": Spec(per_gpu, "byte", "Memory per GPU over G GPUs per stage and P stages "
                                     "(01:06:49).", _B),
        "weights_per_gpu_bytes": Spec(weights_gpu, "byte", "Weight bytes per GPU: falls as 1/P.", _B),
        "weights_per_gpu_dp_attention_bytes": Spec(weights_dp, "byte", "Weight bytes per GPU when each GPU "
                                                   "holds the weights outside the routed experts whole (attention, "
                                                   "shared experts, dense layers, embeddings: data-parallel "
                                                   "attention) and 1/G of the routed experts, over P stages; "
                                                   "always-on = N_active - K N_routed / E.", _B,
                                                   requires=(k_le_e, routed_le_active)),
        "kv_per_gpu_bytes": Spec(kv_gpu, "byte", "KV-cache bytes per GPU: b L k / G, the same for every P "
                                 "(01:11:34).", _B, zero="0 for an empty context or no KV cache"),
        "max_micro_batch_n": Spec(sp.Piecewise((0, fits < 0), (sp.oo, sp.Eq(len_ctx * kv_bytes, 0)), (fits, True)),
                                  "sequences", "Largest micro-batch whose KV cache fits per GPU beside 1/P of the "
                                  "weights; P = 1 is chapter 1's max_batch_n.", 1,
                                  infinite="inf where a sequence stores no KV (len_ctx = 0 or kv_bytes = 0)",
                                  zero="0 where the weights alone do not fit"),
        "stages_to_fit": Spec(stages_needed, "stages", "Pipeline stages needed for the weights and a "
                              "micro-batch's cache to fit (round up): N b_w / (G M - b L k).", 1,
                              infinite="inf where the cache alone fills the stage: no depth makes it fit"),
        "token_time_with_hops_s": Spec(n_stages * stage + hops * hop, "s",
                                       "Upper bound on the time per token of a decode loop over P stages: P stage "
                                       "times of one micro-batch plus P full hops, the last back to the first "
                                       "(01:15:13); a hop is the latency tau plus each chip's share of the "
                                       "micro-batch's activations, (b/G) D b_a bytes, at the scale-out bandwidth. "
                                       "The wrap-around carries token ids only: roofline.pipeline."
                                       "loop_token_time_s is the loop's time, less by hop - tau.", u.second),
        "kv_per_gpu_fixed_batch_bytes": Spec(kv_fixed, "byte", "KV-cache bytes per GPU for a fixed global batch "
                                             "B over P stages: B L k / (G P), falling as 1/P.", _B,
                                             zero="0 for an empty context or no KV cache"),
        "stages_at_balance": Spec(deepest, "stages", "Deepest pipeline whose micro-batches, B / P of a fixed "
                                  "global batch, stay at chapter 1's balance batch (weight fetch = compute, "
                                  "KV reads left out).", 1),
        "kv_crossover_stages": Spec(sp.Piecewise((sp.oo, sp.Eq(len_ctx * kv_bytes, 0)), (cross, True)), "stages",
                                    "Depth at which the weights per GPU fall to the KV cache per GPU, "
                                    "N b_w / (b L k), micro-batch fixed; beyond it the cache dominates.", 1,
                                    infinite="inf where a sequence stores no KV (len_ctx = 0 or kv_bytes = 0)"),
        "kv_per_gpu_tp_bytes": Spec(kv_tp, "byte", "KV-cache bytes per GPU with attention split n_TP ways by "
                                    "heads over h_kv KV heads (G / n_TP groups share the micro-batch); n_TP = 1 "
                                    "is data-parallel attention, b L k / G.", _B,
                                    zero="0 for an empty context or no KV cache"),
    }


EQUATIONS = equations.family(__name__, build)

total_memory_bytes = EQUATIONS["total_memory_bytes"]
memory_per_gpu_bytes = EQUATIONS["memory_per_gpu_bytes"]
weights_per_gpu_bytes = EQUATIONS["weights_per_gpu_bytes"]
kv_per_gpu_bytes = EQUATIONS["kv_per_gpu_bytes"]
weights_per_gpu_dp_attention_bytes = EQUATIONS["weights_per_gpu_dp_attention_bytes"]
max_micro_batch_n = EQUATIONS["max_micro_batch_n"]
stages_to_fit = EQUATIONS["stages_to_fit"]
token_time_with_hops_s = EQUATIONS["token_time_with_hops_s"]
kv_per_gpu_fixed_batch_bytes = EQUATIONS["kv_per_gpu_fixed_batch_bytes"]
stages_at_balance = EQUATIONS["stages_at_balance"]
kv_crossover_stages = EQUATIONS["kv_crossover_stages"]
kv_per_gpu_tp_bytes = EQUATIONS["kv_per_gpu_tp_bytes"]
