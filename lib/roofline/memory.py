"""Memory per GPU with expert and pipeline parallelism (lecture chapter 4, 01:03:37-01:18:59).

A model spread over ``G`` GPUs of a stage (the expert-parallel extent, the lecture's
``E``) and ``P`` pipeline stages needs its weights plus every sequence's KV cache:
``C = N_total b_w + B L k`` in all, ``C / (G P)`` per GPU with perfect sharding
(01:04:35-01:06:49). Keeping ``P`` stages busy in a decode loop takes ``P``
micro-batches of ``b`` sequences in flight, ``B = P b`` (01:08:36): so the weights per
GPU fall as ``1/P`` while the KV cache per GPU, ``b L k / G``, does not depend on ``P``
at all (01:10:33-01:11:34). Pipelining fixes weight capacity, not context.

Each token of a decode loop also crosses ``P`` rack boundaries (the last stage hands
back to the first), so the token's time is ``P`` stage times plus ``P`` hops (01:15:13);
one stage is chapter 1's step for one micro-batch with ``1/P`` of the model.

>>> print(f"{kv_per_gpu_bytes(micro_batch=1000, len_ctx=1e5, kv_bytes=70272, n_chips=64) / 1e9:.1f} GB")
109.8 GB
"""

import sympy as sp
from sympy.physics import units as u

from . import decode, equations
from .equations import Spec
from .symbols import (N_total, bytes_per_param, hbm_bytes, hop_latency, kv_bytes, len_ctx, micro_batch, n_chips,
                      n_stages)

_B = u.byte


def build():
    """The chapter-4 equations, as {numeric function name: Spec}."""
    batch = n_stages * micro_batch                      # P micro-batches in flight (01:09:47)
    weights = N_total * bytes_per_param                 # every weight, stored once
    kv = batch * len_ctx * kv_bytes                     # every sequence's whole context
    per_gpu = (weights + kv) / (n_chips * n_stages)     # perfect sharding over G x P GPUs (01:06:49)
    weights_gpu = weights / (n_chips * n_stages)
    kv_gpu = sp.simplify(kv / (n_chips * n_stages))     # the P cancels (01:11:34)
    # the largest micro-batch whose cache fits beside a stage's share of the weights
    fits = sp.solve(sp.Eq(weights_gpu + kv_gpu, hbm_bytes), micro_batch)[0]
    # the fewest stages whose GPUs hold 1/P of the weights beside the micro-batch's cache, as a real number
    room = n_chips * hbm_bytes - micro_batch * len_ctx * kv_bytes  # a stage's HBM less the cache (P-free)
    stages_needed = sp.Piecewise((sp.oo, room <= 0), (weights / room, True))
    # one micro-batch through one stage: chapter 1's step for b sequences with 1/P of the model on G chips
    stage = decode.step_time_s.expr.subs(decode.B, micro_batch).subs(n_chips, n_chips * n_stages)
    hops = sp.Piecewise((0, n_stages <= 1), (n_stages, True))  # the loop wraps from the last stage to the first
    return {
        "total_memory_bytes": Spec(weights + kv, "byte", "All weights plus every sequence's KV cache, "
                                   "B = P b sequences (01:04:35).", _B),
        "memory_per_gpu_bytes": Spec(per_gpu, "byte", "Memory per GPU over G GPUs per stage and P stages "
                                     "(01:06:49).", _B),
        "weights_per_gpu_bytes": Spec(weights_gpu, "byte", "Weight bytes per GPU: falls as 1/P.", _B),
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
        "token_time_with_hops_s": Spec(n_stages * stage + hops * hop_latency, "s",
                                       "Time per token of a decode loop over P stages: P stage times of one "
                                       "micro-batch plus P hops, the last back to the first (01:15:13).", u.second),
    }


EQUATIONS = equations.family(__name__, build)

total_memory_bytes = EQUATIONS["total_memory_bytes"]
memory_per_gpu_bytes = EQUATIONS["memory_per_gpu_bytes"]
weights_per_gpu_bytes = EQUATIONS["weights_per_gpu_bytes"]
kv_per_gpu_bytes = EQUATIONS["kv_per_gpu_bytes"]
max_micro_batch_n = EQUATIONS["max_micro_batch_n"]
stages_to_fit = EQUATIONS["stages_to_fit"]
token_time_with_hops_s = EQUATIONS["token_time_with_hops_s"]
