"""The model registry: coverage, sources, KV bytes per token and parameter ratios.

KV bytes are computed from the architecture in :mod:`roofline.models`; the published
figures they are checked against are in ``shared/reference/models.csv``.
"""

import dataclasses

import pytest

from roofline import models

REQUIRED = ["DeepSeek-V3", "DeepSeek (lecture)", "Kimi K2", "Qwen3-235B-A22B", "gpt-oss-120b",
            "Llama 3.1 405B", "Llama 3.1 70B", "Mixtral 8x7B"]

# BF16 KV bytes per token of context, all full-attention layers (model cards / configs)
PUBLISHED_KV = {"DeepSeek-V3": 70_272, "Kimi K2": 70_272, "Llama 3.1 70B": 327_680,
                "Llama 3.1 405B": 516_096, "Qwen3-235B-A22B": 192_512, "Mixtral 8x7B": 131_072}


@pytest.mark.parametrize("name", REQUIRED)
def test_registry_has_the_models_the_book_uses(name):
    """Every model the chapters name is in the registry."""
    assert isinstance(models.get(name), models.Model)


@pytest.mark.parametrize("key", models.names())
def test_every_model_has_a_source_and_confidence(key):
    """Every entry says where its numbers come from (house style, rule 3)."""
    m = models.get(key)
    assert len(m.source) > 20
    assert m.confidence in ("high", "medium", "low", "lecture")
    assert 0 < m.active_params <= m.total_params


@pytest.mark.parametrize("name, kv", PUBLISHED_KV.items())
def test_kv_bytes_match_published(name, kv):
    """KV bytes/token from the architecture equal the published BF16 figure."""
    m = models.get(name)
    assert m.kv_bytes_per_token() == kv
    if m.kv_bytes_published is not None:
        assert m.kv_bytes_per_token() == m.kv_bytes_published


def test_deepseek_v3_mla_by_hand():
    """MLA caches the 512-wide latent and the 64-wide RoPE key: 61 x 576 x 2 B = 70,272 (V3 config.json)."""
    m = models.get("DeepSeek-V3")
    assert m.kv_bytes_per_token() == 61 * (512 + 64) * 2
    assert m.kv_bytes_per_token(bytes_per_elem=1) == 61 * 576   # an FP8 cache halves it


def test_mla_is_71x_smaller_than_mha():
    """Uncached-equivalent MHA would store 128 heads x (192 K + 128 V) per layer: 4,997,120 B, ~71x."""
    mha = 61 * 128 * (192 + 128) * 2
    assert mha == 4_997_120
    assert mha / models.get("DeepSeek-V3").kv_bytes_per_token() == pytest.approx(71.1, abs=0.05)


def test_llama_70b_gqa_by_hand():
    """GQA: 2 (K, V) x 80 layers x 8 KV heads x 128 dims x 2 B = 327,680 (Llama 3.1 70B config)."""
    assert models.get("Llama 3.1 70B").kv_bytes_per_token() == 2 * 80 * 8 * 128 * 2


def test_gpt_oss_sliding_window_halves_long_context_kv():
    """gpt-oss: 36 layers give 73,728 B nominally; only the 18 full-attention layers grow with context.
    The 18 window layers hold min(L, 128) tokens: at 4,096 tokens they add 18 x 2,048 B x 128 = 4.7 MB per
    sequence, 1,152 B per token, so the cache is 38,016 B per token, 3% above the long-context growth."""
    m = models.get("gpt-oss-120b")
    assert m.kv_bytes_per_layer() * m.layers == 73_728
    assert m.kv_bytes_per_token() == 36_864
    assert m.kv_bytes_per_token(len_ctx=4096) == 36_864 + 18 * 2048 * 128 / 4096
    assert m.kv_bytes_per_sequence(4096) == 4096 * 36_864 + 18 * 2048 * 128
    assert m.kv_bytes_per_token(len_ctx=64) == 73_728  # inside the window every layer grows


def test_deepseek_sparsity_real_and_lecture():
    """V3: 671B / 37B = 18.1 total over active; routes 8 of 256 experts (README). Lecture: 32 of 256 = 8."""
    v3, lecture = models.get("DeepSeek-V3"), models.get("lecture")
    assert v3.sparsity == pytest.approx(671 / 37)
    assert v3.expert_sparsity == 32
    assert lecture.expert_sparsity == 8
    assert lecture.total_params == 700e9 and lecture.active_params == 37e9   # 00:04:40


def test_dense_model_has_no_expert_sparsity():
    """A dense model (Llama) routes nothing: expert_sparsity is None and sparsity is 1."""
    m = models.get("Llama 3.1 405B")
    assert m.expert_sparsity is None
    assert m.sparsity == 1


def test_active_above_total_is_rejected():
    """A model cannot use more parameters per token than it stores."""
    m = models.get("Mixtral 8x7B")
    with pytest.raises(ValueError, match="active_params"):
        dataclasses.replace(m, active_params=2 * m.total_params)


def test_unknown_attention_is_rejected():
    """attention must be MHA, GQA or MLA."""
    with pytest.raises(ValueError, match="attention"):
        dataclasses.replace(models.get("Mixtral 8x7B"), attention="linear")


def test_mla_query_rank_is_the_configs_and_checked():
    """DeepSeek-V3 and Kimi K2 project queries through a 1,536-wide low rank (q_lora_rank in both config.json
    files); a GQA model has none. A rank that is not a positive integer fails naming the field."""
    assert models.get("DeepSeek-V3").q_lora_rank == models.get("Kimi K2").q_lora_rank == 1536
    assert models.get("Llama 3.1 70B").q_lora_rank is None
    for bad in (0, 1.5, "1536"):
        with pytest.raises(ValueError, match="q_lora_rank must be an integer"):
            dataclasses.replace(models.get("DeepSeek-V3"), q_lora_rank=bad)
