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

Layers are counted in closed form, not one by one, so the time taken does not
grow with ``num_hidden_layers`` (only a ``layer_types`` list, whose length is
checked against ``num_hidden_layers`` first, is read entry by entry).

What a config.json may hold
---------------------------
Every bad file or field is a :class:`ValueError` naming the file, the key and
what is accepted; nothing from inside :mod:`json`, :mod:`pathlib` or the
arithmetic escapes.

* Sizes and counts are JSON integers in ``[1, 2**53]`` (``[0, 2**53]`` for
  ``first_k_dense_replace``, ``n_shared_experts`` and ``num_nextn_predict_layers``).
  ``2**53`` is the largest integer a float64 holds exactly, and the counts
  become floats in :class:`~roofline.models.Model`. Booleans, strings and floats
  are rejected, integral ones such as ``4096.0`` included: transformers would
  not build a layer from them either.
* ``null`` counts as absent for a key that has a default (``head_dim``,
  ``num_key_value_heads``, ``q_lora_rank``, ``n_shared_experts``, ...); a
  required key that is ``null`` is rejected.
* ``tie_word_embeddings``, ``attention_bias`` and ``mlp_bias`` are ``true`` or
  ``false``; ``topk_method`` and ``_name_or_path`` are strings;
  ``mlp_only_layers`` is a list of integers (members that are not layer indices
  are ignored, as transformers ignores them); ``layer_types`` lists
  ``"full_attention"`` or ``"sliding_attention"`` once per layer.
* ``num_experts_per_tok`` may not exceed the number of routed experts, and
  ``num_key_value_heads`` must divide ``num_attention_heads`` (GQA shares each
  KV head among a whole number of query heads). ``head_dim x
  num_attention_heads`` need not equal ``hidden_size``: real models differ.
* The file is UTF-8 JSON (a byte-order mark is allowed) holding an object, at
  most 16 MiB (real configs are a few KiB), nested no deeper than the JSON
  parser's recursion limit.
"""

import dataclasses
import json
import os
import pathlib

from . import _check, models
from ._check import MAX_EXACT_INT as _MAX_INT
from ._check import short

FAMILIES = {
    "deepseek_v3": "DeepSeek-V3 / R1 (MLA; MoE with a shared expert)",
    "kimi_k2": "Kimi K2 (the DeepSeek-V3 architecture)",
    "llama": "Llama 3.x (dense; GQA)",
    "qwen3_moe": "Qwen3 MoE (GQA with q/k norms; MoE without a shared expert)",
    "mixtral": "Mixtral (GQA; 8 experts, top-2)",
    "gpt_oss": "gpt-oss (GQA with biases and sinks; sliding window on alternate layers; MoE)",
}
"""The ``model_type`` values :func:`from_hf_config` reads, each with the architecture it means."""
_MLA = ("deepseek_v3", "kimi_k2")
_EXPERT_KEYS = {  # model_type -> (routed experts key, shared experts key)
    "deepseek_v3": ("n_routed_experts", "n_shared_experts"), "kimi_k2": ("n_routed_experts", "n_shared_experts"),
    "qwen3_moe": ("num_experts", None), "mixtral": ("num_local_experts", None), "gpt_oss": ("num_local_experts", None),
}
_LAYER_TYPES = ("full_attention", "sliding_attention")
_MAX_BYTES = 16 * 2**20   # a config.json is a few KiB
_MAX_SHOWN = 200          # characters of a path or value quoted in a message
_REQUIRED = object()

@dataclasses.dataclass(frozen=True)
class ParamCount:
    """Parameters by component: ``parts[name] = (stored, active per token)``."""

    parts: dict
    mtp: int = 0
    """DeepSeek's multi-token-prediction module, its own weights only; not in the total."""

    def __post_init__(self):
        _check.record(self)
        for part, pair in self.parts.items():
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(
                    isinstance(v, int) and not isinstance(v, bool) and 0 <= v for v in pair)):
                raise ValueError(f"ParamCount: parts[{part!r}] must be a pair (stored, active) of whole numbers "
                                 f">= 0; got {short(pair)}")

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


def _shown(value):
    """``value`` quoted for a message, cut short when long (a path of 10**5 characters, a huge list)."""
    return short(str(value) if isinstance(value, pathlib.PurePath) else value, _MAX_SHOWN)


def _got(value):
    return f"got {_shown(value)} of type {type(value).__name__}"


class _Config:
    """A config dict that names the file and the family when a key is missing or wrong."""

    def __init__(self, data, file):
        self.data, self.file = data, file
        self.where = _shown(file)
        self.family = data.get("model_type")

    def error(self, message):
        return ValueError(f"{self.where}: {message}")

    def _get(self, key, default):
        """The value at ``key``; ``null`` counts as absent when ``key`` has a default."""
        value = self.data.get(key, _REQUIRED)
        if value is _REQUIRED or (value is None and default is not _REQUIRED):
            value = default
        if value is _REQUIRED:
            raise ValueError(f"{self.where} has no key {key!r}, needed for model_type {self.family!r}; "
                             f"supported families: {_supported()}")
        return value

    def int(self, key, default=_REQUIRED, minimum=1):
        """An integer in ``[minimum, 2**53]``, or ``default`` (which may be None) when absent."""
        value = self._get(key, default)
        if value is None and default is None:
            return None
        if type(value) is not int or not minimum <= value <= _MAX_INT:
            raise self.error(f"{key} must be an integer in [{minimum}, 2**53] (a JSON number without a "
                             f"decimal point); {_got(value)}")
        return value

    def flag(self, key, default=False):
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self.error(f"{key} must be true or false; {_got(value)}")
        return value

    def str(self, key, default):
        value = self._get(key, default)
        if not isinstance(value, str):
            raise self.error(f"{key} must be a string; {_got(value)}")
        return value

    def int_list(self, key):
        """A list of integers (``[]`` when absent or null)."""
        value = self._get(key, [])
        if not isinstance(value, list) or not all(type(v) is int for v in value):
            raise self.error(f"{key} must be a list of integers (layer indices); {_got(value)}")
        return value


def load_config(path):
    """Read ``path`` (a ``config.json`` or a directory holding one); return ``(dict, file)``.

    Raises ``ValueError`` naming the path when it is not a str or path, is too long, does not
    exist, is a directory without a ``config.json``, cannot be read, is larger than 16 MiB,
    is not UTF-8, is not JSON, is nested too deeply, or does not hold a JSON object.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file or directory name (str or os.PathLike); {_got(path)}")
    try:
        file = pathlib.Path(path)
    except TypeError:  # an os.PathLike whose __fspath__ gives bytes or something else
        raise ValueError(f"path must be a file or directory name (str or os.PathLike); {_got(path)}") from None
    where, raw = _shown(file), None
    try:  # name too long, permission denied, an embedded NUL: a ValueError naming the path, never OSError
        directory = file.is_dir()
        if directory:
            file = file / "config.json"
            where = _shown(file)
        if file.is_file():
            with file.open("rb") as f:
                raw = f.read(_MAX_BYTES + 1)
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read {where}: {type(err).__name__}: {_shown(str(err))}; "
                         f"path must name a readable config.json or a directory holding one") from None
    if raw is None and directory:
        raise ValueError(f"path {_shown(path)} is a directory without a config.json (or its config.json is "
                         f"not a regular file); give a config.json or a directory holding one")
    if raw is None:
        raise ValueError(f"path must name a config.json or a directory holding one; {where} does not exist "
                         f"or is not a regular file")
    if len(raw) > _MAX_BYTES:
        raise ValueError(f"{where} is larger than {_MAX_BYTES // 2**20} MiB; a config.json is a few KiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{where} is not UTF-8 text: {err}; a config.json is UTF-8 JSON") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(f"{where} is not valid JSON for a config: nested too deeply; "
                         f"a config.json is an object of names, numbers and short lists") from None
    except ValueError as err:  # JSONDecodeError, or an integer of more than 4300 digits
        raise ValueError(f"{where} is not valid JSON: {_shown(str(err))}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object (the config's keys and values); "
                         f"got a JSON {type(data).__name__}")
    return data, file


def _checked(data, file):
    family = data.get("model_type")
    if family is None:
        raise ValueError(f"{_shown(file)} has no key 'model_type'; supported families: {_supported()}")
    if not isinstance(family, str):
        raise ValueError(f"{_shown(file)}: model_type must be a string, one of the supported families: "
                         f"{_supported()}; {_got(family)}")
    if family not in FAMILIES:
        raise ValueError(f"{_shown(file)}: model_type {_shown(family)} is not supported; "
                         f"supported families: {_supported()}")
    return _Config(data, file)


def _heads(c):
    """(query heads, KV heads, head width) of a GQA/MHA family, checked against each other."""
    h, nq = c.int("hidden_size"), c.int("num_attention_heads")
    nkv = c.int("num_key_value_heads", default=nq)
    if nq % nkv:
        raise c.error(f"num_attention_heads ({nq}) must be a multiple of num_key_value_heads ({nkv}); "
                      f"each KV head serves a whole number of query heads")
    hd = c.int("head_dim", default=None)
    if hd is None:
        hd = h // nq
        if hd < 1:
            raise c.error(f"hidden_size ({h}) is smaller than num_attention_heads ({nq}) and there is no "
                          f"head_dim; give head_dim, an integer in [1, 2**53]")
    return nq, nkv, hd


def _attention(c):
    """Weights of one attention block, norms inside it included."""
    h = c.int("hidden_size")
    if c.family in _MLA:  # DeepSeek-V3 config.json: low-rank q and kv, decoupled RoPE key
        nq = c.int("num_attention_heads")
        nope, rope, v = c.int("qk_nope_head_dim"), c.int("qk_rope_head_dim"), c.int("v_head_dim")
        r, q_rank = c.int("kv_lora_rank"), c.int("q_lora_rank", default=None)
        q = h * q_rank + q_rank + q_rank * nq * (nope + rope) if q_rank else h * nq * (nope + rope)
        kv = h * (r + rope) + r + r * nq * (nope + v)   # kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj
        return q + kv + nq * v * h                      # ... + o_proj
    nq, nkv, hd = _heads(c)
    n = 2 * h * nq * hd + 2 * h * nkv * hd              # q, o and k, v projections
    if c.flag("attention_bias"):
        n += nq * hd + 2 * nkv * hd + h
    if c.family == "qwen3_moe":
        n += 2 * hd                                     # q_norm, k_norm
    if c.family == "gpt_oss":
        n += nq                                         # one attention sink per head
    return n


def _experts(c):
    """(routed experts, shared experts, experts per token) of an MoE family; None for a dense one."""
    keys = _EXPERT_KEYS.get(c.family)
    if keys is None:
        return None
    routed = c.int(keys[0])
    shared = c.int(keys[1], 0, 0) if keys[1] else 0
    top_k = c.int("num_experts_per_tok")
    if top_k > routed:
        raise c.error(f"num_experts_per_tok ({top_k}) must not exceed {keys[0]} ({routed}); "
                      f"a token picks among the routed experts")
    return routed, shared, top_k


def _dense_ffn(c):
    """(stored, active) weights of one dense FFN layer, by part."""
    h, inter = c.int("hidden_size"), c.int("intermediate_size")
    bias = 2 * inter + h if c.family == "llama" and c.flag("mlp_bias") else 0
    return {"dense_ffn": (3 * h * inter + bias,) * 2}


def _moe_ffn(c):
    """(stored, active) weights of one MoE FFN layer, by part."""
    h, f = c.int("hidden_size"), c.family
    n_exp, n_shared, k = _experts(c)
    if f in _MLA:
        expert = 3 * h * c.int("moe_intermediate_size")  # gate, up, down (SwiGLU)
        bias = n_exp if c.str("topk_method", "noaux_tc") == "noaux_tc" else 0  # e_score_correction_bias
        return {"routed_experts": (n_exp * expert, k * expert), "shared_experts": (n_shared * expert,) * 2,
                "router": (n_exp * h + bias,) * 2}
    if f == "qwen3_moe":
        expert = 3 * h * c.int("moe_intermediate_size")
        return {"routed_experts": (n_exp * expert, k * expert), "router": (n_exp * h,) * 2}
    inter = c.int("intermediate_size")
    if f == "mixtral":
        expert, router = 3 * h * inter, n_exp * h
    else:  # gpt_oss: fused gate_up (2 x inter) and down, each with a bias; router with a bias
        expert, router = 3 * h * inter + 2 * inter + h, n_exp * h + n_exp
    return {"routed_experts": (n_exp * expert, k * expert), "router": (router,) * 2}


def _multiples(step, start, stop):
    """How many multiples of ``step`` lie in ``range(start, stop)`` (0 <= start <= stop)."""
    return -(-stop // step) - -(-start // step)


def _moe_layers(c, layers):
    """How many of layers ``0 .. layers - 1`` have an MoE FFN, in closed form (no loop over layers).

    DeepSeek: layer ``i`` is MoE when ``i >= first_k_dense_replace`` and ``i % moe_layer_freq == 0``.
    Qwen3: when ``(i + 1) % decoder_sparse_step == 0`` and ``i`` is not in ``mlp_only_layers``.
    Mixtral and gpt-oss: every layer; Llama: none.
    """
    f = c.family
    if f in _MLA:
        first, freq = c.int("first_k_dense_replace", 0, 0), c.int("moe_layer_freq", 1)
        return _multiples(freq, min(first, layers), layers)
    if f == "qwen3_moe":
        step = c.int("decoder_sparse_step", 1)
        dense_only = {i for i in c.int_list("mlp_only_layers") if 0 <= i < layers and (i + 1) % step == 0}
        return layers // step - len(dense_only)
    return 0 if f == "llama" else layers


def _layer_is_moe(c, layer):
    """Whether layer index ``layer`` (0-based) has an MoE FFN; one layer, for DeepSeek's MTP module."""
    return _moe_layers(c, layer + 1) - _moe_layers(c, layer) == 1


def _count(c):
    h, layers, vocab = c.int("hidden_size"), c.int("num_hidden_layers"), c.int("vocab_size")
    _experts(c)  # check num_experts_per_tok against the experts even where every layer is dense
    attention = _attention(c)
    parts = {"embedding": (vocab * h, 0), "attention": (layers * attention,) * 2,
             "norms": ((2 * layers + 1) * h,) * 2}  # two RMSNorms per layer and the final one
    moe = _moe_layers(c, layers)
    for n, ffn in ((layers - moe, _dense_ffn), (moe, _moe_ffn)):
        if n:
            for name, (stored, active) in ffn(c).items():
                parts[name] = (n * stored, n * active)
    parts["lm_head"] = (0, 0) if c.flag("tie_word_embeddings") else (vocab * h,) * 2
    mtp = 0
    if c.family in _MLA:  # DeepSeek-V3 README_WEIGHTS: one more decoder layer + eh_proj + 3 norms
        modules = c.int("num_nextn_predict_layers", 0, 0)
        if modules:
            ffn = _moe_ffn(c) if _layer_is_moe(c, layers) else _dense_ffn(c)
            per_module = attention + 2 * h + sum(s for s, _ in ffn.values()) + 2 * h * h + 3 * h
            mtp = modules * per_module
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

    Raises
    ------
    ValueError
        As :func:`from_hf_config`.
    """
    data, file = load_config(path)
    return _count(_checked(data, file))


def _attention_layers(c):
    """(layers whose KV cache grows with context, sliding-window layers).

    ``layer_types`` is checked (a list, one entry per layer) before any entry is read.
    """
    layers = c.int("num_hidden_layers")
    kinds = c.data.get("layer_types")
    if kinds is not None:
        if not isinstance(kinds, list):
            raise c.error(f"layer_types must be a list of strings, one per layer; {_got(kinds)}")
        if len(kinds) != layers:
            raise c.error(f"layer_types must list one entry per layer (num_hidden_layers = {layers}); "
                          f"it has {len(kinds)}")
        full = sliding = 0
        for kind in kinds:
            if not isinstance(kind, str) or kind not in _LAYER_TYPES:
                raise c.error(f"layer_types entries must be one of {', '.join(map(repr, _LAYER_TYPES))}; "
                              f"{_got(kind)}")
            full += kind == "full_attention"
            sliding += kind == "sliding_attention"
    elif c.family == "gpt_oss":  # even layers use the 128-token window, odd layers attend to everything
        full, sliding = layers // 2, layers - layers // 2
    else:
        full, sliding = layers, 0
    if not full:
        raise c.error("layer_types (or, for gpt-oss without it, num_hidden_layers >= 2) must give at least one "
                      "'full_attention' layer; a model of sliding-window layers only is not supported")
    return full, sliding


def _model_fields(c, layers, moe_layers, sliding_layers):
    """The :class:`~roofline.models.Model` fields for FFN widths, vocabulary, window and context.

    ``dense_ffn_dim`` is ``intermediate_size`` (families with dense FFN layers: DeepSeek, Kimi, Llama,
    Qwen3); ``moe_ffn_dim`` one expert's width (``moe_intermediate_size``; Mixtral and gpt-oss:
    ``intermediate_size``). A width the counts did not need is read only if present.
    ``sliding_window`` is required when some layers slide.
    """
    dense_layers, expert_family = layers - moe_layers, c.family in ("mixtral", "gpt_oss")
    moe_key = "intermediate_size" if expert_family else "moe_intermediate_size"
    return {
        "vocab": c.int("vocab_size"),
        "dense_layers": dense_layers,
        "dense_ffn_dim": None if expert_family else c.int("intermediate_size", _REQUIRED if dense_layers else None),
        "moe_ffn_dim": None if c.family not in _EXPERT_KEYS else c.int(moe_key, _REQUIRED if moe_layers else None),
        "sliding_window": c.int("sliding_window") if sliding_layers else None,
        "context_tokens": c.int("max_position_embeddings", default=None),
    }


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
        If the path or file is unusable (missing, too long, a directory without config.json,
        not UTF-8, not JSON, not an object), its ``model_type`` is not one of :data:`FAMILIES`,
        or a key the family needs is missing or malformed (see the module's list of what a
        config.json may hold). The message names the file, the key and what is accepted.

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
    if name is not None and not isinstance(name, str):
        raise ValueError(f"name must be a non-empty str or None; {_got(name)}")
    data, file = load_config(path)
    c = _checked(data, file)
    if name is None:
        name = c.str("_name_or_path", "").strip() or file.parent.name or str(file)
    if not name.strip():
        raise ValueError(f"name must be a non-empty str or None; got {_shown(name)}")
    counts = _count(c)
    layers = c.int("num_hidden_layers")
    nq = c.int("num_attention_heads")
    mla = c.family in _MLA
    if mla:
        # MLA caches a latent, not heads; head_dim records the value-head width, as the registry does
        n_kv, head_dim, attention = c.int("num_key_value_heads", default=nq), c.int("v_head_dim"), "MLA"
        if n_kv > nq:
            raise c.error(f"num_key_value_heads ({n_kv}) must not exceed num_attention_heads ({nq})")
    else:
        nq, n_kv, head_dim = _heads(c)
        attention = "MHA" if n_kv == nq else "GQA"
    experts = _experts(c)
    routed, shared, top_k = experts or (None, None, None)
    full_layers, sliding_layers = _attention_layers(c)
    notes = "counted from config.json; active excludes the input embedding table"
    if counts.mtp:
        notes += f"; MTP module ({counts.mtp:,} parameters) not counted"
    extras = _model_fields(c, layers, _moe_layers(c, layers), sliding_layers)
    return models.Model(
        key=name, name=name, total_params=float(counts.total), active_params=float(counts.active),
        layers=layers, attention=attention, n_kv_heads=n_kv, head_dim=head_dim,
        kv_lora_rank=c.int("kv_lora_rank") if mla else None,
        qk_rope_head_dim=c.int("qk_rope_head_dim") if mla else None,
        q_lora_rank=c.int("q_lora_rank", default=None) if mla else None,
        full_attention_layers=full_layers, hidden_size=c.int("hidden_size"), n_q_heads=nq,
        routed_experts=routed, shared_experts=shared, active_routed_experts=top_k,
        source=f"{_shown(file)} (Hugging Face config.json, model_type {c.family!r})", confidence="config",
        notes=notes, **extras,
    )
