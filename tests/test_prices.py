"""API prices in :mod:`roofline.prices` against the reference tables they were copied from:
``shared/reference/README.md`` sections 3 and 3a and ``shared/reference/api_prices.csv`` (itself
compiled from the providers' pricing pages named in its ``source`` column).
"""

import csv
import dataclasses
from importlib import resources

import pytest

from roofline import _check, prices


def test_every_csv_row_gives_at_least_one_price_with_a_source():
    """Each of the CSV's rows is read (none dropped), and every price keeps its source and confidence."""
    with resources.files("roofline").joinpath("data/api_prices.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 37
    read = {tuple(p.raw) for p in prices.ROWS}
    assert read == {tuple(r.items()) for r in rows}
    for p in prices.ROWS:
        assert len(p.source) > 5 and p.confidence in ("high", "medium", "low"), (p.provider, p.model)


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


def test_slash_cells_split_by_context_or_tier():
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


def test_text_in_price_cells():
    """api_prices.csv: "10.00 (inferred)" reads as 10.0 with the remark kept; "0.27 (miss)" as 0.27;
    the cache write "6.25 (5m) / 10 (1h)" as the 5-minute 6.25."""
    long = prices.get("Anthropic", "claude-opus-4.6", "long-context")
    assert long.input_usd_per_mtok == 10.0 and long.cell("input_usd_per_mtok") == "10.00 (inferred)"
    assert long.confidence == "low"
    assert prices.get("DeepSeek", "deepseek-chat (V3)").input_usd_per_mtok == 0.27
    opus = prices.get("Anthropic", "claude-opus-4.6")
    assert opus.cache_write_usd_per_mtok == 6.25 and opus.cell("cache_write_usd_per_mtok") == "6.25 (5m) / 10 (1h)"
    assert opus.usd_per_mtok("cached_input") == 0.5


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
