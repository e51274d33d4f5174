"""A model served on some hardware: values for the symbols, and any registered equation evaluated with them.

A :class:`Deployment` knows the model's parameters, the chip's rates, the
precisions and the chip count, and supplies them **by keyword** to any
:class:`~roofline.equations.Equation` of any topic module:
``d.evaluate(decode.step_time_s, batch=64, len_ctx=4096)``. What the deployment
does not know (batch, context) is passed in. The deployment's variants
(``attention``, ``kv_sharding``) rebuild the equation before it is evaluated,
so balance points and every other derived quantity follow them.

>>> d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4")
>>> print(f"{d.balance_batch():,.0f} sequences on {d.n_chips_used} chips")
5,667 sequences on 72 chips
>>> print(d.regime(batch=64, len_ctx=4096))
weight-bound
>>> sparse = Deployment(models.get("DeepSeek (lecture)"), hardware.get("GB200"), attention="sqrt")
>>> print(f"{sparse.balance_context():,.0f} tokens")
709,707 tokens
"""

import dataclasses
import functools

import numpy as np
import sympy as sp

from . import _check, decode, equations, hardware, lecture, models, registry, symbols

_WEIGHTS, _DOMAIN, _HBM = (sp.Symbol(n, positive=True) for n in ("weight_bytes", "scaleup_domain", "hbm_bytes"))
CHIP_SLICE = 2 ** sp.Max(0, sp.ceiling(sp.log(_WEIGHTS / _HBM) / sp.log(2)))
"""The smallest power-of-two count of chips whose HBM (``hbm_bytes`` each) holds ``weight_bytes``."""
DEFAULT_CHIPS = sp.Piecewise(
    (_DOMAIN * sp.Max(1, sp.ceiling(_WEIGHTS / (_DOMAIN * _HBM))), _DOMAIN <= 72),  # whole domains of <= 72
    (sp.Min(_DOMAIN, CHIP_SLICE), True))                                           # a slice of a bigger one
""":func:`default_chips`'s count as a formula of ``weight_bytes``, ``scaleup_domain`` and ``hbm_bytes``: evaluated
here, and printed for the published page, which deploys a model the reader loads with it."""
_CHIPS = sp.lambdify((_WEIGHTS, _DOMAIN, _HBM), (DEFAULT_CHIPS, CHIP_SLICE), "math")


def default_chips(model, chip, bytes_per_param):
    """The chip count a deployment gets by default, and why, as ``(n_chips, reason)``.

    A scale-up domain of at most 72 chips (an 8-GPU node, an NVL72 rack: the lecture's
    choice, 00:02:10) is used whole, and as many whole domains as the weights need. A
    bigger domain (a TPU pod of 256 to 9,216 chips) is cut to the smallest power-of-two
    slice whose HBM holds the weights.
    """
    _check.instance("model", model, models.Model, "a roofline Model (see roofline.models.get)", "default_chips")
    _check.instance("chip", chip, hardware.Hardware, "a roofline Hardware (see roofline.hardware.get)",
                    "default_chips")
    weights = model.total_params * _check.scalar("bytes_per_param", bytes_per_param, where="default_chips")
    size = chip.scaleup_domain
    n, power_of_two = (int(x) for x in _CHIPS(weights, size, chip.hbm_bytes))  # DEFAULT_CHIPS, CHIP_SLICE
    if size <= 72:
        domains = n // size
        why = (f"{domains} scale-up domains of {size}: the weights ({weights / 1e9:,.0f} GB) do not fit in one"
               if domains > 1 else f"one whole scale-up domain of {size} chips")
        return n, why
    if power_of_two > size:
        return n, (f"the whole {size:,}-chip domain: its HBM does not hold the weights "
                   f"({weights / 1e9:,.0f} GB)")
    return n, (f"the smallest power-of-two slice of the {size:,}-chip domain whose HBM holds the "
               f"weights ({weights / 1e9:,.0f} GB)")


def _refined(refined):
    if not isinstance(refined, (bool, np.bool_)):
        raise ValueError(f"refined must be True or False; got {_check.short(refined)}")
    return bool(refined)


MODEL_VALUES = {"n_total": "total_params", "n_active": "active_params", "d_model": "hidden_size",
                "moe_layers": "moe_layers", "n_experts": "routed_experts", "top_k": "active_routed_experts",
                "n_routed": "routed_params"}
"""The :attr:`Deployment.values` that are a quantity of the model, keyword -> :class:`~roofline.models.Model`
attribute; each is there where the model gives it (not None, not 0)."""
DENSE_VALUES = {"n_routed": 0.0, "n_experts": 1, "top_k": 1}
"""The values a model without routed experts has, no routed weights and one "expert" of top-1."""

LINK_KEYS = ("hop_latency", "scaleup_bw", "scaleout_bw")
"""The network figures a :class:`Deployment`'s ``links`` may set."""


@dataclasses.dataclass(frozen=True)
class Deployment:
    """One replica of ``model`` on ``n_chips`` chips of ``hardware``.

    Parameters
    ----------
    model, hardware : Model, Hardware
        From :func:`roofline.models.get` and :func:`roofline.hardware.get`.
    precision : str, optional
        Weights and matrix math: 'fp4', 'fp8' or 'bf16'; sets the FLOP/s and the bytes per
        weight. Default: the lowest precision the chip has a dense rate for.
    kv_precision : str
        Precision of the KV cache, apart from the weights' (default 'bf16', 2 bytes per value).
    activation_precision : str
        Precision of activations sent between chips (default 'bf16'); used by the
        communication equations of later chapters.
    n_chips : int, optional
        Chips in the replica; default from :func:`default_chips` (see :attr:`n_chips_reason`).
    kv_bytes : float, optional
        KV bytes per token, overriding the model's architecture at ``kv_precision`` (e.g. a
        published cache layout with scales).
    price_usd_per_hour : float, optional
        USD per chip-hour; default the hardware's 3-year rental price.
    attention : str
        'dense' (KV fetch linear in context) or 'sqrt' (sparse attention, square root).
    kv_sharding : str
        'split' (KV cache divided over the chips, the lecture's assumption) or 'replicated'
        (each chip holds and reads every sequence's cache, as under tensor-parallel MLA).
    mla_absorbed : bool
        For MLA models, whether attention runs with the up-projections absorbed (True, how
        DeepSeek decodes) or decompresses each cached latent (False); sets ``attn_flops``.
    links : dict, optional
        Network figures that replace the hardware registry's: any of ``hop_latency`` (s), ``scaleup_bw``
        and ``scaleout_bw`` (bytes/s per chip per direction). ``roofline.moe_data.link_values(chip,
        n_racks, "calibrated")`` gives the latency and bandwidths calibrated on measured all-to-alls,
        ``"floor"`` the datasheet's; kept as a sorted tuple of pairs.
    """

    model: models.Model
    hardware: hardware.Hardware
    precision: str | None = None
    kv_precision: str = "bf16"
    activation_precision: str = "bf16"
    n_chips: int | None = None
    kv_bytes: float | None = None
    price_usd_per_hour: float | None = None
    attention: str = "dense"
    kv_sharding: str = "split"
    mla_absorbed: bool = True
    links: object = None

    def __post_init__(self):
        if not isinstance(self.model, models.Model):
            raise ValueError(f"model must be a roofline Model (see roofline.models.get); got {_check.short(self.model)}")
        if not isinstance(self.hardware, hardware.Hardware):
            raise ValueError(f"hardware must be a roofline Hardware (see roofline.hardware.get); "
                             f"got {_check.short(self.hardware)}")
        if self.precision is not None:
            self.hardware.flops(self.precision)  # raises if the chip has no such rate
        # stored by their canonical names ('FP8' -> 'fp8'), so every lookup and comparison sees one spelling
        object.__setattr__(self, "kv_precision", registry.precision_name(self.kv_precision))
        object.__setattr__(self, "activation_precision", registry.precision_name(self.activation_precision))
        decode.step_time_s.under(**self.options)  # raises, naming the axis, for an unknown variant
        for name in ("n_chips", "kv_bytes", "price_usd_per_hour"):
            value = getattr(self, name)
            if value is not None:
                _check.check_value(name, value, "nonnegative" if name == "kv_bytes" else "positive", "Deployment")
                if np.ndim(value):
                    raise ValueError(f"Deployment: {name} must be one number, not an array")
        if not isinstance(self.mla_absorbed, bool):
            raise ValueError(f"Deployment: mla_absorbed must be True or False; got {_check.short(self.mla_absorbed)}")
        if self.links is not None:
            pairs = self.links.items() if hasattr(self.links, "items") else None
            if pairs is None:
                raise ValueError(f"Deployment: links must be a mapping of {', '.join(LINK_KEYS)}; "
                                 f"got {_check.short(self.links)}")
            unknown = sorted(set(dict(pairs)) - set(LINK_KEYS))
            if unknown:
                raise ValueError(f"Deployment: links has unknown keys {unknown}; accepted: {', '.join(LINK_KEYS)}")
            checked = tuple(sorted((k, float(_check.check_value(k, v, "positive", "Deployment links")))
                                   for k, v in dict(pairs).items()))
            object.__setattr__(self, "links", checked)
        if self.n_chips is not None and float(self.n_chips) != int(self.n_chips):
            raise ValueError(f"Deployment: n_chips must be a whole number of chips; got {self.n_chips!r}")
        _check.record(self)  # every field's type

    # -- the values it supplies ----------------------------------------------------------------
    @property
    def weight_precision(self):
        """The precision of weights and math, the one given or else the chip's lowest."""
        return registry.precision_name(self.precision) if self.precision else self.hardware.precisions()[-1]

    @functools.cached_property
    def _chips(self):
        if self.n_chips is not None:
            return self.n_chips, f"{self.n_chips} chips, as given"
        n, why = default_chips(self.model, self.hardware, registry.PRECISIONS[self.weight_precision])
        return n, f"{n} chips: {why} (default)"

    @property
    def n_chips_used(self):
        """Chips in the replica, the number given or else :func:`default_chips`."""
        return self._chips[0]

    @property
    def n_chips_reason(self):
        """Why the replica has :attr:`n_chips_used` chips."""
        return self._chips[1]

    @property
    def options(self):
        """The variant options every equation is rebuilt under."""
        return {"attention": self.attention, "kv_sharding": self.kv_sharding}

    @functools.cached_property
    def values(self):
        """Value of every symbol the deployment knows, by keyword (everything but batch and context).

        ``kv_bytes`` and ``attn_flops`` are the growth per token of a long context; with
        sliding-window layers their values at a given context come from :meth:`kv_bytes_at` and
        :meth:`attn_flops_at`. A dense model has ``n_routed`` 0 and one "expert" of top-1.
        ``price`` is missing where the hardware has no published price and none was given;
        ``n_routed`` where the model's expert shapes are unknown (the lecture's round model);
        network figures where the registry has none. ``hop_latency`` is the scale-up tier's;
        pass the scale-out one for a layer that spans racks.
        """
        price = self.price_usd_per_hour or self.hardware.price_usd_per_hour
        m = self.model
        given = {key: getattr(m, quantity) for key, quantity in MODEL_VALUES.items() if getattr(m, quantity)}
        # in the order the chapters print them: the model's sizes, the chip's, the network's, the experts'
        out = {key: given[key] for key in ("n_total", "n_active") if key in given}
        out |= {
            "bytes_per_param": registry.PRECISIONS[self.weight_precision],
            "flops": self.hardware.flops(self.weight_precision),
            "mem_bw": self.hardware.hbm_bw,
            "n_chips": self.n_chips_used,
            "kv_bytes": self.kv_bytes_at(None),
            "hbm_bytes": self.hardware.hbm_bytes,
            "attn_flops": self.attn_flops_at(None),
            "latent_flops": 0.0,  # attention as the deployment runs it expands no cached token (see roofline.prefill)
        }
        if self.kv_precision in self.hardware.precisions():  # attention math at the cache's precision
            out["attn_flops_rate"] = self.hardware.flops(self.kv_precision)
        hw = self.hardware
        out["act_bytes"] = registry.PRECISIONS[self.activation_precision]
        out |= {key: given[key] for key in ("d_model", "moe_layers") if key in given}
        for key, value in (("scaleup_bw", hw.scaleup_bw), ("scaleout_bw", hw.scaleout_bw),
                           ("hop_latency", hw.scaleup_latency_s)):
            if value:  # where the registry publishes it
                out[key] = value
        out |= dict(self.links or ())  # calibrated or chosen network figures replace the datasheet's
        if not m.routed_experts:
            out |= DENSE_VALUES
        else:
            out |= {key: given[key] for key in ("n_experts", "top_k", "n_routed") if key in given}
        if price is not None:
            out["price"] = price
        return out

    def kv_bytes_at(self, len_ctx):
        """KV bytes per token at context ``len_ctx`` (None: long-context growth), at ``kv_precision``."""
        if self.kv_bytes is not None:
            return self.kv_bytes
        per_elem = registry.bytes_per_element(self.kv_precision)
        if len_ctx is None or not self.model.window_layers:
            return self.model.kv_bytes_per_token(per_elem)
        L = _check.check_value("len_ctx", len_ctx, "nonnegative")
        # an empty context holds no KV, so any per-token figure serves there: 1 token's stands in for 0
        out = self.model.kv_bytes_per_token(per_elem, len_ctx=np.maximum(L, 1.0) if np.ndim(L) else max(L, 1.0))
        return out if np.ndim(out) else float(out)

    def attn_flops_at(self, len_ctx):
        """Attention FLOPs per token of context at ``len_ctx`` (None: long-context growth)."""
        if len_ctx is None or not self.model.window_layers:
            return self.model.attention_flops_per_token(absorbed=self.mla_absorbed)
        L = _check.check_value("len_ctx", len_ctx, "nonnegative")
        out = self.model.attention_flops_per_token(np.maximum(L, 1.0) if np.ndim(L) else max(L, 1.0),
                                                   absorbed=self.mla_absorbed)
        return out if np.ndim(out) else float(out)

    def subs(self, **given):
        """``{symbol: value}`` for sympy's ``.subs()``: the deployment's values, updated by ``given``."""
        unknown = [k for k in given if k not in symbols.TABLE]
        if unknown:
            raise ValueError(f"subs() got unknown keywords {unknown}; accepted: {', '.join(symbols.TABLE)}")
        merged = self.values | given
        return {symbols.TABLE[k].symbol: v for k, v in merged.items()}

    def evaluate(self, equation, **given):
        """Evaluate a registered equation (under this deployment's variants) with its values.

        ``given`` supplies what the deployment does not know, such as ``batch`` and ``len_ctx``,
        and may override any value. Arrays broadcast.
        """
        if not isinstance(equation, equations.Equation):
            raise ValueError(f"equation must be a registered roofline Equation (e.g. roofline.decode.step_time_s); "
                             f"got {_check.short(equation)}")
        eq = equation.under(**self.options)
        unknown = [k for k in given if k not in symbols.TABLE]
        if unknown:
            raise ValueError(f"evaluate() got unknown keywords {unknown}; accepted: {', '.join(symbols.TABLE)}")
        values = dict(self.values)  # a copy: the cached values stay as they are
        if "len_ctx" in given and "kv_bytes" not in given:  # windows make the bytes per token depend on L
            values["kv_bytes"] = self.kv_bytes_at(given["len_ctx"])
        if "len_ctx" in given and "attn_flops" not in given and self.model.window_layers:
            values["attn_flops"] = self.attn_flops_at(given["len_ctx"])
        values |= given
        missing = [a for a in eq.args if a not in values]
        if missing:
            hint = "; pass price_usd_per_hour > 0 to Deployment" if missing == ["price"] else ""
            raise ValueError(f"{eq.name} needs {', '.join(missing)}, which the deployment of {self.model.key} on "
                             f"{self.hardware.key} does not know; pass {', '.join(f'{m}=...' for m in missing)}{hint}")
        return eq(**{a: values[a] for a in eq.args})

    # -- named conveniences for chapter 1 ------------------------------------------------------
    def terms(self, batch, len_ctx, refined=False):
        """Compute, weight-fetch, KV-fetch, memory (weights + KV) and step time, s, broadcast over batch x len_ctx.

        ``refined=True``: the compute term counts attention FLOPs and the weight term reads only
        the experts touched (:func:`roofline.decode.step_time_refined_s`).
        """
        if _refined(refined):
            parts = (("compute", decode.compute_time_attn_s), ("weights", decode.weight_time_touched_s),
                     ("kv", decode.kv_time_s))
        else:
            parts = (("compute", decode.compute_time_s), ("weights", decode.weight_time_s),
                     ("kv", decode.kv_time_s), ("memory", decode.memory_time_s), ("step", decode.step_time_s))
        out = {name: self.evaluate(eq, batch=batch, len_ctx=len_ctx) for name, eq in parts}
        if refined:
            out["memory"] = out["weights"] + out["kv"]
            out["step"] = self.evaluate(decode.step_time_refined_s, batch=batch, len_ctx=len_ctx)
        if np.ndim(out["step"]):
            out = {k: np.broadcast_to(v, np.shape(out["step"])) for k, v in out.items()}
        return out

    def step_time_s(self, batch, len_ctx, refined=False):
        """Step time, s: max(compute, weight fetch + KV fetch); ``refined``: see :meth:`terms`."""
        eq = decode.step_time_refined_s if _refined(refined) else decode.step_time_s
        return self.evaluate(eq, batch=batch, len_ctx=len_ctx)

    def max_batch(self, len_ctx):
        """Most sequences of ``len_ctx`` tokens whose KV cache fits in HBM beside the weights."""
        return self.evaluate(decode.max_batch_n, len_ctx=len_ctx)

    def check_fits(self, batch, len_ctx):
        """Nothing if the KV cache of ``batch`` sequences fits in memory at ``len_ctx``; ValueError if not."""
        most = self.max_batch(len_ctx)
        batch = _check.check_value("batch", batch)
        try:
            np.broadcast_shapes(np.shape(batch), np.shape(most))
        except ValueError:
            raise ValueError(f"check_fits: batch of shape {np.shape(batch)} and len_ctx of shape {np.shape(len_ctx)} "
                             "cannot broadcast together") from None
        if np.any(np.asarray(batch) > most):
            show = lambda x: f"{x:,.0f}" if np.ndim(x) == 0 else _check.short(x)  # noqa: E731
            raise ValueError(f"batch {_check.short(batch)} at {show(len_ctx)} tokens (len_ctx) does not fit: "
                             f"{self.model.key} on {self.n_chips_used} x {self.hardware.key} holds at most "
                             f"{show(most)} sequences")

    def tokens_per_s(self, batch, len_ctx, refined=False):
        """Output tokens per second of the replica; ``refined``: see :meth:`terms`."""
        return batch / self.step_time_s(batch, len_ctx, refined) if _refined(refined) else \
            self.evaluate(decode.tokens_per_s, batch=batch, len_ctx=len_ctx)

    def cost_per_token_usd(self, batch, len_ctx):
        """USD per output token at the deployment's price."""
        return self.evaluate(decode.cost_per_token_usd, batch=batch, len_ctx=len_ctx)

    def regime(self, batch, len_ctx, refined=False):
        """Which term sets the step: 'compute-bound', 'weight-bound' or 'KV-bound' (scalars only)."""
        if np.ndim(_check.check_value("batch", batch)) or np.ndim(_check.check_value("len_ctx", len_ctx,
                                                                                      "nonnegative")):
            raise ValueError("regime() takes a scalar batch and len_ctx")
        t = self.terms(batch, len_ctx, refined)
        if t["compute"] >= t["weights"] + t["kv"]:
            return decode.REGIMES[0]
        return decode.REGIMES[1] if t["weights"] >= t["kv"] else decode.REGIMES[2]

    def ratio(self):
        """Hardware ratio F b_w / (2 W), the lecture's "about 300"."""
        return self.evaluate(decode.ratio)

    def balance_batch(self, len_ctx=None):
        """Batch where compute meets memory; with ``len_ctx``, the KV term is kept (inf if never)."""
        if len_ctx is None:
            return self.evaluate(decode.balance_batch_n)
        return self.evaluate(decode.balance_batch_with_kv_n, len_ctx=len_ctx)

    def balance_context(self):
        """Context length where KV fetch equals compute, tokens (follows ``attention``).

        With sliding-window layers the cache per token depends on the context, so the balance is
        where one sequence's whole cache (windows capped) equals the equation's balance bytes.
        """
        if not self.model.window_layers or self.kv_bytes is not None or self.attention != "dense":
            return self.evaluate(decode.balance_context_tokens)
        # the balance context at 1 byte per token is the cache one sequence may hold: 2 N_active W / F bytes
        target = self.evaluate(decode.balance_context_tokens, kv_bytes=1.0)
        per_elem = registry.bytes_per_element(self.kv_precision)
        return float(self.model.context_for_kv_bytes(target, per_elem))

    def drain_time_s(self):
        """HBM capacity / bandwidth of one chip, s: the train period."""
        return self.evaluate(decode.drain_time_s)


def deploy(model, chip, precision=None, price=None, n_chips=None, **options):
    """A :class:`~roofline.deployment.Deployment` of registry names, as the chapters build them.

    ``precision`` falls back to the chip's lowest published one where the chip lacks it
    (H100 has no FP4); an unknown name is an error. ``price`` defaults to the lecture's $2 per
    GPU-hour (00:12:59), ``n_chips`` to the deployment's default (the lecture's rack of 72 on
    an NVL72; see :func:`roofline.deployment.default_chips`).
    ``options`` pass on to :class:`~roofline.deployment.Deployment` (``attention=``, ``kv_precision=``, ...).
    """
    with _check.naming("chip"):
        hw = hardware.get(chip)
    with _check.naming("precision"):
        if precision is not None and registry.precision_name(precision) not in hw.precisions():
            precision = hw.precisions()[-1]
    if price is None:
        price = float(lecture.CH1["gpu_price"].value)
    with _check.naming("model"):
        model = models.get(model)
    return Deployment(model, hw, precision=precision, n_chips=n_chips, price_usd_per_hour=price,
                      **options)
