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
    return kind(float(text)) if text.strip() else None


class Registry:
    """The rows of one CSV file of the package, as objects with a ``key``, in file order.

    A row that cannot be read (a missing or extra column, text where a number belongs, a value its
    dataclass refuses) fails with the file, the row's line number and the reason.

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
    """

    def __init__(self, filename, make, kind, path=None):
        self.filename, self.kind = filename, kind
        self.table, self.aliases = {}, {}
        source = path if path is not None else resources.files(__package__).joinpath("data", filename)
        with source.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            for line, row in enumerate(reader, start=2):  # line 1 is the header
                try:
                    if None in row or None in row.values():
                        raise ValueError(f"{len(reader.fieldnames)} columns expected")
                    item = make(row)
                except KeyError as err:
                    raise ValueError(f"{filename}, row {line}: missing column {err}") from err
                except (ValueError, TypeError) as err:
                    raise ValueError(f"{filename}, row {line}: {err}") from err
                if item.key in self.table:
                    raise ValueError(f"{filename}: two rows named {item.key!r}")
                self.table[item.key] = item
                for alias in filter(None, (row.get("aliases") or "").split(";")):
                    self.aliases[alias.strip()] = item

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
