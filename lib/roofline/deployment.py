"""A model served on some hardware: the decode equations with every input but batch and context filled in.

>>> d = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4")
>>> print(f"{d.balance_batch():,.0f} sequences")
5,667 sequences
>>> print(d.regime(batch=64, len_ctx=4096))
weight-bound
"""

import dataclasses

import numpy as np

from . import _check, decode, hardware, models


@dataclasses.dataclass(frozen=True)
class Deployment:
    """One replica of ``model`` on ``n_chips`` chips of ``hardware``.

    Parameters
    ----------
    model, hardware : Model, Hardware
        From :func:`roofline.models.get` and :func:`roofline.hardware.get`.
    precision : str
        'fp4', 'fp8' or 'bf16': sets both the FLOP/s and the bytes per weight.
    n_chips : int, optional
        Chips in the replica; default the hardware's scale-up domain (72 for an NVL72 rack).
    flops_per_mac : float
        FLOPs per multiply-add: 2 as datasheets count (default), 1 as the lecture counts.
    kv_bytes : float, optional
        KV bytes per token; default the model's BF16 cache.
    price_usd_per_hour : float, optional
        USD per chip-hour; default the hardware's 3-year rental price.
    attention : str
        'dense' (KV fetch linear in context) or 'sqrt' (sparse attention, square root).
    """

    model: models.Model
    hardware: hardware.Hardware
    precision: str = "fp4"
    n_chips: int | None = None
    flops_per_mac: float = 2.0
    kv_bytes: float | None = None
    price_usd_per_hour: float | None = None
    attention: str = "dense"

    def __post_init__(self):
        if not isinstance(self.model, models.Model):
            raise ValueError(f"model must be a roofline Model (see roofline.models.get); got {self.model!r}")
        if not isinstance(self.hardware, hardware.Hardware):
            raise ValueError(f"hardware must be a roofline Hardware (see roofline.hardware.get); "
                             f"got {self.hardware!r}")
        self.hardware.flops(self.precision)  # raises if the chip has no such rate
        if self.attention not in decode.ATTENTION:
            raise ValueError(f"attention must be one of {decode.ATTENTION}; got {self.attention!r}")
        for name in ("n_chips", "kv_bytes", "price_usd_per_hour"):
            if getattr(self, name) is not None:
                _check.positive(name, getattr(self, name))
        _check.positive("flops_per_mac", self.flops_per_mac)

    # -- the filled-in inputs ----------------------------------------------------------------
    @property
    def params(self):
        """Keyword arguments for the functions of :mod:`roofline.decode` (everything but batch, len_ctx)."""
        price = self.price_usd_per_hour or self.hardware.price_usd_per_hour
        return {
            "n_total": self.model.total_params,
            "n_active": self.model.active_params,
            "bytes_per_param": _check.choice("precision", self.precision, decode.BYTES_PER_PARAM),
            "flops_per_mac": self.flops_per_mac,
            "flops": self.hardware.flops(self.precision),
            "mem_bw": self.hardware.hbm_bw,
            "n_chips": self.n_chips or self.hardware.scaleup_domain,
            "kv_bytes": self.kv_bytes or self.model.kv_bytes_per_token(),
            "price": price if price is not None else np.nan,
            "hbm_bytes": self.hardware.hbm_bytes,
        }

    def _call(self, fn, **extra):
        p = self.params
        return fn(**{k: (extra[k] if k in extra else p[k]) for k in fn.args})

    # -- the step ----------------------------------------------------------------------------
    def _kv_tokens(self, len_ctx):
        """Tokens whose KV each sequence reads per step: the context, or its square root (sparse)."""
        L = _check.positive("len_ctx", len_ctx)
        return np.sqrt(L) if self.attention == "sqrt" else L  # t_kv_sqrt is t_kv with L -> sqrt(L)

    def terms(self, batch, len_ctx):
        """Compute, weight-fetch, KV-fetch and step time, s, broadcast over batch x len_ctx."""
        ctx = self._kv_tokens(len_ctx)
        compute = self._call(decode.compute_time_s, batch=batch)
        kv = self._call(decode.kv_time_s, batch=batch, len_ctx=ctx)
        step = self._call(decode.step_time_s, batch=batch, len_ctx=ctx)
        weights = self._call(decode.weight_time_s)
        if np.ndim(step):
            weights = np.broadcast_to(weights, step.shape)
        return {"compute": compute, "weights": weights, "kv": kv, "step": step}

    def step_time_s(self, batch, len_ctx):
        """Step time, s: max(compute, weight fetch + KV fetch)."""
        return self._call(decode.step_time_s, batch=batch, len_ctx=self._kv_tokens(len_ctx))

    def tokens_per_s(self, batch, len_ctx):
        """Output tokens per second of the replica."""
        return self._call(decode.tokens_per_s, batch=batch, len_ctx=self._kv_tokens(len_ctx))

    def cost_per_token_usd(self, batch, len_ctx):
        """USD per output token at the deployment's price."""
        if np.isnan(self.params["price"]):
            raise ValueError(f"price_usd_per_hour is unknown for {self.hardware.key}; "
                             "pass price_usd_per_hour > 0 to Deployment")
        return self._call(decode.cost_per_token_usd, batch=batch, len_ctx=self._kv_tokens(len_ctx))

    def regime(self, batch, len_ctx):
        """Which term sets the step: 'compute-bound', 'weight-bound' or 'KV-bound' (scalars only)."""
        t = self.terms(batch, len_ctx)
        if np.ndim(t["step"]):
            raise ValueError("regime() takes a scalar batch and len_ctx")
        if t["compute"] >= t["weights"] + t["kv"]:
            return decode.REGIMES[0]
        return decode.REGIMES[1] if t["weights"] >= t["kv"] else decode.REGIMES[2]

    # -- balance points ----------------------------------------------------------------------
    def ratio(self):
        """Hardware ratio F b_w / (c_mac W), the lecture's "about 300"."""
        return self._call(decode.ratio)

    def balance_batch(self, len_ctx=None):
        """Batch where compute meets memory; with ``len_ctx``, the KV term is kept (inf if never)."""
        if len_ctx is None:
            return self._call(decode.balance_batch_n)
        return self._call(decode.balance_batch_with_kv_n, len_ctx=self._kv_tokens(len_ctx))

    def balance_context(self):
        """Context length where KV fetch equals compute (dense attention), tokens."""
        return self._call(decode.balance_context_tokens)

    def drain_time_s(self):
        """HBM capacity / bandwidth of one chip, s: the train period."""
        return self._call(decode.drain_time_s)
