"""Helpers every chapter notebook uses: glue a value, glue the lecture's claims, build a deployment.

``myst_nb`` (for ``glue``) is imported only when a helper needs it, so the
library itself does not depend on it.

>>> d = deploy("DeepSeek (lecture)", "GB200")
>>> print(d.n_chips_used, d.weight_precision, d.values["price"])
72 fp4 2.0
"""

from . import _check, hardware, lecture, models, registry
from .deployment import Deployment

COLAB_CELL = '''\
# On Colab, or any kernel without this book's environment: install the companion library with what the
# chapter imports besides it (myst-nb for `glue`, ipywidgets). Prints nothing where they are installed.
import importlib.util
if not all(importlib.util.find_spec(m) for m in ("roofline", "myst_nb", "ipywidgets")):
    %pip install --quiet "roofline[notebooks] @ git+https://github.com/llm-roofline/roofline-book"'''
"""The first, hidden cell of every chapter notebook (the tests check each notebook carries it verbatim)."""


def _glue(name, value):
    from myst_nb import glue  # the notebooks' dependency, not the library's
    glue(name, value, display=False)


def keep(name, value, fmt=",.0f", unit=""):
    """Glue ``value`` under ``name`` for the text, and print it in a fixed format for nbval.

    >>> keep("b_star", 2400.4, ",.0f", "sequences")  # doctest: +SKIP
    b_star = 2,400 sequences
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be an identifier-like str for {{glue:}}; got {_check.short(name)}")
    if isinstance(value, str):
        _glue(name, value)
        print(f"{name} = {value}")
        return
    try:
        number = float(value)  # sympy numbers and numpy scalars too
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name}: value must be a finite number or a str; got {_check.short(value)}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{name}: value must be a finite number; got {number}")
    _glue(name, number)
    print(f"{name} = {number:{fmt}} {unit}".rstrip())


def glue_claims(chapter):
    """Glue every single-number claim of lecture chapter ``chapter`` as ``lec_<name>``; returns their count."""
    claims = lecture.CHAPTERS.get(chapter) if isinstance(chapter, int) else None
    if claims is None:
        raise ValueError(f"chapter must be one of {sorted(lecture.CHAPTERS)}; got {_check.short(chapter)}")
    count = 0
    for name, claim in claims.items():
        if not isinstance(claim.value, tuple):
            _glue(f"lec_{name}", float(claim.value))
            count += 1
    return count


def deploy(model, chip, precision=None, price=None, n_chips=None, **options):
    """A :class:`Deployment` of registry names, as the chapters build them.

    ``precision`` falls back to the chip's lowest published one where the chip lacks it
    (H100 has no FP4); an unknown name is an error. ``price`` defaults to the lecture's $2 per
    GPU-hour (00:12:59), ``n_chips`` to the deployment's default (the lecture's rack of 72 on
    an NVL72; see :func:`roofline.deployment.default_chips`).
    ``options`` pass on to :class:`Deployment` (``attention=``, ``kv_precision=``, ...).
    """
    hw = hardware.get(chip)
    if precision is not None and registry.precision_name(precision) not in hw.precisions():
        precision = hw.precisions()[-1]
    if price is None:
        price = float(lecture.CH1["gpu_price"].value)
    return Deployment(models.get(model), hw, precision=precision, n_chips=n_chips, price_usd_per_hour=price,
                      **options)
