"""Models: parameter counts and KV-cache bytes per token derived from the architecture.

The configurations ship in ``data/models.csv`` with the source of each. KV
bytes are computed, never stored:

* MHA / GQA: ``2 (K and V) x layers x kv_heads x head_dim x bytes``;
* MLA (DeepSeek-V3, Kimi K2): ``layers x (kv_lora_rank + qk_rope_head_dim) x bytes``,
  since only the compressed latent and the decoupled RoPE key are cached.

>>> v3 = get("DeepSeek-V3")
>>> print(f"{v3.kv_bytes_per_token():,.0f} B/token, sparsity {v3.sparsity:.1f}")
70,272 B/token, sparsity 18.1
>>> print(f"{get('lecture').expert_sparsity:.0f}")
8
"""

import dataclasses

from . import _check, _data



@dataclasses.dataclass(frozen=True)
class Model:
    """A transformer's sizes. Vary a field with :func:`dataclasses.replace`."""

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
    full_attention_layers: int | None = None  # layers whose KV grows with context (sliding-window layers excluded)
    hidden_size: int | None = None
    n_q_heads: int | None = None
    routed_experts: int | None = None
    shared_experts: int | None = None
    active_routed_experts: int | None = None
    kv_bytes_published: float | None = None  # BF16, all layers, from the source (for checking only)
    pretrain_tokens: float | None = None
    source: str = ""
    confidence: str = ""
    notes: str = ""

    def __post_init__(self):
        _check.positive("total_params", self.total_params)
        _check.positive("active_params", self.active_params)
        _check.positive("layers", self.layers)
        if self.active_params > self.total_params:
            raise ValueError(f"active_params ({self.active_params:g}) must not exceed "
                             f"total_params ({self.total_params:g})")
        if self.attention not in ("MHA", "GQA", "MLA"):
            raise ValueError(f"attention must be 'MHA', 'GQA' or 'MLA'; got {self.attention!r}")

    @property
    def sparsity(self):
        """Total over active parameters, the lecture's "sparsity" (00:19:16)."""
        return self.total_params / self.active_params

    @property
    def expert_sparsity(self):
        """Routed experts over experts active per token (256 / 32 = 8 in the lecture), or None if dense."""
        if not self.routed_experts or not self.active_routed_experts:
            return None
        return self.routed_experts / self.active_routed_experts

    def kv_bytes_per_token(self, bytes_per_elem=2, long_context=True):
        """KV-cache bytes per token of context.

        Parameters
        ----------
        bytes_per_elem : float
            Bytes per cached value: 2 for BF16 (default), 1 for FP8.
        long_context : bool
            Count only layers whose cache grows with context (default). False counts
            every layer, as in a model card's nominal figure.

        >>> print(f"{get('Llama 3.1 70B').kv_bytes_per_token():,.0f}")
        327,680
        """
        _check.positive("bytes_per_elem", bytes_per_elem)
        layers = self.full_attention_layers if (long_context and self.full_attention_layers) else self.layers
        if self.attention == "MLA":
            return layers * (self.kv_lora_rank + self.qk_rope_head_dim) * bytes_per_elem
        return 2 * layers * self.n_kv_heads * self.head_dim * bytes_per_elem


def _from_row(r):
    return Model(
        key=r["key"], name=r["name"], total_params=float(r["total_params"]),
        active_params=float(r["active_params"]), layers=int(r["layers"]), attention=r["attention"],
        n_kv_heads=_data.number(r["n_kv_heads"], int), head_dim=_data.number(r["head_dim"], int),
        kv_lora_rank=_data.number(r["kv_lora_rank"], int), qk_rope_head_dim=_data.number(r["qk_rope_head_dim"], int),
        full_attention_layers=_data.number(r["full_attention_layers"], int),
        hidden_size=_data.number(r["hidden_size"], int), n_q_heads=_data.number(r["n_q_heads"], int),
        routed_experts=_data.number(r["routed_experts"], int), shared_experts=_data.number(r["shared_experts"], int),
        active_routed_experts=_data.number(r["active_routed_experts"], int),
        kv_bytes_published=_data.number(r["kv_bytes_per_token_bf16_published"]),
        pretrain_tokens=_data.number(r["pretrain_tokens"]), source=r["sources"],
        confidence=r["confidence"], notes=r["notes"],
    )


REGISTRY, _ALIASES = _data.load("models.csv", _from_row)


def get(name):
    """The :class:`Model` called ``name`` (case, spaces and dashes ignored; aliases accepted)."""
    return _check.choice("model", name, REGISTRY, _ALIASES)


def names():
    """Registry names, in the order of the data file."""
    return list(REGISTRY)
