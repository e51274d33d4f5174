"""Models: parameter counts, experts and KV-cache bytes per token derived from the architecture.

The configurations ship in ``data/models.csv`` with the source of each. KV
bytes are computed, never stored, at whatever precision the cache uses
(``bytes_per_elem``; the weights' precision is a separate choice):

* MHA / GQA: ``2 (K and V) x layers x kv_heads x head_dim x bytes``;
* MLA (DeepSeek-V3, Kimi K2): ``layers x (kv_lora_rank + qk_rope_head_dim) x bytes``,
  since only the compressed latent and the decoupled RoPE key are cached;
* sliding-window layers (gpt-oss) hold at most ``sliding_window`` tokens, so a
  sequence of ``L`` tokens holds ``L x full-layer bytes + min(L, window) x window-layer bytes``.

Experts: one routed expert is a SwiGLU MLP of ``3 x hidden_size x moe_ffn_dim``
weights in each MoE layer; :attr:`Model.expert_params` counts it over all MoE
layers. Shared experts have the same shape (DeepSeek-V3, Kimi K2).

>>> v3 = get("DeepSeek-V3")
>>> print(f"{v3.kv_bytes_per_token():,.0f} B/token, sparsity {v3.sparsity:.1f}")
70,272 B/token, sparsity 18.1
>>> print(f"{v3.expert_params / 1e9:.2f}B per routed expert, {v3.routed_params / 1e9:.0f}B routed in all")
2.55B per routed expert, 654B routed in all
>>> print(f"{get('lecture').expert_sparsity:.0f}")
8
"""

import dataclasses
import numbers

import numpy as np
import sympy as sp

from . import _check, equations, registry
from ._check import MAX_EXACT_INT, check_value

ATTENTION_KINDS = ("MHA", "GQA", "MLA")


# -- what follows from a model's sizes, as formulas ----------------------------------------------
# Model's methods evaluate these, and the published page evaluates the same formulas, printed as JavaScript
# (roofline.web), for a model the reader loads. Each is in the Model's field names, with ``bytes_per_elem``,
# ``len_ctx``, ``full_layers`` (the full-attention layers: all of them without windows) and ``window`` (the
# sliding window; 0 without one).
_S = {n: sp.Symbol(n, positive=True) for n in (
    "layers", "full_layers", "window", "len_ctx", "bytes_per_elem", "n_kv_heads", "head_dim", "kv_lora_rank",
    "qk_rope_head_dim", "n_q_heads", "hidden_size", "moe_ffn_dim", "moe_layers", "dense_layers")}
FORMULAS = {
    # one token's cache in one attention layer: MLA caches the latent and the RoPE key; MHA/GQA K and V per head
    "kv_bytes_per_layer[MLA]": (_S["kv_lora_rank"] + _S["qk_rope_head_dim"]) * _S["bytes_per_elem"],
    "kv_bytes_per_layer[GQA]": 2 * _S["n_kv_heads"] * _S["head_dim"] * _S["bytes_per_elem"],
    "kv_bytes_per_layer[MHA]": 2 * _S["n_kv_heads"] * _S["head_dim"] * _S["bytes_per_elem"],
    # one new token's attention FLOPs in one layer per cached token (see Model.attention_flops_per_layer)
    "attention_flops_per_layer[MLA]": 2 * _S["n_q_heads"] * (2 * _S["kv_lora_rank"] + _S["qk_rope_head_dim"]),
    "attention_flops_per_layer[MLA,decompressed]": 2 * _S["n_q_heads"] * (
        2 * _S["head_dim"] + _S["qk_rope_head_dim"]) + 2 * _S["kv_lora_rank"] * _S["n_q_heads"] * 2 * _S["head_dim"],
    "attention_flops_per_layer[GQA]": 4 * _S["n_q_heads"] * _S["head_dim"],
    "attention_flops_per_layer[MHA]": 4 * _S["n_q_heads"] * _S["head_dim"],
    # (token, layer) pairs a sequence of len_ctx tokens keeps: full layers all of them, window layers the last window
    "kept_token_layers": _S["full_layers"] * _S["len_ctx"] + (_S["layers"] - _S["full_layers"]) * sp.Min(
        _S["len_ctx"], _S["window"]),
    "moe_layers": _S["layers"] - _S["dense_layers"],
    # one routed SwiGLU expert (gate, up, down) over every MoE layer
    "expert_params": 3 * _S["hidden_size"] * _S["moe_ffn_dim"] * _S["moe_layers"],
}
"""The formulas a :class:`Model`'s derived quantities come from (KV bytes and attention FLOPs per layer by attention
kind, the tokens a sequence's layers keep, the MoE layers, one expert's parameters), as sympy expressions."""


def _formula(name):
    return equations.lambdified(FORMULAS[name])


def formula(name, **values):
    """Evaluate ``FORMULAS[name]`` at ``values`` (its names, numbers or arrays).

    >>> float(formula("kv_bytes_per_layer[GQA]", n_kv_heads=8, head_dim=128, bytes_per_elem=2))
    4096.0
    """
    if not isinstance(name, str) or name not in FORMULAS:
        raise ValueError(f"name must be one of {', '.join(FORMULAS)}; got {_check.short(name)}")
    args, f = _formula(name)
    missing = [a for a in args if a not in values]
    if missing:
        raise ValueError(f"formula {name} needs {', '.join(missing)}; got {sorted(values)}")
    return f(*(values[a] for a in args))


def _int_field(name, value, minimum=1, optional=True):
    if value is None and optional:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"Model field {name} must be an integer >= {minimum}; got {_check.short(value)} "
                         f"of type {type(value).__name__}")
    if not minimum <= value <= MAX_EXACT_INT:
        raise ValueError(f"Model field {name} must be an integer in [{minimum}, 2**53]; got {_check.short(value)}")


@dataclasses.dataclass(frozen=True)
class Model:
    """A transformer's sizes. Vary a field with :func:`dataclasses.replace` (the fields are checked again)."""

    key: str
    name: str
    total_params: float            # parameters, every expert included
    active_params: float           # parameters per token
    layers: int
    attention: str                 # MHA, GQA or MLA
    n_kv_heads: int | None = None  # KV heads (MHA/GQA)
    head_dim: int | None = None    # dims per KV head (MHA/GQA)
    kv_lora_rank: int | None = None      # MLA latent width
    qk_rope_head_dim: int | None = None  # MLA decoupled RoPE key width
    q_lora_rank: int | None = None       # MLA query low-rank width (None: queries projected at full rank)
    full_attention_layers: int | None = None  # layers whose KV grows with context; the rest use the window
    sliding_window: int | None = None   # tokens a sliding-window layer keeps (gpt-oss: 128)
    hidden_size: int | None = None
    n_q_heads: int | None = None
    routed_experts: int | None = None
    shared_experts: int | None = None
    active_routed_experts: int | None = None
    moe_ffn_dim: int | None = None      # intermediate width of one expert
    dense_ffn_dim: int | None = None    # intermediate width of a dense FFN layer
    dense_layers: int | None = None     # layers with a dense FFN (DeepSeek-V3: the first 3)
    vocab: int | None = None
    context_tokens: int | None = None   # longest context the model supports
    kv_bytes_published: float | None = None  # BF16, all layers, from the source (for checking only)
    pretrain_tokens: float | None = None
    source: str = ""
    confidence: str = ""
    notes: str = ""

    def __post_init__(self):
        for name in ("key", "name"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"Model field {name} must be a non-empty str; got {_check.short(getattr(self, name))}")
        for name in ("total_params", "active_params"):
            check_value(name, getattr(self, name), where="Model field")
            if np.ndim(getattr(self, name)):
                raise ValueError(f"Model field {name} must be one number, not an array")
        _int_field("layers", self.layers, optional=False)
        for name in ("n_kv_heads", "head_dim", "kv_lora_rank", "qk_rope_head_dim", "q_lora_rank",
                     "full_attention_layers", "sliding_window", "hidden_size", "n_q_heads", "routed_experts",
                     "active_routed_experts", "moe_ffn_dim", "dense_ffn_dim", "vocab", "context_tokens"):
            _int_field(name, getattr(self, name))
        for name in ("shared_experts", "dense_layers"):
            _int_field(name, getattr(self, name), minimum=0)
        for name in ("kv_bytes_published", "pretrain_tokens"):
            if getattr(self, name) is not None:
                check_value(name, getattr(self, name), where="Model field")
        if self.active_params > self.total_params:
            raise ValueError(f"Model field active_params ({self.active_params:g}) must not exceed "
                             f"total_params ({self.total_params:g})")
        if self.attention not in ATTENTION_KINDS:
            raise ValueError(f"Model field attention must be one of {', '.join(map(repr, ATTENTION_KINDS))}; "
                             f"got {_check.short(self.attention)}")
        need = ("kv_lora_rank", "qk_rope_head_dim") if self.attention == "MLA" else ("n_kv_heads", "head_dim")
        for name in need:
            if getattr(self, name) is None:
                raise ValueError(f"Model field {name} is required for attention {self.attention!r}")
        for part, whole in (("full_attention_layers", "layers"), ("dense_layers", "layers"),
                            ("active_routed_experts", "routed_experts"), ("n_kv_heads", "n_q_heads")):
            if None not in (getattr(self, part), getattr(self, whole)) and getattr(self, part) > getattr(self, whole):
                raise ValueError(f"Model field {part} ({getattr(self, part)}) must not exceed {whole} "
                                 f"({getattr(self, whole)})")
        if self.full_attention_layers not in (None, self.layers) and self.sliding_window is None:
            raise ValueError("Model field sliding_window is required when full_attention_layers < layers")
        _check.record(self)  # every other field's type

    # -- parameters and experts ----------------------------------------------------------------
    @property
    def sparsity(self):
        """Total over active parameters, the lecture's "sparsity".

        The lecture's word for it, at 00:19:16.
        """
        return self.total_params / self.active_params

    @property
    def expert_sparsity(self):
        """Routed experts over experts active per token (256 / 32 = 8 in the lecture), or None if dense."""
        if not self.routed_experts or not self.active_routed_experts:
            return None
        return self.routed_experts / self.active_routed_experts

    @property
    def moe_layers(self):
        """Layers with a mixture-of-experts FFN, or None where unknown."""
        if not self.routed_experts or self.dense_layers is None:
            return None if self.routed_experts else 0
        return int(formula("moe_layers", layers=self.layers, dense_layers=self.dense_layers))

    @property
    def expert_params(self):
        """Parameters of one routed expert over all MoE layers, or None.

        A SwiGLU expert has 3 x hidden x moe_ffn_dim parameters per layer.
        """
        if not self.moe_layers or not self.moe_ffn_dim or not self.hidden_size:
            return None
        return int(formula("expert_params", hidden_size=self.hidden_size, moe_ffn_dim=self.moe_ffn_dim,
                           moe_layers=self.moe_layers))

    @property
    def routed_params(self):
        """Parameters of all routed experts, or None where the expert shape is unknown."""
        return None if self.expert_params is None else self.routed_experts * self.expert_params

    @property
    def shared_params(self):
        """Parameters of the shared experts (read for every token), or None where unknown."""
        return None if self.expert_params is None else (self.shared_experts or 0) * self.expert_params

    @property
    def always_on_params(self):
        """Parameters every token passes through besides its routed experts, or None.

        The total less the routed experts' parameters.
        """
        return None if self.routed_params is None else self.total_params - self.routed_params

    # -- the KV cache --------------------------------------------------------------------------
    def kv_bytes_per_layer(self, bytes_per_elem=2):
        """KV bytes one token stores in one attention layer at ``bytes_per_elem`` (BF16: 2, FP8: 1)."""
        b = check_value("bytes_per_elem", bytes_per_elem)
        out = formula(f"kv_bytes_per_layer[{self.attention}]", **self._sizes(), bytes_per_elem=b)
        return out if np.ndim(out) else float(out)

    def _sizes(self):
        """The fields the formulas read, by name (an absent one as 0)."""
        return {name: getattr(self, name) or 0 for name in (
            "layers", "n_kv_heads", "head_dim", "kv_lora_rank", "qk_rope_head_dim", "n_q_heads", "hidden_size")} | {
            "full_layers": self.layers - self.window_layers, "window": self.sliding_window or 0}

    @property
    def window_layers(self):
        """Layers that keep only the last ``sliding_window`` tokens."""
        return self.layers - (self.full_attention_layers or self.layers)

    def kv_bytes_per_token(self, bytes_per_elem=2, len_ctx=None):
        """KV-cache bytes per token of context.

        Parameters
        ----------
        bytes_per_elem : float
            Bytes per cached value: 2 for BF16 (default), 1 for FP8.
        len_ctx : float or array, optional
            Context length. Without it, the growth per token of a long context (full-attention
            layers only). With it, the cache of one ``len_ctx``-token sequence over ``len_ctx``
            (:meth:`kv_bytes_per_sequence`), so sliding-window layers count while the context
            is short.

        Examples
        --------
        >>> m = get('gpt-oss-120b')
        >>> print(f"{m.kv_bytes_per_token():,.0f} and {m.kv_bytes_per_token(len_ctx=4096):,.0f}")
        36,864 and 38,016
        """
        growth = self.kv_bytes_per_layer(bytes_per_elem) * (self.layers - self.window_layers)
        if len_ctx is None:
            return growth
        L = check_value("len_ctx", len_ctx)
        return self.kv_bytes_per_sequence(L, bytes_per_elem) / L if self.window_layers else growth

    # -- attention's own FLOPs -------------------------------------------------------------------
    def attention_flops_per_layer(self, absorbed=True):
        """FLOPs one new token spends in one attention layer per token of context it reads.

        A multiply-add is 2 FLOPs. MHA/GQA: every query head takes a score against the cached
        key (``head_dim`` multiply-adds) and adds the cached value (``head_dim`` more), so
        ``4 n_q_heads head_dim``; grouping the KV heads saves bytes, not FLOPs. MLA with the
        up-projections *absorbed* into the query and output (how DeepSeek decodes): each head
        scores against the latent and the RoPE key (``kv_lora_rank + qk_rope_head_dim``) and sums
        the latent (``kv_lora_rank``). MLA *not* absorbed: each cached latent is first
        decompressed into a key and a value per head (``kv_lora_rank x n_q_heads x 2 head_dim``,
        with ``head_dim`` as both the no-RoPE key and value width), then attended as MHA.

        >>> print(f"{get('DeepSeek-V3').attention_flops_per_layer() * 61 / 1e6:.1f} MFLOP")
        17.0 MFLOP
        """
        if not isinstance(absorbed, bool):
            raise ValueError(f"absorbed must be True or False; got {_check.short(absorbed)}")
        if not self.n_q_heads:
            raise ValueError(f"Model {self.key!r} has no n_q_heads; attention FLOPs need the query heads")
        kind = self.attention + ("" if absorbed or self.attention != "MLA" else ",decompressed")
        return int(formula(f"attention_flops_per_layer[{kind}]", **self._sizes()))

    def attention_flops_per_token(self, len_ctx=None, absorbed=True):
        """Attention FLOPs per token of context, all layers: the ``a`` of
        :func:`roofline.decode.compute_time_attn_s`.

        Without ``len_ctx``, the growth per token of a long context (full-attention layers);
        with it, one new token's attention FLOPs over ``len_ctx``, windows capped, per token.

        >>> print(f"{get('Llama 3.1 70B').attention_flops_per_token() / 1e6:.2f} MFLOP")
        2.62 MFLOP
        """
        per_layer = self.attention_flops_per_layer(absorbed)
        full = self.layers - self.window_layers
        if len_ctx is None or not self.window_layers:
            return per_layer * full
        L = check_value("len_ctx", len_ctx)
        return per_layer * formula("kept_token_layers", **self._sizes(), len_ctx=L) / L

    def kv_bytes_per_sequence(self, len_ctx, bytes_per_elem=2):
        """KV-cache bytes one sequence of ``len_ctx`` tokens holds (windows capped).

        >>> print(f"{get('Llama 3.1 70B').kv_bytes_per_sequence(1000) / 1e6:,.1f} MB")
        327.7 MB
        """
        L = check_value("len_ctx", len_ctx, "nonnegative")
        return self.kv_bytes_per_layer(bytes_per_elem) * formula("kept_token_layers", **self._sizes(), len_ctx=L)

    def context_for_kv_bytes(self, kv_bytes_per_sequence, bytes_per_elem=2):
        """The context whose cache holds ``kv_bytes_per_sequence`` bytes: the inverse of
        :meth:`kv_bytes_per_sequence` (windows included), tokens.

        >>> m = get('gpt-oss-120b')
        >>> print(f"{m.context_for_kv_bytes(m.kv_bytes_per_sequence(4096)):,.0f}")
        4,096
        """
        target = check_value("kv_bytes_per_sequence", kv_bytes_per_sequence, "nonnegative")
        window = self.sliding_window or 0
        inside = self.kv_bytes_per_layer(bytes_per_elem) * self.layers  # bytes per token while L <= window
        at_window = inside * window
        return np.where(target <= at_window, target / inside,
                        window + (target - at_window) / self.kv_bytes_per_token(bytes_per_elem))


def _from_row(r):
    n = registry.number
    return Model(
        key=r["key"], name=r["name"], total_params=float(r["total_params"]),
        active_params=float(r["active_params"]), layers=int(r["layers"]), attention=r["attention"],
        n_kv_heads=n(r["n_kv_heads"], int), head_dim=n(r["head_dim"], int),
        kv_lora_rank=n(r["kv_lora_rank"], int), qk_rope_head_dim=n(r["qk_rope_head_dim"], int),
        q_lora_rank=n(r["q_lora_rank"], int),
        full_attention_layers=n(r["full_attention_layers"], int), sliding_window=n(r["sliding_window"], int),
        hidden_size=n(r["hidden_size"], int), n_q_heads=n(r["n_q_heads"], int),
        routed_experts=n(r["routed_experts"], int), shared_experts=n(r["shared_experts"], int),
        active_routed_experts=n(r["active_routed_experts"], int), moe_ffn_dim=n(r["moe_ffn_dim"], int),
        dense_ffn_dim=n(r["dense_ffn_dim"], int), dense_layers=n(r["dense_layers"], int),
        vocab=n(r["vocab"], int), context_tokens=n(r["context_tokens"], int),
        kv_bytes_published=n(r["kv_bytes_per_token_bf16_published"]),
        pretrain_tokens=n(r["pretrain_tokens"]), source=r["sources"],
        confidence=r["confidence"], notes=r["notes"],
    )


REGISTRY = registry.Registry("models.csv", _from_row, "model")
get = REGISTRY.get
names = REGISTRY.names
