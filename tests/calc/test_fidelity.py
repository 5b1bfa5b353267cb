"""Where the calculator follows vLLM's less obvious rules: max_model_len, MLA block sizes, notes, names."""

import json

import pytest

from quizapp.calc import calculate, gpu_entries
from quizapp.cli import main

# falcon-7b's shape: no length key at all (none of max_position_embeddings, n_positions, …).
FALCON = {"model_type": "falcon", "num_hidden_layers": 32, "num_attention_heads": 71, "hidden_size": 4544,
          "multi_query": True, "torch_dtype": "bfloat16", "vocab_size": 65024}

# vllm/config/model.py _get_and_verify_max_len, 0.14 and later (0.33 line 2591).
WARNING = ("The model's config.json does not contain any of the keys to determine the original maximum length "
           "of the model. Assuming the model's maximum length is 2048.")


def test_a_config_without_a_length_key_gets_2048_and_vllms_warning():
    result = calculate({"config": FALCON})
    assert result["max_model_len"] == 2048
    assert f'vLLM warns: "{WARNING}"' in result.notes
    assert "no length key" in result.values["max_model_len"].derivation


def test_0_11_warning_lists_the_keys():
    result = calculate({"config": FALCON, "vllm_version": "0.11"})
    (note,) = [n for n in result.notes if n.startswith("vLLM warns")]
    assert "does not contain any of the following keys to determine the original maximum length of the " \
           "model: ['max_position_embeddings', 'n_positions', 'max_seq_len'" in note


def test_cli_config_without_a_length_key(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(FALCON))
    assert main(["calc", "--config", str(path), "--json"]) in (0, None)
    data = json.loads(capsys.readouterr().out)
    assert data["max_model_len"] == 2048
    assert any(WARNING in note for note in data["notes"])


@pytest.mark.parametrize("extra, length", [
    ({"max_position_embeddings": 8192, "n_positions": 4096}, 4096),           # the smallest key
    ({"max_position_embeddings": 8192, "model_max_length": 16384}, 16384),     # model_max_length wins
    ({"max_position_embeddings": 4096, "rope_scaling": {"type": "linear", "factor": 4.0}}, 16384),
    ({"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, 131072),
])
def test_max_model_len_follows_vllms_keys_and_rope_factor(extra, length):
    assert calculate({"config": dict(FALCON, **extra)})["max_model_len"] == length


def test_yarn_scaled_the_original_length_before_0_33():
    config = dict(FALCON, max_position_embeddings=100_000,
                  rope_scaling={"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})
    assert calculate({"config": config})["max_model_len"] == 100_000
    assert calculate({"config": config, "vllm_version": "0.28"})["max_model_len"] == 4 * 32768


def test_derivations_name_the_model():
    result = calculate({"model": "Qwen/Qwen3-8B"})
    assert "from Qwen/Qwen3-8B's config.json" in result.values["num_layers"].derivation
    given = calculate({"config": FALCON})
    assert "from the given config.json" in given.values["num_layers"].derivation
    named = calculate({"config": dict(FALCON, _name_or_path="/models/falcon-7b/")})
    assert "from falcon-7b's config.json" in named.values["num_layers"].derivation


def test_mla_gets_no_head_dim_note():
    # DeepSeek-V3 has no head_dim; 7168 ÷ 128 = 56 is irrelevant: MLA caches 512 + 64.
    result = calculate({"model": "deepseek-ai/DeepSeek-V3"})
    assert not any("head_dim" in note for note in result.notes)


@pytest.mark.parametrize("gpu, version, dtype, block", [
    ("H100-80GB-SXM", "0.33", "auto", 16),   # FLASH_ATTN_MLA, multiples of 16
    ("H100-80GB-SXM", "0.33", "fp8", 64),    # FLASH_ATTN_MLA has no fp8 cache: FLASHMLA, [64]
    ("B200", "0.33", "auto", 32),            # FLASHINFER_MLA, [32, 64]
    ("A100-80GB", "0.33", "auto", 16),       # TRITON_MLA
    ("RTX-5090", "0.33", "auto", 16),        # TRITON_MLA on SM12x
    ("H100-80GB-SXM", "0.11", "auto", 64),   # 0.11 platforms/cuda.py forces FlashMLA's 64
    ("B200", "0.11", "auto", 128),           # and CUTLASS_MLA's 128 on Blackwell
    ("B200", "0.14", "auto", 128),
    ("A100-80GB", "0.11", "auto", 16),       # FlashMLA needs Hopper: the default 16 stays
])
def test_mla_block_size_follows_the_backend_on_the_gpu(gpu, version, dtype, block):
    result = calculate({"model": "deepseek-ai/DeepSeek-V3", "gpu": gpu, "vllm_version": version,
                        "kv_cache_dtype": dtype, "kv_cache_memory_bytes": 2**34})
    assert result.plan.block_size == block
    assert result["bytes_per_block"] == block * 61 * 576 * (1 if dtype == "fp8" else 2)


def test_mla_without_a_gpu_keeps_16_and_says_why():
    result = calculate({"model": "deepseek-ai/DeepSeek-V3"})
    assert result.plan.block_size == 16
    assert any("choose their own block size by GPU" in note for note in result.notes)


def test_a_given_block_size_stands_from_0_18():
    result = calculate({"model": "deepseek-ai/DeepSeek-V3", "gpu": "B200", "block_size": 64,
                        "kv_cache_memory_bytes": 2**34})
    assert result.plan.block_size == 64


def test_every_gpu_says_where_its_memory_figure_comes_from():
    for gpu in gpu_entries():
        assert gpu["memory_basis"] in ("cuda", "nvidia-smi", "datasheet")
        assert gpu["memory_basis_text"] and gpu["display_name"] and gpu["compute_capability"]
    spark = next(g for g in gpu_entries() if g["id"] == "DGX-Spark")
    assert spark["unified_memory"] and "psutil.virtual_memory().available" in spark["unified_memory_note"]
