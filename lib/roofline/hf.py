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

Written once, as data
---------------------
What each family reads and how it counts is not code but a program of steps
(:func:`program`): which key to read, of what kind, its default and when it may be
absent; the formulas, sympy expressions in the names read, that count each part;
the checks between keys; and which name becomes which :class:`~roofline.models.Model`
field. :func:`from_hf_config` runs it here, exactly on integers; the book's page runs
the same program in the reader's browser (``roofline-model.js``, the formulas printed
as JavaScript by :mod:`roofline.web`), with the same messages (:data:`MESSAGES`).

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
  required key that is ``null`` is rejected. The defaults are transformers':
  ``head_dim`` is ``hidden_size // num_attention_heads``, but 64 for gpt-oss
  (``GptOssConfig``'s); ``attention_bias`` is false, and gpt-oss has the biases
  whatever its file says (``GptOssConfig`` sets it to true).
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

import sympy as sp

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
_REQUIRED = "required"    # a key without a default

MESSAGES = {
    "no_model_type": "{where} has no key 'model_type'; supported families: {supported}",
    "model_type_type": "{where}: model_type must be a string, one of the supported families: {supported}; {got}",
    "model_type_unknown": "{where}: model_type {value} is not supported; supported families: {supported}",
    "missing": "{where} has no key '{key}', needed for model_type '{family}'; supported families: {supported}",
    "int": "{where}: {key} must be an integer in [{minimum}, 2**53] (a JSON number without a decimal point); {got}",
    "flag": "{where}: {key} must be true or false; {got}",
    "str": "{where}: {key} must be a string; {got}",
    "int_list": "{where}: {key} must be a list of integers (layer indices); {got}",
    "kinds_type": "{where}: {key} must be a list of strings, one per layer; {got}",
    "kinds_length": "{where}: {key} must list one entry per layer ({layers_key} = {layers}); it has {length}",
    "kinds_entry": "{where}: {key} entries must be one of {values}; {got}",
    "check": "{where}: {message}",
    "too_large": "{where} is larger than {mib} MiB; a config.json is a few KiB",
    "not_json": "{where} is not valid JSON: {error}",
    "not_object": "{where} must hold a JSON object (the config's keys and values); got a JSON {type}",
}
"""Every message a config.json's content can give, as a template with ``{where}`` for the file and ``{got}`` for
the value found and its type. :func:`from_hf_config` and the page's config reader (``roofline-model.js``, which
gets them with :func:`program`'s steps) fill the same ones."""


# -- the program: what each family reads from config.json and the formulas that count it ---------------
# Each family is a list of steps, run in order over an environment of whole numbers (a key that is absent and
# may be counts as 0 in a formula; a flag is 0 or 1). The formulas are sympy expressions in those names:
# Python evaluates them exactly on integers, and the page gets them printed as JavaScript (roofline.web).
def _v(name):
    return sp.Symbol(name, integer=True)


@dataclasses.dataclass(frozen=True)
class _Read:
    """Read ``key`` into ``name``: a JSON integer in ``[minimum, 2**53]`` (kind 'int'), true/false ('flag', as 1
    or 0), a string ('str', as 1 where it equals ``truth``) or a list of integers ('int_list', the number of its
    distinct members where ``predicate``, of the member ``i``, holds). ``default``: the value when absent or null
    (a number, a formula of names read before, or 'required'); ``optional``: a condition under which a required
    key may be absent after all (then None); ``when``: a condition without which the key is not read at all."""

    name: str
    key: str
    kind: str = "int"
    minimum: int = 1
    default: object = _REQUIRED
    optional: object = sp.false
    when: object = sp.true
    truth: str = ""
    predicate: object = None


@dataclasses.dataclass(frozen=True)
class _Let:
    name: str
    expr: object


@dataclasses.dataclass(frozen=True)
class _Check:
    """``cond`` must hold; else ``message`` (names in braces filled from the environment)."""

    cond: object
    message: str


@dataclasses.dataclass(frozen=True)
class _Kinds:
    """``key``: an optional list of strings from ``values``, one per layer (``layers`` names the count); sets
    ``NAME_present`` and, for each value, ``NAME_VALUE``: how many layers have it."""

    name: str
    key: str
    values: tuple
    layers: str
    layers_key: str


_COUNT_END = "count_end"  # the steps before it are what count_params needs


def _program(family):
    """The steps that read ``family``'s config.json, count its parameters and give the Model's fields."""
    v = _v
    h, L, V = v("hidden_size"), v("num_hidden_layers"), v("vocab_size")
    mla, routed_key = family in _MLA, (_EXPERT_KEYS.get(family) or (None, None))[0]
    shared_key = (_EXPERT_KEYS.get(family) or (None, None))[1]
    steps = [_Read("hidden_size", "hidden_size"), _Read("num_hidden_layers", "num_hidden_layers"),
             _Read("vocab_size", "vocab_size")]
    if routed_key:  # checked even where every layer is dense
        steps += [_Read("routed", routed_key),
                  _Read("shared", shared_key, minimum=0, default=0) if shared_key else _Let("shared", sp.Integer(0)),
                  _Read("top_k", "num_experts_per_tok"),
                  _Check(v("top_k") <= v("routed"), f"num_experts_per_tok ({{top_k}}) must not exceed {routed_key} "
                                                    "({routed}); a token picks among the routed experts")]
    nq = v("num_attention_heads")
    if mla:  # DeepSeek-V3 config.json: low-rank q and kv, decoupled RoPE key
        nope, rope, vd, r, qr = (v(k) for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                                                "kv_lora_rank", "q_lora_rank"))
        steps += [_Read(k, k) for k in ("num_attention_heads", "qk_nope_head_dim", "qk_rope_head_dim",
                                        "v_head_dim", "kv_lora_rank")]
        steps += [_Read("q_lora_rank", "q_lora_rank", default=None)]
        q = sp.Piecewise((h * qr + qr + qr * nq * (nope + rope), qr > 0), (h * nq * (nope + rope), True))
        kv = h * (r + rope) + r + r * nq * (nope + vd)   # kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj
        steps += [_Let("attention_block", q + kv + nq * vd * h)]  # ... + o_proj
    else:
        nkv, hd = v("num_key_value_heads"), v("head_dim")
        steps += [_Read("num_attention_heads", "num_attention_heads"),
                  _Read("num_key_value_heads", "num_key_value_heads", default=nq),
                  _Check(sp.Eq(sp.Mod(nq, nkv), 0), "num_attention_heads ({num_attention_heads}) must be a multiple "
                         "of num_key_value_heads ({num_key_value_heads}); each KV head serves a whole number of "
                         "query heads"),
                  # transformers' defaults: GptOssConfig's head_dim is 64, the others' hidden_size // heads
                  _Read("head_dim", "head_dim", default=sp.Integer(64) if family == "gpt_oss" else sp.floor(h / nq)),
                  _Check(hd >= 1, "hidden_size ({hidden_size}) is smaller than num_attention_heads "
                                  "({num_attention_heads}) and there is no head_dim; give head_dim, an integer in "
                                  "[1, 2**53]"),
                  # GptOssConfig sets attention_bias to True whatever the file says; the others read it
                  _Let("attention_bias", sp.Integer(1)) if family == "gpt_oss"
                  else _Read("attention_bias", "attention_bias", "flag", default=0)]
        block = 2 * h * nq * hd + 2 * h * nkv * hd + v("attention_bias") * (nq * hd + 2 * nkv * hd + h)
        if family == "qwen3_moe":
            block += 2 * hd                                     # q_norm, k_norm
        if family == "gpt_oss":
            block += nq                                         # one attention sink per head
        steps += [_Let("attention_block", block)]
    # which layers have an MoE FFN, in closed form (no loop over layers): DeepSeek, layer i when
    # i >= first_k_dense_replace and i % moe_layer_freq == 0; Qwen3, when (i + 1) % decoder_sparse_step == 0 and
    # i is not in mlp_only_layers; Mixtral and gpt-oss every layer; Llama none
    if mla:
        first, freq = v("first_k_dense_replace"), v("moe_layer_freq")
        steps += [_Read("first_k_dense_replace", "first_k_dense_replace", minimum=0, default=0),
                  _Read("moe_layer_freq", "moe_layer_freq", default=1)]

        def moe_below(n):  # MoE layers among 0 .. n - 1: multiples of freq in [min(first, n), n)
            return sp.ceiling(n / freq) - sp.ceiling(sp.Min(first, n) / freq)
        moe_layers = moe_below(L)
        steps += [_Read("nextn", "num_nextn_predict_layers", minimum=0, default=0),
                  _Let("mtp_moe", moe_below(L + 1) - moe_below(L))]  # the MTP module's layer, index L
    elif family == "qwen3_moe":
        step, i = v("decoder_sparse_step"), v("i")
        steps += [_Read("decoder_sparse_step", "decoder_sparse_step", default=1),
                  _Read("dense_only", "mlp_only_layers", "int_list", default=0,
                        predicate=sp.And(i >= 0, i < L, sp.Eq(sp.Mod(i + 1, step), 0)))]
        moe_layers = sp.floor(L / step) - v("dense_only")
    else:
        moe_layers = sp.Integer(0) if family == "llama" else L
    steps += [_Let("moe_layers", moe_layers), _Let("dense_layers", L - v("moe_layers"))]
    moe_n, dense_n, nextn, mtp_moe = v("moe_layers"), v("dense_layers"), v("nextn"), v("mtp_moe")
    expert_family = family in ("mixtral", "gpt_oss")
    # FFN widths: read where a layer needs them (a width no layer uses is read only if present)
    if expert_family:
        steps += [_Read("intermediate_size", "intermediate_size")]
    else:
        needed = dense_n > 0 if not mla else sp.Or(dense_n > 0, sp.And(nextn > 0, sp.Eq(mtp_moe, 0)))
        steps += [_Read("intermediate_size", "intermediate_size", optional=sp.Not(needed))]
    inter = v("intermediate_size")
    if family == "llama":
        steps += [_Read("mlp_bias", "mlp_bias", "flag", default=0)]
        dense = 3 * h * inter + v("mlp_bias") * (2 * inter + h)
    else:
        dense = 3 * h * inter
    routed, shared, top_k = v("routed"), v("shared"), v("top_k")
    moe_parts = {}
    if mla or family == "qwen3_moe":
        needed = moe_n > 0 if not mla else sp.Or(moe_n > 0, sp.And(nextn > 0, mtp_moe > 0))
        steps += [_Read("moe_intermediate_size", "moe_intermediate_size", optional=sp.Not(needed))]
        expert = 3 * h * v("moe_intermediate_size")  # gate, up, down (SwiGLU)
        router = routed * h
        if mla:
            steps += [_Read("noaux_tc", "topk_method", "str", default="noaux_tc", truth="noaux_tc")]
            router += v("noaux_tc") * routed  # e_score_correction_bias
    elif family == "mixtral":
        expert, router = 3 * h * inter, routed * h
    elif family == "gpt_oss":  # fused gate_up (2 x inter) and down, each with a bias; router with a bias
        expert, router = 3 * h * inter + 2 * inter + h, routed * h + routed
    if routed_key:
        moe_parts = {"routed_experts": (routed * expert, top_k * expert)}
        if mla:
            moe_parts["shared_experts"] = (shared * expert,) * 2
        moe_parts["router"] = (router,) * 2
    steps += [_Read("tie_word_embeddings", "tie_word_embeddings", "flag", default=0)]
    att = v("attention_block")
    parts = [("embedding", V * h, 0, True), ("attention", L * att, L * att, True),
             ("norms", (2 * L + 1) * h, (2 * L + 1) * h, True)]  # two RMSNorms per layer and the final one
    parts += [("dense_ffn", dense_n * dense, dense_n * dense, dense_n > 0)]
    parts += [(name, moe_n * s, moe_n * a, moe_n > 0) for name, (s, a) in moe_parts.items()]
    head = (1 - v("tie_word_embeddings")) * V * h
    parts += [("lm_head", head, head, True)]
    mtp = sp.Integer(0)
    if mla:  # DeepSeek-V3 README_WEIGHTS: one more decoder layer + eh_proj + 3 norms
        moe_stored = sum(s for s, _ in moe_parts.values())
        ffn = sp.Piecewise((moe_stored, mtp_moe > 0), (dense, True))
        mtp = nextn * (att + 2 * h + ffn + 2 * h * h + 3 * h)
    steps += [_Let("total", sum(s for _, s, _, _ in parts)), _Let("active", sum(a for _, _, a, _ in parts)),
              _Let("mtp", mtp), _COUNT_END]
    # the Model's fields beyond the counts
    if mla:  # MLA caches a latent, not heads; head_dim records the value-head width, as the registry does
        steps += [_Read("num_key_value_heads", "num_key_value_heads", default=nq),
                  _Check(v("num_key_value_heads") <= nq, "num_key_value_heads ({num_key_value_heads}) must not "
                                                        "exceed num_attention_heads ({num_attention_heads})")]
    steps += [_Kinds("layer_types", "layer_types", _LAYER_TYPES, "num_hidden_layers", "num_hidden_layers")]
    present = v("layer_types_present")
    default_full = sp.floor(L / 2) if family == "gpt_oss" else L  # gpt-oss: even layers slide, odd attend fully
    steps += [_Let("full_layers", sp.Piecewise((v("layer_types_full_attention"), present > 0), (default_full, True))),
              _Let("sliding_layers", sp.Piecewise((v("layer_types_sliding_attention"), present > 0),
                                                  (L - default_full, True))),
              _Check(v("full_layers") >= 1, "layer_types (or, for gpt-oss without it, num_hidden_layers >= 2) must "
                     "give at least one 'full_attention' layer; a model of sliding-window layers only is not "
                     "supported"),
              _Read("sliding_window", "sliding_window", when=v("sliding_layers") > 0),
              _Read("max_position_embeddings", "max_position_embeddings", default=None),
              _Read("name_or_path", "_name_or_path", "str", default="")]
    return tuple(steps), tuple((name, sp.sympify(s), sp.sympify(a), sp.sympify(inc)) for name, s, a, inc in parts)


def _fields(family):
    """The Model's fields: each a name of the environment (None where absent) or, for ``attention``, the
    first of (value, condition) pairs whose condition holds."""
    mla, moe = family in _MLA, family in _EXPERT_KEYS
    v = _v
    return {
        "layers": "num_hidden_layers",
        "attention": (("MLA", sp.true),) if mla else (
            ("MHA", sp.Eq(v("num_key_value_heads"), v("num_attention_heads"))), ("GQA", sp.true)),
        "n_kv_heads": "num_key_value_heads", "head_dim": "v_head_dim" if mla else "head_dim",
        "kv_lora_rank": "kv_lora_rank" if mla else None, "qk_rope_head_dim": "qk_rope_head_dim" if mla else None,
        "q_lora_rank": "q_lora_rank" if mla else None,
        "full_attention_layers": "full_layers", "hidden_size": "hidden_size", "n_q_heads": "num_attention_heads",
        "routed_experts": "routed" if moe else None, "shared_experts": "shared" if moe else None,
        "active_routed_experts": "top_k" if moe else None,
        "vocab": "vocab_size", "dense_layers": "dense_layers",
        "dense_ffn_dim": None if family in ("mixtral", "gpt_oss") else "intermediate_size",
        "moe_ffn_dim": None if not moe else "intermediate_size" if family in ("mixtral", "gpt_oss")
        else "moe_intermediate_size",
        "sliding_window": "sliding_window", "context_tokens": "max_position_embeddings",
    }


_PROGRAMS = {family: (*_program(family), _fields(family)) for family in FAMILIES}


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


def _checked(data, file):
    """The config's family, checked against :data:`FAMILIES`."""
    where, family = _shown(file), data.get("model_type")
    if family is None:
        raise ValueError(MESSAGES["no_model_type"].format(where=where, supported=_supported()))
    if not isinstance(family, str):
        raise ValueError(MESSAGES["model_type_type"].format(where=where, supported=_supported(), got=_got(family)))
    if family not in FAMILIES:
        raise ValueError(MESSAGES["model_type_unknown"].format(where=where, value=_shown(family),
                                                               supported=_supported()))
    return family


def _value(expr, env):
    """A formula at the environment's values, exactly (an absent key counts as 0); a condition as a bool."""
    expr = sp.sympify(expr)
    out = expr.xreplace({s: sp.Integer(env[s.name] or 0) for s in expr.free_symbols})
    if out in (sp.true, sp.false):
        return bool(out)
    return int(out)


_PREDICATES = {}


def _members(step, values, env):
    """How many distinct members of ``values`` satisfy ``step.predicate`` (of the member ``i``)."""
    if step not in _PREDICATES:
        others = sorted((s for s in step.predicate.free_symbols if s.name != "i"), key=lambda s: s.name)
        _PREDICATES[step] = (others, sp.lambdify([_v("i"), *others], step.predicate, "math"))
    others, test = _PREDICATES[step]
    at = [env[s.name] or 0 for s in others]
    return sum(1 for i in set(values) if test(i, *at))


def _run(data, file, family, upto=None):
    """Run ``family``'s program over the config ``data``: the environment (name -> whole number or None) and
    the strings read. ``upto``: stop at that marker (:data:`_COUNT_END`)."""
    where, env, texts = _shown(file), {}, {}
    steps = _PROGRAMS[family][0]

    def fail(kind, **fields):
        return ValueError(MESSAGES[kind].format(where=where, **fields))

    for step in steps:
        if isinstance(step, str):
            if step == upto:
                break
            continue
        if isinstance(step, _Let):
            env[step.name] = _value(step.expr, env)
        elif isinstance(step, _Check):
            if not _value(step.cond, env):
                raise fail("check", message=step.message.format_map(env))
        elif isinstance(step, _Kinds):
            kinds, layers = data.get(step.key), env[step.layers]
            counts = dict.fromkeys(step.values, 0)
            if kinds is not None:
                if not isinstance(kinds, list):
                    raise fail("kinds_type", key=step.key, got=_got(kinds))
                if len(kinds) != layers:
                    raise fail("kinds_length", key=step.key, layers_key=step.layers_key, layers=layers,
                               length=len(kinds))
                for kind in kinds:
                    if not isinstance(kind, str) or kind not in counts:
                        raise fail("kinds_entry", key=step.key, values=", ".join(map(repr, step.values)),
                                   got=_got(kind))
                    counts[kind] += 1
            env[f"{step.name}_present"] = int(kinds is not None)
            env |= {f"{step.name}_{k}": n for k, n in counts.items()}
        else:
            _read(step, data, env, texts, fail, family)
    return env, texts


def _read(step, data, env, texts, fail, family):
    """One :class:`_Read` step: the key's value, checked, into the environment (None where absent)."""
    if not _value(step.when, env):
        env[step.name] = None
        return
    value = data.get(step.key, _ABSENT)
    may_be_absent = step.default != _REQUIRED or _value(step.optional, env)
    if value is _ABSENT or (value is None and may_be_absent):
        if step.default == _REQUIRED and not may_be_absent:
            raise fail("missing", key=step.key, family=family, supported=_supported())
        default = None if step.default == _REQUIRED else step.default
        if step.kind == "str":
            texts[step.name], env[step.name] = default, int(default == step.truth)
        else:
            env[step.name] = None if default is None else _value(default, env)
        return
    if step.kind == "int":
        if type(value) is not int or not step.minimum <= value <= _MAX_INT:
            raise fail("int", key=step.key, minimum=step.minimum, got=_got(value))
        env[step.name] = value
    elif step.kind == "flag":
        if not isinstance(value, bool):
            raise fail("flag", key=step.key, got=_got(value))
        env[step.name] = int(value)
    elif step.kind == "str":
        if not isinstance(value, str):
            raise fail("str", key=step.key, got=_got(value))
        texts[step.name], env[step.name] = value, int(value == step.truth)
    else:  # int_list
        if not isinstance(value, list) or not all(type(x) is int for x in value):
            raise fail("int_list", key=step.key, got=_got(value))
        env[step.name] = _members(step, value, env)


_ABSENT = object()


def _counts(family, env):
    parts = {name: (_value(s, env), _value(a, env)) for name, s, a, included in _PROGRAMS[family][1]
             if _value(included, env)}
    return ParamCount(parts, env["mtp"])


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
    family = _checked(data, file)
    env, _ = _run(data, file, family, upto=_COUNT_END)
    return _counts(family, env)


def _model_fields(family, env):
    """The Model's fields beyond the counts, as ``family``'s mapping (:func:`program`'s ``fields``) gives them."""
    out = {}
    for field, source in _PROGRAMS[family][2].items():
        if isinstance(source, tuple):
            out[field] = next(value for value, cond in source if _value(cond, env))
        else:
            out[field] = None if source is None else env.get(source)
    return out


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
    family = _checked(data, file)
    env, texts = _run(data, file, family)
    if name is None:
        name = texts["name_or_path"].strip() or file.parent.name or str(file)
    if not name.strip():
        raise ValueError(f"name must be a non-empty str or None; got {_shown(name)}")
    counts = _counts(family, env)
    notes = NOTES
    if counts.mtp:
        notes += MTP_NOTE.format(mtp=f"{counts.mtp:,}")
    return models.Model(
        key=name, name=name, total_params=float(counts.total), active_params=float(counts.active),
        source=SOURCE.format(file=_shown(file), family=family), confidence="config", notes=notes,
        **_model_fields(family, env))


NOTES = "counted from config.json; active excludes the input embedding table"
MTP_NOTE = "; MTP module ({mtp} parameters) not counted"
SOURCE = "{file} (Hugging Face config.json, model_type '{family}')"


def program(family):
    """What :func:`from_hf_config` does with a ``family``'s config.json, as data: the steps that read its keys,
    the formulas that count its parameters, and the mapping to the Model's fields.

    The page's config reader (``roofline-model.js``, with the formulas printed as JavaScript by
    :mod:`roofline.web`) runs the same steps, so the reading and the counting are written once, here.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES` (a config's ``model_type``).

    Returns
    -------
    dict
        ``steps``: dicts with ``op`` 'read' (``name``, ``key``, ``kind``, ``minimum``, ``default``, ``optional``,
        ``when``, ``truth``, ``predicate``), 'let' (``name``, ``expr``), 'check' (``cond``, ``message``),
        'kinds' (``name``, ``key``, ``values``, ``layers``, ``layers_key``) or 'count_end' (the steps before
        it are all :func:`count_params` needs); formulas and conditions are sympy expressions in the names
        read before. ``parts``: ``(part, stored, active, included)`` formulas of :class:`ParamCount`.
        ``fields``: Model field -> name (or None; ``attention``: (value, condition) pairs, the first that
        holds).

    Examples
    --------
    >>> p = program("llama")
    >>> [s["key"] for s in p["steps"] if s["op"] == "read"][:3]
    ['hidden_size', 'num_hidden_layers', 'vocab_size']
    >>> p["parts"][0]
    ('embedding', hidden_size*vocab_size, 0, True)
    """
    if not isinstance(family, str) or family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(map(repr, FAMILIES))}; got {_shown(family)}")
    steps, parts, fields = _PROGRAMS[family]
    out = []
    for step in steps:
        if isinstance(step, str):
            out.append({"op": step})
            continue
        op = {_Read: "read", _Let: "let", _Check: "check", _Kinds: "kinds"}[type(step)]
        out.append({"op": op, **{f.name: getattr(step, f.name) for f in dataclasses.fields(step)}})
    return {"steps": out, "parts": parts, "fields": dict(fields)}


LIMITS = {"max_bytes": _MAX_BYTES, "max_int": _MAX_INT, "max_shown": _MAX_SHOWN}
"""A config.json's size limit (bytes), the largest integer a size may be, and how much of a value a message quotes."""
