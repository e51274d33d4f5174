"""API list prices in USD per million tokens, with their sources.

The table ships in ``data/api_prices.csv`` (a copy of the project's reference
table, sources and confidence flags kept). :func:`load` turns each row into one
:class:`Price` per model, tier and context; :func:`get` looks one up and
:func:`multiplier` divides two tiers' prices, e.g. a fast mode over standard.

How the text of the table is read:

* A plain number is a price: ``"25.00"`` is 25.0.
* A number followed by a remark keeps the number: ``"10.00 (inferred)"`` and
  ``"0.27 (miss)"`` are 10.0 and 0.27; the remark stays in :attr:`Price.raw`.
* A percentage is a change from the provider's standard price, kept in
  :attr:`Price.change` with no dollar price: ``"-50%"`` is ``change = -0.5``.
* ``" / "`` inside a price cell splits the row when the tier or the context has
  as many parts: tier ``"standard / fast"`` with input ``"4.00 / 8.00"`` is two
  prices, and so is context ``"prompt<=200k / >200k"`` with ``"2.00 / 4.00"``.
  Variants that each carry a label, like cache writes ``"6.25 (5m) / 10 (1h)"``,
  give the first (the 5-minute write).
* A model cell naming several models is split into one price per model: in
  ``"claude-opus-4.5 / 4.6 / 4.7"`` a bare ``4.6`` replaces the first name's last
  part (``claude-opus-4.6``), ``"claude-opus-4.8 / opus-5"`` gives
  ``claude-opus-5``, and a one-word suffix such as ``(V3.2)`` on the last name
  belongs to every name. A longer remark, ``"(deepseek-chat alias)"``, is left
  out of the name. Rows for ``"all"`` or ``"all paid models"`` have model ``"all"``.
* A source that reads ``"same"`` (or ``"same; ..."``) repeats the row above's.
* A tier answers to every name in its cell, parenthetical remarks and a trailing
  "mode" dropped: ``"fast mode (speed=fast)"`` is ``fast``, ``"batch / flex"`` is
  ``batch`` or ``flex``, and ``"priority (= 'Fast mode' since ...)"`` is
  ``priority`` or ``fast``.

>>> fast = get("Anthropic", "claude-opus-4.6", tier="fast")
>>> print(f"${fast.input_usd_per_mtok:.2f} in, ${fast.output_usd_per_mtok:.2f} out per million tokens")
$30.00 in, $150.00 out per million tokens
>>> print(f"{multiplier('Anthropic', 'claude-opus-4.6', 'fast'):.1f}x standard")
6.0x standard
>>> print(f"{get('Anthropic', 'all', tier='batch').change:+.0%}")
-50%
"""

import csv
import dataclasses
import re
from importlib import resources

from . import _check

COLUMNS = ("input", "cached_input", "cache_write", "output")  # price columns, USD per million tokens


@dataclasses.dataclass(frozen=True)
class Price:
    """One model's price in one tier and context, USD per million tokens (None where not published)."""

    provider: str
    model: str                 # one model; a row naming several gives one Price each
    tier: str                  # first name of the tier: standard, fast, batch, priority, long-context, ...
    context: str               # when the price applies, e.g. 'prompt>200k'; '' = always
    input_usd_per_mtok: float | None
    cached_input_usd_per_mtok: float | None
    cache_write_usd_per_mtok: float | None
    output_usd_per_mtok: float | None
    change: float | None       # fraction added to the standard price where the row gives a percentage (-0.5)
    tiers: tuple[str, ...]     # every name the tier answers to, e.g. ('priority', 'fast')
    as_of: str
    source: str
    confidence: str            # high, medium or low
    notes: str
    raw: tuple[tuple[str, str], ...]  # the CSV row as written, (column, text) pairs

    def usd_per_mtok(self, column="output"):
        """The price in ``column`` ('input', 'cached_input', 'cache_write' or 'output'), or None."""
        key = _check.choice("price column", column, {c: c for c in COLUMNS})
        return getattr(self, f"{key}_usd_per_mtok")

    def cell(self, name):
        """The CSV cell ``name`` as written, e.g. ``cell('input_usd_per_mtok')`` -> '10.00 (inferred)'."""
        return _check.choice("CSV column", name, dict(self.raw))


def _parts(text):
    return [p.strip() for p in text.split(" / ")] if text.strip() else [""]


def _labelled(parts):
    return len(parts) > 1 and all("(" in p for p in parts)


def _parse(text):
    """(usd, change) from one price cell."""
    text = text.strip()
    if not text:
        return None, None
    pct = re.fullmatch(r"([+-]\d+(?:\.\d+)?)%", text)
    if pct:
        return None, float(pct.group(1)) / 100
    num = re.match(r"\d+(?:\.\d+)?", text)
    if not num:
        raise ValueError(f"api_prices.csv: cannot read a price from {text!r}")
    return float(num.group()), None


def _tier_names(text):
    names = [m.lower() for m in re.findall(r"\(=\s*'([^']+)'", text)]
    bare = re.sub(r"\s*\([^)]*\)", "", text)
    names = [re.sub(r"\s+mode$", "", n.strip().lower()) for n in re.split(r"\s*/\s*", bare)] + names
    names = [re.sub(r"\s+mode$", "", n) for n in names if n]
    return tuple(dict.fromkeys(names))


def _model_names(text):
    if text.strip().lower() in ("all", "all paid models"):
        return ["all"]
    # a remark of several words is not part of the name: 'deepseek-v4-flash (deepseek-chat alias)'
    parts = [re.sub(r"\s*\([^)]*\s[^)]*\)$", "", p) for p in _parts(text)]
    suffix = re.search(r"\s*\((\S+)\)$", parts[-1])  # one word, '(V3.2)': belongs to every name listed
    if suffix and len(parts) > 1:
        parts[-1] = parts[-1][:suffix.start()]
        suffix = f" ({suffix.group(1)})"
    else:
        suffix = ""
    first = parts[0].split("-")
    names = [parts[0]]
    for p in parts[1:]:
        segs = p.split("-")
        if len(segs) == 1:                       # '4.6' or 'reasoner': replace the last part
            names.append("-".join(first[:-1] + segs))
        elif segs[0] in first[1:]:               # 'opus-5' after 'claude-opus-4.8'
            names.append("-".join(first[:first.index(segs[0])] + segs))
        else:                                    # a full name, 'gpt-5.1'
            names.append(p)
    return [n + suffix for n in names]


def _split(row):
    """The row's (tier text, context, {column: cell}) pieces, one per tier or context it lists."""
    cells = {c: _parts(row[f"{c}_usd_per_mtok"]) for c in COLUMNS}
    cells = {c: ([p[0]] if _labelled(p) else p) for c, p in cells.items()}
    n = max(len(p) for p in cells.values())
    tiers, contexts = _parts(row["tier"]), _parts(row["context_condition"])
    if n == 1:
        return [(row["tier"], row["context_condition"], {c: p[0] for c, p in cells.items()})]
    if len(tiers) == n:
        contexts = contexts * n if len(contexts) == 1 else None
    elif len(contexts) == n:
        tiers = tiers * n if len(tiers) == 1 else None
        head = re.match(r"[a-z ]*", contexts[0]).group()  # '>200k' after 'prompt<=200k' -> 'prompt>200k'
        contexts = [c if i == 0 or not c.startswith(("<", ">")) else head + c for i, c in enumerate(contexts)]
    else:
        tiers = None
    if tiers is None or contexts is None or any(len(p) not in (1, n) for p in cells.values()):
        raise ValueError(f"api_prices.csv: cannot split row {row['provider']} {row['model']!r}")
    return [(tiers[i], contexts[i], {c: p[i] if len(p) == n else p[0] for c, p in cells.items()}) for i in range(n)]


def load():
    """Every price in ``data/api_prices.csv``, one :class:`Price` per model, tier and context, in file order."""
    out, seen, source = [], set(), ""
    with resources.files(__package__).joinpath("data/api_prices.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            # a source "same" or "same; more" repeats the previous row's
            source = re.sub(r"^same\b", lambda _: source, row["source"]) if source else row["source"]
            for tier_text, context, cells in _split(row):
                parsed = {c: _parse(t) for c, t in cells.items()}
                changes = {ch for _, ch in parsed.values() if ch is not None}
                if len(changes) > 1:
                    raise ValueError(f"api_prices.csv: {row['provider']} {row['model']!r} lists different changes")
                tiers = _tier_names(tier_text)
                for model in _model_names(row["model"]):
                    price = Price(
                        provider=row["provider"], model=model, tier=tiers[0], context=context.strip(),
                        **{f"{c}_usd_per_mtok": parsed[c][0] for c in COLUMNS},
                        change=changes.pop() if changes else None, tiers=tiers, as_of=row["as_of"],
                        source=source, confidence=row["confidence"], notes=row["notes"],
                        raw=tuple(row.items()),
                    )
                    for name in tiers:
                        key = (price.provider, model, name, price.context)
                        if key in seen:
                            raise ValueError(f"api_prices.csv: two prices for {key}")
                        seen.add(key)
                    out.append(price)
    return tuple(out)


ROWS = load()


def providers():
    """Providers, in the order of the data file."""
    return list(dict.fromkeys(r.provider for r in ROWS))


def models(provider):
    """A provider's model names, in the order of the data file."""
    name = _check.choice("provider", provider, {p: p for p in providers()})
    return list(dict.fromkeys(r.model for r in ROWS if r.provider == name))


def get(provider, model, tier="standard", context=None):
    """The :class:`Price` of ``model`` from ``provider`` in ``tier``.

    Names forgive case and punctuation; an unknown one raises ``ValueError``
    listing close matches. Where a tier's price depends on the prompt (Gemini
    above 200K tokens), ``context`` picks one, e.g. ``"prompt>200k"`` or ``">200k"``.

    >>> get("OpenAI", "gpt-5.5", "fast").output_usd_per_mtok
    75.0
    >>> get("OpenAI", "gpt-5.5", "flash")
    Traceback (most recent call last):
    ...
    ValueError: unknown tier of gpt-5.5 'flash'; did you mean 'fast'? Accepted: 'standard', 'priority', 'fast'
    """
    prov = _check.choice("provider", provider, {p: p for p in providers()})
    name = _check.choice(f"{prov} model", model, {m: m for m in models(prov)})
    by_tier = {}
    for r in ROWS:
        if r.provider == prov and r.model == name:
            for t in r.tiers:
                by_tier.setdefault(t, []).append(r)
    matches = _check.choice(f"tier of {name}", tier, by_tier)
    if context is None:
        if len(matches) == 1:
            return matches[0]
        raise ValueError(f"{prov} {name} {tier}: the price depends on the prompt; context must be one of "
                         + ", ".join(repr(r.context) for r in matches))
    if not isinstance(context, str):
        raise ValueError(f"context must be a str; got {context!r} of type {type(context).__name__}")
    key = context.replace(" ", "").lower()
    found = [r for r in matches if r.context.replace(" ", "").lower().endswith(key) and key]
    if len(found) != 1:
        raise ValueError(f"{prov} {name} {tier}: no single price for context {context!r}; accepted: "
                         + ", ".join(repr(r.context) for r in matches))
    return found[0]


def multiplier(provider, model, tier, base_tier="standard", column="output", context=None, base_context=None):
    """Price in ``tier`` over price in ``base_tier``, for one price ``column``.

    ``context`` picks the tier's price where it depends on the prompt, and
    ``base_context`` the base tier's (default: the same as ``context``). A row that
    gives a percentage change (batch ``"-50%"``) returns ``1 + change`` against
    the standard tier.

    >>> print(f"{multiplier('Anthropic', 'claude-opus-4.8', 'fast'):.1f}")
    2.0
    >>> print(f"{multiplier('Anthropic', 'all', 'batch'):.1f}")
    0.5
    """
    key = _check.choice("price column", column, {c: c for c in COLUMNS})
    row = get(provider, model, tier, context)
    if row.change is not None:
        if _check.normalize(base_tier) != "standard":
            raise ValueError(f"base_tier must be 'standard' for {row.provider} {row.model} {row.tier}, "
                             f"which gives only a change from standard; got {base_tier!r}")
        return 1 + row.change
    base = get(provider, model, base_tier, context if base_context is None else base_context)
    top, bottom = row.usd_per_mtok(key), base.usd_per_mtok(key)
    if top is None or bottom is None:
        raise ValueError(f"{row.provider} {row.model}: no {key} price in tier {row.tier!r} or {base.tier!r}; "
                         f"column must be one with both, e.g. 'input' or 'output'")
    return top / bottom
