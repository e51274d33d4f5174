"""Input validation at the library's boundary.

Every public function checks its inputs here, so a bad value fails with a
``ValueError`` that names the parameter, the value and what is accepted,
instead of a NaN or a traceback from inside numpy or sympy.
"""

import difflib
import functools
import numbers
import reprlib

import numpy as np

SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
"""``str.translate`` table: digits and minus as Unicode superscripts (exponents in plain text, ``10⁻³``)."""


_WHAT = {"positive": "a finite number > 0", "nonnegative": "a finite number >= 0", "count": "a finite number >= 1"}
_LOW = {"positive": 0.0, "nonnegative": 0.0, "count": 1.0}


def check_value(name, value, domain="positive", where=""):
    """``value`` as a float or float array after checking it against ``domain``.

    ``domain`` is ``"positive"`` (finite, > 0), ``"nonnegative"`` (finite, >= 0) or ``"count"`` (finite,
    >= 1: chips, racks, stages, layers, experts, micro-batches; a fraction of one is no count).
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
    what = _WHAT[domain]
    low = _LOW[domain]
    if isinstance(value, (bool, np.bool_, str, bytes, np.timedelta64, np.datetime64)) or value is None:
        raise ValueError(f"{prefix}{name} must be {what}; got {value!r} of type {type(value).__name__}")
    if isinstance(value, numbers.Real):
        try:
            x = float(value)
        except OverflowError:
            raise ValueError(f"{prefix}{name} must be {what}; got an integer with {len(str(abs(int(value))))} "
                             "digits, beyond float range") from None
        if not (np.isfinite(x) and (x > 0 if domain == "positive" else x >= low)):
            raise ValueError(f"{prefix}{name} must be {what}; got {value!r}")
        return x + 0.0  # -0.0 as 0.0: a zero that divides gives +inf, never -inf
    if isinstance(value, numbers.Number):  # complex and other non-real numbers
        raise ValueError(f"{prefix}{name} must be {what}; got {value!r} of type {type(value).__name__}")
    if isinstance(value, np.ma.MaskedArray):
        raise ValueError(f"{prefix}{name} must be {what} or a plain array of them; got a masked array "
                         "(fill or drop the masked entries first)")
    try:
        size = np.size(value) if isinstance(value, np.ndarray) else len(value) if hasattr(value, "__len__") else 0
    except TypeError:
        size = 0
    if size > MAX_ELEMENTS:
        raise ValueError(f"{prefix}{name} must hold at most {MAX_ELEMENTS:,} values; got {size:,}")
    try:
        raw = np.asarray(value)
        if raw.dtype.kind in "bUSmMcV" or raw.dtype.kind == "O" and any(
                isinstance(v, (bool, str, bytes, complex)) or v is None for v in raw.flat):
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{prefix}{name} must be {what} or an array of them; "
                         f"got {short(value)} of type {type(value).__name__}") from None
    ok = np.isfinite(arr) & ((arr > 0) if domain == "positive" else (arr >= low))
    if not ok.all():
        first = arr[~ok].flat[0]
        plural = what.replace("a finite number", "finite numbers")
        raise ValueError(f"{prefix}{name} must hold only {plural}; found {float(first)!r}")
    arr = arr + 0.0  # -0.0 as 0.0
    return arr if arr.ndim else float(arr)


MAX_ELEMENTS = 2**24
"""The most values one array argument may hold (16.7 million, 134 MB as floats): every call stays small."""

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
    if np.ndim(x):
        raise ValueError(f"{name} must be one number in [{low}, {high}], not an array; got {short(value)}")
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
    return _normalized(name) if isinstance(name, str) else _normalize(name)


def _normalize(name):
    return "".join(ch for ch in str(name).lower() if ch.isalnum())


_normalized = functools.lru_cache(maxsize=4096)(_normalize)  # names repeat: every lookup of a chip or precision


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
    if not aliases and name in options:  # the canonical spelling itself, the common case
        return options[name]
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


def scalar(name, value, domain="positive", where=""):
    """One number checked against ``domain`` (:func:`check_value`), never an array.

    >>> scalar("len_ctx", [1, 2], "nonnegative")
    Traceback (most recent call last):
    ...
    ValueError: len_ctx must be one finite number >= 0, not an array; got [1, 2]
    """
    x = check_value(name, value, domain, where)
    if np.ndim(x):
        prefix = f"{where}: " if where else ""
        raise ValueError(f"{prefix}{name} must be one {_WHAT[domain].removeprefix('a ')}, not an array; "
                         f"got {short(value)}")
    return x


def whole(name, value, minimum=1, maximum=MAX_EXACT_INT, where=""):
    """``value`` as an int after checking it is a whole number in ``[minimum, maximum]`` (a count of chips,
    racks, stages, micro-batches; an 8.0 passes, an 8.5 or a True does not).

    >>> whole("n_stages", 4.0)
    4
    >>> whole("n_micro", 0.5)
    Traceback (most recent call last):
    ...
    ValueError: n_micro must be a whole number in [1, 9007199254740992]; got 0.5
    """
    prefix = f"{where}: " if where else ""
    accepted = f"a whole number in [{minimum}, {maximum}]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{prefix}{name} must be {accepted}; got {short(value)} of type {type(value).__name__}")
    try:
        ok = float(value).is_integer() and minimum <= value <= maximum
    except OverflowError:
        ok = False
    if not ok:
        raise ValueError(f"{prefix}{name} must be {accepted}; got {short(value)}")
    return int(value)


def instance(name, value, cls, what=None, where=""):
    """``value`` after checking it is a ``cls`` (a class or a tuple of them); ``what`` names it for the reader.

    >>> instance("ops", [], list)
    []
    >>> instance("deployment", "GB200", dict, "a Deployment")
    Traceback (most recent call last):
    ...
    ValueError: deployment must be a Deployment; got 'GB200' of type str
    """
    if not isinstance(value, cls):
        prefix = f"{where}: " if where else ""
        what = what or f"a {getattr(cls, '__name__', cls)}"
        raise ValueError(f"{prefix}{name} must be {what}; got {short(value)} of type {type(value).__name__}")
    return value


def axes(ax, name="ax"):
    """``ax`` after checking it is one matplotlib ``Axes`` (every ``draw_*`` helper draws into one)."""
    from matplotlib.axes import Axes

    return instance(name, ax, Axes, "a matplotlib Axes (e.g. fig.subplots())")


def mapping(name, value, keys, where="", example="a Deployment's .values"):
    """``value`` after checking it is a mapping that holds every one of ``keys`` (a dict of symbol values, or
    whatever ``example`` names for the error message)."""
    from collections.abc import Mapping

    instance(name, value, Mapping, f"a mapping with keys {', '.join(keys)}", where)
    missing = [k for k in keys if k not in value]
    if missing:
        prefix = f"{where}: " if where else ""
        raise ValueError(f"{prefix}{name} lacks {', '.join(map(repr, missing))}; it needs {', '.join(keys)} "
                         f"(e.g. {example})")
    return value


def work(what, limit, sizes, factor=1, unit="steps", advice="make them smaller"):
    """Refuse a call whose work, the product of ``sizes`` (a dict of parameter name -> size) times ``factor``,
    exceeds ``limit``: work is bounded by the product, not size by size, so every call the checks let through
    returns in about a second.

    >>> work("schedule", 20_000, {"n_stages": 10**6, "n_micro": 10**6}, 2, "operations")
    Traceback (most recent call last):
    ...
    ValueError: schedule: n_stages x n_micro = 1e+06 x 1e+06 (x 2) = 2e+12 operations, above the 20,000 allowed; make them smaller
    """
    units = factor
    for size in sizes.values():
        units *= size
    if units > limit:
        times = f" (x {factor:g})" if factor != 1 else ""
        raise ValueError(f"{what}: {' x '.join(sizes)} = {' x '.join(f'{v:g}' for v in sizes.values())}{times} = "
                         f"{float(units):.3g} {unit}, above the {limit:,} allowed; {advice}")


def record(obj):
    """Check every field of the dataclass ``obj`` against its annotation, naming the first that fails.

    ``float`` is a finite real number (or an array of them), ``int`` a whole number, ``str``, ``bool``,
    ``tuple``, ``dict`` and classes by ``isinstance``; ``X | None`` admits None; ``object`` anything.
    A dataclass calls it from ``__post_init__`` so that a record built or ``dataclasses.replace``-d with a
    wrong type fails where it is made, not in a method later.
    """
    import dataclasses
    import types
    import typing

    owner = type(obj).__name__
    for f in dataclasses.fields(obj):
        value, kind = getattr(obj, f.name), f.type
        options = typing.get_args(kind) if isinstance(kind, types.UnionType) or typing.get_origin(kind) is \
            typing.Union else (kind,)
        errors = []
        for option in options:
            try:
                _conforms(f.name, value, option, owner)
                break
            except ValueError as err:
                errors.append(err)
        else:
            raise errors[0] if len(errors) == 1 else ValueError(
                f"{owner}: {f.name} must be {' or '.join(_describe(o) for o in options)}; got {short(value)}")


def _describe(kind):
    names = {float: "a finite number", int: "a whole number", str: "a string", bool: "True or False",
             type(None): "None", tuple: "a tuple", dict: "a dict"}
    return names.get(kind, f"a {getattr(kind, '__name__', kind)}")


def _conforms(name, value, kind, owner):
    import typing

    if kind is object or kind is typing.Any or isinstance(kind, str):
        return
    origin = typing.get_origin(kind) or kind
    if kind is type(None):
        ok = value is None
    elif kind is float:
        if isinstance(value, (bool, np.bool_)):
            ok = False
        elif isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
            ok = _finite_real(value)
        else:  # an array where the inputs were arrays
            try:
                arr = np.asarray(value, dtype=float)
                ok = arr.ndim > 0 and bool(np.isfinite(arr).all()) and np.asarray(value).dtype.kind in "iuf"
            except (TypeError, ValueError):
                ok = False
    elif kind is int:
        ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real) and _finite_real(value) \
            and float(value).is_integer()
    elif kind is bool:
        ok = isinstance(value, (bool, np.bool_))
    elif isinstance(origin, type):
        ok = isinstance(value, origin)
    else:
        return
    if not ok:
        raise ValueError(f"{owner}: {name} must be {_describe(kind)}; got {short(value)} of type "
                         f"{type(value).__name__}")


def _finite_real(value):
    try:
        return bool(np.isfinite(float(value)))
    except (OverflowError, TypeError, ValueError):
        return False


class naming:
    """A context in which a ValueError is made to name ``param``, the caller's parameter, where its message
    names another (a registry's "unknown hardware 'x'" for ``chip``).

    >>> with naming("chip"):
    ...     raise ValueError("unknown hardware 'H1000'")
    Traceback (most recent call last):
    ...
    ValueError: chip: unknown hardware 'H1000'
    """

    def __init__(self, param):
        self.param = param

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if kind is not None and issubclass(kind, ValueError) and not _names(str(err), self.param):
            raise ValueError(f"{self.param}: {err}") from None
        return False


def _names(message, param):
    import re

    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(param)}(?![A-Za-z0-9_])", message) is not None


def items(name, values, most, what="values"):
    """``values`` (any iterable but a string or a mapping) as a list, after checking it holds at most ``most``:
    only ``most + 1`` are read, so a range of a billion or an endless generator is refused at once.

    >>> items("marks", range(10**9), 64)
    Traceback (most recent call last):
    ...
    ValueError: marks must be a list of at most 64 values; got range(0, 1000000000)
    """
    import itertools
    from collections.abc import Mapping

    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a list of at most {most:,} {what}; got {short(values)}")
    out = list(itertools.islice(values, most + 1))
    if len(out) > most:
        raise ValueError(f"{name} must be a list of at most {most:,} {what}; got {short(values)}")
    return out
