"""Speculative decoding and multi-token prediction on the roofline (chapter 8, beyond the lecture).

A draft (a small model, or a multi-token-prediction head like DeepSeek-V3's) proposes ``k`` tokens;
the target model checks them all in one pass of ``l = k + 1`` tokens a sequence (the ``k`` drafts
and the position after them) and keeps the drafts up to the first it rejects, plus one token of its
own. With each draft accepted with chance ``alpha`` given the ones before it, a step emits on average

    tau = 1 + alpha + alpha^2 + ... + alpha^k = (1 - alpha^l) / (1 - alpha)

tokens (Leviathan et al. 2023, eq. 1). The verify pass is :mod:`roofline.prefill`'s pass with
``pass_len = l`` after ``L`` cached tokens: memory-bound, it costs about one decode step, since the
weights and the cache are read once whatever ``l``; compute-bound, about ``l`` steps. So speculation
multiplies a user's speed by ``tau`` where decode waits on memory (small batches: chapter 1's fast
mode) and by ``tau / l < 1`` where it is compute-bound; ``spec_breakeven_batch`` is the batch
between. The draft's own cost is left out of these equations (a bound on the gain); chapter 8 counts
it for DeepSeek-V3's MTP module with the same pass equation.

The acceptance rate ``accept_rate`` is chapter 8's symbol in :mod:`roofline.symbols`; every equation
here is registered (:data:`verify_cost_ratio`, :data:`tokens_per_step`, :data:`spec_speedup`,
:data:`spec_user_tokens_per_s`, :data:`spec_breakeven_batch`).

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
from .symbols import B, accept_rate, len_ctx, pass_len

_S = u.second


def build():
    """The chapter-8 speculation equations, as {numeric function name: Spec}."""
    one = {pass_len: 1}
    t_comp, t_mem = prefill.pass_terms()
    t_l, t_1 = prefill.t_prefill, prefill.t_prefill.subs(one)
    # a step emits the accepted drafts and one token of the target's: 1 + alpha + ... + alpha^k
    tau = sp.Piecewise((pass_len, sp.Eq(accept_rate, 1)), ((1 - accept_rate**pass_len) / (1 - accept_rate), True))
    # speculation pays while the verify pass takes less than tau plain steps; where the plain step is
    # memory-bound and the verify pass compute-bound that is tau t_mem(1) = t_comp(l), linear in B
    # tau (w + B m) = B c, with w the weights' read, m a sequence's cache read and write, c its FLOPs' time
    weights = t_mem.subs({B: 0, pass_len: 1})
    per_seq = sp.expand((t_mem.subs(one) - weights) / B)
    slope = sp.expand(t_comp / B) - tau * per_seq  # > 0: the verify pass's FLOPs outgrow tau steps' reads
    b_even = tau * weights / slope
    le1 = (accept_rate <= 1, "accept_rate must be at most 1 (a probability)")
    return {
        "verify_cost_ratio": Spec(t_l / t_1, "1", "Time of a pass verifying l tokens a sequence over a "
                                  "plain decode step (l = 1) at the same batch and context: about 1 where "
                                  "memory-bound, about l where compute-bound.", 1),
        "tokens_per_step": Spec(tau, "tokens", "Tokens a speculative step emits on average, (1 - alpha^l) / "
                                "(1 - alpha), with l = k + 1 tokens verified (k drafts).", 1, requires=(le1,)),
        "spec_speedup": Spec(tau * t_1 / t_l, "1", "A user's speed with speculation over without: tokens a "
                             "step over the verify pass's cost in plain steps (the draft's cost left out).", 1,
                             requires=(le1,)),
        "spec_user_tokens_per_s": Spec(tau / t_l, "token/s", "Tokens a second each sequence gets with "
                                       "speculation (the draft's cost left out).", 1 / _S, requires=(le1,)),
        "spec_breakeven_batch": Spec(sp.Piecewise((sp.oo, slope <= 0), (b_even, True)), "sequences",
                                     "Batch above which the verify pass costs more than the tau plain steps "
                                     "it replaces: speculation slows every user beyond it.", 1,
                                     infinite="inf where the verify pass never turns compute-bound before tau "
                                     "plain steps (a cache read that outgrows the FLOPs)",
                                     requires=(le1,)),
    }


EQUATIONS = equations.family(__name__, build)

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
