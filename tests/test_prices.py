"""API prices in :mod:`roofline.prices` against the reference tables they were copied from:
``shared/reference/README.md`` sections 3 and 3a and ``shared/reference/api_prices.csv`` (itself
compiled from the providers' pricing pages named in its ``source`` column).
"""

import csv
import io
import dataclasses
from importlib import resources

import pytest

from roofline import _check, prices


def _csv_rows():
    with resources.files("roofline").joinpath("data/api_prices.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_csv_is_one_price_per_row_with_date_and_source():
    """Every row of api_prices.csv is one price of one kind, dated and sourced, with a unique key;
    no cell packs several values (" / "), and every price is a plain number or a change."""
    rows = _csv_rows()
    assert list(rows[0]) == ["key", "provider", "model", "tier", "tier_aliases", "context", "kind",
                             "usd_per_mtok", "change", "as_of", "source", "confidence", "notes"]
    assert len(rows) == len(prices.ENTRIES) == 197
    assert len({r["key"] for r in rows}) == len(rows)
    for r in rows:
        assert r["as_of"].strip() and len(r["source"]) > 5 and r["source"] != "same", r["key"]
        assert r["confidence"] in ("high", "medium", "low"), r["key"]
        assert r["kind"] in prices.COLUMNS, r["key"]
        assert not any(" / " in v for v in r.values()), r["key"]
        assert r["tier"] == r["tier"].lower() and r["model"] not in ("all paid models",), r["key"]
        if r["usd_per_mtok"]:
            assert float(r["usd_per_mtok"]) >= 0 and not r["change"], r["key"]
        else:
            assert -1 < float(r["change"]) < 1, r["key"]


def test_every_price_groups_rows_and_keeps_a_source():
    """ROWS holds one Price per (provider, model, tier, context); each CSV row lands in exactly one."""
    groups = {(r["provider"], r["model"], r["tier"], r["context"]) for r in _csv_rows()}
    assert [(p.provider, p.model, p.tier, p.context) for p in prices.ROWS] == list(dict.fromkeys(
        (r["provider"], r["model"], r["tier"], r["context"]) for r in _csv_rows()))
    assert len(prices.ROWS) == len(groups)
    for p in prices.ROWS:
        assert len(p.source) > 5 and p.confidence in ("high", "medium", "low"), (p.provider, p.model)
        assert p.as_of, (p.provider, p.model)


def test_names_stay_distinct_after_normalizing():
    """Lookups ignore case and punctuation, so no two model names of one provider, and no two tier
    names of one model, may collide once normalized (one would hide the other)."""
    for provider in prices.providers():
        names = prices.models(provider)
        assert len({_check.normalize(n) for n in names}) == len(names), provider
        for model in names:
            tiers = {t for p in prices.ROWS if (p.provider, p.model) == (provider, model) for t in p.tiers}
            assert len({_check.normalize(t) for t in tiers}) == len(tiers), (provider, model)


def test_opus_4_6_fast_mode_is_six_times_standard():
    """README 3a: Anthropic fast mode for Opus 4.6 is $30 in / $150 out against $5 / $25, "6x standard
    Opus rates" (platform.claude.com fast-mode docs); cache read 3, write 37.50."""
    fast = prices.get("Anthropic", "claude-opus-4.6", tier="fast")
    std = prices.get("Anthropic", "claude-opus-4.6")
    assert (fast.input_usd_per_mtok, fast.output_usd_per_mtok) == (30.0, 150.0)
    assert (std.input_usd_per_mtok, std.output_usd_per_mtok) == (5.0, 25.0)
    assert (fast.cached_input_usd_per_mtok, fast.cache_write_usd_per_mtok) == (3.0, 37.5)
    for column in ("input", "cached_input", "cache_write", "output"):
        assert prices.multiplier("Anthropic", "claude-opus-4.6", "fast", column=column) == pytest.approx(6.0)


@pytest.mark.parametrize("model, factor", [("claude-opus-4.8", 2.0), ("claude-opus-5", 2.0),
                                           ("claude-opus-5.5", 2.0)])
def test_later_anthropic_fast_modes_are_twice_standard(model, factor):
    """README 3a: Opus 4.8 / 5 fast $10 / $50 over $5 / $25; Opus 5.5 fast $8 / $40 over $4 / $20."""
    for column in ("input", "output"):
        assert prices.multiplier("Anthropic", model, "fast", column=column) == pytest.approx(factor)


@pytest.mark.parametrize("model, factor, base_context", [("gpt-5", 2.0, None), ("gpt-5.1", 2.0, None),
                                                         ("gpt-5.2", 2.0, None), ("gpt-5.4", 2.0, "<=272k"),
                                                         ("gpt-5.5", 2.5, "<=272k")])
def test_openai_priority_is_fast_mode(model, factor, base_context):
    """README 3a: OpenAI priority processing, renamed Fast mode, is 2x standard for GPT-5 to 5.4 and 2.5x
    for GPT-5.5 (openai.com/api-fast-mode); 'priority' and 'fast' name the same price."""
    assert prices.get("OpenAI", model, "priority") is prices.get("OpenAI", model, "fast")
    got = prices.multiplier("OpenAI", model, "fast", base_context=base_context)
    assert got == pytest.approx(factor)


@pytest.mark.parametrize("provider", ["Google", "Anthropic", "OpenAI"])
def test_batch_apis_are_half_price(provider):
    """README 3a "slow / cheap analogues": Anthropic, OpenAI and Gemini batch APIs are -50%."""
    batch = prices.get(provider, "all", tier="batch")
    assert batch.change == -0.5 and batch.input_usd_per_mtok is None
    assert prices.multiplier(provider, "all", "batch") == 0.5


def test_openai_flex_is_batch():
    """api_prices.csv: OpenAI "batch / flex" is one -50% row; both names find it."""
    assert prices.get("OpenAI", "all", "flex") is prices.get("OpenAI", "all", "batch")


def test_rows_listing_several_models_give_one_price_each():
    """README 3: "Claude Opus 4.5 / 4.6 / 4.7 / 4.8 / 5" all cost $5 in / $25 out; "claude-opus-4.8 /
    opus-5" fast is both; DeepSeek V3.2 "deepseek-chat / reasoner" is both at $0.28 / $0.42."""
    for model in ("claude-opus-4.5", "claude-opus-4.6", "claude-opus-4.7", "claude-opus-4.8", "claude-opus-5"):
        p = prices.get("Anthropic", model)
        assert (p.input_usd_per_mtok, p.output_usd_per_mtok) == (5.0, 25.0), model
    assert prices.get("Anthropic", "claude-opus-5", "fast").output_usd_per_mtok == 50.0
    for model in ("deepseek-chat (V3.2)", "deepseek-reasoner (V3.2)"):
        p = prices.get("DeepSeek", model)
        assert (p.input_usd_per_mtok, p.output_usd_per_mtok) == (0.28, 0.42), model
    assert "deepseek-v4-flash" in prices.models("DeepSeek")


def test_prices_by_context_or_tier():
    """README 3: Gemini 3.1 Pro is $2 / $12 up to 200K prompt tokens and $4 / $18 above; DeepSeek V4-Flash
    peak is 2x off-peak (0.15 / 0.30 in, 0.60 / 1.20 out); Opus 5.5 standard / fast is $4 / $8 in."""
    short = prices.get("Google", "gemini-3.1-pro-preview", context="prompt<=200k")
    long = prices.get("Google", "gemini-3.1-pro-preview", context=">200k")
    assert (short.input_usd_per_mtok, short.output_usd_per_mtok) == (2.0, 12.0)
    assert (long.input_usd_per_mtok, long.output_usd_per_mtok) == (4.0, 18.0)
    assert long.context == "prompt>200k"
    assert prices.multiplier("DeepSeek", "deepseek-v4-flash", "peak", "off-peak") == pytest.approx(2.0)
    assert prices.get("Anthropic", "claude-opus-5.5", "standard").input_usd_per_mtok == 4.0
    assert prices.get("Anthropic", "claude-opus-5.5", "fast").input_usd_per_mtok == 8.0


def test_remarks_are_notes_not_part_of_prices():
    """api_prices.csv: the inferred Opus 4.6 >200k price is 10.0 with "inferred" in its notes; the
    DeepSeek V3 cache-miss input is 0.27; Anthropic's 5-minute cache write 6.25 is the standard
    cache_write and the 1-hour write, 10, is the tier "1h-cache"."""
    long = prices.get("Anthropic", "claude-opus-4.6", "long-context")
    assert long.input_usd_per_mtok == 10.0 and "input: inferred" in long.notes
    assert long.confidence == "low" and long.context == "prompt>200k"
    v3 = prices.get("DeepSeek", "deepseek-chat (V3)")
    assert v3.input_usd_per_mtok == 0.27 and "cache-miss" in v3.notes and v3.context == ""
    opus = prices.get("Anthropic", "claude-opus-4.6")
    assert opus.cache_write_usd_per_mtok == 6.25 and "5-minute" in opus.notes
    assert opus.usd_per_mtok("cached_input") == 0.5
    hour = prices.get("Anthropic", "claude-opus-4.6", "1h-cache")
    assert hour.cache_write_usd_per_mtok == 10.0 and hour.input_usd_per_mtok is None
    assert prices.multiplier("Anthropic", "claude-opus-4.6", "1h-cache", column="cache_write") == 1.6


@pytest.mark.parametrize("provider, model, tier, context, expected", [
    # README 3a: Opus 4.6 fast mode $30 in / $150 out, cache read 3, write 37.50
    ("Anthropic", "claude-opus-4.6", "fast", None, (30.0, 3.0, 37.5, 150.0)),
    # README 3: Opus 4.5 / 4.6 / 4.7 / 4.8 / 5: 5 / 0.50 / 6.25 (5 min) / 25
    ("Anthropic", "claude-opus-4.7", "standard", None, (5.0, 0.5, 6.25, 25.0)),
    # README 3: Opus 4 / 4.1: 15 / 1.50 / 18.75 (5 min) / 75
    ("Anthropic", "claude-opus-4.1", "standard", None, (15.0, 1.5, 18.75, 75.0)),
    # README 3: Sonnet 4 / 4.5 >200K (1M beta): 6 / 0.60 / 7.50 / 22.50
    ("Anthropic", "claude-sonnet-4.5", "long-context", None, (6.0, 0.6, 7.5, 22.5)),
    # README 3: Haiku 4.5: 1 / 0.10 / 1.25 / 5
    ("Anthropic", "claude-haiku-4.5", "standard", None, (1.0, 0.1, 1.25, 5.0)),
    # README 3: Gemini 2.5 Pro 1.25 / 0.125 / 10.00; >200K prompt 2.50 / 0.25 / 15.00
    ("Google", "gemini-2.5-pro", "standard", "<=200k", (1.25, 0.125, None, 10.0)),
    ("Google", "gemini-2.5-pro", "standard", ">200k", (2.5, 0.25, None, 15.0)),
    # README 3: GPT-5.5 5.00 / 0.50 / 30.00; >272K 10 / 1 / 45
    ("OpenAI", "gpt-5.5", "standard", "prompt>272k", (10.0, 1.0, None, 45.0)),
    # README 3: GPT-5 pro 15 / - / 120
    ("OpenAI", "gpt-5-pro", "standard", None, (15.0, None, None, 120.0)),
    # README 3: DeepSeek R1 0.55 / 0.14 / 2.19; V4-Pro 0.435 in / 0.87 out
    ("DeepSeek", "deepseek-reasoner (R1)", "standard", None, (0.55, 0.14, None, 2.19)),
    ("DeepSeek", "deepseek-v4-pro", "standard", None, (0.435, 0.003625, None, 0.87)),
])
def test_published_prices(provider, model, tier, context, expected):
    """Prices against shared/reference/README.md section 3 and 3a (USD per million tokens)."""
    p = prices.get(provider, model, tier, context)
    assert tuple(p.usd_per_mtok(c) for c in prices.COLUMNS) == expected


def test_multiplier_of_a_tier_over_itself_is_one():
    """Hand arithmetic: any price over itself is 1."""
    for p in prices.ROWS:
        if p.change is None and p.output_usd_per_mtok:
            got = prices.multiplier(p.provider, p.model, p.tier, p.tier, context=p.context or None)
            assert got == 1.0, (p.provider, p.model, p.tier)


def test_prices_are_frozen():
    """A Price is a frozen dataclass."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        prices.get("Anthropic", "claude-opus-4.6").output_usd_per_mtok = 1.0


@pytest.mark.parametrize("args, kwargs, message", [
    (("Antropic", "claude-opus-4.6"), {}, r"unknown provider 'Antropic'; did you mean 'Anthropic'"),
    (("Anthropic", "claude-opus-4.9"), {},
     r"unknown Anthropic model 'claude-opus-4.9'; did you mean .*'claude-opus-4.8'"),
    (("OpenAI", "gpt-5.5", "flash"), {}, r"unknown tier of gpt-5.5 'flash'; did you mean 'fast'"),
    (("Google", "gemini-2.5-pro"), {}, r"depends on the prompt; context must be one of 'prompt<=200k', 'prompt>200k'"),
    (("Google", "gemini-2.5-pro"), {"context": ">300k"}, r"no single price for context '>300k'"),
    (("Google", "gemini-2.5-pro"), {"context": 200_000}, r"context must be a str; got 200000"),
    (("Anthropic", 4.6), {}, r"Anthropic model must be a name \(str\); got 4.6"),
])
def test_bad_names_raise_with_close_matches(args, kwargs, message):
    """house style, rule 7: an unknown name is a ValueError naming it and listing close matches."""
    with pytest.raises(ValueError, match=message):
        prices.get(*args, **kwargs)


def test_bad_multiplier_arguments():
    """An unknown column, a non-standard base for a percentage row, or a column priced in neither
    tier is a ValueError that says what is accepted."""
    with pytest.raises(ValueError, match=r"unknown price column 'outptu'; did you mean 'output'"):
        prices.multiplier("Anthropic", "claude-opus-4.6", "fast", column="outptu")
    with pytest.raises(ValueError, match=r"base_tier must be 'standard'"):
        prices.multiplier("Anthropic", "all", "batch", base_tier="fast")
    with pytest.raises(ValueError, match=r"no cache_write price"):
        prices.multiplier("OpenAI", "gpt-5", "fast", column="cache_write")
    with pytest.raises(ValueError, match=r"unknown provider 'Mistral'"):
        prices.models("Mistral")


# -- the providers' documented prompt caches (cache_policies.csv) ---------------------------------
def test_cache_policies_load_with_a_source_and_a_regime_on_every_row():
    assert len(prices.CACHES) >= 7
    for c in prices.CACHES:
        assert c.source and c.date and c.regime and c.quote, c.key


def test_cache_read_and_write_multiples_agree_with_the_price_table():
    """The read multiple is the price table's hit price over its input price; Anthropic's write multiples are its
    5-minute and 1-hour write prices over input (6.25 / 5 and 10 / 5)."""
    for c in prices.CACHES:
        p = c.price
        assert c.read_x_input == pytest.approx(p.cached_input_usd_per_mtok / p.input_usd_per_mtok), c.key
    assert prices.CACHES.get("Anthropic 5-minute cache").write_x_input == pytest.approx(6.25 / 5)
    assert prices.CACHES.get("Anthropic 1-hour cache").write_x_input == pytest.approx(10 / 5)


def test_breakeven_reuses_by_hand():
    """Gemini 3.1 Pro: storage $4.50 per M tokens per hour over input $2.00 = 2.25 inputs an hour; with reads at 0.1
    of input, 2.25 / 0.9 = 2.5 reads in the hour. Anthropic's hour: (2 - 1) / 0.9. No write fee, no storage: 0."""
    assert prices.CACHES.get("Gemini explicit cache").breakeven_reuses(3600) == pytest.approx(2.5)
    assert prices.CACHES.get("Gemini explicit cache").breakeven_reuses(1800) == pytest.approx(1.25)
    assert prices.CACHES.get("Anthropic 1-hour cache").breakeven_reuses(3600) == pytest.approx(1 / 0.9)
    assert prices.CACHES.get("DeepSeek disk cache").breakeven_reuses(86400) == 0
    with pytest.raises(ValueError, match="hold_s"):
        prices.CACHES.get("DeepSeek disk cache").breakeven_reuses(-1)


def test_a_corrupt_cache_row_names_the_file_and_the_row(tmp_path):
    """A copy of cache_policies.csv with text for a number, a read dearer than input, an empty source and a short
    row: each fails with the file name and the row's line."""
    from roofline import registry

    text = resources.files("roofline").joinpath("data", "cache_policies.csv").read_text(encoding="utf-8")
    header, *rows = list(csv.reader(text.splitlines()))
    first = dict(zip(header, rows[0]))

    def line(**change):
        out = io.StringIO()
        csv.writer(out).writerow([(first | change)[h] for h in header])
        return out.getvalue().strip()

    for bad, match in ((line(ttl_min_s="long"), "row 2: could not convert"),
                       (line(read_x_input="1.5"), "row 2: .*read_x_input must be in"),
                       (line(source=""), "row 2: .*source must not be empty"),
                       (",".join(rows[0][:5]), "row 2: 17 columns expected")):
        path = tmp_path / "cache_policies.csv"
        path.write_text(",".join(header) + "\n" + bad + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"cache_policies.csv, {match}"):
            registry.Registry("cache_policies.csv", prices._cache_row, "cache policy", path=path)


# -- published serving measurements (serving_measured.csv) ---------------------------------------
def test_serving_measurements_against_the_reference_table():
    """shared/reference/README.md's production row for DeepSeek (day-6 post): 14.8k output tokens/s per
    8-GPU H800 node, 20-22 tokens/s per user, 56.3% of input tokens from the cache."""
    out = prices.SERVING.get("DeepSeek day-6 output throughput")
    assert (out.value, out.gpus, out.hardware) == (14800, 8, "H800")
    user = prices.SERVING.get("DeepSeek day-6 per-user speed")
    assert (user.value, user.value_hi) == (20, 22)
    assert prices.SERVING.get("DeepSeek day-6 cache-hit rate").value == 0.563
    for m in prices.SERVING:
        assert m.source and m.regime and m.date, m.key
    # at $2 per GPU-hour, 8 GPUs for 14,800 tokens/s: 16 / 53.28M tokens = $0.30 per million
    assert 8 * 2 / (out.value * 3600) * 1e6 == pytest.approx(0.3003, abs=1e-4)


def test_a_corrupt_serving_row_names_the_file_and_the_row(tmp_path):
    """A copy of serving_measured.csv with text for a number, a range upside down, an empty source and a
    short row: each fails with the file name and the row's line."""
    from roofline import registry

    text = resources.files("roofline").joinpath("data", "serving_measured.csv").read_text(encoding="utf-8")
    header, *rows = list(csv.reader(text.splitlines()))
    first = dict(zip(header, rows[0]))

    def line(**change):
        out = io.StringIO()
        csv.writer(out).writerow([(first | change)[h] for h in header])
        return out.getvalue().strip()

    for bad, match in ((line(value="many"), "row 2: could not convert"),
                       (line(value_hi="10"), "row 2: .*value_hi 10.0 is below value"),
                       (line(source=""), "row 2: .*source must not be empty"),
                       (",".join(rows[0][:5]), "row 2: 12 columns expected")):
        path = tmp_path / "serving_measured.csv"
        path.write_text(",".join(header) + "\n" + bad + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=f"serving_measured.csv, {match}"):
            registry.Registry("serving_measured.csv", prices._serving_row, "serving measurement", path=path)
