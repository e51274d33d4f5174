"""The decode step as a roofline (lecture chapter 1, 00:02:37-00:27:50).

Each equation is written once below as a sympy expression in the symbols of
:mod:`roofline.symbols`; the numeric functions are generated from those
expressions with :func:`sympy.lambdify`, so the formula is never retyped.

FLOP convention
---------------
Datasheets count a multiply-add as 2 FLOPs, and so does this library by
default (``flops_per_mac = 2``). The lecture counts multiplies (00:18:09), so
its "FLOPs" are half a datasheet's. Both enter only through
:data:`hardware_ratio`, ``F * b_w / (c_mac * W)``; with FP4 weights
(``b_w = 0.5`` byte) it is "about 300" on most GPUs (00:18:32).

All times are for one decode step of ``B`` sequences on ``G`` chips that
split the weights, the KV cache and the work evenly. Communication, attention
FLOPs and overheads are left out, as in the lecture: these are lower bounds.
"""

import numpy as np
import sympy as sp

from . import _check
from .symbols import (B, N_active, N_total, bytes_per_param, flops, flops_per_mac, hbm_bytes,
                      kv_bytes, len_ctx, mem_bw, n_chips, price)

SECONDS_PER_HOUR = 3600

# -- the equations ---------------------------------------------------------------------------
t_compute = B * N_active * flops_per_mac / (n_chips * flops)   # s: each sequence multiplies every active weight (00:03:12)
t_weights = N_total * bytes_per_param / (n_chips * mem_bw)      # s: every stored weight read once per step (00:05:05)
t_kv = B * len_ctx * kv_bytes / (n_chips * mem_bw)              # s: each sequence reads its whole context's KV (00:05:30)
t_kv_sqrt = B * sp.sqrt(len_ctx) * kv_bytes / (n_chips * mem_bw)  # s: sparse attention, "a square root in this term" (00:12:20)
t_mem = t_weights + t_kv                                        # s: memory time (00:05:46)
step_time = sp.Max(t_compute, t_mem)                            # s: roofline bound, t >= max(compute, memory) (00:02:37)
step_time_sqrt = sp.Max(t_compute, t_weights + t_kv_sqrt)       # s: the same with sparse attention
tokens_per_second = B / step_time                               # token/s: one new token per sequence per step
cost_per_token = n_chips * price / SECONDS_PER_HOUR * step_time / B  # USD/token: chip-seconds x price (00:12:40)

hardware_ratio = flops * bytes_per_param / (flops_per_mac * mem_bw)  # dimensionless: "about 300" (00:18:32)
balance_batch = sp.solve(sp.Eq(t_compute, t_weights), B)[0]     # sequences: weight fetch = compute, KV dropped (00:16:15)
balance_batch_kv = sp.solve(sp.Eq(t_compute, t_mem), B)[0]      # sequences: the same with the KV term kept (00:19:57)
balance_context = sp.solve(sp.Eq(t_kv, t_compute), len_ctx)[0]  # tokens: KV fetch = compute, for any B (01:38:22)
drain_time = hbm_bytes / mem_bw                                 # s: read all of HBM once, the "train" period (00:23:36)
worst_latency = 2 * drain_time                                  # s: wait for the next train, then ride it (00:23:07)
train_throughput = B / drain_time                               # token/s per deployment: ~64 x B (00:26:32)

# -- numeric functions generated from them ------------------------------------------------
# Python keyword for each symbol; every numeric function takes these names.
ARGS = {
    "batch": B, "n_total": N_total, "n_active": N_active, "bytes_per_param": bytes_per_param,
    "flops_per_mac": flops_per_mac, "flops": flops, "mem_bw": mem_bw, "n_chips": n_chips,
    "len_ctx": len_ctx, "kv_bytes": kv_bytes, "price": price, "hbm_bytes": hbm_bytes,
}
_NAME = {sym: name for name, sym in ARGS.items()}


def _numeric(expr, name, doc):
    """Lambdify ``expr`` once and wrap it so every argument is checked by keyword."""
    syms = sorted(expr.free_symbols, key=lambda s: list(ARGS.values()).index(s))
    names = [_NAME[s] for s in syms]
    fast = sp.lambdify(syms, expr, "numpy", cse=True)

    def f(**kwargs):
        missing = [n for n in names if n not in kwargs]
        extra = [k for k in kwargs if k not in names]
        if missing or extra:
            raise ValueError(f"{name}() takes keyword arguments {', '.join(names)}; "
                             f"missing {missing}, unexpected {extra}")
        with np.errstate(over="ignore"):
            return fast(*(_check.positive(n, kwargs[n]) for n in names))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + f"\n\nKeyword arguments: {', '.join(names)} (SI units, see :mod:`roofline.symbols`)."
    f.args = tuple(names)
    f.expr = expr
    f.fast = fast  # the unchecked lambdified function, for benchmarks
    return f


compute_time_s = _numeric(t_compute, "compute_time_s", "Compute time of one decode step, s.")
weight_time_s = _numeric(t_weights, "weight_time_s", "Weight-fetch time of one decode step, s.")
kv_time_s = _numeric(t_kv, "kv_time_s", "KV-fetch time of one decode step (dense attention), s.")
step_time_s = _numeric(step_time, "step_time_s", "Step time, max(compute, weight fetch + KV fetch), s.")
tokens_per_s = _numeric(tokens_per_second, "tokens_per_s", "Tokens per second of one deployment.")
cost_per_token_usd = _numeric(cost_per_token, "cost_per_token_usd", "Cost of one output token, USD.")
balance_batch_n = _numeric(balance_batch, "balance_batch_n",
                           "Batch where weight fetch equals compute (KV term dropped), sequences.")
balance_context_tokens = _numeric(balance_context, "balance_context_tokens",
                                  "Context length where KV fetch equals compute, tokens.")
drain_time_s = _numeric(drain_time, "drain_time_s", "HBM drain time, capacity / bandwidth, s.")
worst_latency_s = _numeric(worst_latency, "worst_latency_s",
                           "Worst-case wait plus ride under the train schedule, s.")
ratio = _numeric(hardware_ratio, "ratio",
                 "Hardware ratio F * b_w / (c_mac * W), the lecture's 'about 300'.")


_balance_batch_kv_n = _numeric(balance_batch_kv, "balance_batch_with_kv_n", "")


def balance_batch_with_kv_n(**kwargs):
    """Batch where compute equals weight fetch + KV fetch, sequences.

    Returns ``inf`` where the context is at least the balance context: there the KV
    slope is at least the compute slope and the step never becomes compute-bound,
    however large the batch (00:10:34). Takes the keyword arguments of
    :func:`balance_batch_n` plus ``len_ctx`` and ``kv_bytes``.

    >>> b = balance_batch_with_kv_n(n_total=700e9, n_active=87.5e9, bytes_per_param=0.5,
    ...     flops_per_mac=2, flops=10e15, mem_bw=8e12, len_ctx=1, kv_bytes=1e-9)
    >>> print(f"{b:,.0f}")
    2,500
    """
    batch = _balance_batch_kv_n(**kwargs)
    below = kwargs["len_ctx"] < balance_context_tokens(**{n: kwargs[n] for n in balance_context_tokens.args})
    out = np.where(below, batch, np.inf)
    return out if out.ndim else float(out)


balance_batch_with_kv_n.expr = balance_batch_kv
balance_batch_with_kv_n.args = _balance_batch_kv_n.args


# -- a deployment: a model on some hardware --------------------------------------------------
BYTES_PER_PARAM = {"fp4": 0.5, "fp8": 1.0, "bf16": 2.0}  # FP4: half a byte per weight (00:18:09)
ATTENTION = ("dense", "sqrt")
REGIMES = ("compute-bound", "weight-bound", "KV-bound")
