"""Training, RL and inference compute, and Chinchilla's loss law (lecture chapter 5, 01:18:59-01:33:02).

One matrix multiply of ``n`` tokens by a ``d_in x d_out`` weight costs ``2 n d_in d_out``
FLOPs forward; the backward pass runs two more of the same size (the gradient for the
input and the gradient for the weight). Per parameter per token that is 2 forward and
4 backward: the 6 of ``6ND`` (01:22:13) is derived here from the multiply, not typed.

The lecture's three costs (01:21:56-01:23:48), with ``N`` the active parameters:

* pre-training ``6 N D_pre``;
* RL ``f_RL N D_RL / eta``: 2 to 6 FLOPs per parameter per rollout token (generate all,
  train on some), at decode's lower MFU ``eta`` (a fraction of training's);
* inference ``2 N D_inf / eta``, with ``D_inf`` = traffic x deployment time.

Costs are in *training-FLOP equivalents*: FLOPs divided by their MFU relative to
training, so they add up as machine time. Setting them equal (the lecture's heuristic)
gives ``D_pre = D_inf / (3 eta)`` and ``D_RL = 6 eta D_pre / f_RL``.

Chinchilla's law ``L = E + A/N^alpha + B/D^beta`` (Hoffmann et al. 2022) says what
quality a model of ``N`` parameters reaches on ``D`` tokens; :data:`LOSS_LAWS` holds the
published constants and the 2024 refit. :func:`optimal_for_loss` solves the problem the
heuristic approximates: the cheapest ``(N, D)`` that reaches a target loss when every
parameter will also cost ``k`` FLOPs of serving (Sardana, Portes, Doubov & Frankle 2024, arXiv 2401.00448).

>>> float(PRETRAIN_FLOPS_PER_PARAM)
6.0
>>> print(f"{pretrain_flops(n_active=405e9, tokens_pre=15.6e12):.3g} FLOP")
3.79e+25 FLOP
"""

import dataclasses

import numpy as np
import sympy as sp
from sympy.physics import units as u

from . import _check, decode, equations, symbols
from ._check import check_value
from ._check import short as _short
from .equations import Spec
from .symbols import (N_active, alpha_n, beta_d, decode_mfu, deploy_s, flops, loss, loss_a, loss_b, loss_floor, mfu,
                      prefill_mfu, rl_flops, tokens_decode, tokens_inf, tokens_per_param, tokens_pre, tokens_prefill,
                      tokens_rl, traffic, train_flops, usage_flops)

# -- the 2, 4 and 6, from one matrix multiply ---------------------------------------------------------------
_n, _d_in, _d_out = sp.symbols("n d_in d_out", positive=True)


def matmul_flops(rows, inner, cols):
    """FLOPs of a ``rows x inner`` by ``inner x cols`` product: one multiply and one add per term.

    The sizes are numbers (or arrays) > 0, or sympy expressions (the chapter derives with symbols)."""
    rows, inner, cols = (x if isinstance(x, sp.Basic) else check_value(n, x, "positive", "matmul_flops")
                         for n, x in (("rows", rows), ("inner", inner), ("cols", cols)))
    return 2 * rows * inner * cols


_PARAMS_X_TOKENS = _n * _d_in * _d_out  # a d_in x d_out weight applied to n tokens
FORWARD_FLOPS_PER_PARAM = sp.simplify(matmul_flops(_n, _d_in, _d_out) / _PARAMS_X_TOKENS)
"""Forward FLOPs per parameter per token (2), for Y = X W."""
BACKWARD_FLOPS_PER_PARAM = sp.simplify((matmul_flops(_n, _d_out, _d_in)      # dX = dY W^T
                                        + matmul_flops(_d_in, _n, _d_out))  # dW = X^T dY
                                       / _PARAMS_X_TOKENS)
"""Backward FLOPs per parameter per token (4), a gradient for the input and one for the weight."""
PRETRAIN_FLOPS_PER_PARAM = FORWARD_FLOPS_PER_PARAM + BACKWARD_FLOPS_PER_PARAM
"""Training FLOPs per parameter per token (6), forward plus backward, the 6 of 6ND."""

SECONDS_PER_HOUR = decode.SECONDS_PER_HOUR


@dataclasses.dataclass(frozen=True)
class LossLaw:
    """One fit of Chinchilla's law ``L(N, D) = E + A / N^alpha + B / D^beta`` (loss in nats per token)."""

    name: str
    loss_floor: float  # E
    loss_a: float      # A
    loss_b: float      # B
    alpha_n: float     # alpha
    beta_d: float      # beta
    source: str
    std_errors: dict = dataclasses.field(default_factory=dict)  # published standard errors, by keyword

    def __post_init__(self):
        _check.record(self)  # every field's type

    def values(self):
        """The constants as keyword arguments of the equations here."""
        return dict(loss_floor=self.loss_floor, loss_a=self.loss_a, loss_b=self.loss_b, alpha_n=self.alpha_n,
                    beta_d=self.beta_d)

    def args(self, equation):
        """The constants ``equation`` takes (``compute_optimal_params`` has no ``loss_floor``)."""
        if not isinstance(equation, equations.Equation):
            raise ValueError(f"equation must be a roofline Equation (e.g. training.chinchilla_loss); "
                             f"got {_short(equation)}")
        return {k: v for k, v in self.values().items() if k in equation.args}


LOSS_LAWS = {
    "epoch": LossLaw("Epoch refit (Besiroglu et al. 2024)", 1.8172, 482.01, 2085.43, 0.3478, 0.3658,
                     "Besiroglu, Erdil, Barnett & You 2024, 'Chinchilla Scaling: A replication attempt' "
                     "(arXiv 2404.10102), their fit to Hoffmann's data; epochai.org/blog/"
                     "chinchilla-scaling-a-replication-attempt",
                     std_errors=dict(loss_floor=0.03, loss_a=124.58, loss_b=1293.23, alpha_n=0.02, beta_d=0.02)),
    "hoffmann": LossLaw("Hoffmann et al. 2022, approach 3 (rounded)", 1.69, 406.4, 410.7, 0.34, 0.28,
                        "Hoffmann et al. 2022, 'Training Compute-Optimal Large Language Models' (arXiv 2203.15556), "
                        "eq. 10 and appendix D.2; the rounded constants printed in the paper"),
}
"""The loss-law fits, keyed by short name. The Epoch refit reproduces Hoffmann's other two
approaches (about 20 tokens per parameter); the rounded approach-3 constants imply 90 to 150. The refit's
``std_errors`` are the standard errors Besiroglu et al. print beside each estimate (from 4,000 bootstrap
fits); Hoffmann's own intervals are left out, being implausibly narrow by the refit's account."""

CHINCHILLA_RULE = 20
"""About 20 training tokens per parameter, Hoffmann et al.'s rule of thumb (70B on 1.4T)."""

FITTED_RANGE = {"params": (7e7, 1.6e10), "tokens": (5e9, 5e11),
                "source": "Hoffmann et al. 2022, section 3: over 400 models of 70M to over 16B parameters "
                          "trained on 5B to 500B tokens; the Epoch refit uses the same runs"}
"""The range of models the loss-law fits were fitted on; anything far outside is an extrapolation."""

REPORTED = {
    "Chinchilla": dict(flops=5.76e23, source="Hoffmann et al. 2022: Chinchilla was trained on Gopher's "
                                             "budget, 5.76e23 FLOPs"),
    "Llama 3.1 405B": dict(flops=3.8e25, source="Llama 3 Herd of Models (arXiv 2407.21783), sections 1 and "
                                                "3.2.1: 3.8e25 FLOPs"),
    "DeepSeek-V3": dict(gpu_hours=2.664e6, chip="H800",
                        source="github:deepseek-ai/DeepSeek-V3 README: 2.664M H800 GPU-hours of pre-training "
                               "(2.788M with context extension and post-training)"),
}
"""Training compute as the labs report it, to check 6ND against (the H800 has the H100's tensor cores)."""


def build():
    """The chapter-5 equations, as {numeric function name: Spec}."""
    N, D = N_active, tokens_pre
    six, two = PRETRAIN_FLOPS_PER_PARAM, FORWARD_FLOPS_PER_PARAM
    pre = six * N * D
    inf_cost = two * N * tokens_inf / decode_mfu
    # served tokens split into prompt tokens computed in prefill and tokens generated in decode, each at its own MFU
    inf_split = two * N * (tokens_prefill / prefill_mfu + tokens_decode / decode_mfu)
    rl_cost = rl_flops * N * tokens_rl / decode_mfu
    # equal costs (01:23:51): solve pre-training = inference for D_pre, then pre-training = RL for D_RL
    d_pre_eq = sp.solve(sp.Eq(pre, inf_cost), D)[0]
    d_rl_eq = sp.solve(sp.Eq(pre, rl_cost), tokens_rl)[0]
    d_pre_split = sp.solve(sp.Eq(pre, inf_split), D)[0]
    E, A, B, a, b = loss_floor, loss_a, loss_b, alpha_n, beta_d
    law = E + A / N ** a + B / D ** b
    # compute-optimal: minimise the law along 6 N D = C; the first-order condition is a A N^-a = b B D^-b
    d_opt_of_n = sp.solve(sp.Eq(a * A * N ** -a, b * B * D ** -b), D)[0]
    g = (a * A / (b * B)) ** (1 / (a + b))
    n_opt = g * (train_flops / six) ** (b / (a + b))
    gap = loss - E - A / N ** a  # what the data term must still bring down
    gap_n = loss - E - B / D ** b  # what the parameter term must still bring down
    rl_range = ((rl_flops >= two, "rl_flops must be at least 2 (every rollout is generated: one forward pass)"),
                (rl_flops <= six, "rl_flops must be at most 6 (training on every rollout: forward and backward)"))
    return {
        "pretrain_flops": Spec(pre, "FLOP", "Pre-training compute, 6 N D (01:22:13).", 1),
        "rl_compute_flops": Spec(rl_flops * N * tokens_rl, "FLOP", "RL compute, f_RL N D_RL with f_RL from 2 to 6 "
                         "(01:23:28).", 1, zero="0 without RL", requires=rl_range),
        "inference_flops": Spec(two * N * tokens_inf, "FLOP", "Inference compute, 2 N D_inf (01:23:48).", 1,
                                zero="0 for a model nobody uses"),
        "rl_cost_flops": Spec(rl_cost, "FLOP", "RL cost in training-FLOP equivalents: f_RL N D_RL / eta, decode "
                              "running at eta of training's MFU (01:23:05).", 1, zero="0 without RL",
                              requires=rl_range),
        "inference_cost_flops": Spec(inf_cost, "FLOP", "Inference cost in training-FLOP equivalents: "
                                     "2 N D_inf / eta.", 1, zero="0 for a model nobody uses"),
        "inference_split_cost_flops": Spec(inf_split, "FLOP", "Inference cost in training-FLOP equivalents with "
                                           "prefill and decode apart: 2 N (D_p / eta_p + D_d / eta_d); prompt "
                                           "tokens served from the KV cache are not in D_p.", 1,
                                           zero="0 for a model nobody uses"),
        "equal_cost_pretrain_tokens_split": Spec(d_pre_split, "tokens", "Pre-training tokens that cost as much as "
                                                 "the inference, prefill and decode apart: "
                                                 "(D_p / eta_p + D_d / eta_d) / 3.", 1,
                                                 zero="0 for a model nobody uses"),
        "tokens_served": Spec(traffic * deploy_s, "tokens", "Inference tokens: traffic x deployment time "
                              "(01:26:27).", 1, zero="0 with no traffic or no deployment"),
        "overtraining_factor": Spec(D / (tokens_per_param * N), "1", "Pre-training tokens over the "
                                    "compute-optimal count rho N (01:31:43).", 1),
        "equal_cost_pretrain_tokens": Spec(d_pre_eq, "tokens", "Pre-training tokens that cost as much as the "
                                           "inference: D_inf / (3 eta) (the heuristic, 01:27:47).", 1,
                                           zero="0 for a model nobody uses"),
        "equal_cost_rl_tokens": Spec(d_rl_eq, "tokens", "RL tokens that cost as much as the pre-training: "
                                     "6 eta D_pre / f_RL (01:28:09).", 1, requires=rl_range),
        "chinchilla_loss": Spec(law, "nat/token", "Chinchilla's loss law E + A/N^alpha + B/D^beta "
                                "(Hoffmann et al. 2022, eq. 2).", 1),
        "chinchilla_tokens": Spec(d_opt_of_n, "tokens", "Compute-optimal training tokens for N parameters: "
                                  "D with alpha A N^-alpha = beta B D^-beta.", 1),
        "compute_optimal_params": Spec(n_opt, "parameters", "Compute-optimal parameters for a budget C: "
                                       "G (C/6)^(beta/(alpha+beta)) (Hoffmann et al. 2022, eq. 4).", 1),
        "compute_optimal_tokens": Spec(train_flops / (six * n_opt), "tokens", "Compute-optimal tokens for a "
                                       "budget C: C / (6 N_opt).", 1),
        "tokens_for_loss": Spec(sp.Piecewise((sp.oo, gap <= 0), ((B / gap) ** (1 / b), True)), "tokens",
                                "Training tokens N parameters need to reach a target loss.", 1,
                                infinite="inf where N parameters cannot reach the loss on any data "
                                         "(L_t <= E + A/N^alpha)"),
        "params_for_loss": Spec(sp.Piecewise((sp.oo, gap_n <= 0), ((A / gap_n) ** (1 / a), True)), "parameters",
                                "Parameters a model trained on D tokens needs to reach a target loss.", 1,
                                infinite="inf where no model reaches the loss on D tokens (L_t <= E + B/D^beta)"),
        "training_gpu_hours": Spec(train_flops / (mfu * flops * SECONDS_PER_HOUR), "GPU-hours",
                                   "Accelerator-hours a compute budget takes at a model FLOPs utilisation.",
                                   u.second, requires=((mfu <= 1, "mfu must be at most 1"),)),
    }


EQUATIONS = equations.family(__name__, build)

pretrain_flops = EQUATIONS["pretrain_flops"]
rl_compute_flops = EQUATIONS["rl_compute_flops"]
inference_flops = EQUATIONS["inference_flops"]
rl_cost_flops = EQUATIONS["rl_cost_flops"]
inference_cost_flops = EQUATIONS["inference_cost_flops"]
inference_split_cost_flops = EQUATIONS["inference_split_cost_flops"]
equal_cost_pretrain_tokens_split = EQUATIONS["equal_cost_pretrain_tokens_split"]
tokens_served = EQUATIONS["tokens_served"]
overtraining_factor = EQUATIONS["overtraining_factor"]
equal_cost_pretrain_tokens = EQUATIONS["equal_cost_pretrain_tokens"]
equal_cost_rl_tokens = EQUATIONS["equal_cost_rl_tokens"]
chinchilla_loss = EQUATIONS["chinchilla_loss"]
chinchilla_tokens = EQUATIONS["chinchilla_tokens"]
compute_optimal_params = EQUATIONS["compute_optimal_params"]
compute_optimal_tokens = EQUATIONS["compute_optimal_tokens"]
tokens_for_loss = EQUATIONS["tokens_for_loss"]
params_for_loss = EQUATIONS["params_for_loss"]


def _optimum_condition():
    E, A, B, a, b, D = loss_floor, loss_a, loss_b, alpha_n, beta_d, tokens_pre
    q = B / D ** b                                    # the data term
    return a * (loss - E - q) - b * q * (1 + usage_flops / (PRETRAIN_FLOPS_PER_PARAM * D))


OPTIMUM_CONDITION = _optimum_condition()
"""The cheapest model for a target loss satisfies ``alpha p = beta q (1 + k/(6D))``, with ``q = B/D^beta`` and
``p = L_t - E - q``: this expression (left minus right) is zero there and rises with ``D`` (see
:func:`optimal_for_loss`)."""
_OPTIMUM_ARGS = tuple(symbols.by_symbol(x).keyword for x in symbols.order(OPTIMUM_CONDITION.free_symbols))
_optimum_fast = sp.lambdify(symbols.order(OPTIMUM_CONDITION.free_symbols), OPTIMUM_CONDITION, "numpy")
training_gpu_hours = EQUATIONS["training_gpu_hours"]


def law(name):
    """The :class:`LossLaw` called ``name`` (a key of :data:`LOSS_LAWS`), or ``name`` itself where it is a
    :class:`LossLaw` (a variant of a fit, see :func:`law_variants`); ValueError naming the choices."""
    if isinstance(name, LossLaw):
        return name
    try:
        return LOSS_LAWS[name]
    except (KeyError, TypeError):
        raise ValueError(f"law name must be one of {', '.join(map(repr, LOSS_LAWS))}; got {name!r}") from None


@dataclasses.dataclass(frozen=True)
class Allocation:
    """A model size and its training tokens, with what they cost (training-FLOP equivalents).

    Each field is a float, or an array where the inputs were arrays."""

    n_active: float
    tokens_pre: float
    pretrain_cost: float  # 6 N D
    usage_cost: float     # k N: serving (and anything else paid per parameter)

    def __post_init__(self):
        _check.record(self)  # every field's type

    @property
    def total_cost(self):
        return self.pretrain_cost + self.usage_cost


def optimal_for_loss(loss, usage_flops_per_param, law_name="epoch"):
    """The cheapest ``(N, D)`` whose Chinchilla loss is ``loss``, when each parameter also costs
    ``usage_flops_per_param`` (``k``) FLOPs after training: minimise ``6 N D + k N`` on the curve
    ``L(N, D) = loss`` (Sardana, Portes, Doubov & Frankle 2024, "Beyond Chinchilla-Optimal").

    With ``p = A/N^alpha`` and ``q = B/D^beta``, the Lagrange conditions reduce to one equation in ``D``,
    ``alpha p = beta q (1 + k / (6 D))`` with ``p + q = loss - E``, whose left side rises and right side
    falls with ``D``: one root, found by bisection in ``log D`` (to float precision). With ``k = 0`` it is
    Chinchilla's compute-optimal point. ``loss`` and ``usage_flops_per_param`` may be arrays.

    For inference alone, ``k = 2 D_inf / eta`` (:data:`FORWARD_FLOPS_PER_PARAM` per served token, at
    decode's relative MFU).
    """
    c = law(law_name)
    loss = check_value("loss", loss, "positive", "optimal_for_loss")
    k = check_value("usage_flops_per_param", usage_flops_per_param, "nonnegative", "optimal_for_loss")
    loss, k = np.broadcast_arrays(np.asarray(loss, float), np.asarray(k, float))
    gap = loss - c.loss_floor
    if np.any(gap <= 0):
        raise ValueError(f"optimal_for_loss: loss must be above the law's irreducible loss E = {c.loss_floor}; "
                         f"got {loss[gap <= 0].min():.6g}")
    six = float(PRETRAIN_FLOPS_PER_PARAM)
    # the root lies where q < gap (N finite); bracket D in log space from there upward
    lo = np.log((c.loss_b / gap) ** (1 / c.beta_d))  # q = gap: N would be infinite
    hi = lo + np.log(1e30)

    consts = c.values()

    def excess(log_d):  # the registered condition, unchecked (the bracket keeps it finite)
        return _optimum_fast(*(np.exp(log_d) if a == "tokens_pre" else loss if a == "loss" else
                               k if a == "usage_flops" else consts[a] for a in _OPTIMUM_ARGS))

    with np.errstate(all="ignore"):
        edge = excess(hi)
    if not np.all(edge >= 0):  # no sign change in the bracket: the cheapest D lies beyond it, or nowhere
        bad = ~(edge >= 0)
        raise ValueError(f"optimal_for_loss: no optimum for loss {_first(loss, bad):.6g} at usage_flops_per_param "
                         f"{_first(k, bad):.6g}: the cheapest tokens lie beyond 1e30 times the "
                         f"{np.exp(_first(lo, bad)):.3g} at which the data term alone reaches the loss; "
                         "take a smaller usage_flops_per_param or a higher loss")
    for _ in range(64):  # 64 halvings of a bracket 69 wide: 4e-18, below the float spacing of log D
        mid = 0.5 * (lo + hi)
        below = excess(mid) < 0
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    with np.errstate(all="ignore"):
        d = np.exp(0.5 * (lo + hi))
        n = (c.loss_a / (gap - c.loss_b * d ** -c.beta_d)) ** (1 / c.alpha_n)
        out = (n, d, six * n * d, k * n)
    if not all(np.all(np.isfinite(x) & (x >= 0)) for x in out):
        raise ValueError(f"optimal_for_loss: the optimum for loss {_short(loss)} at usage_flops_per_param "
                         f"{_short(k)} overflows float64 (a model beyond 1e308 parameters or FLOPs)")
    scalar = np.ndim(d) == 0
    return Allocation(*(float(x) if scalar else x for x in out))


def _first(values, mask):
    """The first of ``values`` where ``mask`` holds (scalars and arrays alike)."""
    return float(np.broadcast_to(values, np.shape(mask))[mask].flat[0]) if np.ndim(mask) else float(values)


def allocation_at(n_active, tokens_pre, usage_flops_per_param):
    """The :class:`Allocation` of a chosen ``(N, D)``: its pre-training and usage costs."""
    n = check_value("n_active", n_active, "positive", "allocation_at")
    d = check_value("tokens_pre", tokens_pre, "positive", "allocation_at")
    k = check_value("usage_flops_per_param", usage_flops_per_param, "nonnegative", "allocation_at")
    six = float(PRETRAIN_FLOPS_PER_PARAM)
    with np.errstate(over="ignore", invalid="ignore"):
        out = (n, d, six * n * d, k * n)
    if not all(np.all(np.isfinite(x)) for x in out):
        raise ValueError(f"allocation_at: the costs of n_active={_short(n_active)}, tokens_pre={_short(tokens_pre)}, "
                         f"usage_flops_per_param={_short(usage_flops_per_param)} overflow float64 (6 N D or k N "
                         "beyond 1.8e308)")
    return Allocation(*out)


@dataclasses.dataclass(frozen=True)
class Comparison:
    """The lecture's equal-cost choice beside the true optimum for the same loss (see :func:`compare`).

    Numbers are floats, or arrays where the inputs were arrays."""

    loss: float                 # the loss the heuristic's model reaches: the target of both
    usage_flops_per_param: float
    heuristic: Allocation                    # N as given, D_pre from equal costs
    optimum: Allocation                      # the cheapest (N, D) for the same loss
    chinchilla_heuristic: float  # compute-optimal tokens for the heuristic's N
    chinchilla_optimum: float    # compute-optimal tokens for the optimum's N

    def __post_init__(self):
        _check.record(self)  # every field's type

    @property
    def overtraining_heuristic(self):
        return self.heuristic.tokens_pre / self.chinchilla_heuristic

    @property
    def overtraining_optimum(self):
        return self.optimum.tokens_pre / self.chinchilla_optimum

    @property
    def excess_cost(self):
        """How much more the heuristic's model costs than the optimum, as a fraction."""
        return self.heuristic.total_cost / self.optimum.total_cost - 1


def compare(n_active, tokens_inf, decode_mfu, law_name="epoch", tokens_rl=0.0, rl_flops=3.0):
    """The lecture's answer and the exact one, for a model of ``n_active`` parameters serving ``tokens_inf``.

    The heuristic trains on ``D_pre = D_inf / (3 eta)`` tokens (pre-training costs what serving costs).
    That model reaches some loss under the chosen law; the optimum is the cheapest model that reaches
    the same loss when every parameter costs ``k = (2 D_inf + f_RL D_RL) / eta`` FLOPs after training.
    With ``tokens_rl`` 0 (the default) RL is left out: the loss law says nothing about what RL buys, so
    RL enters only as a fixed volume of rollouts whose cost, like serving's, scales with the model.
    ``tokens_inf`` may be an array.
    """
    c = law(law_name)
    k = inference_cost_flops(n_active=1.0, tokens_inf=tokens_inf, decode_mfu=decode_mfu)  # per parameter
    if np.any(np.asarray(tokens_rl) != 0):
        k = k + rl_cost_flops(n_active=1.0, tokens_rl=tokens_rl, rl_flops=rl_flops, decode_mfu=decode_mfu)
    d_eq = equal_cost_pretrain_tokens(tokens_inf=tokens_inf, decode_mfu=decode_mfu)
    if np.any(np.asarray(d_eq) <= 0):
        raise ValueError("compare: tokens_inf must be > 0 (a model nobody uses has no equal-cost point); "
                         f"got {tokens_inf!r}")
    target = chinchilla_loss(n_active=n_active, tokens_pre=d_eq, **c.values())
    best = optimal_for_loss(target, k, law_name)
    chin = c.args(chinchilla_tokens)
    n = n_active if np.ndim(d_eq) == 0 else np.broadcast_to(n_active, np.shape(d_eq))
    return Comparison(target, k, allocation_at(n, d_eq, k), best, chinchilla_tokens(n_active=n, **chin),
                      chinchilla_tokens(n_active=best.n_active, **chin))


# -- the fit's uncertainty, carried through -------------------------------------------------------------------
_EXPONENT_OF = {"loss_a": "alpha_n", "loss_b": "beta_d"}
_COEFFICIENT_OF = {v: k for k, v in _EXPONENT_OF.items()}


def law_variants(law_name="epoch", n_se=1.0, anchored=True):
    """The fit with each constant moved ``n_se`` published standard errors down and up, one at a time:
    ``{(keyword, -1 or +1): LossLaw}``.

    The refit prints a standard error beside each constant but not how they covary, and they do covary: every
    bootstrap fit passes through the same runs, so a steeper exponent comes with a larger coefficient. With
    ``anchored`` (the default) moving an exponent moves its coefficient too, so that the term keeps its value at
    the geometric centre of the fitted runs (:data:`FITTED_RANGE`): ``A' = A N_c^(alpha' - alpha)``, and the
    coefficients are not moved on their own (their wide errors are mostly their exponents': one standard error
    of beta, anchored, moves B by 64%, against B's published 62%). Unanchored, each of the five constants moves
    alone, a far wider spread. Neither is the bootstrap's own joint interval, which the paper does not print.

    >>> v = law_variants("epoch")
    >>> round(v[("alpha_n", 1)].alpha_n, 4), round(v[("alpha_n", 1)].loss_a / LOSS_LAWS["epoch"].loss_a, 3)
    (0.3678, 1.515)
    """
    c = law(law_name)
    if not c.std_errors:
        raise ValueError(f"law_variants: law {law_name!r} has no published standard errors; use 'epoch'")
    n_se = check_value("n_se", n_se, "positive", "law_variants")
    centre = {"alpha_n": float(np.sqrt(np.prod(FITTED_RANGE["params"]))),
              "beta_d": float(np.sqrt(np.prod(FITTED_RANGE["tokens"])))}
    out = {}
    for key, se in c.std_errors.items():
        if anchored and key in _EXPONENT_OF:
            continue  # a coefficient moves with its exponent
        for sign in (-1, 1):
            new = {key: getattr(c, key) + sign * n_se * se}
            if new[key] <= 0:
                raise ValueError(f"law_variants: n_se = {n_se:g} moves {key} to {new[key]:.4g}, not > 0; "
                                 "use fewer standard errors")
            if anchored and key in _COEFFICIENT_OF:
                coef = _COEFFICIENT_OF[key]
                new[coef] = getattr(c, coef) * centre[key] ** (new[key] - getattr(c, key))
            out[(key, sign)] = dataclasses.replace(c, name=f"{c.name}, {key} {'+' if sign > 0 else '-'}"
                                                          f"{n_se:g} SE", **new)
    return out


@dataclasses.dataclass(frozen=True)
class Spread:
    """A quantity at the fit's central constants and across :func:`law_variants`."""

    central: float
    by_constant: dict  # keyword -> (value at -n_se, value at +n_se)

    def __post_init__(self):
        _check.record(self)  # every field's type

    @property
    def low(self):
        return min(min(v) for v in self.by_constant.values())

    @property
    def high(self):
        return max(max(v) for v in self.by_constant.values())


def spread(quantity, law_name="epoch", n_se=1.0, anchored=True):
    """``quantity(law)`` (a function of a :class:`LossLaw`) at the fit and at each of its :func:`law_variants`.

    >>> s = spread(lambda c: chinchilla_tokens(n_active=1e11, **c.args(chinchilla_tokens)))
    >>> f"{s.central:.3g} tokens, {s.low:.3g} to {s.high:.3g}"
    '1.81e+12 tokens, 1.66e+12 to 1.99e+12'
    """
    if not callable(quantity):
        raise ValueError(f"spread: quantity must be a function of a LossLaw; got {_short(quantity)}")
    variants = law_variants(law_name, n_se, anchored)
    keys = dict.fromkeys(k for k, _ in variants)
    return Spread(float(quantity(law(law_name))),
                  {k: (float(quantity(variants[(k, -1)])), float(quantity(variants[(k, 1)]))) for k in keys})
