"""Speculative decoding and multi-token prediction on the roofline (chapter 8, beyond the lecture).

A draft (a small model, or a multi-token-prediction head like DeepSeek-V3's) proposes ``k`` tokens;
the target model checks them all in one pass of ``l = k + 1`` tokens a sequence (the ``k`` drafts
and the position after them) and keeps the drafts up to the first it rejects, plus one token of its
own. With each draft accepted with chance ``alpha`` given the ones before it, a step emits on average

    tau = 1 + alpha + alpha^2 + ... + alpha^k = (1 - alpha^l) / (1 - alpha)

tokens (Leviathan et al. 2023, eq. 1). The verify pass is :mod:`roofline.prefill`'s pass with
``pass_len = l`` after ``L`` cached tokens: memory-bound, it costs about one decode step where the
step already reads every weight, since the weights and the cache are read once whatever ``l``;
compute-bound, about ``l`` steps. A sparse MoE at a small batch is the exception: a step of ``B``
tokens reads only the routed experts they are sent to, and the verify pass's ``B l`` tokens touch up
to ``l`` times as many (variant ``experts="touched"``, the default; ``"all"`` is the lecture's read of
every weight). So speculation multiplies a user's speed by up to ``tau`` where decode waits on memory
(chapter 1's fast end; for a sparse MoE, once the batch's tokens touch most experts) and by
``tau / l < 1`` where it is compute-bound; ``spec_breakeven_batch`` is the batch between. The draft's
own cost is left out of these equations (a bound on the gain); chapter 8 counts it for DeepSeek-V3's
MTP module with the same pass equation.

The acceptance rate ``accept_rate`` is chapter 8's symbol in :mod:`roofline.symbols`; every equation
here is registered (:data:`spec_pass_time_s`, :data:`verify_cost_ratio`, :data:`tokens_per_step`,
:data:`spec_speedup`, :data:`spec_user_tokens_per_s`, :data:`spec_breakeven_batch`).

>>> print(f"{tokens_per_step(accept_rate=0.875, pass_len=2):.3f} tokens a step")
1.875 tokens a step
>>> print(f"{accept_rate_for(2.18, 3):.3f}")
0.696
"""

import numpy as np
import sympy as sp
from sympy.physics import units as u

from . import _check, equations, prefill
from .equations import Spec
from .symbols import B, N_total, accept_rate, len_ctx, n_experts, n_routed, pass_len, top_k

_S = u.second


def build(experts="touched"):
    """The chapter-8 speculation equations under one variant, as {numeric function name: Spec}.

    ``experts="touched"`` (the default): a pass of ``B l`` tokens reads the always-on weights and the routed
    experts those tokens are sent to, ``1 - (1 - K/E)^(B l)`` of them (chapter 1's
    :data:`~roofline.decode.experts_touched_fraction`), so a sparse MoE's verify pass at a small batch reads
    up to ``l`` times the experts of a plain step. ``"all"``: every stored weight, whatever the batch (the
    lecture's read; a dense model's either way).
    """
    equations.check_variant(__name__, experts=experts)
    one = {pass_len: 1}
    t_comp, t_mem = prefill.pass_terms(experts)
    t_l = sp.Max(t_comp, t_mem, evaluate=False)
    t_1 = t_l.subs(one)
    # a step emits the accepted drafts and one token of the target's: 1 + alpha + ... + alpha^k
    tau = sp.Piecewise((pass_len, sp.Eq(accept_rate, 1)), ((1 - accept_rate**pass_len) / (1 - accept_rate), True))
    # speculation pays while the verify pass takes less than tau plain steps; where the plain step is
    # memory-bound and the verify pass compute-bound that is tau t_mem(1) = t_comp(l), linear in B once every
    # expert is read: tau (w + B m) = B c, with w the weights' read, m a sequence's cache read and write, c its
    # FLOPs' time. Written with all the weights read under both variants: at such batches (B K / E of many)
    # the plain step's tokens already touch every expert, so the touched read is the same.
    _, t_mem_all = prefill.pass_terms("all")
    weights = t_mem_all.subs({B: 0, pass_len: 1})
    per_seq = sp.expand((t_mem_all.subs(one) - weights) / B)
    slope = sp.expand(t_comp / B) - tau * per_seq  # > 0: the verify pass's FLOPs outgrow tau steps' reads
    b_even = tau * weights / slope
    le1 = (accept_rate <= 1, "accept_rate must be at most 1 (a probability)")
    moe = ((top_k <= n_experts, "top_k must not exceed n_experts"),
           (n_routed <= N_total, "n_routed must not exceed n_total")) if experts == "touched" else ()
    read = ("only the routed experts its B l tokens are sent to" if experts == "touched" else "every weight")
    return {
        "spec_pass_time_s": Spec(t_l, "s", f"Time of a pass verifying l tokens a sequence (l = 1: a plain decode "
                                 f"step), max(compute, memory), reading {read}.", _S, requires=moe),
        "verify_cost_ratio": Spec(t_l / t_1, "1", "Time of a pass verifying l tokens a sequence over a "
                                  "plain decode step (l = 1) at the same batch and context: about 1 where "
                                  "memory-bound and the step already reads every weight, up to l where it "
                                  "reads l times the experts (a sparse MoE at a small batch) or is "
                                  "compute-bound.", 1, requires=moe),
        "tokens_per_step": Spec(tau, "tokens", "Tokens a speculative step emits on average, (1 - alpha^l) / "
                                "(1 - alpha), with l = k + 1 tokens verified (k drafts).", 1, requires=(le1,)),
        "spec_speedup": Spec(tau * t_1 / t_l, "1", "A user's speed with speculation over without: tokens a "
                             "step over the verify pass's cost in plain steps (the draft's cost left out).", 1,
                             requires=(le1, *moe)),
        "spec_user_tokens_per_s": Spec(tau / t_l, "token/s", "Tokens a second each sequence gets with "
                                       "speculation (the draft's cost left out).", 1 / _S, requires=(le1, *moe)),
        "spec_breakeven_batch": Spec(sp.Piecewise((sp.oo, slope <= 0), (b_even, True)), "sequences",
                                     "Batch above which the verify pass costs more than the tau plain steps "
                                     "it replaces: speculation slows every user beyond it (every expert read, "
                                     "as at any batch whose tokens touch them all).", 1,
                                     infinite="inf where the verify pass never turns compute-bound before tau "
                                     "plain steps (a cache read that outgrows the FLOPs)",
                                     requires=(le1,)),
    }


EQUATIONS = equations.family(__name__, build, experts=("touched", "all"))

spec_pass_time_s = EQUATIONS["spec_pass_time_s"]
verify_cost_ratio = EQUATIONS["verify_cost_ratio"]
tokens_per_step = EQUATIONS["tokens_per_step"]
spec_speedup = EQUATIONS["spec_speedup"]
spec_user_tokens_per_s = EQUATIONS["spec_user_tokens_per_s"]
spec_breakeven_batch = EQUATIONS["spec_breakeven_batch"]

expected_tokens = tokens_per_step.expr.args[1][0]  # its branch for alpha < 1
breakeven_batch = spec_breakeven_batch.expr.args[1][0]


def accept_rate_for(tokens, pass_len):
    """The acceptance rate at which a step verifying ``pass_len`` tokens emits ``tokens`` on average: the
    inverse of ``tokens_per_step`` in ``accept_rate`` (a published "acceptance length" read as a rate).

    ``tokens`` must lie in ``[1, pass_len]``; solved by bisection (the mean is increasing in the rate).
    """
    ell = _check.check_value("pass_len", pass_len)
    tau = _check.check_value("tokens", tokens)
    if np.ndim(tau) or np.ndim(ell):
        raise ValueError("accept_rate_for takes one tokens and one pass_len, not arrays")
    if not 1 <= tau <= ell:
        raise ValueError(f"tokens must lie in [1, pass_len] = [1, {ell:g}]; got {tokens!r}")
    if tau == ell:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if (1 - mid**ell) / (1 - mid) < tau:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def expert_parallel_gpu(model, n_gpus, routed_params_per_gpu=None):
    """What the touched read needs for one GPU of an expert-parallel layout over ``n_gpus`` GPUs.

    The GPU holds ``routed_params_per_gpu`` of the routed experts (default: ``1 / G`` of the model's), and
    each of its experts is touched when any of the layout's ``G B l`` tokens is sent to it. Under uniform
    routing that is the share ``1 - (1 - K/E)^(G B l)`` of its experts, which the pass's equations give from
    the GPU's own ``B l`` tokens with ``top_k`` replaced by ``E (1 - (1 - K/E)^G)``. Returns ``n_routed``,
    ``n_experts`` and that ``top_k``; pass them with ``n_total`` = the weights the GPU holds (a dense model:
    no routed experts, one "expert" of top-1).

    >>> from roofline import models
    >>> v = expert_parallel_gpu(models.get("DeepSeek-V3"), 16)
    >>> print(f"{v['n_routed'] / 1e9:.1f}B routed a GPU; 32 tokens touch {1 - (1 - v['top_k'] / 256) ** 2:.0%}")
    40.9B routed a GPU; 32 tokens touch 64%
    """
    if not all(hasattr(model, name) for name in ("key", "routed_experts", "active_routed_experts", "routed_params")):
        raise ValueError(f"model must be a roofline Model (see roofline.models.get); got {_check.short(model)}")
    g = _check.check_value("n_gpus", n_gpus, "count", where="expert_parallel_gpu")
    if not model.routed_experts:
        return {"n_routed": 0.0, "n_experts": 1, "top_k": 1}
    if model.routed_params is None:
        raise ValueError(f"expert_parallel_gpu: model {model.key!r} has no expert shapes (routed_params)")
    e, k = model.routed_experts, model.active_routed_experts
    per_gpu = model.routed_params / g if routed_params_per_gpu is None else _check.check_value(
        "routed_params_per_gpu", routed_params_per_gpu, "nonnegative", where="expert_parallel_gpu")
    return {"n_routed": float(per_gpu), "n_experts": e, "top_k": float(e * (1 - (1 - k / e) ** g))}
