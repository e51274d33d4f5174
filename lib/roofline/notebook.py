"""Helpers every chapter notebook uses: glue a value, glue the lecture's claims, build a deployment.

:func:`glue` speaks myst-nb's glue protocol itself (a test checks it sends exactly what
``myst_nb.glue`` sends), so neither the library nor a chapter's kernel imports ``myst_nb``, whose
glue module pulls in ``nbformat`` and ``jsonschema`` (0.15 s in every kernel).

>>> d = deploy("DeepSeek (lecture)", "GB200")
>>> print(d.n_chips_used, d.weight_precision, d.values["price"])
72 fp4 2.0
"""

import functools
import math
import sys
import time

from . import _check, hardware, lecture, models, registry
from .deployment import Deployment, deploy  # noqa: F401 (the chapters import deploy from here)

COLAB_CELL = '''\
# On Colab, or any kernel without this book's environment: install the
# companion library with what the chapter imports besides it (ipywidgets and
# anywidget for the live figures). Prints nothing where they are installed.
import importlib.util
needs = ("roofline", "ipywidgets", "anywidget")
if not all(importlib.util.find_spec(m) for m in needs):
    book = "git+https://github.com/llm-roofline/roofline-book"
    %pip install --quiet "roofline[notebooks] @ {book}"'''
"""The first, hidden cell of every chapter notebook (the tests check each notebook carries it verbatim)."""


_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))


def human(value, digits=3):
    """``value`` as a reader writes it: ``259T``, ``2.66M``, ``124B``; ``3.79 × 10²⁵`` beyond 10¹⁵, and
    ``4.4 × 10⁻¹⁶`` below 10⁻³ (but above 0).

    ``digits`` significant figures, trailing zeros dropped. Counts of tokens, parameters, FLOPs and
    hours read this way in prose, where ``2.59e+14`` would not; so do rounding errors and
    probabilities, where ``4.4e-16`` would not.

    >>> human(2.592e14), human(2.664e6), human(1.24e11), human(3.79e25), human(18.4)
    ('259T', '2.66M', '124B', '3.79 × 10²⁵', '18.4')
    >>> human(4.44e-16, 2), human(2.7e-5, 2), human(0.0012), human(0)
    ('4.4 × 10⁻¹⁶', '2.7 × 10⁻⁵', '0.0012', '0')
    """
    x = float(_check.scalar("value", value, "nonnegative", "human"))
    if not (isinstance(digits, int) and 1 <= digits <= 15):
        raise ValueError(f"digits must be an int from 1 to 15; got {_check.short(digits)}")
    if x >= 1e15 or 0 < x < 1e-3:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        return f"{float(mantissa):g} × 10{str(int(exponent)).translate(_check.SUPERSCRIPT)}"
    for scale, suffix in _SUFFIXES:
        if x >= scale:
            return f"{float(f'{x / scale:.{digits}g}'):g}{suffix}"
    return f"{float(f'{x:.{digits}g}'):g}"


GLUE_PREFIX = "application/papermill.record/"
"""The MIME prefix under which myst-nb finds a value glued without display."""


def glue(name, value, display=True):
    """Glue ``value`` under ``name`` for ``{glue:}`` in the book, as ``myst_nb.glue`` does.

    The value's display data go out with ``scrapbook`` metadata naming it; with ``display=False``
    each MIME type carries :data:`GLUE_PREFIX`, so the cell shows nothing and myst-nb still finds it.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str; got {_check.short(name)}")
    from IPython.core.formatters import format_display_data
    from IPython.display import display as ipy_display
    pub = _flush_only_pending()
    bundle, metadata = format_display_data(value)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=prefix)
    if pub is not None and not display:  # a record the page never shows: no printed text to keep ahead of it
        pub._roofline_hidden = True
    try:
        ipy_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)
    finally:
        if pub is not None:
            pub._roofline_hidden = False


def _waiting(stream):
    """Whether ``stream`` (ipykernel's ``OutStream``) may hold text its I/O thread has not yet queued to send: text
    marked as waiting (``_flush_pending``, which the I/O thread clears as a flush *starts*, before it queues the
    text), a flush still running on the I/O thread (counted by :func:`_watch`), or the moments after :func:`_watch`,
    while a flush timer set before it may still fire uncounted. Read in that order, so a flush that starts between
    the reads is seen. Anything else (a stream that is not ipykernel's): True."""
    return (getattr(stream, "_flush_pending", True) or getattr(stream, "_roofline_flushing", 1) > 0
            or time.monotonic() < getattr(stream, "_roofline_watched_until", math.inf))


def _watch(stream):
    """Count ``stream``'s flushes while they run (``_roofline_flushing``): ipykernel's I/O thread calls
    ``stream._flush``, which clears the waiting mark first and queues the text last."""
    flush_now = stream._flush

    def counted():
        stream._roofline_flushing += 1
        try:
            return flush_now()
        finally:
            stream._roofline_flushing -= 1

    # a timer set before now calls the uncounted flush: waited for, two flush intervals
    stream._roofline_watched_until = time.monotonic() + 2 * getattr(stream, "flush_interval", 0.2) + 0.1
    stream._roofline_flushing = 0
    stream._flush = counted


def _flush_streams(pub):
    # ipykernel's own: both streams flushed, each of which (an OutStream, patched first) waits only if text may wait
    if not getattr(pub, "_roofline_hidden", False):
        sys.stdout.flush()
        sys.stderr.flush()


def _flush_if_pending(stream, flush):
    if _waiting(stream) or getattr(stream, "_subprocess_flush_pending", False):
        flush()


def _flush_only_pending():
    """In an ipykernel kernel, have a display flush standard output and error only where text is waiting, and a
    hidden glue record (``display=False``) not at all, and have the streams' own flush skip the wait when they hold
    nothing; returns the kernel's display publisher, or None elsewhere.

    ipykernel flushes both streams before every display, each time waiting for its I/O thread (about half a
    millisecond), even when neither holds any text, and :func:`keep` prints a line after each record it glues, so
    every record waited for the line before it: a chapter glues hundreds (chapter 8: 0.3 s of its run). A visible
    display still goes out after every line printed before it. A hidden record may now go out ahead of printed
    text: the page shows nothing for it, and nbval and myst-nb read a cell's printed text as one stream however
    records fall between its lines.

    The kernel also flushes both streams twice at the end of every cell, four waits for the I/O thread whether or
    not anything was printed: about 0.5 ms of a cell's 2.7 ms (measured over 200 one-line cells), 30-50 ms of a
    chapter. A stream's flush now waits only where text may not yet be queued to send (:func:`_waiting`): marked as
    waiting, or taken by a flush of the I/O thread that has not yet queued it. Every message goes out through that
    one thread in the order queued, so a cell's idle message, queued after that wait, still follows all of its
    text. (Skipping on the mark alone lost a line: the I/O thread's timed flush clears the mark before it queues the
    text, and a cell that ended in between had its idle message sent first.) Elsewhere (a terminal, a test)
    nothing is changed."""
    from IPython import get_ipython

    pub = getattr(get_ipython(), "display_pub", None)
    if pub is None or getattr(pub, "_flush_streams", None) is None:
        return None
    for stream in (sys.stdout, sys.stderr):  # ipykernel's OutStream: it marks what waits to be sent
        if (hasattr(stream, "_flush_pending") and callable(getattr(stream, "_flush", None))
                and not getattr(stream, "_roofline_flush", False)):
            _watch(stream)
            stream.flush = functools.partial(_flush_if_pending, stream, stream.flush)
            stream._roofline_flush = True
    if not getattr(pub, "_roofline_flush", False):
        pub._flush_streams = functools.partial(_flush_streams, pub)
        pub._roofline_flush = True
    return pub


def _glue(name, value):
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
        print(f"{name} = {value} {unit}".rstrip())
        return
    try:
        number = float(value)  # sympy numbers and numpy scalars too
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name}: value must be a finite number or a str; got {_check.short(value)}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{name}: value must be a finite number; got {number}")
    _glue(name, number)
    print(f"{name} = {number:{fmt}} {unit}".rstrip())


class Table:
    """A small table that renders as HTML in the book and as aligned text in a terminal.

    ``rows`` are sequences of cells; ``formats`` (one per column, a format spec such as
    ``",.0f"`` or ``""``) turn numbers into text. Notebooks show tables this way so that
    nothing is printed wider than the book's text column.

    >>> print(repr(Table(["chip", "ratio"], [["H100", 295.3], ["GB200", 312.5]], ["", ".0f"])))
    chip   ratio
    H100     295
    GB200    312
    """

    def __init__(self, columns, rows, formats=None, caption=""):
        for name, value in (("columns", columns), ("rows", rows), ("formats", formats)):
            if value is not None and (isinstance(value, (str, bytes)) or not hasattr(value, "__iter__")):
                raise ValueError(f"{name} must be a list; got {_check.short(value)}")
        if not isinstance(caption, str):
            raise ValueError(f"caption must be a str; got {_check.short(caption)}")
        self.columns = [str(c) for c in _check.items("columns", columns, 100)]
        formats = _check.items("formats", formats, 100) if formats is not None else [""] * len(self.columns)
        if len(formats) != len(self.columns) or not all(isinstance(f, str) for f in formats):
            raise ValueError(f"formats must give one format (str) per column ({len(self.columns)}); "
                             f"got {_check.short(formats)}")
        self.rows = []
        for row in _check.items("rows", rows, 100_000):
            if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__"):
                raise ValueError(f"rows must be lists of cells; got a row {_check.short(row)}")
            row = list(row)
            if len(row) != len(self.columns):
                raise ValueError(f"each row must have {len(self.columns)} cells; got {_check.short(row)}")
            try:
                self.rows.append([c if isinstance(c, str) else _cell(c, f) for c, f in zip(row, formats)])
            except (TypeError, ValueError) as err:
                raise ValueError(f"rows: a cell of {_check.short(row)} does not take its column's format "
                                 f"({err})") from None
        self.numeric = [all(_looks_numeric(r[i]) for r in self.rows) for i in range(len(self.columns))]
        self.caption = caption

    def __repr__(self):
        widths = [max(len(c), *(len(r[i]) for r in self.rows)) if self.rows else len(c)
                  for i, c in enumerate(self.columns)]
        def line(cells):
            return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, self.numeric)).rstrip()
        return "\n".join(([self.caption] if self.caption else []) + [line(self.columns)]
                         + [line(r) for r in self.rows])

    def _repr_html_(self):
        import html
        def cells(tag, values):
            return "".join(f'<{tag} class="{"num" if n else "text"}">{html.escape(v)}</{tag}>'
                           for v, n in zip(values, self.numeric))
        cap = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        body = "".join(f"<tr>{cells('td', r)}</tr>" for r in self.rows)
        return (f'<table class="roofline-table">{cap}<thead><tr>{cells("th", self.columns)}</tr></thead>'
                f"<tbody>{body}</tbody></table>")


def _cell(value, fmt):
    """A number as text; infinity as the symbol (a balance that never comes, a batch that always fits)."""
    try:
        if value in (float("inf"), float("-inf")):
            return "\u221e" if value > 0 else "-\u221e"
    except TypeError:
        pass
    return format(value, fmt)


def _looks_numeric(text):
    t = text.replace(",", "").replace("%", "").replace("x", "").replace("×", "").strip()
    try:
        float(t)
        return True
    except ValueError:
        return t in ("inf", "-", "", "\u221e", "-\u221e")


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


