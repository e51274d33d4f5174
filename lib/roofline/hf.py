"""Build a :class:`~roofline.models.Model` from a local Hugging Face ``config.json``.

A model's ``config.json`` lists every width, head count and expert count, so the
parameter count and the KV-cache bytes per token follow from it by arithmetic.
:func:`from_hf_config` does that arithmetic for the families the book uses; it
reads a file on disk and never fetches anything from the network.

Counting conventions
--------------------
* **Total** counts every stored weight of the main model: embeddings, attention
  (MLA's low-rank projections and their norms included), dense and MoE FFNs
  (routed and shared experts, router), every RMSNorm, and the output head unless
  it is tied to the embeddings. DeepSeek-V3's multi-token-prediction (MTP)
  module is reported separately (:attr:`ParamCount.mtp`) and left out, which is
  why DeepSeek quotes 671B for the model and the checkpoint holds 685B.
* **Active** counts what one token passes through: everything above except the
  input embedding table (a lookup, no multiply-add) and the routed experts that
  were not picked. DeepSeek and OpenAI count this way; Mistral and Qwen add the
  embedding table to their headline figure.
"""

import dataclasses
import json
import numbers
import os
import pathlib

from . import models

FAMILIES = {
    "deepseek_v3": "DeepSeek-V3 / R1 (MLA; MoE with a shared expert)",
    "kimi_k2": "Kimi K2 (the DeepSeek-V3 architecture)",
    "llama": "Llama 3.x (dense; GQA)",
    "qwen3_moe": "Qwen3 MoE (GQA with q/k norms; MoE without a shared expert)",
    "mixtral": "Mixtral (GQA; 8 experts, top-2)",
    "gpt_oss": "gpt-oss (GQA with biases and sinks; sliding window on alternate layers; MoE)",
}
_MLA = ("deepseek_v3", "kimi_k2")
_EXPERT_KEYS = {  # model_type -> (routed experts key, shared experts key)
    "deepseek_v3": ("n_routed_experts", "n_shared_experts"), "kimi_k2": ("n_routed_experts", "n_shared_experts"),
    "qwen3_moe": ("num_experts", None), "mixtral": ("num_local_experts", None), "gpt_oss": ("num_local_experts", None),
}
_REQUIRED = object()


@dataclasses.dataclass(frozen=True)
class ParamCount:
    """Parameters by component: ``parts[name] = (stored, active per token)``."""

    parts: dict
    mtp: int = 0  # DeepSeek multi-token-prediction module, unique weights; not in total

    @property
    def total(self):
        """Stored parameters of the main model."""
        return sum(stored for stored, _ in self.parts.values())

    @property
    def active(self):
        """Parameters one token multiplies through (input embedding excluded)."""
        return sum(active for _, active in self.parts.values())


def _supported():
    return ", ".join(f"{k!r} ({v})" for k, v in FAMILIES.items())


class _Config:
    """A config dict that names the file and the family when a key is missing or wrong."""

    def __init__(self, data, file):
        self.data, self.file = data, file
        self.family = data.get("model_type")

    def int(self, key, default=_REQUIRED, minimum=1):
        value = self.data.get(key, default)
        if value is _REQUIRED:
            raise ValueError(f"{self.file} has no key {key!r}, needed for model_type {self.family!r}; "
                             f"supported families: {_supported()}")
        if value is None and default is None:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
            raise ValueError(f"{self.file}: {key} must be an integer >= {minimum}; got {value!r}")
        return int(value)

    def flag(self, key, default=False):
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise ValueError(f"{self.file}: {key} must be true or false; got {value!r}")
        return value


def load_config(path):
    """Read ``path`` (a ``config.json`` or a directory holding one); return ``(dict, file)``."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file or directory name; got {path!r} of type {type(path).__name__}")
    file = pathlib.Path(path)
    if file.is_dir():
        file = file / "config.json"
    if not file.is_file():
        raise ValueError(f"path must name a config.json or a directory holding one; {str(file)!r} does not exist")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{file} is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{file} must hold a JSON object; got {type(data).__name__}")
    return data, file


def _attention(c):
    """Weights of one attention block, norms inside it included."""
    h, nq = c.int("hidden_size"), c.int("num_attention_heads")
    if c.family in _MLA:  # DeepSeek-V3 config.json: low-rank q and kv, decoupled RoPE key
        nope, rope, v = c.int("qk_nope_head_dim"), c.int("qk_rope_head_dim"), c.int("v_head_dim")
        r, q_rank = c.int("kv_lora_rank"), c.int("q_lora_rank", default=None)
        q = h * q_rank + q_rank + q_rank * nq * (nope + rope) if q_rank else h * nq * (nope + rope)
        kv = h * (r + rope) + r + r * nq * (nope + v)   # kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj
        return q + kv + nq * v * h                      # ... + o_proj
    nkv = c.int("num_key_value_heads", default=nq)
    hd = c.int("head_dim", default=None) or h // nq
    n = 2 * h * nq * hd + 2 * h * nkv * hd              # q, o and k, v projections
    if c.flag("attention_bias"):
        n += nq * hd + 2 * nkv * hd + h
    if c.family == "qwen3_moe":
        n += 2 * hd                                     # q_norm, k_norm
    if c.family == "gpt_oss":
        n += nq                                         # one attention sink per head
    return n


def _ffn(c, layer):
    """(stored, active) weights of layer ``layer``'s FFN, by part."""
    h = c.int("hidden_size")
    f = c.family
    if f in _MLA:
        dense = layer < c.int("first_k_dense_replace", minimum=0) or layer % c.int("moe_layer_freq", 1) != 0
        if dense:
            return {"dense_ffn": (3 * h * c.int("intermediate_size"),) * 2}
        n_exp, k, n_shared = c.int("n_routed_experts"), c.int("num_experts_per_tok"), c.int("n_shared_experts", 0, 0)
        expert = 3 * h * c.int("moe_intermediate_size")  # gate, up, down (SwiGLU)
        bias = n_exp if c.data.get("topk_method", "noaux_tc") == "noaux_tc" else 0  # e_score_correction_bias
        return {"routed_experts": (n_exp * expert, k * expert), "shared_experts": (n_shared * expert,) * 2,
                "router": (n_exp * h + bias,) * 2}
    if f == "llama":
        inter = c.int("intermediate_size")
        return {"dense_ffn": (3 * h * inter + (2 * inter + h if c.flag("mlp_bias") else 0),) * 2}
    if f == "qwen3_moe":
        step = c.int("decoder_sparse_step", 1)
        if layer in c.data.get("mlp_only_layers", []) or (layer + 1) % step != 0:
            return {"dense_ffn": (3 * h * c.int("intermediate_size"),) * 2}
        n_exp, k, expert = c.int("num_experts"), c.int("num_experts_per_tok"), 3 * h * c.int("moe_intermediate_size")
        return {"routed_experts": (n_exp * expert, k * expert), "router": (n_exp * h,) * 2}
    n_exp, k, inter = c.int("num_local_experts"), c.int("num_experts_per_tok"), c.int("intermediate_size")
    if f == "mixtral":
        expert, router = 3 * h * inter, n_exp * h
    else:  # gpt_oss: fused gate_up (2 x inter) and down, each with a bias; router with a bias
        expert, router = 3 * h * inter + 2 * inter + h, n_exp * h + n_exp
    return {"routed_experts": (n_exp * expert, k * expert), "router": (router,) * 2}


def _count(c):
    h, layers, vocab = c.int("hidden_size"), c.int("num_hidden_layers"), c.int("vocab_size")
    attention = _attention(c)
    parts = {"embedding": (vocab * h, 0), "attention": (layers * attention,) * 2,
             "norms": ((2 * layers + 1) * h,) * 2}  # two RMSNorms per layer and the final one
    for layer in range(layers):
        for name, (stored, active) in _ffn(c, layer).items():
            old = parts.get(name, (0, 0))
            parts[name] = (old[0] + stored, old[1] + active)
    parts["lm_head"] = (0, 0) if c.flag("tie_word_embeddings") else (vocab * h,) * 2
    mtp = 0
    if c.family in _MLA:  # DeepSeek-V3 README_WEIGHTS: one more decoder layer + eh_proj + 3 norms
        per_module = attention + 2 * h + sum(s for s, _ in _ffn(c, layers).values()) + 2 * h * h + 3 * h
        mtp = c.int("num_nextn_predict_layers", 0, 0) * per_module
    return ParamCount(parts, mtp)


def count_params(path):
    """Parameters of the model described by ``path``, by component.

    Parameters
    ----------
    path : str or os.PathLike
        A ``config.json``, or a directory holding one.

    Returns
    -------
    ParamCount
        ``.total``, ``.active``, ``.parts`` (name -> (stored, active)) and ``.mtp``.
    """
    data, file = load_config(path)
    return _count(_checked(data, file))


def _checked(data, file):
    family = data.get("model_type")
    if family is None:
        raise ValueError(f"{file} has no key 'model_type'; supported families: {_supported()}")
    if family not in FAMILIES:
        raise ValueError(f"{file}: model_type {family!r} is not supported; supported families: {_supported()}")
    return _Config(data, file)


def _full_attention_layers(c):
    layers = c.int("num_hidden_layers")
    kinds = c.data.get("layer_types")
    if kinds is not None:
        if not isinstance(kinds, list) or len(kinds) != layers:
            raise ValueError(f"{c.file}: layer_types must list one entry per layer ({layers}); got {kinds!r}")
        return sum(kind == "full_attention" for kind in kinds)
    if c.family == "gpt_oss":  # even layers use the 128-token window, odd layers attend to everything
        return layers // 2
    return layers


def from_hf_config(path, *, name=None):
    """A :class:`~roofline.models.Model` built from a local Hugging Face ``config.json``.

    Parameters
    ----------
    path : str or os.PathLike
        A ``config.json``, or a directory holding one. Nothing is downloaded.
    name : str, optional
        Registry-style name; default the config's ``_name_or_path`` or the directory's name.

    Returns
    -------
    Model
        Parameter counts (see the module's conventions), layer, head and expert counts;
        ``full_attention_layers`` counts only layers whose KV cache grows with context.

    Raises
    ------
    ValueError
        If the file is missing or not JSON, its ``model_type`` is not one of :data:`FAMILIES`,
        or a key the family needs is missing or not a positive integer.

    Examples
    --------
    Llama 3.1 8B's published sizes, written to a temporary directory:

    >>> import json, pathlib, tempfile
    >>> config = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    ...           "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
    ...           "vocab_size": 128256, "tie_word_embeddings": False}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (pathlib.Path(tmp) / "config.json").write_text(json.dumps(config))
    ...     m = from_hf_config(tmp, name="Llama 3.1 8B")
    >>> print(f"{m.total_params:,.0f} parameters, {m.kv_bytes_per_token():,.0f} KV bytes/token")
    8,030,261,248 parameters, 131,072 KV bytes/token
    """
    data, file = load_config(path)
    c = _checked(data, file)
    if name is None:
        name = data.get("_name_or_path") or file.parent.name or str(file)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty str; got {name!r}")
    counts = _count(c)
    nq = c.int("num_attention_heads")
    mla = c.family in _MLA
    if mla:
        # MLA caches a latent, not heads; head_dim records the value-head width, as the registry does
        n_kv, head_dim, attention = c.int("num_key_value_heads", default=nq), c.int("v_head_dim"), "MLA"
    else:
        n_kv = c.int("num_key_value_heads", default=nq)
        head_dim = c.int("head_dim", default=None) or c.int("hidden_size") // nq
        attention = "MHA" if n_kv == nq else "GQA"
    experts = _EXPERT_KEYS.get(c.family)
    routed = shared = top_k = None
    if experts:
        routed = c.int(experts[0])
        shared = c.int(experts[1], 0, 0) if experts[1] else 0
        top_k = c.int("num_experts_per_tok")
    notes = "counted from config.json; active excludes the input embedding table"
    if counts.mtp:
        notes += f"; MTP module ({counts.mtp:,} parameters) not counted"
    return models.Model(
        key=name, name=name, total_params=float(counts.total), active_params=float(counts.active),
        layers=c.int("num_hidden_layers"), attention=attention, n_kv_heads=n_kv, head_dim=head_dim,
        kv_lora_rank=c.int("kv_lora_rank") if mla else None,
        qk_rope_head_dim=c.int("qk_rope_head_dim") if mla else None,
        full_attention_layers=_full_attention_layers(c), hidden_size=c.int("hidden_size"), n_q_heads=nq,
        routed_experts=routed, shared_experts=shared, active_routed_experts=top_k,
        source=f"{file} (Hugging Face config.json, model_type {c.family!r})", confidence="config", notes=notes,
    )
