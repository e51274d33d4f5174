"""The reader's own model on the published page: what the page needs to read a ``config.json`` in the browser
and offer the model it describes in the chapters' live figures, declared here once.

The page has no kernel, so it cannot call :func:`roofline.hf.from_hf_config` or :func:`roofline.deployment.deploy`; it runs
what they are made of instead, printed by :mod:`roofline.web` into the generated script:

* reading the config: :func:`roofline.hf.program` for each family (the keys, their kinds and defaults, the checks,
  the counting formulas and the mapping to :class:`~roofline.models.Model` fields) and :data:`roofline.hf.MESSAGES`;
* the model's KV bytes, attention FLOPs, MoE layers and expert sizes: :data:`roofline.models.FORMULAS`;
* chapter 8's prompts: the attention FLOPs a pair and the latent FLOPs a cached token of prefill
  (:data:`roofline.prefill.FORMULAS`), and the longest prompt a sequence holds, a search the library declares as
  data (:data:`roofline.figures.prefill.PROMPT_WALL`) and the page runs as :func:`roofline.figures.prefill.prompt_wall`
  does;
* chapter 2's expert layouts: :data:`roofline.moe.LAYOUT_CHIPS`, whose divisor search the page runs as the
  one primitive it adds (:data:`roofline.web.LARGEST_DIVISOR_JS`);
* a deployment's values that come from the model (:data:`roofline.deployment.MODEL_VALUES`, and
  :data:`roofline.deployment.DENSE_VALUES` for a dense model) and its chip count
  (:data:`roofline.deployment.DEFAULT_CHIPS`, with each chip's scale-up domain and HBM, :func:`chips`);
* the figures whose model is set by sliders instead (chapters 5, 6 and 7): :data:`SLIDERS`, the value each
  slider takes from the model, which the page moves to the slider's nearest stop.

A figure whose model control the page extends with the reader's model (:data:`OFFERED`) has all its per-model
data in its ``deployments`` table, ``windows``, (chapter 2) ``experts`` and ``layout_chips`` and (chapter 8)
``prompt`` and ``prompt_wall``; the others are listed in :data:`NOT_OFFERED` with the reason.

>>> sorted(OFFERED), sorted(SLIDERS)
(['decode', 'memory', 'moe', 'prefill'], ['revnet', 'serving', 'training'])
"""

import math

import numpy as np
import sympy as sp

from .. import _check, hardware, registry
from ..deployment import DENSE_VALUES, MODEL_VALUES
from .declare import Control
from .prefill import PROMPT_WALL
from .prefill import PROMPTS as PREFILL_PROMPTS

KV_PRECISION = "bf16"
"""The KV cache's precision in every live figure's deployments (:class:`roofline.Deployment`'s default)."""

OFFERED = {"decode": "model", "moe": "model", "memory": "model", "prefill": "model"}
"""Figures whose model control offers the reader's model, by the control's name (chapter 2's, a model with
routed experts only, as its control offers the registry's)."""

LAYOUT_RACKS = {"moe": "racks"}
"""Figures with a ``layout_chips`` table (chip -> model -> layout -> [GPUs, racks] at each stop of a racks slider,
:data:`roofline.moe.LAYOUT_CHIPS`), by the name of that slider; their ``experts`` table holds each model's routed
experts."""

PROMPT_TABLES = {"prefill": "prompt"}
"""Figures with a ``prompt`` table (model -> what a fresh prompt's pass takes, at the prompts of the panel
(:func:`prompt_panels`) and at the stops of a prompt slider, named here: the attention FLOPs a pair and the cache bytes a token, from
:data:`roofline.prefill.FORMULAS` and :data:`roofline.models.FORMULAS`, and the latent FLOPs a cached token) and a ``prompt_wall`` table (model, chip,
precision -> the longest prompt one sequence holds, :data:`roofline.figures.prefill.PROMPT_WALL`)."""

NOT_OFFERED = {
    "pipeline": "it has no model",
}
"""Figures with a model control (or none) that do not offer the reader's model, and why."""

_Q = {n: sp.Symbol(n, positive=True) for n in ("active_params", "total_params", "layers", "hidden_size", "kv_bytes")}
SLIDERS = {
    "training": {"n_active": _Q["active_params"]},
    "serving": {"n_active": _Q["active_params"], "total_ratio": _Q["total_params"] / _Q["active_params"],
                "kv": _Q["kv_bytes"]},
    "revnet": {"n_layers": _Q["layers"], "d_model": _Q["hidden_size"]},
}
"""The figures whose model is a set of sliders, with each slider's value from the reader's model as a formula of
its ``active_params``, ``total_params``, ``layers``, ``hidden_size`` and ``kv_bytes`` (BF16 KV bytes per token
of a long context). The page sets the slider to its nearest stop (on a log slider, nearest in ratio)."""


def chips():
    """Each registry chip's scale-up domain and HBM bytes: what :data:`~roofline.deployment.DEFAULT_CHIPS` needs.

    >>> chips()["GB200"]["scaleup_domain"]
    72
    """
    return {h.key: {"scaleup_domain": int(h.scaleup_domain), "hbm_bytes": float(h.hbm_bytes)}
            for h in hardware.REGISTRY}


def nearest_stop(control, value):
    """The stop of slider ``control`` (a :class:`~roofline.figures.declare.Control` of kind 'range') nearest
    ``value``: in ratio on a log slider, in difference on a linear one (the lower stop on a tie).

    >>> from roofline.figures import revnet
    >>> nearest_stop(revnet.live().control("d_model"), 7168)
    8192
    """
    if not isinstance(control, Control) or control.kind != "range":
        raise ValueError(f"control must be a slider (a range Control); got {_check.short(control)}")
    x = _check.scalar("value", value, where="nearest_stop")
    distance = (lambda s: abs(math.log(s / x))) if control.log else (lambda s: abs(s - x))  # noqa: E731
    return min(control.grid, key=distance)


def prompt_panels():
    """The prompts along each :data:`PROMPT_TABLES` figure's panel, where its ``prompt`` table's ``panel`` values
    lie (chapter 8's: ``numpy.geomspace(*roofline.figures.prefill.PROMPTS)``).

    >>> len(prompt_panels()["prefill"])
    120
    """
    return {"prefill": [float(x) for x in np.geomspace(*PREFILL_PROMPTS)]}


def reader_data():
    """What the page's reader needs besides the formulas (which :mod:`roofline.web` prints): JSON-ready.

    >>> sorted(reader_data())[:6]
    ['chips', 'dense_values', 'kv_bytes_per_elem', 'layout_racks', 'model_values', 'not_offered']
    """
    return {"chips": chips(), "model_values": dict(MODEL_VALUES), "dense_values": dict(DENSE_VALUES),
            "kv_bytes_per_elem": registry.bytes_per_element(KV_PRECISION), "offered": dict(OFFERED),
            "layout_racks": dict(LAYOUT_RACKS), "prompt_tables": dict(PROMPT_TABLES), "prompt_panels": prompt_panels(),
            "prompt_wall": dict(PROMPT_WALL), "not_offered": dict(NOT_OFFERED)}
