"""roofline.hf against real config.json files and the numbers their authors publish.

The configs are copies kept in ``tests/data/hf_configs`` (see the README there for where
each came from). Parameter counts follow the conventions in :mod:`roofline.hf`: the total
is the main model's stored weights; "active" leaves out the input embedding table.
"""

import json
import pathlib

import pytest

from roofline import Deployment, hardware, hf, models

CONFIGS = pathlib.Path(__file__).parent / "data" / "hf_configs"
REGISTRY_NAME = {"deepseek_v3": "DeepSeek-V3", "kimi_k2": "Kimi K2", "llama3_1_70b": "Llama 3.1 70B",
                 "qwen3_235b_a22b": "Qwen3-235B-A22B", "mixtral_8x7b": "Mixtral 8x7B",
                 "gpt_oss_120b": "gpt-oss-120b"}
# BF16 KV bytes per token: (every layer, layers whose cache grows with context)
PUBLISHED_KV = {"deepseek_v3": (70_272, 70_272), "kimi_k2": (70_272, 70_272),
                "llama3_1_70b": (327_680, 327_680), "qwen3_235b_a22b": (192_512, 192_512),
                "mixtral_8x7b": (131_072, 131_072), "gpt_oss_120b": (73_728, 36_864)}


def load(family):
    return hf.from_hf_config(CONFIGS / family / "config.json", name=REGISTRY_NAME[family])


def test_every_config_is_here():
    """One config per family, each with the model_type the loader dispatches on."""
    found = {p.parent.name: json.loads(p.read_text())["model_type"] for p in CONFIGS.glob("*/config.json")}
    assert set(found) == set(REGISTRY_NAME)
    assert set(found.values()) == set(hf.FAMILIES)


# -- KV bytes: config == registry == published -------------------------------------------------
@pytest.mark.parametrize("family", sorted(REGISTRY_NAME))
def test_kv_bytes_from_config_equal_registry_and_published(family):
    """KV bytes/token recomputed from config.json equal the registry's and the published figure
    (DeepSeek-V3 70,272; Llama 3.1 70B 327,680; Qwen3 192,512; Mixtral 131,072; gpt-oss 73,728
    nominal and 36,864 counting only its full-attention layers)."""
    m, reg = load(family), models.get(REGISTRY_NAME[family])
    nominal, long_context = PUBLISHED_KV[family]
    assert m.kv_bytes_per_token(long_context=False) == nominal == reg.kv_bytes_per_token(long_context=False)
    assert m.kv_bytes_per_token() == long_context == reg.kv_bytes_per_token()


@pytest.mark.parametrize("family", sorted(REGISTRY_NAME))
def test_architecture_fields_equal_registry(family):
    """Layers, heads, widths and expert counts read from config.json equal the registry's."""
    m, reg = load(family), models.get(REGISTRY_NAME[family])
    for field in ("layers", "attention", "n_kv_heads", "head_dim", "kv_lora_rank", "qk_rope_head_dim",
                  "full_attention_layers", "hidden_size", "n_q_heads", "routed_experts",
                  "active_routed_experts"):
        assert getattr(m, field) == getattr(reg, field), field
    assert (m.shared_experts or 0) == (reg.shared_experts or 0)


# -- parameter counts against published totals -------------------------------------------------
def test_deepseek_v3_params():
    """671B total / 37B active (DeepSeek-V3 README). README_WEIGHTS: 36.6B active *including* the 0.9B
    output head, so the input embedding is not counted as active; we count the same way, within 0.1%."""
    m = load("deepseek_v3")
    assert m.total_params == pytest.approx(671e9, rel=1e-3)
    assert m.active_params == pytest.approx(36.6e9, rel=1e-3)
    assert m.active_params == pytest.approx(37e9, rel=0.02)


def test_deepseek_v3_mtp_explains_685b():
    """The Hugging Face checkpoint is 685B: the 671B model plus the MTP module, 11.5B unique weights
    (README_WEIGHTS), which stores its own copies of the 0.93B embedding and output head.
    We leave the MTP module out of the total; counted here it lands within 1% of each figure."""
    counts = hf.count_params(CONFIGS / "deepseek_v3")
    embedding = counts.parts["embedding"][0]
    assert counts.mtp == pytest.approx(11.5e9, rel=0.01)
    assert counts.total + counts.mtp + 2 * embedding == pytest.approx(685e9, rel=0.005)


def test_kimi_k2_params():
    """Kimi K2: 1T total / 32B activated (Moonshot README), often quoted 1.04T / 32.6B. The DeepSeek-V3
    layout with 384 experts, 64 heads and a 160K vocabulary counts 1.026T (the FP8 checkpoint's tensor
    total is 1,026,470,731,056, scales included), within 2% of 1.04T; active is 31.7B without the input
    embedding and 32.9B with it, bracketing 32.6B."""
    m = load("kimi_k2")
    counts = hf.count_params(CONFIGS / "kimi_k2")
    assert m.total_params == pytest.approx(1.04e12, rel=0.02)
    assert m.total_params == pytest.approx(1_026_470_731_056, rel=1e-3)
    assert m.active_params < 32.6e9 < m.active_params + counts.parts["embedding"][0]


def test_llama_70b_params():
    """Llama 3.1 70B: 70.6B (Meta's 70,553,706,496 on Hugging Face); a dense model, all of it active
    except the 1.05B input embedding."""
    m = load("llama3_1_70b")
    assert m.total_params == 70_553_706_496
    assert m.total_params == pytest.approx(70.6e9, rel=1e-3)
    assert m.total_params - m.active_params == 128_256 * 8192


def test_mixtral_params():
    """Mixtral 8x7B: 46.7B total / 12.9B active (arXiv 2401.04088). Mistral's active figure includes the
    embedding table: 12.75B without it, 12.88B with it, within 0.5% of 12.9B."""
    m = load("mixtral_8x7b")
    embedding = hf.count_params(CONFIGS / "mixtral_8x7b").parts["embedding"][0]
    assert m.total_params == pytest.approx(46.7e9, rel=1e-3)
    assert m.active_params + embedding == pytest.approx(12.9e9, rel=0.005)
    assert m.active_params == pytest.approx(12.9e9, rel=0.02)


def test_qwen3_params():
    """Qwen3-235B-A22B: 235B total / 22B activated (Qwen model card). We count 235.1B; active is 21.6B
    without the input embedding and 22.2B with it, bracketing 22B."""
    m = load("qwen3_235b_a22b")
    embedding = hf.count_params(CONFIGS / "qwen3_235b_a22b").parts["embedding"][0]
    assert m.total_params == pytest.approx(235e9, rel=1e-3)
    assert m.active_params < 22e9 < m.active_params + embedding
    assert m.active_params == pytest.approx(22e9, rel=0.03)


def test_gpt_oss_params():
    """gpt-oss-120b: 116.83B total / 5.13B active (OpenAI model card, which also leaves out the embedding),
    biases and attention sinks included; within 0.1%."""
    m = load("gpt_oss_120b")
    assert m.total_params == pytest.approx(116.83e9, rel=1e-3)
    assert m.active_params == pytest.approx(5.13e9, rel=2e-3)


@pytest.mark.parametrize("family", sorted(REGISTRY_NAME))
def test_counts_agree_with_registry(family):
    """The registry's hand-entered totals agree with the count from config.json within 2%
    (Kimi K2's 1.04T is the loosest) and its active counts within 3% (rounded headline figures)."""
    m, reg = load(family), models.get(REGISTRY_NAME[family])
    assert m.total_params == pytest.approx(reg.total_params, rel=0.02)
    assert m.active_params == pytest.approx(reg.active_params, rel=0.03)


def test_parts_add_up():
    """total and active are the sums of the parts; the embedding is stored but not active."""
    counts = hf.count_params(CONFIGS / "deepseek_v3")
    assert counts.total == sum(s for s, _ in counts.parts.values())
    assert counts.active == sum(a for _, a in counts.parts.values())
    assert counts.parts["embedding"] == (129_280 * 7168, 0)
    assert counts.parts["routed_experts"][1] * 256 == counts.parts["routed_experts"][0] * 8


def test_hf_model_serves_like_the_registry_one():
    """A Model from config.json plugs into Deployment. Its balance batch is 1.1% above the registry's,
    which uses the rounded 37B active (we count 36.6B): within 2%."""
    gb200 = hardware.get("GB200")
    ours = Deployment(load("deepseek_v3"), gb200).balance_batch()
    theirs = Deployment(models.get("DeepSeek-V3"), gb200).balance_batch()
    assert ours == pytest.approx(theirs * 37 / 36.626, rel=1e-3)
    assert ours == pytest.approx(theirs, rel=0.02)


# -- paths, names and sliding windows ----------------------------------------------------------
def test_directory_and_default_name():
    """A directory holding config.json works; the default name is the directory's."""
    m = hf.from_hf_config(str(CONFIGS / "mixtral_8x7b"))
    assert m.key == "mixtral_8x7b" and m.confidence == "config"
    assert "config.json" in m.source


def test_gpt_oss_without_layer_types_alternates(tmp_path):
    """Without layer_types, gpt-oss's alternate sliding-window layers still give 18 full of 36."""
    config = json.loads((CONFIGS / "gpt_oss_120b" / "config.json").read_text())
    assert config["layer_types"].count("full_attention") == 18
    del config["layer_types"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert hf.from_hf_config(tmp_path).full_attention_layers == 18


def test_tied_embeddings_drop_the_head(tmp_path):
    """tie_word_embeddings removes the output head from both counts (Llama 3.2 1B/3B tie them)."""
    config = json.loads((CONFIGS / "llama3_1_70b" / "config.json").read_text())
    untied = hf.count_params(CONFIGS / "llama3_1_70b")
    config["tie_word_embeddings"] = True
    (tmp_path / "config.json").write_text(json.dumps(config))
    tied = hf.count_params(tmp_path)
    assert untied.total - tied.total == 128_256 * 8192
    assert untied.active - tied.active == 128_256 * 8192


# -- errors ------------------------------------------------------------------------------------
def write(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


def test_unknown_model_type_lists_families(tmp_path):
    """An unsupported model_type names itself, the file, and the supported families."""
    with pytest.raises(ValueError, match=r"'bert' is not supported.*'deepseek_v3'.*'gpt_oss'") as err:
        hf.from_hf_config(write(tmp_path, {"model_type": "bert"}))
    assert "config.json" in str(err.value)


def test_missing_model_type(tmp_path):
    """No model_type at all: the message names the key and lists the families."""
    with pytest.raises(ValueError, match=r"no key 'model_type'.*'llama'"):
        hf.from_hf_config(write(tmp_path, {"hidden_size": 8}))


def test_missing_key_is_named(tmp_path):
    """A DeepSeek config without kv_lora_rank fails naming that key, the file and the families."""
    config = json.loads((CONFIGS / "deepseek_v3" / "config.json").read_text())
    del config["kv_lora_rank"]
    with pytest.raises(ValueError, match=r"no key 'kv_lora_rank'.*'deepseek_v3'.*supported families"):
        hf.from_hf_config(write(tmp_path, config))


@pytest.mark.parametrize("bad", [0, -8, 2.5, "64", True, None])
def test_bad_value_is_named(tmp_path, bad):
    """A head count that is not a positive integer fails naming the key and the value."""
    config = json.loads((CONFIGS / "mixtral_8x7b" / "config.json").read_text())
    config["num_attention_heads"] = bad
    with pytest.raises(ValueError, match="num_attention_heads"):
        hf.from_hf_config(write(tmp_path, config))


def test_missing_file_and_bad_json(tmp_path):
    """A path with no config.json, or a file that is not JSON, is a ValueError naming it."""
    with pytest.raises(ValueError, match="does not exist"):
        hf.from_hf_config(tmp_path / "nowhere")
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        hf.from_hf_config(tmp_path)
    with pytest.raises(ValueError, match="path must be"):
        hf.from_hf_config(42)


def test_layer_types_must_match_layers(tmp_path):
    """layer_types with the wrong length is rejected rather than silently miscounted."""
    config = json.loads((CONFIGS / "gpt_oss_120b" / "config.json").read_text())
    config["layer_types"] = config["layer_types"][:-2]
    with pytest.raises(ValueError, match="layer_types"):
        hf.from_hf_config(write(tmp_path, config))


def test_bad_name(tmp_path):
    """name must be a non-empty string."""
    with pytest.raises(ValueError, match="name"):
        hf.from_hf_config(CONFIGS / "mixtral_8x7b", name="  ")
