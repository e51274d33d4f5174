"""Reading the registries shipped in ``roofline/data/*.csv``."""

import csv
from importlib import resources


def number(text, kind=float):
    """A CSV cell as ``kind``, or None where the cell is empty (a number the source does not publish)."""
    return kind(float(text)) if text.strip() else None


def load(filename, make):
    """Build a registry from one CSV file of the package.

    ``make(row)`` turns a row (a dict) into an object with a ``key``. Returns the
    table keyed by ``key``, in file order, and the aliases that the optional
    ``aliases`` column lists (separated by ``;``), each mapped to its object.
    """
    table, aliases = {}, {}
    with resources.files(__package__).joinpath("data", filename).open(newline="") as fh:
        for row in csv.DictReader(fh):
            item = make(row)
            table[item.key] = item
            for alias in filter(None, row.get("aliases", "").split(";")):
                aliases[alias] = item
    return table, aliases
