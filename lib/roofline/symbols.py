"""The book's symbols, declared once: sympy symbol, keyword, unit, meaning and chapter.

Every equation in :mod:`roofline` is written with these symbols, and every numeric
function generated from an equation takes the symbols' **keywords** as its
arguments (``batch=``, ``len_ctx=``, ...). The table :data:`TABLE` feeds the
book's notation page, the dimensional-analysis tests and the input checks, so a
symbol added here shows up everywhere without being retyped.

A symbol's *domain* says which values a numeric function accepts for it:
``"positive"`` (finite and > 0), ``"nonnegative"`` (finite and >= 0, where
zero means something physical: an empty context, a model with no KV cache) or
``"count"`` (finite and >= 1: chips, racks, stages, layers, experts, heads,
micro-batches; below one the fractions of the equations turn negative).

>>> TABLE["len_ctx"].unit, TABLE["len_ctx"].domain
('tokens', 'nonnegative')
>>> by_symbol(B).keyword
'batch'
"""

import dataclasses

import sympy as sp
from sympy.physics import units as u

USD = sp.Symbol("USD", positive=True)  # money as a dimension of its own, for the unit checks


@dataclasses.dataclass(frozen=True)
class Quantity:
    """One row of the symbol table."""

    symbol: sp.Symbol
    keyword: str        # argument name of every numeric function that takes it
    unit: str           # as printed on the notation page
    dimension: sp.Expr  # the unit in sympy.physics.units (1 for counts), for the dimension tests
    meaning: str
    chapter: int        # chapter of the lecture that introduces it
    domain: str = "positive"  # or "nonnegative", or "count" (>= 1)

    def __post_init__(self):
        if not isinstance(self.symbol, sp.Symbol) or self.domain not in _ASSUMPTION or not all(
                isinstance(getattr(self, f), str) for f in ("keyword", "unit", "meaning")):
            raise ValueError(f"Quantity: symbol must be a sympy Symbol, keyword, unit and meaning str, and domain one "
                             f"of {', '.join(_ASSUMPTION)}; got {self!r}")


_ROWS = []
_ASSUMPTION = {"positive": "positive", "nonnegative": "nonnegative", "count": "positive"}


def _declare(name, keyword, unit, dimension, meaning, chapter, domain="positive"):
    sym = sp.Symbol(name, **{_ASSUMPTION[domain]: True})  # the domain is also the sympy assumption
    _ROWS.append(Quantity(sym, keyword, unit, dimension, meaning, chapter, domain))
    return sym


# -- chapter 1: the decode step ---------------------------------------------------------------
B = _declare("B", "batch", "sequences", 1,
             "batch size: sequences that each get one new token per decode step", 1)
N_total = _declare("N_total", "n_total", "parameters", 1, "total parameters, every expert included", 1)
N_active = _declare("N_active", "n_active", "parameters", 1,
                    "parameters one token passes through (active experts only)", 1)
bytes_per_param = _declare("b_w", "bytes_per_param", "byte/parameter", u.byte,
                           "bytes of one stored weight (FP4 0.5, FP8 1, BF16 2)", 1)
flops = _declare("F", "flops", "FLOP/s per chip", 1 / u.second,
                 "dense matrix throughput of one chip at the weight precision; a multiply-add is 2 FLOPs", 1)
mem_bw = _declare("W", "mem_bw", "byte/s per chip", u.byte / u.second, "HBM bandwidth of one chip", 1)
n_chips = _declare("G", "n_chips", "chips", 1, "chips that hold one replica of the model and share each step", 1,
                   "count")
len_ctx = _declare("L", "len_ctx", "tokens", 1, "context length each sequence attends over", 1, "nonnegative")
kv_bytes = _declare("k", "kv_bytes", "byte/token", u.byte,
                    "KV-cache bytes stored per token of context (zero: no KV cache)", 1, "nonnegative")
price = _declare("p", "price", "USD/(chip·h)", USD / u.hour, "rental price of one chip for one hour", 1)
hbm_bytes = _declare("M", "hbm_bytes", "byte per chip", u.byte, "usable HBM capacity of one chip", 1)

# -- chapter 1, beyond the lecture: which experts a step reads, attention's own FLOPs ----------
n_routed = _declare("N_routed", "n_routed", "parameters", 1,
                    "parameters of the routed experts, all of them (zero for a dense model)", 1, "nonnegative")
n_experts = _declare("E", "n_experts", "experts", 1, "routed experts per MoE layer (1 for a dense model)", 1, "count")
top_k = _declare("K", "top_k", "experts", 1, "routed experts each token is sent to (at most E)", 1, "count")
attn_flops = _declare("a", "attn_flops", "FLOP/token", 1,
                      "attention FLOPs a new token spends per token of context it reads (scores and "
                      "weighted sum; zero: ignored, as in the lecture)", 1, "nonnegative")
attn_flops_rate = _declare("F_a", "attn_flops_rate", "FLOP/s per chip", 1 / u.second,
                           "dense matrix throughput of one chip at the attention (KV-cache) precision", 1)

# -- chapter 2: experts over the GPUs of a rack, and the all-to-all between them -----------------
d_model = _declare("D", "d_model", "values per token", 1, "width of the residual stream (hidden size)", 2)
act_bytes = _declare("b_a", "act_bytes", "byte/value", u.byte,
                     "bytes of one activation value sent between chips (dispatch and combine averaged)", 2)
moe_layers = _declare("ell", "moe_layers", "layers", 1, "layers with a mixture-of-experts FFN", 2, "count")
n_racks = _declare("R_k", "n_racks", "racks", 1, "scale-up domains (racks) one expert layer spans", 2, "count")
scaleup_bw = _declare("W_up", "scaleup_bw", "byte/s per chip", u.byte / u.second,
                      "scale-up network (NVLink, ICI) bandwidth of one chip, one direction", 2)
scaleout_bw = _declare("W_out", "scaleout_bw", "byte/s per chip", u.byte / u.second,
                       "scale-out network (NIC) bandwidth of one chip, one direction", 2)
hop_latency = _declare("tau", "hop_latency", "s", u.second,
                       "time one all-to-all waits on the network besides its bytes (across racks, the larger tier's; "
                       "zero: ignored)", 2, "nonnegative")
tok_rate = _declare("T", "tok_rate", "token/s per chip", 1 / u.second,
                    "output tokens per second each chip must serve (a throughput target)", 2)
weight_share = _declare("f_w", "weight_share", "fraction", 1, "share of the domain's HBM given to weights", 2)

# -- chapter 3: pipeline stages across racks ---------------------------------------------------
stage_layers = _declare("ell_s", "stage_layers", "layers", 1, "MoE layers in one pipeline stage (between rack changes)",
                        3, "count")
n_stages = _declare("P", "n_stages", "stages", 1, "pipeline stages (racks the layers are cut over)", 3, "count")
n_micro = _declare("m", "n_micro", "micro-batches", 1, "micro-batches in one training step", 3, "count")
n_chunks = _declare("v", "n_chunks", "chunks", 1, "model chunks per stage in an interleaved schedule", 3, "count")
d_ff = _declare("d_ff", "d_ff", "values per token", 1,
                "width of one feed-forward block's hidden layer (an expert's intermediate size)", 3)

# -- chapter 4: memory per GPU with pipelining ------------------------------------------------
micro_batch = _declare("b_mb", "micro_batch", "sequences", 1,
                       "sequences in one micro-batch (the whole batch is P of them in flight)", 4)
tp_ways = _declare("n_TP", "tp_ways", "GPUs", 1,
                   "tensor-parallel ways of attention: GPUs that split one sequence's heads (1: data-parallel "
                   "attention)", 4, "count")

# -- chapter 5: training, RL and inference compute; Chinchilla's loss law ----------------------
tokens_pre = _declare("D_pre", "tokens_pre", "tokens", 1, "pre-training tokens (the D of 6ND)", 5)
tokens_rl = _declare("D_RL", "tokens_rl", "tokens", 1, "tokens generated in RL rollouts", 5, "nonnegative")
tokens_inf = _declare("D_inf", "tokens_inf", "tokens", 1,
                      "tokens the model serves over its deployment (inference)", 5, "nonnegative")
rl_flops = _declare("f_RL", "rl_flops", "FLOP/(parameter·token)", 1,
                    "RL FLOPs per active parameter per rollout token: 2 (generate only) to 6 (train on all)", 5)
decode_mfu = _declare("eta", "decode_mfu", "1", 1,
                      "MFU of decode (RL rollouts, serving) as a fraction of training's MFU", 5)
tokens_prefill = _declare("D_p", "tokens_prefill", "tokens", 1,
                          "prompt tokens the model computes in prefill over its deployment (KV-cache hits "
                          "excluded)", 5, "nonnegative")
tokens_decode = _declare("D_d", "tokens_decode", "tokens", 1,
                         "tokens the model generates in decode over its deployment", 5, "nonnegative")
prefill_mfu = _declare("eta_p", "prefill_mfu", "1", 1, "MFU of prefill as a fraction of training's MFU", 5)
traffic = _declare("r_inf", "traffic", "tokens/s", 1 / u.second, "tokens one model serves per second", 5,
                   "nonnegative")
deploy_s = _declare("t_dep", "deploy_s", "s", u.second, "time a model is deployed before its successor", 5,
                    "nonnegative")
tokens_per_param = _declare("rho", "tokens_per_param", "tokens/parameter", 1,
                            "compute-optimal training tokens per parameter (Chinchilla's rule: 20)", 5)
loss_floor = _declare("E_0", "loss_floor", "nat/token", 1, "irreducible loss of the Chinchilla law", 5)
loss_a = _declare("A_N", "loss_a", "nat/token", 1, "coefficient of the parameter term of the Chinchilla law", 5)
loss_b = _declare("B_D", "loss_b", "nat/token", 1, "coefficient of the data term of the Chinchilla law", 5)
alpha_n = _declare("alpha", "alpha_n", "1", 1, "exponent of parameters in the Chinchilla law", 5)
beta_d = _declare("beta", "beta_d", "1", 1, "exponent of data in the Chinchilla law", 5)
loss = _declare("L_t", "loss", "nat/token", 1, "pre-training loss a model reaches (the target)", 5)
train_flops = _declare("C", "train_flops", "FLOP", 1, "pre-training compute budget", 5)
mfu = _declare("U", "mfu", "1", 1, "model FLOPs utilisation: achieved over peak FLOP/s (at most 1)", 5)
usage_flops = _declare("k_u", "usage_flops", "FLOP/parameter", 1,
                      "FLOPs each parameter costs after training (serving, RL rollouts), in training equivalents",
                      5, "nonnegative")

# -- chapter 6: prefill and decode, KV bytes from prices, cache tiers --------------------------
pass_len = _declare("ell_p", "pass_len", "tokens", 1,
                    "tokens of one sequence processed in one pass (decode: 1; prefill: the new prompt)", 6)
kv_layers = _declare("n_kv", "kv_layers", "layers", 1, "layers with a KV cache of their own (unique contexts)", 6,
                     "count")
head_dim = _declare("d_h", "head_dim", "values", 1, "width of one attention head (d_head)", 6)
kv_heads = _declare("h_kv", "kv_heads", "heads", 1, "key-value heads per layer", 6, "count")
kv_elem_bytes = _declare("b_kv", "kv_elem_bytes", "byte/value", u.byte, "bytes of one cached key or value", 6)
attn_sparsity = _declare("s_a", "attn_sparsity", "1", 1,
                         "tokens of context per token that sparse attention reads (1: dense)", 6)
tier_bytes = _declare("C_m", "tier_bytes", "byte per device", u.byte, "capacity of one memory device", 6)
tier_bw = _declare("W_m", "tier_bw", "byte/s per device", u.byte / u.second,
                   "read bandwidth of one memory device", 6)
tier_price = _declare("p_m", "tier_price", "USD/(device·h)", USD / u.hour, "what one memory device costs an hour",
                      6)
hold_s = _declare("t_hold", "hold_s", "s", u.second, "how long a cached token is held before it is read", 6,
                  "nonnegative")
n_reuse = _declare("n_r", "n_reuse", "reads", 1, "times a cached prefix is read back while it is held", 6)

# -- chapter 7: activation memory of training, stored or recomputed (RevNets) -----------------
n_layers = _declare("N_layers", "n_layers", "layers", 1,
                    "transformer layers (blocks) a training step runs, each with its own activations", 7, "count")
n_heads = _declare("n_heads", "n_heads", "heads", 1, "attention (query) heads per layer", 7, "count")
saved_act_bytes = _declare("b_v", "saved_act_bytes", "byte/value", u.byte,
                           "bytes of one activation value saved for the backward pass (BF16: 2)", 7)

# -- chapter 8, beyond the lecture: speculative decoding, disaggregated prefill and decode -----
accept_rate = _declare("alpha_s", "accept_rate", "1", 1,
                       "chance that the target model accepts a drafted token, given it accepted the ones before "
                       "(speculative decoding; at most 1)", 8)
prefill_rate = _declare("T_p", "prefill_rate", "token/s per chip", 1 / u.second,
                        "prompt tokens one chip of the prefill pool computes per second (cache hits excluded)", 8)
decode_rate = _declare("T_d", "decode_rate", "token/s per chip", 1 / u.second,
                       "output tokens one chip of the decode pool generates per second", 8)
latent_flops = _declare("u_c", "latent_flops", "FLOP/token", 1,
                        "FLOPs a pass spends on each cached token before attending to it, once a pass: MLA "
                        "decompressed up-projects the token's latent into keys and values per head (zero for "
                        "GQA and for absorbed MLA)", 8, "nonnegative")

t = sp.Symbol("t", positive=True)  # time of one decode step, s: printed in equations, never an argument

TABLE = {q.keyword: q for q in _ROWS}
"""Every symbol that a numeric function can take, keyed by its keyword, in declaration order."""

_BY_SYMBOL = {q.symbol: q for q in _ROWS}

ALL = tuple(q.symbol for q in _ROWS)


def by_symbol(symbol):
    """The :class:`Quantity` of ``symbol``; ValueError for a symbol the table does not hold."""
    try:
        return _BY_SYMBOL[symbol]
    except (KeyError, TypeError):
        raise ValueError(f"{symbol!r} is not a symbol of roofline.symbols; known: "
                         f"{', '.join(str(s) for s in ALL)}") from None


def order(symbols):
    """``symbols`` sorted in table order (so numeric functions list their arguments consistently)."""
    if isinstance(symbols, (str, bytes)) or not hasattr(symbols, "__iter__"):
        raise ValueError(f"symbols must be a collection of sympy symbols; got {symbols!r:.60}")
    position = {s: i for i, s in enumerate(ALL)}
    return sorted(symbols, key=lambda s: position[s] if s in position else len(position))


def same(a, b):
    """Whether ``a`` and ``b`` are the same function of their symbols: ``a - b`` over one denominator, with its
    numerator expanded to zero. As exact as ``sp.cancel(a - b) == 0``, without cancel's common factors (which it
    finds only to throw away): chapter 8's break-even batch against the library's, 21 ms against 80 ms. A False says
    only that the numerator did not expand to zero: as with cancel, identities between functions (sin² + cos² = 1)
    are not used, so a chapter's check that fails is a difference to look at, not yet a proof of one.

    >>> x, y = sp.symbols("x y", positive=True)
    >>> same(1 / x + 1 / y, (x + y) / (x * y)), same(x / (x + y), 1 - y / (x + y)), same(x, y)
    (True, True, False)
    """
    try:
        exprs = sp.sympify(a, strict=True), sp.sympify(b, strict=True)
    except sp.SympifyError:
        exprs = ()
    if not exprs or not all(isinstance(e, sp.Expr) and not getattr(e, "is_Matrix", False) for e in exprs):
        raise ValueError(f"a and b must be sympy expressions or numbers; got {a!r:.60} and {b!r:.60}")
    a, b = exprs
    return sp.expand(sp.numer(sp.together(a - b))) == 0
