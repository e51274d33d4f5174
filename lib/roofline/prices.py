"""API list prices in USD per million tokens, with their sources.

The table ships in ``data/api_prices.csv``, one price per row: a provider's
model, a tier (``standard``, ``fast``, ``batch``, ``priority``, ...), a context
in which the price applies (``prompt>200k``; empty where it always applies), a
kind of token (``input``, ``cached_input``, ``cache_write`` or ``output``) and
the price, each row with its own date (``as_of``), source and confidence. Other
names a tier answers to are in ``tier_aliases`` (OpenAI's ``priority`` is also
``fast``). Where a source gives a percentage instead of a price (batch APIs at
-50%), ``usd_per_mtok`` is empty and ``change`` holds the fraction, ``-0.5``.
Remarks on a price ("inferred", "cache-miss price") are in ``notes``.

Anthropic's cache writes come in two lifetimes: the 5-minute write is the
``cache_write`` price of its tier, and the 1-hour write is the ``cache_write``
price of the separate tier ``1h-cache``.

:data:`ROWS` groups the rows into one :class:`Price` per model, tier and
context; :func:`get` looks one up and :func:`multiplier` divides two tiers'
prices, e.g. a fast mode over standard.

>>> fast = get("Anthropic", "claude-opus-4.6", tier="fast")
>>> print(f"${fast.input_usd_per_mtok:.2f} in, ${fast.output_usd_per_mtok:.2f} out per million tokens")
$30.00 in, $150.00 out per million tokens
>>> print(f"{multiplier('Anthropic', 'claude-opus-4.6', 'fast'):.1f}x standard")
6.0x standard
>>> print(f"{get('Anthropic', 'all', tier='batch').change:+.0%}")
-50%
>>> get("Anthropic", "claude-opus-4.6", tier="1h-cache").cache_write_usd_per_mtok
10.0
"""

import dataclasses

from . import _check, registry

COLUMNS = ("input", "cached_input", "cache_write", "output")  # price columns, USD per million tokens


@dataclasses.dataclass(frozen=True)
class Entry:
    """One row of ``data/api_prices.csv``: one price of one kind of token."""

    key: str                   # e.g. 'Anthropic claude-opus-4.6 fast output'
    provider: str
    model: str
    tier: str
    tier_aliases: tuple[str, ...]
    context: str               # when the price applies, e.g. 'prompt>200k'; '' = always
    kind: str                  # one of COLUMNS
    usd_per_mtok: float | None  # None where the row gives only a change
    change: float | None       # fraction added to the standard price (-0.5), or None
    as_of: str
    source: str
    confidence: str
    notes: str

    def __post_init__(self):
        _check.record(self)  # every field's type


def _entry(row):
    entry = Entry(
        key=row["key"], provider=row["provider"], model=row["model"], tier=row["tier"],
        tier_aliases=tuple(a.strip() for a in row["tier_aliases"].split(";") if a.strip()),
        context=row["context"], kind=row["kind"], usd_per_mtok=registry.number(row["usd_per_mtok"]),
        change=registry.number(row["change"]), as_of=row["as_of"], source=row["source"],
        confidence=row["confidence"], notes=row["notes"],
    )
    if entry.kind not in COLUMNS or (entry.usd_per_mtok is None) == (entry.change is None):
        raise ValueError(f"api_prices.csv: {entry.key!r} needs a kind in {COLUMNS} and either a price or a change")
    return entry


ENTRIES = registry.Registry("api_prices.csv", _entry, "price", signed=("change",))  # a change may cut the price


@dataclasses.dataclass(frozen=True)
class Price:
    """One model's price in one tier and context, USD per million tokens (None where not published)."""

    provider: str
    model: str
    tier: str                  # first name of the tier: standard, fast, batch, priority, long-context, ...
    context: str               # when the price applies, e.g. 'prompt>200k'; '' = always
    input_usd_per_mtok: float | None
    cached_input_usd_per_mtok: float | None
    cache_write_usd_per_mtok: float | None
    output_usd_per_mtok: float | None
    change: float | None       # fraction added to the standard price where the source gives a percentage (-0.5)
    tiers: tuple[str, ...]     # every name the tier answers to, e.g. ('priority', 'fast')
    as_of: str
    source: str
    confidence: str            # high, medium or low
    notes: str                 # the rows' notes, each remark once

    def __post_init__(self):
        _check.record(self)  # every field's type

    def usd_per_mtok(self, column="output"):
        """The price in ``column`` ('input', 'cached_input', 'cache_write' or 'output'), or None."""
        key = _check.choice("price column", column, {c: c for c in COLUMNS})
        return getattr(self, f"{key}_usd_per_mtok")


def _group(entries):
    """One :class:`Price` per (provider, model, tier, context), in the order the rows first name them."""
    groups = {}
    for e in entries:
        groups.setdefault((e.provider, e.model, e.tier, e.context), []).append(e)
    out, seen = [], set()
    for (provider, model, tier, context), rows in groups.items():
        first = rows[0]
        for e in rows[1:]:
            for field in ("tier_aliases", "as_of", "source", "confidence"):
                if getattr(e, field) != getattr(first, field):
                    raise ValueError(f"api_prices.csv: {e.key!r} and {first.key!r} differ in {field}")
        kinds = [e.kind for e in rows]
        changes = {e.change for e in rows if e.change is not None}
        if len(set(kinds)) < len(kinds) or len(changes) > 1:
            raise ValueError(f"api_prices.csv: {provider} {model} {tier} {context!r}: two rows of one kind "
                             "or different changes")
        price = Price(
            provider=provider, model=model, tier=tier, context=context,
            **{f"{c}_usd_per_mtok": next((e.usd_per_mtok for e in rows if e.kind == c), None) for c in COLUMNS},
            change=changes.pop() if changes else None, tiers=(tier, *first.tier_aliases),
            as_of=first.as_of, source=first.source, confidence=first.confidence,
            notes="; ".join(dict.fromkeys(n for e in rows for n in e.notes.split("; ") if n)),
        )
        for name in price.tiers:
            if (provider, model, name, context) in seen:
                raise ValueError(f"api_prices.csv: two prices for {(provider, model, name, context)}")
            seen.add((provider, model, name, context))
        out.append(price)
    return tuple(out)


ROWS = _group(ENTRIES)
"""Every :class:`Price`, one per provider, model, tier and context, in the order of the data file."""


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
    ``base_context`` the base tier's (default: the same as ``context``). A price
    given as a percentage change (batch, -50%) returns ``1 + change`` against
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


# -- prompt caches: what the providers document ---------------------------------------------------
@dataclasses.dataclass(frozen=True)
class CachePolicy:
    """One provider's documented prompt cache, a row of ``data/cache_policies.csv``.

    ``medium`` is the memory the provider says holds the cache ('not stated' where it says none);
    ``ttl_min_s`` and ``ttl_max_s`` the retention it documents, as a range (None where it gives no
    bound); ``refresh_on_hit`` whether a read restarts the clock ('yes', 'no' or 'not stated').
    Prices are multiples of the model's input price (``price_model`` in :data:`ROWS`): a write,
    a read (hit), and a storage price per million tokens per hour where the provider bills one.

    >>> c = CACHES.get("Gemini explicit cache")
    >>> print(f"{c.breakeven_reuses(3600):.1f} reads in the hour pay for holding")
    2.5 reads in the hour pay for holding
    """

    key: str
    provider: str
    product: str
    price_model: str
    medium: str
    ttl_min_s: float | None
    ttl_max_s: float | None
    refresh_on_hit: str
    write_x_input: float
    read_x_input: float
    storage_usd_per_mtok_hour: float | None
    quote: str
    source: str
    date: str
    regime: str
    confidence: str
    notes: str

    def __post_init__(self):
        _check.required_text(repr(self.key), self, ("medium", "quote", "source", "date", "regime"))
        for name in ("ttl_min_s", "ttl_max_s", "storage_usd_per_mtok_hour"):
            if getattr(self, name) is not None:
                _check.scalar(name, getattr(self, name), "nonnegative", "CachePolicy")
        if self.ttl_min_s is not None and self.ttl_max_s is not None and self.ttl_min_s > self.ttl_max_s:
            raise ValueError(f"{self.key!r}: ttl_min_s {self.ttl_min_s} exceeds ttl_max_s {self.ttl_max_s}")
        _check.scalar("write_x_input", self.write_x_input, "positive", "CachePolicy")
        _check.scalar("read_x_input", self.read_x_input, "positive", "CachePolicy")
        if not 0 < self.read_x_input < 1:
            raise ValueError(f"{self.key!r}: read_x_input must be in (0, 1), a discount on input; "
                             f"got {self.read_x_input!r}")
        _check.choice("refresh_on_hit", self.refresh_on_hit, {v: v for v in ("yes", "no", "not stated")})
        _check.choice("confidence", self.confidence, {v: v for v in ("high", "medium", "low")})
        _check.record(self)  # every field's type

    @property
    def price(self):
        """The standard :class:`Price` its multiples refer to (the short-prompt tier where prices step)."""
        rows = [r for r in ROWS if r.provider == self.provider and r.model == self.price_model
                and r.tier == "standard" and (not r.context or "<=" in r.context)]
        if len(rows) != 1:
            raise ValueError(f"{self.key!r}: price_model {self.price_model!r} has {len(rows)} standard "
                             f"short-prompt prices in api_prices.csv; it needs one")
        return rows[0]

    def breakeven_reuses(self, hold_s):
        """Reads of a prefix, within ``hold_s`` seconds, at which caching it costs what sending it again does.

        At list prices, in units of the input price: a cached prefix costs the write, the storage over
        the hold and ``n`` reads, ``w + s t / p + n r``; uncached it costs ``1 + n`` full inputs. Equal
        at ``n = (w - 1 + s t / p) / (1 - r)``; any more reads and the cache is cheaper.
        """
        t = _check.check_value("hold_s", hold_s, "nonnegative", "breakeven_reuses")
        storage = (self.storage_usd_per_mtok_hour or 0.0) * t / 3600 / self.price.input_usd_per_mtok
        return (self.write_x_input - 1 + storage) / (1 - self.read_x_input)


def _cache_row(r):
    num = registry.number
    return CachePolicy(
        key=r["key"], provider=r["provider"], product=r["product"], price_model=r["price_model"],
        medium=r["medium"], ttl_min_s=num(r["ttl_min_s"]), ttl_max_s=num(r["ttl_max_s"]),
        refresh_on_hit=r["refresh_on_hit"], write_x_input=num(r["write_x_input"]),
        read_x_input=num(r["read_x_input"]), storage_usd_per_mtok_hour=num(r["storage_usd_per_mtok_hour"]),
        quote=r["quote"], source=r["source"], date=r["date"], regime=r["regime"], confidence=r["confidence"],
        notes=r["notes"])


CACHES = registry.Registry("cache_policies.csv", _cache_row, "cache policy")
"""The providers' documented prompt caches, each with its medium, retention, refresh, write, read and storage
prices."""


# -- published serving measurements beside the chapter's prices ----------------------------------
@dataclasses.dataclass(frozen=True)
class ServingMeasurement:
    """A published figure from a production serving system, a row of ``data/serving_measured.csv``.

    ``value`` (and ``value_hi`` where the source gives a range) in ``unit``, on ``gpus`` GPUs of
    ``hardware`` per node, with the regime it was measured in and its source and date.

    >>> m = SERVING.get("DeepSeek day-6 output throughput")
    >>> print(f"{m.value:,.0f} {m.unit} on {m.gpus} {m.hardware}s")
    14,800 tokens/s per node on 8 H800s
    """

    key: str
    quantity: str
    value: float
    value_hi: float | None
    unit: str
    hardware: str
    gpus: int
    regime: str
    source: str
    date: str
    confidence: str
    notes: str

    def __post_init__(self):
        _check.required_text(repr(self.key), self, ("quantity", "unit", "regime", "source", "date"))
        _check.scalar("value", self.value, "positive", "ServingMeasurement")
        if self.value_hi is not None:
            _check.scalar("value_hi", self.value_hi, "positive", "ServingMeasurement")
        if self.value_hi is not None and self.value_hi < self.value:
            raise ValueError(f"{self.key!r}: value_hi {self.value_hi} is below value {self.value}")
        _check.scalar("gpus", self.gpus, "positive", "ServingMeasurement")
        _check.choice("confidence", self.confidence, {v: v for v in ("high", "medium", "low")})
        _check.record(self)  # every field's type


def _serving_row(r):
    num = registry.number
    return ServingMeasurement(
        key=r["key"], quantity=r["quantity"], value=num(r["value"]), value_hi=num(r["value_hi"]),
        unit=r["unit"], hardware=r["hardware"], gpus=num(r["gpus"], int), regime=r["regime"],
        source=r["source"], date=r["date"], confidence=r["confidence"], notes=r["notes"])


SERVING = registry.Registry("serving_measured.csv", _serving_row, "serving measurement")
"""Published figures from production serving, DeepSeek's day-6 post among them, with throughput, per-user speed
and cache hits."""
