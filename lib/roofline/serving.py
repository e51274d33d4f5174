"""What API prices say about serving (lecture chapter 6, 01:33:02-02:04:02).

Three pieces of chapter 1's roofline, read backwards from a price list:

* **Context.** Per token of a large batch, compute is flat in the context and the KV fetch
  rises linearly; where they cross (01:36:01), ``k = 2 N_active W / (F L)`` bytes of KV per
  token. A price step at 200K tokens then implies a KV size, and the KV size follows from
  the architecture: ``layers x 2 x d_head x KV heads x bytes`` (01:39:06).
* **Pass length.** A pass processes ``l`` tokens of each of ``B`` sequences: decode ``l = 1``,
  prefill ``l`` = the new prompt. Compute grows with ``l``; the memory traffic (weights and the
  earlier context's KV; the pass's own KV stays on chip) does not, so per token it falls as
  ``1/l`` (01:42:28). Output priced above input says decode is memory-bound (01:48:16).
* **Cache tiers.** A cached token's KV can be recomputed (a forward pass) or held in a memory
  and read back. Holding costs a share of the device for the hold time, reading costs a share
  of its bandwidth; they are equal after the device's drain time, capacity over bandwidth
  (02:00:37): the memory to keep a token in is the one that drains in about the hold time.

Costs of a device are per token: the token's bytes as a share of the device, times the
device's price per second. The FLOP convention is chapter 1's (a multiply-add is 2 FLOPs).

>>> print(f"{kv_bytes_at_crossover(n_active=1e11, mem_bw=8e12, flops=5e15, len_ctx=2e5):,.0f} B")
1,600 B
>>> print(f"{drain_time_s(tier_bytes=20e12, tier_bw=285e6) / 3600:.1f} h")
19.5 h
"""

import sympy as sp
from sympy.physics import units as u

from . import decode, equations
from .equations import Spec
from .symbols import (USD, B, N_active, N_total, attn_sparsity, bytes_per_param, flops, head_dim, hold_s, kv_bytes,
                      kv_elem_bytes, kv_heads, kv_layers, len_ctx, mem_bw, n_chips, n_reuse, pass_len, price,
                      tier_bw, tier_bytes, tier_price)

SECONDS_PER_HOUR = decode.SECONDS_PER_HOUR
KV_PER_HEAD = 2  # a key and a value per head and token
_S, _B = u.second, u.byte


def build():
    """The chapter-6 equations, as {numeric function name: Spec}."""
    mac = decode.FLOPS_PER_MAC
    # the crossover: KV fetch = compute for one sequence (B and the chips cancel), solved for the KV bytes
    k_cross = sp.solve(sp.Eq(decode.t_kv, decode.t_compute), kv_bytes)[0]
    # bytes STORED per token: kv_layers counts unique caches; a cache shared by n layers is read n times a step
    arch = kv_layers * KV_PER_HEAD * head_dim * kv_heads * kv_elem_bytes
    # a pass of l tokens for each of B sequences on G chips
    t_comp = mac * B * pass_len * N_active / (n_chips * flops)
    t_mem = (N_total * bytes_per_param + B * len_ctx * kv_bytes) / (n_chips * mem_bw)
    t_pass = sp.Max(t_comp, t_mem)
    usd_per_s = n_chips * price / SECONDS_PER_HOUR
    l_star = sp.solve(sp.Eq(t_comp, t_mem), pass_len)[0]
    # cache tiers: a token's bytes as a share of a device, times the device's price per second
    hold = kv_bytes / tier_bytes * tier_price / SECONDS_PER_HOUR   # per second held
    retrieve = kv_bytes / tier_bw * tier_price / SECONDS_PER_HOUR  # once, reading it back
    t = sp.Symbol("t", positive=True)
    break_even = sp.solve(sp.Eq(hold * t, retrieve), t)[0]
    # a prefix held for t_hold and read back n times, against re-prefilling it each time
    recompute = mac * N_active / flops * price / SECONDS_PER_HOUR
    held = hold * hold_s + n_reuse * retrieve
    reuse_even = sp.Piecewise((sp.oo, retrieve >= recompute),
                              (sp.solve(sp.Eq(held, n_reuse * recompute), n_reuse)[0], True))
    # decode, per sequence: the KV read over compute with attention's own FLOPs (B and the chips cancel)
    kv_over = sp.simplify(decode.t_kv / decode.t_compute_attn)
    kv_over_limit = sp.limit(kv_over, len_ctx, sp.oo)
    usd = USD
    return {
        "kv_bytes_at_crossover": Spec(k_cross, "byte/token", "KV bytes per token that put the compute-to-KV "
                                      "crossover at len_ctx: 2 N_active W / (F L) (01:38:22).", _B,
                                      infinite="inf at len_ctx = 0: an empty context never reaches compute"),
        "kv_bytes_architecture": Spec(arch, "byte/token", "KV bytes per token from the architecture: layers with "
                                      "their own cache x 2 x d_head x KV heads x bytes (01:40:52).", _B),
        "kv_bytes_read": Spec(kv_bytes / attn_sparsity, "byte/token", "KV bytes read per token of context under "
                              "sparse attention that reads 1/s of it (01:41:12).", _B,
                              zero="0 without a KV cache"),
        "pass_compute_time_s": Spec(t_comp, "s", "Compute time of a pass of l tokens for each of B sequences.", _S),
        "pass_memory_time_s": Spec(t_mem, "s", "Memory time of a pass: the weights and the earlier context's KV "
                                   "(the pass's own KV stays on chip, 01:43:28).", _S),
        "pass_time_s": Spec(t_pass, "s", "Time of a pass: max(compute, memory).", _S),
        "pass_cost_per_token_usd": Spec(usd_per_s * t_pass / (B * pass_len), "USD/token",
                                        "Cost per token of a pass: prefill (l large) or decode (l = 1) "
                                        "(01:45:30).", usd),
        "pass_memory_over_compute": Spec(t_mem / t_comp, "1", "Memory time over compute time of a pass; at "
                                         "l = 1 the decode gap, 'at 1 ... at 5' (01:48:16).", 1),
        "balance_pass_len": Spec(l_star, "tokens", "Pass length where compute equals memory: beyond it a pass "
                                 "is compute-bound.", 1),
        "recompute_cost_usd": Spec(mac * N_active / flops * price / SECONDS_PER_HOUR, "USD/token",
                                   "Cost to recompute one token's KV: its forward pass on a chip at peak, the "
                                   "attention term dropped (01:50:54).", usd),
        "hold_cost_usd_per_s": Spec(hold, "USD/(token·s)", "Cost to hold one token's KV in a memory device, per "
                                    "second: its share of the device times the device's price (01:55:13).",
                                    usd / _S, zero="0 without a KV cache"),
        "retrieve_cost_usd": Spec(retrieve, "USD/token", "Cost to read one token's KV back from a memory device: "
                                  "its share of a second of the device's bandwidth (01:57:00).", usd,
                                  zero="0 without a KV cache"),
        "cache_cost_usd": Spec(hold * hold_s + retrieve, "USD/token", "Cost of a cached token: held for t_hold, "
                               "then read back once.", usd, zero="0 without a KV cache"),
        "held_prefix_cost_usd": Spec(held, "USD/token", "Cost of a cached prefix token held for t_hold and read "
                                     "back n_reuse times (its first prefill, paid either way, left out).", usd),
        "reprefill_cost_usd": Spec(n_reuse * recompute, "USD/token", "Cost of recomputing a prefix token each of "
                                   "the n_reuse times it is needed instead of holding it.", usd),
        "reuse_breakeven_n": Spec(reuse_even, "reads", "Reads of a prefix at which holding it for t_hold costs "
                                  "what re-prefilling it that many times does; more reads favour holding.", 1,
                                  zero="0 without a KV cache or a hold",
                                  infinite="inf where reading a token back costs at least its recompute"),
        "decode_kv_over_compute": Spec(kv_over, "1", "Decode, per sequence: KV read time over compute time with "
                                       "attention's FLOPs counted (chapter 1's t_kv / t_compute_attn).", 1,
                                       zero="0 at an empty context"),
        "decode_kv_over_compute_limit": Spec(kv_over_limit, "1", "Its limit at long context, k F_a / (a W): "
                                             "above 1 a long context is KV-bound, below 1 compute-bound.", 1,
                                             infinite="inf where attention FLOPs are ignored (attn_flops = 0)"),
        "drain_time_s": Spec(break_even, "s", "Hold time at which holding costs what reading back costs: the "
                             "device's capacity over its bandwidth, its drain time (02:02:55).", _S),
    }


EQUATIONS = equations.family(__name__, build)

kv_bytes_at_crossover = EQUATIONS["kv_bytes_at_crossover"]
kv_bytes_architecture = EQUATIONS["kv_bytes_architecture"]
kv_bytes_read = EQUATIONS["kv_bytes_read"]
pass_compute_time_s = EQUATIONS["pass_compute_time_s"]
pass_memory_time_s = EQUATIONS["pass_memory_time_s"]
pass_time_s = EQUATIONS["pass_time_s"]
pass_cost_per_token_usd = EQUATIONS["pass_cost_per_token_usd"]
pass_memory_over_compute = EQUATIONS["pass_memory_over_compute"]
balance_pass_len = EQUATIONS["balance_pass_len"]
recompute_cost_usd = EQUATIONS["recompute_cost_usd"]
hold_cost_usd_per_s = EQUATIONS["hold_cost_usd_per_s"]
retrieve_cost_usd = EQUATIONS["retrieve_cost_usd"]
cache_cost_usd = EQUATIONS["cache_cost_usd"]
drain_time_s = EQUATIONS["drain_time_s"]
held_prefix_cost_usd = EQUATIONS["held_prefix_cost_usd"]
reprefill_cost_usd = EQUATIONS["reprefill_cost_usd"]
reuse_breakeven_n = EQUATIONS["reuse_breakeven_n"]
decode_kv_over_compute = EQUATIONS["decode_kv_over_compute"]
decode_kv_over_compute_limit = EQUATIONS["decode_kv_over_compute_limit"]


DEEPSEEK_V32_DSA = dict(
    topk=2048, index_key_bytes_per_layer=132, latent_fp8_bytes_per_layer=656, layers=61,
    source="github:deepseek-ai/DeepSeek-V3.2-Exp README and inference/model.py: the indexer keeps a 128-byte FP8 "
           "key plus a 4-byte FP32 scale per layer and token and scores every cached token; the main attention "
           "reads the top 2,048 of V3's latent cache, stored in FP8 as 656 bytes per layer (512 FP8 + 4 FP32 "
           "scales + 64 BF16 rope; FlashMLA's layout)")
"""DeepSeek Sparse Attention's cache, per token (shared/reference models.csv, DeepSeek-V3.2 row)."""
