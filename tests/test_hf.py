"""roofline.hf against real config.json files and the numbers their authors publish.

The configs are copies kept in ``tests/data/hf_configs`` (see the README there for where
each came from). Parameter counts follow the conventions in :mod:`roofline.hf`: the total
is the main model's stored weights; "active" leaves out the input embedding table.
"""

import json
import pathlib
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert m.kv_bytes_per_layer() * m.layers == nominal == reg.kv_bytes_per_layer() * reg.layers
    assert m.kv_bytes_per_token() == long_context == reg.kv_bytes_per_token()


@pytest.mark.parametrize("family", sorted(REGISTRY_NAME))
def test_architecture_fields_equal_registry(family):
    """Layers, heads, widths and expert counts read from config.json equal the registry's."""
    m, reg = load(family), models.get(REGISTRY_NAME[family])
    for field in ("layers", "attention", "n_kv_heads", "head_dim", "kv_lora_rank", "qk_rope_head_dim", "q_lora_rank",
                  "full_attention_layers", "hidden_size", "n_q_heads", "routed_experts",
                  "active_routed_experts", "moe_ffn_dim", "dense_ffn_dim", "dense_layers", "vocab",
                  "sliding_window"):
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


def test_gpt_oss_defaults_are_transformers(tmp_path):
    """gpt-oss without head_dim gets GptOssConfig's 64 (not 2880 // 64 = 45), and has its attention biases
    whatever attention_bias says (GptOssConfig sets it to True): the same counts as the shipped file."""
    config = json.loads((CONFIGS / "gpt_oss_120b" / "config.json").read_text())
    assert config["head_dim"] == 64 and config["hidden_size"] // config["num_attention_heads"] == 45
    shipped = hf.count_params(CONFIGS / "gpt_oss_120b")
    for changed in ({k: v for k, v in config.items() if k != "head_dim"}, config | {"head_dim": None},
                    config | {"attention_bias": False}, {k: v for k, v in config.items() if k != "attention_bias"}):
        (tmp_path / "config.json").write_text(json.dumps(changed))
        assert hf.count_params(tmp_path) == shipped
        assert hf.from_hf_config(tmp_path).head_dim == 64


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


# -- layers in closed form ---------------------------------------------------------------------
def config_of(family):
    return json.loads((CONFIGS / family / "config.json").read_text())


def reference_parts(config):
    """The per-layer loop the closed form replaced, kept as the test's oracle (small layer counts only)."""
    family, layers = config["model_type"], config["num_hidden_layers"]

    def is_moe(layer):
        if family in ("deepseek_v3", "kimi_k2"):
            return layer >= config.get("first_k_dense_replace", 0) and layer % config.get("moe_layer_freq", 1) == 0
        if family == "qwen3_moe":
            return (layer not in config.get("mlp_only_layers", [])
                    and (layer + 1) % config.get("decoder_sparse_step", 1) == 0)
        return family != "llama"
    return sum(map(is_moe, range(layers))), sum(not is_moe(i) for i in range(layers))


def split_against_the_loop(tmp_path, config, routed, top_k, expert, ffn):
    """Routed-expert weights are (MoE layers) x one layer's and the dense FFN (dense layers) x one layer's,
    with the layer split taken from the loop above; returns (moe, dense, parts)."""
    moe, dense = reference_parts(config)
    parts = hf.count_params(write(tmp_path, config)).parts
    assert parts.get("routed_experts", (0, 0)) == (moe * routed * expert, moe * top_k * expert)
    assert parts.get("dense_ffn", (0, 0)) == (dense * ffn,) * 2
    return moe, dense, parts


@pytest.mark.parametrize("first_k, freq", [(0, 1), (3, 1), (1, 2), (2, 3), (5, 4), (40, 1), (0, 7)])
@pytest.mark.parametrize("layers", [1, 2, 3, 7, 12, 13])
def test_deepseek_dense_and_moe_layers_match_the_loop(tmp_path, first_k, freq, layers):
    """first_k_dense_replace and moe_layer_freq, counted in closed form, give what a loop over layers
    gives: the routed-expert weights are (MoE layers) x one layer's, the dense FFN (dense layers) x."""
    config = config_of("deepseek_v3") | {"first_k_dense_replace": first_k, "moe_layer_freq": freq,
                                         "num_hidden_layers": layers}
    moe, dense, parts = split_against_the_loop(tmp_path, config, 256, 8, 3 * 7168 * 2048, 3 * 7168 * 18432)
    assert ("routed_experts" in parts) == (moe > 0) and ("dense_ffn" in parts) == (dense > 0)


@pytest.mark.parametrize("step, only", [(1, []), (1, [0, 5]), (2, []), (2, [1, 1, 2, 99, -1]),
                                        (3, [2, 5, 8, 10**30]), (4, list(range(20)))])
@pytest.mark.parametrize("layers", [1, 4, 9, 12])
def test_qwen3_sparse_step_and_mlp_only_layers_match_the_loop(tmp_path, step, only, layers):
    """decoder_sparse_step and mlp_only_layers (duplicates, out-of-range members ignored) in closed form."""
    config = config_of("qwen3_235b_a22b") | {"decoder_sparse_step": step, "mlp_only_layers": only,
                                             "num_hidden_layers": layers}
    split_against_the_loop(tmp_path, config, 128, 8, 3 * 4096 * 1536, 3 * 4096 * 12288)


@pytest.mark.parametrize("family", sorted(REGISTRY_NAME))
@pytest.mark.parametrize("layers", [10**9, 10**15])
def test_a_billion_layers_count_promptly(tmp_path, family, layers):
    """A config with 10**9 or 10**15 layers is counted in well under a second (no loop over layers),
    and each extra layer adds exactly what one layer of the real model adds."""
    config = config_of(family)
    config.pop("layer_types", None)
    ref = config | {"num_hidden_layers": 100}
    small = hf.count_params(write(tmp_path, ref))
    ref["num_hidden_layers"] = 101
    per_layer = hf.count_params(write(tmp_path, ref)).total - small.total
    config["num_hidden_layers"] = layers
    start = time.perf_counter()
    m = hf.from_hf_config(write(tmp_path, config), name="huge")
    counts = hf.count_params(tmp_path)
    assert time.perf_counter() - start < 0.5
    assert m.layers == layers
    assert counts.total == small.total + (layers - 100) * per_layer
    assert m.total_params == float(counts.total)


def test_layer_types_length_checked_before_reading(tmp_path):
    """layer_types shorter than a huge num_hidden_layers is rejected at once, naming both keys."""
    config = config_of("gpt_oss_120b") | {"num_hidden_layers": 10**15}
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"layer_types.*num_hidden_layers = 1000000000000000.*has 36"):
        hf.from_hf_config(write(tmp_path, config))
    assert time.perf_counter() - start < 0.5


# -- malformed fields --------------------------------------------------------------------------
BAD_FIELDS = [  # (fixture, key, value, what the message must say)
    ("llama3_1_70b", "model_type", ["llama"], r"model_type must be a string.*supported families"),
    ("llama3_1_70b", "model_type", {"a": 1}, r"model_type must be a string"),
    ("llama3_1_70b", "hidden_size", [4096], r"hidden_size must be an integer in \[1, 2\*\*53\]"),
    ("mixtral_8x7b", "num_attention_heads", {"a": 1}, r"num_attention_heads must be an integer in \[1, 2\*\*53\]"),
    ("llama3_1_70b", "hidden_size", "4096", r"hidden_size must be an integer.*of type str"),
    ("llama3_1_70b", "hidden_size", 4096.0, r"hidden_size must be an integer.*without a decimal point.*4096\.0"),
    ("llama3_1_70b", "hidden_size", 4096.5, r"hidden_size must be an integer"),
    ("llama3_1_70b", "num_hidden_layers", True, r"num_hidden_layers must be an integer.*of type bool"),
    ("llama3_1_70b", "hidden_size", 0, r"hidden_size must be an integer in \[1, 2\*\*53\].*; got 0 of type int"),
    ("llama3_1_70b", "vocab_size", -5, r"vocab_size must be an integer in \[1, 2\*\*53\].*; got -5 of type int"),
    ("llama3_1_70b", "hidden_size", 10**400, r"hidden_size must be an integer in \[1, 2\*\*53\]"),
    ("llama3_1_70b", "num_hidden_layers", 2**53 + 1, r"num_hidden_layers must be an integer in \[1, 2\*\*53\]"),
    ("deepseek_v3", "first_k_dense_replace", -1, r"first_k_dense_replace must be an integer in \[0, 2\*\*53\]"),
    ("deepseek_v3", "kv_lora_rank", None, r"kv_lora_rank must be an integer.*got None"),
    ("deepseek_v3", "topk_method", 3, r"topk_method must be a string"),
    ("deepseek_v3", "n_shared_experts", 1.5, r"n_shared_experts must be an integer in \[0, 2\*\*53\]"),
    ("qwen3_235b_a22b", "mlp_only_layers", "0,1", r"mlp_only_layers must be a list of integers"),
    ("qwen3_235b_a22b", "mlp_only_layers", [0, 1.0], r"mlp_only_layers must be a list of integers"),
    ("qwen3_235b_a22b", "mlp_only_layers", [True], r"mlp_only_layers must be a list of integers"),
    ("gpt_oss_120b", "layer_types", "full_attention", r"layer_types must be a list of strings"),
    ("gpt_oss_120b", "layer_types", [1] * 36, r"layer_types entries must be one of 'full_attention'"),
    ("gpt_oss_120b", "layer_types", ["full"] * 36, r"layer_types entries must be one of"),
    ("llama3_1_70b", "tie_word_embeddings", 0, r"tie_word_embeddings must be true or false"),
    ("llama3_1_70b", "tie_word_embeddings", "false", r"tie_word_embeddings must be true or false"),
    ("llama3_1_70b", "attention_bias", [], r"attention_bias must be true or false"),
    ("llama3_1_70b", "_name_or_path", ["x"], r"_name_or_path must be a string"),
    ("mixtral_8x7b", "num_experts_per_tok", 9, r"num_experts_per_tok \(9\) must not exceed num_local_experts \(8\)"),
    ("deepseek_v3", "num_experts_per_tok", 257, r"num_experts_per_tok \(257\) must not exceed n_routed_experts"),
    ("qwen3_235b_a22b", "num_experts_per_tok", 129, r"num_experts_per_tok.*must not exceed num_experts"),
    ("llama3_1_70b", "num_key_value_heads", 7, r"num_attention_heads \(64\) must be a multiple of num_key_value_heads"),
]


@pytest.mark.parametrize("family, key, value, message", BAD_FIELDS,
                         ids=[f"{k}={str(v)[:12]}" for _, k, v, _ in BAD_FIELDS])
def test_malformed_field_names_file_and_key(tmp_path, family, key, value, message):
    """Each malformed field is a ValueError naming the file, the key and what is accepted."""
    config = config_of(family) | {key: value}
    with pytest.raises(ValueError, match=message) as err:
        hf.from_hf_config(write(tmp_path, config))
    assert str(tmp_path / "config.json") in str(err.value)
    assert len(str(err.value)) < 2000


def test_mtp_only_model_checks_experts_too(tmp_path):
    """num_experts_per_tok is checked against the experts even when every layer is dense."""
    config = config_of("deepseek_v3") | {"first_k_dense_replace": 61, "num_experts_per_tok": 300}
    with pytest.raises(ValueError, match="num_experts_per_tok.*n_routed_experts"):
        hf.count_params(write(tmp_path, config))


def test_null_means_default_where_there_is_one(tmp_path):
    """null stands for an absent key that has a default (as transformers reads it): no head_dim means
    hidden_size / heads, no num_key_value_heads means MHA, no q_lora_rank a full-rank query."""
    config = config_of("llama3_1_70b") | {"head_dim": None, "num_key_value_heads": None}
    m = hf.from_hf_config(write(tmp_path, config), name="x")
    assert (m.attention, m.n_kv_heads, m.head_dim) == ("MHA", 64, 128)
    deepseek = config_of("deepseek_v3")
    full_rank = hf.count_params(write(tmp_path, deepseek | {"q_lora_rank": None})).parts["attention"][0]
    assert full_rank == 61 * (7168 * 128 * 192 + 7168 * 576 + 512 + 512 * 128 * 256 + 128 * 128 * 7168)


def test_head_dim_need_not_match_hidden_size(tmp_path):
    """head_dim x heads may differ from hidden_size (Qwen3-235B: 64 x 128 = 8192 against 4096)."""
    m = hf.from_hf_config(write(tmp_path, config_of("llama3_1_70b") | {"head_dim": 96}), name="x")
    assert m.head_dim == 96 and m.head_dim * m.n_q_heads != m.hidden_size
    assert load("qwen3_235b_a22b").head_dim * 64 == 2 * 4096


def test_heads_wider_than_hidden_without_head_dim(tmp_path):
    """hidden_size // heads of 0 cannot be a head width: the message asks for head_dim."""
    config = config_of("llama3_1_70b") | {"hidden_size": 32}
    with pytest.raises(ValueError, match=r"hidden_size \(32\).*num_attention_heads \(64\).*head_dim"):
        hf.from_hf_config(write(tmp_path, config))


# -- unusable paths and files ------------------------------------------------------------------
def test_over_long_path(tmp_path):
    """A 10**5-character path is a ValueError (not OSError: File name too long), quoted short."""
    with pytest.raises(ValueError, match=r"cannot read .*config\.json or a directory") as err:
        hf.from_hf_config(str(tmp_path / ("a" * 10**5)))
    assert len(str(err.value)) < 1000
    with pytest.raises(ValueError, match="path"):
        hf.load_config("a/" * 5 * 10**4)


def test_directory_without_config(tmp_path):
    """A directory holding no config.json says so, naming the directory."""
    with pytest.raises(ValueError, match=r"is a directory without a config\.json") as err:
        hf.from_hf_config(tmp_path)
    assert str(tmp_path) in str(err.value)
    (tmp_path / "config.json").mkdir()
    with pytest.raises(ValueError, match="config.json"):
        hf.from_hf_config(tmp_path)


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe{}", r"is not UTF-8"),
    (b'{"model_type": "llama", "hidden_size": 4096\x80}', r"is not UTF-8"),
    (b"[" * 10**5 + b"]" * 10**5, r"nested too deeply"),
    (b'{"a": ' + b"[" * 10**5 + b"]" * 10**5 + b"}", r"nested too deeply"),
    (b'{"hidden_size": ' + b"9" * 5000 + b"}", r"not valid JSON"),
    (b"[1, 2]", r"must hold a JSON object.*got a JSON list"),
    (b'"llama"', r"must hold a JSON object"),
    (b"null", r"must hold a JSON object"),
    (b"", r"not valid JSON"),
    (b'{"model_type": "llama"', r"not valid JSON"),
])
def test_unreadable_file_names_it(tmp_path, content, message):
    """Non-UTF-8 bytes, deep nesting, 5000-digit integers, a non-object top level: ValueError naming the file."""
    file = tmp_path / "config.json"
    file.write_bytes(content)
    with pytest.raises(ValueError, match=message) as err:
        hf.from_hf_config(file)
    assert str(file) in str(err.value)
    assert len(str(err.value)) < 2000


def test_byte_order_mark_is_fine(tmp_path):
    """A UTF-8 byte-order mark (some Windows editors write one) does not stop the loader."""
    file = tmp_path / "config.json"
    file.write_bytes(b"\xef\xbb\xbf" + (CONFIGS / "mixtral_8x7b" / "config.json").read_bytes())
    assert hf.count_params(file).total == hf.count_params(CONFIGS / "mixtral_8x7b").total


@pytest.mark.parametrize("path", [42, None, b"config.json", ["config.json"]])
def test_path_of_wrong_type(path):
    with pytest.raises(ValueError, match="path must be a file or directory name"):
        hf.load_config(path)


@pytest.mark.parametrize("name", [42, ["x"], b"x", "", "   "])
def test_name_of_wrong_type(name):
    """name= must be a non-empty str (or None for the default)."""
    with pytest.raises(ValueError, match="name must be a non-empty str"):
        hf.from_hf_config(CONFIGS / "mixtral_8x7b", name=name)


# -- fuzzing: a mutated config gives a Model or a ValueError, quickly ---------------------------
JSON_VALUES = st.one_of(
    st.none(), st.booleans(),
    st.integers(), st.integers(min_value=-(10**6), max_value=0),
    st.integers(min_value=2**52, max_value=2**60), st.sampled_from([10**400, -(10**400), 2**53, 2**53 + 1]),
    st.integers(min_value=1, max_value=300),
    st.floats(), st.sampled_from([4096.0, 1e300, 0.5]),
    st.text(max_size=20), st.sampled_from(list(hf.FAMILIES) + ["full_attention", "noaux_tc", "4096"]),
    st.lists(st.integers(min_value=-3, max_value=100), max_size=8),
    st.lists(st.sampled_from(["full_attention", "sliding_attention", 1, None]), max_size=40),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.recursive(st.none() | st.integers() | st.text(max_size=4),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                 max_leaves=8),
)
FIXTURES = {family: config_of(family) for family in REGISTRY_NAME}
READ_KEYS = sorted({key for config in FIXTURES.values() for key in config}
                   | {"head_dim", "q_lora_rank", "topk_method", "mlp_bias", "mlp_only_layers", "layer_types",
                      "decoder_sparse_step", "_name_or_path", "num_nextn_predict_layers", "sliding_window"})


@settings(derandomize=True, database=None, deadline=None, max_examples=200)
@given(family=st.sampled_from(sorted(FIXTURES)),
       mutations=st.lists(st.tuples(st.sampled_from(READ_KEYS), st.booleans(), JSON_VALUES), min_size=1, max_size=3))
def test_mutated_configs_give_a_model_or_a_value_error(tmp_path_factory, family, mutations):
    """Replacing (or deleting) random keys with random JSON values gives a Model or a ValueError naming
    the file, never another exception, and within a second."""
    config = dict(FIXTURES[family])
    for key, delete, value in mutations:
        if delete:
            config.pop(key, None)
        else:
            config[key] = value
    file = tmp_path_factory.mktemp("fuzz") / "config.json"
    file.write_text(json.dumps(config))
    start = time.perf_counter()
    try:
        m = hf.from_hf_config(file)
    except ValueError as err:
        assert str(file) in str(err) or "name must be" in str(err)
    else:
        assert isinstance(m, models.Model) and m.total_params >= m.active_params > 0
    assert time.perf_counter() - start < 1.0


def test_sliding_window_layers_only_is_refused(tmp_path):
    """Every layer a sliding-window one (or a 1-layer gpt-oss, whose layer 0 slides) cannot be a Model
    with a growing cache: a ValueError naming the file and layer_types, not one from inside Model."""
    config = config_of("gpt_oss_120b")
    with pytest.raises(ValueError, match=r"config\.json.*layer_types.*'full_attention'"):
        hf.from_hf_config(write(tmp_path, config | {"layer_types": ["sliding_attention"] * 36}))
    del config["layer_types"]
    with pytest.raises(ValueError, match=r"config\.json.*num_hidden_layers >= 2"):
        hf.from_hf_config(write(tmp_path, config | {"num_hidden_layers": 1}))
    assert hf.from_hf_config(write(tmp_path, config | {"num_hidden_layers": 3})).full_attention_layers == 1


def test_sliding_window_needed_with_sliding_layers(tmp_path):
    """Sliding-window layers need the window's size: no sliding_window is a ValueError naming it."""
    config = config_of("gpt_oss_120b")
    del config["sliding_window"]
    with pytest.raises(ValueError, match=r"config\.json.*no key 'sliding_window'"):
        hf.from_hf_config(write(tmp_path, config))
