"""Prefill, the first token, chunked prefill and disaggregated pools (chapter 8, beyond the lecture).

The lecture prices a token of decode; chapter 6 turned its one variable, the pass length ``l``
(tokens of each sequence processed in one pass), into prefill's cost. This module writes the pass in
full, so that one equation serves a prompt's prefill (``l`` large, nothing cached, ``L = 0``), a
prompt whose prefix was a cache hit (``L`` cached tokens), a chunk of a prompt, a decode step
(``l = 1``) and the verify pass of speculative decoding (``l = k + 1``, :mod:`roofline.speculation`):

* **FLOPs.** Each of the ``l`` new tokens passes through every active weight (``2 N_active``) and
  attends causally: the ``i``-th new token reads ``L + i`` keys, so a pass has
  ``l L + l (l + 1) / 2`` (query, key) pairs of ``a`` FLOPs each. Attention runs at ``F_a``, the
  rate of the KV cache's precision, as in chapter 1. Where attention needs each cached token
  expanded first (MLA decompressed, :func:`prefill_latent_flops`), that is ``u_c`` FLOPs a cached
  token, once a pass, at ``F``.
* **Bytes.** The weights are read once a pass, the ``L`` cached tokens' KV once, and the pass's own
  ``l`` tokens' KV is written once (flash attention's re-reads of keys and values, tile by tile, are
  left out: a lower bound, as everywhere in the book). :func:`pass_terms` with ``experts="touched"``
  reads only the routed experts the pass's ``B l`` tokens are sent to, as speculation's verify pass
  does (:mod:`roofline.speculation`).
* **Time** is the larger of the two (chapter 1's roofline): :data:`prefill_time_s`. For one prompt
  it is the floor of the time to first token: the first output token comes out of the prefill pass.

From these follow the pass length at which a pass turns compute-bound
(:data:`balance_prefill_tokens`: chapter 1's balance batch, counted in tokens), the chunk of a
prompt that a memory-bound decode step can carry for free (:data:`balance_chunk_tokens`, chunked
prefill) and, with per-chip throughputs, the share of a fleet that prefills
(``prefill_chip_share``, disaggregated serving) and the chips of each pool for a throughput
target (:func:`pool_chips`). For layouts spread over nodes, :func:`group_limited_nodes` counts the other
nodes a token reaches under DeepSeek-V3's group-limited routing, the crossings of chapter 2's all-to-all
(:data:`roofline.moe.comm_time_s`, ``dispatch="per_rack"``), which chapter 8 adds as a third term.

Attention FLOPs per pair differ between the phases for MLA: decode runs it absorbed (each head
scores against the 576-wide latent), prefill decompresses each token's latent once (a weight
matmul, inside ``N_active`` for the pass's new tokens, ``u_c`` a cached token and pass) and runs
multi-head attention, ``2 h (2 d + d_rope)`` a pair and layer: :func:`prefill_attn_flops` and
:func:`prefill_latent_flops`.

Symbols of this chapter
-----------------------
Four quantities are new to chapter 8, declared in :mod:`roofline.symbols` with the rest:
``accept_rate`` (speculative decoding, :mod:`roofline.speculation`), ``prefill_rate`` and
``decode_rate`` (per-chip throughputs of the two pools, :data:`prefill_chip_share`) and
``latent_flops`` (a cached token's expansion, :func:`prefill_latent_flops`).

DeepSeek-V3 on 8 H800s (FP8 weights, BF16 attention), one prompt of 8,192 tokens, and the prompt
length below which one prompt's prefill waits on the weights:

>>> v3 = dict(n_active=37e9, n_total=671e9, bytes_per_param=1.0, flops=1.979e15, mem_bw=3.35e12,
...           kv_bytes=70272, attn_flops=5.0e6, attn_flops_rate=9.89e14, latent_flops=2.05e9)
>>> print(f"{prefill_time_s(batch=1, len_ctx=0, pass_len=8192, n_chips=8, **v3):.3f} s")
0.059 s
>>> print(f"{balance_prefill_tokens(batch=1, len_ctx=0, **v3):,.0f} tokens")
4,178 tokens
"""


import numpy as np
import sympy as sp
from sympy.physics import units as u

from . import _check, decode, equations
from .equations import Spec
from .symbols import (USD, B, N_active, N_total, attn_flops, attn_flops_rate, bytes_per_param, decode_rate, flops,
                      kv_bytes, latent_flops, len_ctx, mem_bw, n_chips, n_routed, pass_len, prefill_rate, price,
                      tokens_decode, tokens_prefill)

SECONDS_PER_HOUR = decode.SECONDS_PER_HOUR
_S = u.second


# -- the pass -------------------------------------------------------------------------------------
EXPERTS = ("all", "touched")
"""Which weights a pass reads. ``"all"`` reads every stored weight (the lecture's read, the default here);
``"touched"`` reads, for a sparse MoE, only the routed experts its ``B l`` tokens are sent to (chapter 1's
refinement)."""


def pass_terms(experts="all"):
    """The pass's compute and memory times, s: ``B`` sequences, ``l`` new tokens each after ``L`` cached.

    ``experts="touched"``: the pass reads the always-on weights and the share ``1 - (1 - K/E)^(B l)`` of the
    routed experts, :data:`roofline.decode.experts_touched_fraction` with the pass's ``B l`` tokens.
    """
    if experts not in EXPERTS:
        raise ValueError(f"experts must be one of {', '.join(map(repr, EXPERTS))}; got {_check.short(experts)}")
    pairs = pass_len * len_ctx + pass_len * (pass_len + 1) / 2     # causal: the i-th new token reads L + i keys
    # each cached token expanded once a pass (MLA decompressed: its latent's up-projection), at the weights' rate
    t_comp = B * (decode.FLOPS_PER_MAC * N_active * pass_len / flops + attn_flops * pairs / attn_flops_rate
                  + latent_flops * len_ctx / flops) / n_chips
    weights = N_total * bytes_per_param
    if experts == "touched":
        share = decode.experts_touched.subs(B, B * pass_len)  # experts the pass's B l tokens are sent to
        weights = (N_total - n_routed + n_routed * share) * bytes_per_param
    t_mem = (weights + B * (len_ctx + pass_len) * kv_bytes) / (n_chips * mem_bw)
    return t_comp, t_mem


def build():
    """The chapter-8 equations of a pass and of the two pools, as {numeric function name: Spec}."""
    mac = decode.FLOPS_PER_MAC
    pairs = pass_len * len_ctx + pass_len * (pass_len + 1) / 2
    t_comp, t_mem = pass_terms()
    t_pass = sp.Max(t_comp, t_mem, evaluate=False)  # unevaluated: no search for which is larger
    usd_per_s = n_chips * price / SECONDS_PER_HOUR

    # the pass length at which compute meets memory: A l^2 + b l - C = 0 (G cancels), its positive root in the
    # form that stays finite as a -> 0 (then l* = C / b, linear, as in chapter 6); C <= 0 where expanding the
    # cached tokens alone outlasts the pass's reads: compute-bound at any pass length
    A = B * attn_flops / (2 * attn_flops_rate)
    b = B * (mac * N_active / flops + attn_flops * (len_ctx + sp.Rational(1, 2)) / attn_flops_rate
             - kv_bytes / mem_bw)
    C = (N_total * bytes_per_param + B * len_ctx * kv_bytes) / mem_bw - B * len_ctx * latent_flops / flops
    root = 2 * C / (b + sp.sqrt(b**2 + 4 * A * C))
    l_star = sp.Piecewise((0, C <= 0), (sp.oo, sp.And(sp.Eq(attn_flops, 0), b <= 0)), (root, True))

    # chunked prefill: a decode step of B sequences (l = 1) that also carries a chunk of l prompt tokens; the
    # chunk adds its weights' FLOPs and its KV write (its own attention, over the prompt so far, left out)
    one = {pass_len: 1}
    c_dec, m_dec = t_comp.subs(one), t_mem.subs(one)
    c_mix = c_dec + mac * N_active * pass_len / (n_chips * flops)
    m_mix = m_dec + pass_len * kv_bytes / (n_chips * mem_bw)
    chunk = (m_dec - c_dec) / (mac * N_active / (n_chips * flops) - kv_bytes / (n_chips * mem_bw))  # c_mix = m_mix
    chunk_star = sp.Piecewise((0, m_dec <= c_dec), (sp.oo, mac * N_active * mem_bw <= kv_bytes * flops),
                              (chunk, True))

    # disaggregated pools: chip-seconds of the prompt tokens over those of all tokens
    share = (tokens_prefill / prefill_rate) / (tokens_prefill / prefill_rate + tokens_decode / decode_rate)

    never = "inf where a pass is never compute-bound: no attention FLOPs, and a token's KV write outlasts its FLOPs"
    return {
        "prefill_flops": Spec(B * (mac * N_active * pass_len + attn_flops * pairs + latent_flops * len_ctx), "FLOP",
                              "FLOPs of a pass: 2 N_active per new token, a per causal (query, key) pair, and u_c "
                              "per cached token expanded (MLA decompressed).", 1),
        "prefill_compute_time_s": Spec(t_comp, "s", "Compute time of a pass of l new tokens after L cached, "
                                       "for each of B sequences: weights at F, causal attention at F_a, the "
                                       "cached tokens' expansion (u_c each) at F.", _S),
        "prefill_memory_time_s": Spec(t_mem, "s", "Memory time of a pass: the weights and the cached KV read "
                                      "once, the pass's own KV written once.", _S),
        "prefill_time_s": Spec(t_pass, "s", "Time of a pass, max(compute, memory); for one prompt with nothing "
                               "cached, the floor of its time to first token.", _S),
        "prefill_tokens_per_s": Spec(B * pass_len / t_pass, "token/s", "New tokens a replica processes per "
                                     "second in such passes.", 1 / _S),
        "prefill_cost_per_token_usd": Spec(usd_per_s * t_pass / (B * pass_len), "USD/token",
                                           "Cost of one new token of a pass: chip-seconds x price.", USD),
        "balance_prefill_tokens": Spec(l_star, "tokens", "Pass length at which a pass turns compute-bound: "
                                       "shorter passes wait on the weights.", 1, infinite=never,
                                       zero="0 where expanding the cached tokens (u_c L) alone outlasts the "
                                       "pass's reads: compute-bound at any pass length"),
        "mixed_step_time_s": Spec(sp.Max(c_mix, m_mix, evaluate=False), "s", "A decode step of B sequences that also carries "
                                  "a chunk of l prompt tokens (the chunk's attention left out).", _S),
        "balance_chunk_tokens": Spec(chunk_star, "tokens", "The prompt chunk a decode step carries with no "
                                     "change in its time: the step's memory time less its compute, in the "
                                     "chunk's FLOPs (0 if decode alone is compute-bound).", 1,
                                     infinite="inf where a token's KV write outlasts its FLOPs",
                                     zero="0 where the decode step alone is already compute-bound"),
        "prefill_chip_share": Spec(share, "1", "Share of a disaggregated fleet's chips in the prefill pool: "
                                   "chip-seconds of the prompt tokens over those of all tokens, D_p / T_p over "
                                   "D_p / T_p + D_d / T_d.", 1, zero="0 with no prompt tokens"),
    }


EQUATIONS = equations.family(__name__, build)

prefill_flops = EQUATIONS["prefill_flops"]
prefill_compute_time_s = EQUATIONS["prefill_compute_time_s"]
prefill_memory_time_s = EQUATIONS["prefill_memory_time_s"]
prefill_time_s = EQUATIONS["prefill_time_s"]
prefill_tokens_per_s = EQUATIONS["prefill_tokens_per_s"]
prefill_cost_per_token_usd = EQUATIONS["prefill_cost_per_token_usd"]
balance_prefill_tokens = EQUATIONS["balance_prefill_tokens"]
mixed_step_time_s = EQUATIONS["mixed_step_time_s"]
balance_chunk_tokens = EQUATIONS["balance_chunk_tokens"]
prefill_chip_share = EQUATIONS["prefill_chip_share"]

t_prefill_compute = prefill_compute_time_s.expr
t_prefill_memory = prefill_memory_time_s.expr
t_prefill = prefill_time_s.expr
balance_prefill = balance_prefill_tokens.expr.args[-1][0]  # its finite branch
balance_chunk = balance_chunk_tokens.expr.args[-1][0]      # its finite branch


# -- attention FLOPs of a prompt ----------------------------------------------------------------------
_F = {n: sp.Symbol(n, positive=True) for n in ("n_q_heads", "head_dim", "qk_rope_head_dim", "kv_lora_rank", "layers",
                                             "full_layers", "window", "pass_len", "pairs")}
FORMULAS = {
    # attention FLOPs a (query, key) pair and layer, MLA decompressed and run as MHA
    "prefill_attn_flops_per_pair[MLA]": 2 * _F["n_q_heads"] * (2 * _F["head_dim"] + _F["qk_rope_head_dim"]),
    "prefill_attn_flops_per_pair[GQA]": 4 * _F["n_q_heads"] * _F["head_dim"],
    "prefill_attn_flops_per_pair[MHA]": 4 * _F["n_q_heads"] * _F["head_dim"],
    # the (query, key) pairs of a fresh prompt of pass_len tokens, and the (pair, layer) couples its attention
    # computes: a window layer's query i reads at most window keys, so that layer holds min(i, window) of its pairs
    "prefill_pairs": _F["pass_len"] * (_F["pass_len"] + 1) / 2,
    "prefill_pair_layers": _F["full_layers"] * _F["pairs"] + (_F["layers"] - _F["full_layers"]) * sp.Piecewise(
        (_F["pairs"], _F["pass_len"] <= _F["window"]),
        (_F["window"] * (_F["window"] + 1) / 2 + (_F["pass_len"] - _F["window"]) * _F["window"], True)),
    # FLOPs a cached token's latent costs to decompress into a key and a value per head, a layer (MLA only)
    "prefill_latent_flops_per_layer[MLA]": decode.FLOPS_PER_MAC * _F["kv_lora_rank"] * _F["n_q_heads"] * 2
    * _F["head_dim"],
}
"""Prefill's attention FLOPs a pair and layer (by attention kind), a fresh prompt's pairs and (pair, layer) couples
(window layers capped) and the latent FLOPs a cached token and layer, as sympy expressions in a model's sizes:
:func:`prefill_attn_flops` and :func:`prefill_latent_flops` evaluate them, and the published page evaluates them
for a model the reader loads."""


def _compiled(name):
    return equations.lambdified(FORMULAS[name])


def _formula(name, **values):
    args, f = _compiled(name)
    return f(*(values[a] for a in args))


def prefill_attn_flops(model, pass_len=None):
    """Attention FLOPs per causal (query, key) pair of a prompt, all layers: the ``a`` of a prefill pass.

    MHA and GQA: ``4 n_q_heads head_dim`` a layer, as in decode (a score and a weighted sum per query
    head). MLA: prefill decompresses each token's latent once into keys and values per head (for the
    pass's new tokens that up-projection is a weight matmul, counted in ``N_active``; for cached tokens
    it is :func:`prefill_latent_flops` a token, once a pass) and attends as multi-head attention,
    ``2 h (d_nope + d_rope + d_v)`` a layer, with ``head_dim`` as both ``d_nope`` and ``d_v``
    (DeepSeek-V3: 128, 64, 128); decode's absorbed form costs ``2 h (2 r + d_rope)``, 3.4 times more.

    Without ``pass_len``: full-attention layers only, the growth of a long prompt. With it (a fresh
    prompt of that many tokens, nothing cached), sliding-window layers are counted too, each query
    reading at most ``sliding_window`` keys, and the result is the mean over the pass's pairs.

    >>> class V3:  # DeepSeek-V3's attention, from its config.json
    ...     attention, n_q_heads, head_dim, qk_rope_head_dim, layers = "MLA", 128, 128, 64, 61
    ...     sliding_window, full_attention_layers = None, 61
    >>> print(f"{prefill_attn_flops(V3) / 1e6:.2f} MFLOP per pair")
    5.00 MFLOP per pair
    """
    sizes = _sizes(model)
    per_layer = _formula(f"prefill_attn_flops_per_pair[{model.attention}]", **sizes)
    full, windowed = sizes["full_layers"], model.layers - sizes["full_layers"]
    if pass_len is None or not windowed:
        return float(per_layer * full)
    ell = _check.check_value("pass_len", pass_len)
    pairs = _formula("prefill_pairs", pass_len=ell)
    out = per_layer * _formula("prefill_pair_layers", **sizes, pass_len=ell, pairs=pairs) / pairs
    return out if np.ndim(out) else float(out)


def _sizes(model):
    """The sizes :data:`FORMULAS` read, from a Model or anything with its attention fields."""
    for name in ("attention", "n_q_heads", "head_dim", "layers"):
        if getattr(model, name, None) is None:
            raise ValueError(f"model must be a roofline Model with {name} (see roofline.models.get); "
                             f"got {_check.short(model)}")
    if f"prefill_attn_flops_per_pair[{model.attention}]" not in FORMULAS:
        raise ValueError(f"model must have attention 'MHA', 'GQA' or 'MLA'; got {_check.short(model)}")
    out = {k: getattr(model, k, None) or 0 for k in ("n_q_heads", "head_dim", "qk_rope_head_dim", "kv_lora_rank",
                                                     "layers")}
    out["full_layers"] = getattr(model, "full_attention_layers", None) or model.layers
    out["window"] = getattr(model, "sliding_window", None) or 0
    return out


def prefill_latent_flops(model):
    """FLOPs a pass in prefill's form spends on each cached token before attending to it, all layers: the
    ``u_c`` (``latent_flops``) of a pass with ``L > 0`` cached tokens.

    MLA decompressed: each cached token's latent (``kv_lora_rank`` wide) is up-projected into a key and a
    value per head, ``2 r h (d_nope + d_v)`` a layer, once a pass (vLLM's and SGLang's prefill with a cached
    prefix run this matmul). MHA, GQA: 0, their caches hold the keys and values themselves. Pass it with
    :func:`prefill_attn_flops`, the ``a`` of the same form; a deployment's own ``attn_flops`` (MLA absorbed,
    as decode runs it) goes with 0.

    >>> class V3:  # DeepSeek-V3's attention, from its config.json
    ...     attention, n_q_heads, head_dim, kv_lora_rank, layers = "MLA", 128, 128, 512, 61
    ...     full_attention_layers = 61
    >>> u_c = prefill_latent_flops(V3)
    >>> print(f"{u_c / 1e9:.2f} GFLOP per cached token, {u_c / 4_997_120:.0f} pairs' worth")
    2.05 GFLOP per cached token, 410 pairs' worth
    """
    sizes = _sizes(model)
    if model.attention != "MLA":
        return 0.0
    return float(_formula("prefill_latent_flops_per_layer[MLA]", **sizes) * sizes["full_layers"])


# -- the all-to-all of a layout over nodes ----------------------------------------------------------------
DEEPSEEK_V3_EXPERT_GROUPS = (8, 4)
"""DeepSeek-V3's group-limited routing as (expert groups, groups a token draws from). Its 256 routed experts lie in
8 groups, and a token's 8 experts are drawn from the 4 groups it scores highest (config.json ``n_group`` 8 and
``topk_group`` 4; the technical report's node-limited routing, section 2.1.2)."""


MAX_GROUPS = 10**6
"""The most expert groups :func:`group_limited_nodes` takes (its work grows with ``top_groups``)."""


def group_limited_nodes(n_nodes, n_groups, top_groups):
    """Other nodes a token's experts touch on average when it draws them from ``top_groups`` of ``n_groups``
    expert groups, the groups spread evenly over ``n_nodes`` nodes (``n_groups / n_nodes`` a node).

    Each node is touched unless all ``top_groups`` groups lie among the others: with the groups drawn at random,
    that has chance ``C(n_groups - g, top_groups) / C(n_groups, top_groups)``, ``g = n_groups / n_nodes``. The
    token's own node is one of the ``n_nodes``, so the other nodes touched number ``(n_nodes - 1)`` times the
    chance that one is touched. It is the count of crossings a token makes in :mod:`roofline.moe`'s
    ``dispatch="per_rack"`` all-to-all (DeepEP's normal kernels send a token once to each node), under this
    routing instead of eight experts drawn at random. It assumes whole groups on each node, as EPLB's hierarchical
    policy packs them "when the number of server nodes divides the number of expert groups", the policy its
    README gives for "prefilling stage with a smaller expert-parallel size" (github:deepseek-ai/EPLB README.md).

    DeepSeek-V3 on 4 nodes (2 groups each), against 8 experts at random ``3 (1 - (3/4)^8)``:

    >>> print(f"{group_limited_nodes(4, *DEEPSEEK_V3_EXPERT_GROUPS):.3f} against {3 * (1 - 0.75 ** 8):.3f}")
    2.357 against 2.700
    """
    n = _check.whole("n_groups", n_groups, maximum=MAX_GROUPS)
    r = _check.whole("n_nodes", n_nodes, maximum=n)
    t = _check.whole("top_groups", top_groups, maximum=n)
    if n % r:
        raise ValueError(f"group_limited_nodes: n_groups ({n}) must split evenly over n_nodes ({r})")
    # the node holds none of the token's groups: C(n - g, t) / C(n, t), a product of t ratios
    i = np.arange(t)
    missed = float(np.prod((n - n // r - i) / (n - i)))
    return float((r - 1) * (1 - max(missed, 0.0)))


# -- sizing the two pools -------------------------------------------------------------------------------
def pool_chips(output_tokens_per_s, prompt_per_output, prefill_rate, decode_rate, unit_chips=(1, 1)):
    """Chips of a disaggregated fleet that generates ``output_tokens_per_s`` and computes ``prompt_per_output``
    prompt tokens (cache hits excluded) for each one, at per-chip rates ``prefill_rate`` and ``decode_rate``.

    Each pool needs its tokens a second over its rate: ``D_p / T_p`` and ``D_d / T_d`` chips, the two terms of
    :data:`prefill_chip_share`. With ``unit_chips = (n_p, n_d)`` each pool is rounded up to whole serving
    units of that many chips (DeepSeek's: 32 and 144). Arrays broadcast. Returns a dict of ``prefill`` and
    ``decode`` (chips, whole units), ``total`` and ``prefill_share`` (of the rounded chips).

    >>> out = pool_chips(1e6, 2.0, prefill_rate=20_000, decode_rate=5_000, unit_chips=(32, 144))
    >>> out["prefill"], out["decode"], round(float(out["prefill_share"]), 3)
    (128.0, 288.0, 0.308)
    """
    target = _check.check_value("output_tokens_per_s", output_tokens_per_s, where="pool_chips")
    ratio = _check.check_value("prompt_per_output", prompt_per_output, "nonnegative", where="pool_chips")
    t_p = _check.check_value("prefill_rate", prefill_rate, where="pool_chips")
    t_d = _check.check_value("decode_rate", decode_rate, where="pool_chips")
    if not (isinstance(unit_chips, tuple) and len(unit_chips) == 2):
        raise ValueError(f"pool_chips: unit_chips must be a pair (prefill, decode) of chip counts; "
                         f"got {_check.short(unit_chips)}")
    n_p, n_d = (_check.check_value("unit_chips", n, "count", where="pool_chips") for n in unit_chips)
    pre = np.ceil(target * ratio / t_p / n_p) * n_p
    dec = np.ceil(target / t_d / n_d) * n_d
    pre, dec = np.broadcast_arrays(pre, dec)  # every entry the inputs' shape
    if not pre.ndim:
        pre, dec = float(pre), float(dec)
    total = pre + dec
    return {"prefill": pre, "decode": dec, "total": total, "prefill_share": pre / total}
