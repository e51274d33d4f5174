"""Input validation at the library's boundary.

Every public function checks its inputs here, so a bad value fails with a
``ValueError`` that names the parameter, the value and what is accepted,
instead of a NaN or a traceback from inside numpy or sympy.
"""

import difflib
import numbers

import numpy as np


def positive(name, value, *, allow_inf=False):
    """Return ``value`` as a float or float array after checking it is > 0 and finite.

    >>> positive("batch", 64)
    64.0
    >>> positive("batch", 0)
    Traceback (most recent call last):
    ...
    ValueError: batch must be a finite number > 0; got 0
    """
    what = "a finite number > 0" if not allow_inf else "a number > 0"
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{name} must be {what}; got {value!r} of type {type(value).__name__}")
    if isinstance(value, numbers.Real):
        x = float(value)
        bad = not (x > 0) or (np.isinf(x) and not allow_inf)
        if bad:
            raise ValueError(f"{name} must be {what}; got {value!r}")
        return x
    try:
        if np.asarray(value).dtype.kind in "bUS":  # booleans or strings inside an array
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be {what} or an array of them; got {value!r} of type {type(value).__name__}"
        ) from None
    ok = arr > 0  # False for NaN
    if not allow_inf:
        ok &= np.isfinite(arr)
    if not ok.all():
        first = arr[~ok].flat[0]
        plural = what.replace("a ", "", 1).replace("number", "numbers")
        raise ValueError(f"{name} must hold only {plural}; found {float(first)!r}")
    return arr if arr.ndim else float(arr)


def in_range(name, value, low, high):
    """Check a scalar lies in ``[low, high]`` and return it as a float.

    >>> in_range("efficiency", 0.5, 0, 1)
    0.5
    """
    x = positive(name, value) if low > 0 else _finite(name, value)
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
