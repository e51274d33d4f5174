"""One registry class for every table the package ships: hardware, models, measurements, prices.

Each table is a CSV file in ``roofline/data/`` with a source for every row. A
:class:`Registry` reads one file, turns each row into a frozen dataclass, and
looks entries up by name, forgiving case and punctuation, accepting the aliases
of an optional ``aliases`` column (separated by ``;``), and listing the closest
names when nothing matches.

Precisions live here too, once: bytes per element of each number format the
registries and deployments name.

>>> PRECISIONS["fp4"]
0.5
>>> bytes_per_element("FP8")
1.0
"""

import csv
import re
from importlib import resources

from . import _check

PRECISIONS = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
"""Bytes per element of each number format, widest first.

FP4 is half a byte (00:18:09).
"""


def bytes_per_element(precision):
    """Bytes per element of ``precision`` ('fp4', 'fp8' or 'bf16'; case and punctuation forgiven)."""
    return _check.choice("precision", precision, PRECISIONS)


def precision_name(precision):
    """The canonical name of ``precision`` ('FP-8' -> 'fp8'); ValueError listing the accepted ones."""
    return _check.choice("precision", precision, {p: p for p in PRECISIONS})


def number(text, kind=float):
    """A CSV cell as ``kind``, or None where the cell is empty (a number the source does not publish)."""
    if not isinstance(text, str) or kind not in (float, int):
        raise ValueError(f"text must be a CSV cell (str) and kind float or int; got text={_check.short(text)}, "
                         f"kind={_check.short(kind)}")
    return kind(float(text)) if text.strip() else None


class _Row(dict):
    """A data row as ``{column: text}`` that remembers the columns read, the last one apart, so that a cell
    which cannot be converted is named by its column."""

    def __init__(self, cells):
        super().__init__(cells)
        self.read, self.last = set(), None

    def __getitem__(self, column):
        self.last = column
        self.read.add(column)
        return super().__getitem__(column)

    def get(self, column, default=None):
        self.read.add(column)
        return super().get(column, default)


def _cell_error(filename, line, column, message):
    return ValueError(f"{filename}, row {line}: column {column!r}: {message}")


def _check_text(filename, line, row):
    """Every cell of one row is UTF-8 text (a byte that is not was kept by ``surrogateescape``)."""
    for column, text in row.items():
        if any("\udc80" <= ch <= "\udcff" for ch in text):
            raise _cell_error(filename, line, column, f"{text.encode('utf-8', 'surrogateescape')!r} is not UTF-8 "
                              "text; the file must be UTF-8")


def _check_cells(filename, line, row, signed):
    """Every number of one row is finite and, unless its column is signed, not negative (wherever the cell is a
    number at all); the ``key`` is not empty."""
    for column, text in row.items():
        try:
            x = float(text)
        except ValueError:
            continue  # text: its make() decides whether a number belonged here
        if x != x or x in (float("inf"), float("-inf")):
            raise _cell_error(filename, line, column, f"{text!r} is not a finite number")
        if x < 0 and column not in signed:
            raise _cell_error(filename, line, column, f"{text!r} is negative; quantities here are >= 0")
    if "key" in row and not row["key"].strip():
        raise _cell_error(filename, line, "key", "the key must not be empty")


class Registry:
    """The rows of one CSV file of the package, as objects with a ``key``, in file order.

    Every row is checked as it is read, and one that cannot be (a missing or extra cell, a byte that is not
    UTF-8, text where a number belongs, a negative, NaN or infinite quantity, an empty key, a value its
    dataclass refuses) fails with the file, the row's line number and the column.

    Parameters
    ----------
    filename : str
        A file in ``roofline/data/``.
    make : callable
        Turns a row (a dict of strings) into an object with a ``key`` attribute.
    kind : str
        What an entry is ("hardware", "model", ...), for error messages.
    path : optional
        A path to read instead (a test's corrupt copy); errors still name ``filename`` and the row.
    signed : tuple of str
        Columns whose numbers may be negative (a price change); every other number must be >= 0.
    """

    def __init__(self, filename, make, kind, path=None, signed=()):
        if not isinstance(filename, str) or not isinstance(kind, str) or not callable(make):
            raise ValueError(f"Registry: filename and kind must be str and make a callable; got filename="
                             f"{_check.short(filename)}, make={_check.short(make)}, kind={_check.short(kind)}")
        if isinstance(signed, str) or not isinstance(signed, (tuple, list)) or not all(
                isinstance(c, str) for c in signed):
            raise ValueError(f"Registry: signed must be a tuple of column names; got {_check.short(signed)}")
        if path is not None and not hasattr(path, "open"):
            raise ValueError(f"Registry: path must be a pathlib.Path (or None); got {_check.short(path)}")
        self.filename, self.make, self.kind, self.signed = filename, make, kind, tuple(signed)
        self.table, self.aliases = {}, {}
        source = path if path is not None else resources.files(__package__).joinpath("data", filename)
        try:
            fh = source.open(newline="", encoding="utf-8", errors="surrogateescape")
        except OSError as err:
            raise ValueError(f"{filename}: cannot read it ({type(err).__name__}: {err}); path must name a readable "
                             "CSV file") from None
        with fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            if not header or len(set(header)) != len(header) or not all(h.strip() for h in header):
                raise ValueError(f"{filename}, row 1 (the header): column names must be present, non-empty and "
                                 f"distinct; got {header}")
            read = set()
            for line, cells in enumerate(reader, start=2):  # line 1 is the header
                if None in cells:
                    raise ValueError(f"{filename}, row {line}: {len(header)} columns expected, got "
                                     f"{len(header) + len(cells[None])}: extra values {cells[None]} after the last "
                                     f"column, {header[-1]!r}")
                missing = [c for c, v in cells.items() if v is None]
                if missing:
                    raise ValueError(f"{filename}, row {line}: {len(header)} columns expected, got "
                                     f"{len(header) - len(missing)}: no value for column {missing[0]!r}"
                                     + (f" and {len(missing) - 1} more" if len(missing) > 1 else ""))
                _check_text(filename, line, cells)
                row = _Row(cells)
                try:
                    item = make(row)
                except KeyError as err:
                    if err.args and err.args[0] not in header:
                        raise ValueError(f"{filename}, row {line}: missing column {err}; the header has "
                                         f"{', '.join(header)}") from err
                    raise _cell_error(filename, line, row.last, f"{type(err).__name__}: {err}") from err
                except (ValueError, TypeError) as err:
                    if re.match(r"could not convert|invalid literal", str(err)):
                        raise ValueError(f"{filename}, row {line}: {err} (column {row.last!r})") from err
                    try:  # a NaN, infinite or negative cell: name its column, beside the reason the row gave
                        _check_cells(filename, line, cells, self.signed)
                    except ValueError as cell:
                        raise ValueError(f"{cell} ({err})") from err
                    raise ValueError(f"{filename}, row {line}: {err}") from err
                except (ArithmeticError, AttributeError, IndexError) as err:
                    raise _cell_error(filename, line, row.last, f"{type(err).__name__}: {err}") from err
                _check_cells(filename, line, cells, self.signed)  # what the row's own checks let through
                if not isinstance(item.key, str) or not item.key.strip():
                    raise _cell_error(filename, line, "key", f"the key must be non-empty text; got {item.key!r}")
                if item.key in self.table:
                    raise ValueError(f"{filename}, row {line}: two rows named {item.key!r}")
                self.table[item.key] = item
                for alias in filter(None, (row.get("aliases") or "").split(";")):
                    self.aliases[alias.strip()] = item
                read |= row.read
        unread = [h for h in header if h not in read]
        if self.table and unread:  # a column no row is read from: misspelt, or data the library ignores
            raise ValueError(f"{filename}, row 1 (the header): column {unread[0]!r} is not one the {kind} rows "
                             f"read; columns read: {', '.join(h for h in header if h in read)}")

    def get(self, name):
        """The entry called ``name`` (case, spaces, dots and dashes ignored; aliases accepted)."""
        return _check.choice(self.kind, name, self.table, self.aliases)

    def names(self):
        """Entry names, in the order of the data file."""
        return list(self.table)

    def __iter__(self):
        return iter(self.table.values())

    def __len__(self):
        return len(self.table)

    def __contains__(self, name):
        try:
            self.get(name)
        except ValueError:
            return False
        return True

    def __repr__(self):
        return f"<Registry {self.kind}: {len(self)} entries from {self.filename}>"
