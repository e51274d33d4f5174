"""Input validation at the library's boundary.

Every public function checks its inputs here, so a bad value fails with a
``ValueError`` that names the parameter, the value and what is accepted,
instead of a NaN or a traceback from inside numpy or sympy.
"""

import difflib
import numbers
import reprlib

import numpy as np

SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
"""``str.translate`` table: digits and minus as Unicode superscripts (exponents in plain text, ``10⁻³``)."""


def check_value(name, value, domain="positive", where=""):
    """``value`` as a float or float array after checking it against ``domain``.

    ``domain`` is ``"positive"`` (finite, > 0) or ``"nonnegative"`` (finite, >= 0).
    Booleans, strings, None, complex numbers, dates and integers beyond float range
    are refused with a ``ValueError`` naming ``name``.

    >>> check_value("batch", 64)
    64.0
    >>> check_value("len_ctx", 0, "nonnegative")
    0.0
    >>> check_value("batch", 10**400)
    Traceback (most recent call last):
    ...
    ValueError: batch must be a finite number > 0; got an integer with 401 digits, beyond float range
    """
    prefix = f"{where}: " if where else ""
    what = "a finite number > 0" if domain == "positive" else "a finite number >= 0"
    if isinstance(value, (bool, np.bool_, str, bytes, np.timedelta64, np.datetime64)) or value is None:
        raise ValueError(f"{prefix}{name} must be {what}; got {value!r} of type {type(value).__name__}")
    if isinstance(value, numbers.Real):
        try:
            x = float(value)
        except OverflowError:
            raise ValueError(f"{prefix}{name} must be {what}; got an integer with {len(str(abs(int(value))))} "
                             "digits, beyond float range") from None
        if not (np.isfinite(x) and (x > 0 if domain == "positive" else x >= 0)):
            raise ValueError(f"{prefix}{name} must be {what}; got {value!r}")
        return x
    if isinstance(value, numbers.Number):  # complex and other non-real numbers
        raise ValueError(f"{prefix}{name} must be {what}; got {value!r} of type {type(value).__name__}")
    if isinstance(value, np.ma.MaskedArray):
        raise ValueError(f"{prefix}{name} must be {what} or a plain array of them; got a masked array "
                         "(fill or drop the masked entries first)")
    try:
        raw = np.asarray(value)
        if raw.dtype.kind in "bUSmMcV" or raw.dtype.kind == "O" and any(
                isinstance(v, (bool, str, bytes, complex)) or v is None for v in raw.flat):
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{prefix}{name} must be {what} or an array of them; "
                         f"got {short(value)} of type {type(value).__name__}") from None
    ok = np.isfinite(arr) & ((arr > 0) if domain == "positive" else (arr >= 0))
    if not ok.all():
        first = arr[~ok].flat[0]
        plural = what.replace("a finite number", "finite numbers")
        raise ValueError(f"{prefix}{name} must hold only {plural}; found {float(first)!r}")
    return arr if arr.ndim else float(arr)


MAX_EXACT_INT = 2**53
"""The largest integer a float64 holds exactly: the bound for counts read from files and set on records."""

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 80
_REPR.maxlist = _REPR.maxdict = 8


def required_text(owner, row, names):
    """Raise ValueError naming ``owner`` (where given) and the first of ``names`` whose text field of ``row``
    is blank.

    Every sourced data row (a measurement, a price, a cache document) must say where it comes from.

    >>> import types
    >>> required_text("Report 'x'", types.SimpleNamespace(source="a paper", date=" "), ("source", "date"))
    Traceback (most recent call last):
    ...
    ValueError: Report 'x': date must not be empty
    """
    for name in names:
        if not str(getattr(row, name)).strip():
            raise ValueError(f"{owner}: {name} must not be empty" if owner else f"{name} must not be empty")


def short(value, limit=60):
    """``repr(value)`` for a message, cut to ``limit`` characters; safe for huge values and reprs that raise."""
    try:
        text = repr(value) if isinstance(value, str) else _REPR.repr(value)  # containers: the first items only
    except Exception:  # a __repr__ that raises is still something to name
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def in_range(name, value, low, high):
    """Check a scalar lies in ``[low, high]`` and return it as a float.

    >>> in_range("efficiency", 0.5, 0, 1)
    0.5
    """
    x = check_value(name, value) if low > 0 else _finite(name, value)
    if not (low <= x <= high):
        raise ValueError(f"{name} must lie in [{low}, {high}]; got {value!r}")
    return x


def _finite(name, value):
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return float(value)


def normalize(name):
    """Lower-case a preset name and drop spaces, dashes, dots and underscores."""
    return "".join(ch for ch in str(name).lower() if ch.isalnum())


def choice(kind, name, options, aliases=None):
    """Look ``name`` up in ``options`` (a dict keyed by canonical names), forgiving case and punctuation.

    ``aliases`` maps other accepted names to values of ``options``. Raises ``ValueError``
    listing the closest canonical names, and all of them, when nothing matches.

    >>> choice("precision", "FP4", {"fp4": 1, "fp8": 2})
    1
    >>> choice("precision", "fp5", {"fp4": 1, "fp8": 2})
    Traceback (most recent call last):
    ...
    ValueError: unknown precision 'fp5'; did you mean 'fp8' or 'fp4'? Accepted: 'fp4', 'fp8'
    """
    if not isinstance(name, str):
        raise ValueError(f"{kind} must be a name (str); got {name!r} of type {type(name).__name__}")
    aliases = aliases or {}
    canonical = {id(v): k for k, v in options.items()}
    # normalized spelling -> canonical name, for the canonical names and their aliases
    spellings = {normalize(k): k for k in options}
    spellings.update({normalize(a): canonical.get(id(v), a) for a, v in aliases.items()})
    key = normalize(name)
    if key in spellings:
        return options[spellings[key]]
    close = [s for s in spellings if key and key in s] + difflib.get_close_matches(key, list(spellings), n=6, cutoff=0.4)
    close = list(dict.fromkeys(spellings[c] for c in close))[:3]
    hint = ""
    if close:
        quoted = [repr(c) for c in close]
        hint = " did you mean " + (" or ".join(quoted) if len(quoted) <= 2 else ", ".join(quoted[:-1]) + " or " + quoted[-1]) + "?"
    accepted = ", ".join(repr(n) for n in options)
    raise ValueError(f"unknown {kind} {name!r};{hint} Accepted: {accepted}")
