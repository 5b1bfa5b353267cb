"""POST /api/calc, GET /api/models, GET /api/gpus: the calculator over HTTP."""

import pytest


def test_calc_seed_scenario(client):
    response = client.post("/api/calc", json={"model": "Qwen/Qwen3-8B", "max_model_len": 8192, "pool_tokens": 24096,
                                              "prompt_tokens": 512, "output_tokens": 128})
    assert response.status_code == 200
    data = response.get_json()
    assert data["kv_bytes_per_token"] == 147456
    assert data["num_blocks"] == 1506
    assert data["pool_tokens"] == 24096
    assert data["kv_cache_memory_bytes"] == 3553099776
    assert data["max_concurrency"] == pytest.approx(2.94140625)
    assert data["max_concurrency_text"] == "2.94x"
    assert data["tokens_per_user"] == 640
    assert data["users_fit"] == 37
    for key in ("kv_bytes_per_token", "num_blocks", "pool_tokens", "kv_cache_memory_bytes", "max_concurrency",
                "tokens_per_user", "users_fit"):
        assert data["derivations"][key], key
    assert "147,456 B = 144 KiB" in data["derivations"]["kv_bytes_per_token"]


def test_calc_takes_a_config_object(client):
    config = {"num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
              "hidden_size": 4096, "torch_dtype": "bfloat16"}
    data = client.post("/api/calc", json={"config": config, "kv_cache_dtype": "fp8"}).get_json()
    assert data["kv_bytes_per_token"] == 73728


def test_calc_without_a_pool_leaves_pool_values_null(client):
    data = client.post("/api/calc", json={"model": "Qwen/Qwen3-8B"}).get_json()
    assert data["kv_bytes_per_token"] == 147456
    assert data["num_blocks"] is None and data["users_fit"] is None and data["max_concurrency_text"] is None


@pytest.mark.parametrize("body, field, words", [
    ({"model": "Qwen/Qwen3-9B"}, "model", "Qwen/Qwen3-8B"),
    ({"model": "Qwen/Qwen3-8B", "tensor_parallel_size": 3}, "tensor_parallel_size", "must be divisible"),
    ({"model": "Qwen/Qwen3-8B", "kv_cache_dtype": "fp8_ds_mla"}, "kv_cache_dtype", "MLA"),
    ({"model": "Qwen/Qwen3-8B", "max_model_len": -5}, "max_model_len", "positive"),
    ({"model": "Qwen/Qwen3-8B", "max_model_len": 0}, "max_model_len", "positive"),
    ({"model": "Qwen/Qwen3-8B", "max_model_len": 8192.5}, "max_model_len", "whole number"),
    ({"model": "Qwen/Qwen3-8B", "pool_tokens": 2**53 + 1}, "pool_tokens", "2**53"),
    ({"model": "Qwen/Qwen3-8B", "pool_tokens": "lots"}, "pool_tokens", "whole number"),
    ({"model": "Qwen/Qwen3-8B", "kv_bytes": 5}, "kv_bytes", "kv_bytes_per_token"),
    ({"config": {"num_attention_heads": 8}}, "config.num_hidden_layers", "num_hidden_layers"),
    ({"config": "not an object"}, "config", "object"),
])
def test_calc_bad_input_is_400_with_field(client, body, field, words):
    response = client.post("/api/calc", json=body)
    assert response.status_code == 400
    data = response.get_json()
    assert data["field"] == field
    assert words in data["error"]


def test_calc_body_must_be_json(client):
    response = client.post("/api/calc", data="model=Qwen", content_type="text/plain")
    assert response.status_code == 400
    assert "JSON object" in response.get_json()["error"]


def test_unknown_api_path_is_json_404(client):
    response = client.get("/api/nope")
    assert response.status_code == 404
    assert response.get_json()["error"]


def test_models_lists_the_catalog_with_sources(client):
    models = client.get("/api/models").get_json()["models"]
    ids = [m["id"] for m in models]
    assert "Qwen/Qwen3-8B" in ids and "deepseek-ai/DeepSeek-V3" in ids
    assert len(ids) == 34
    qwen = next(m for m in models if m["id"] == "Qwen/Qwen3-8B")
    assert qwen["num_key_value_heads"] == 8 and "InferSim" in qwen["source"]
    assert (qwen["attention_kind"], qwen["kv_cache_layers"], qwen["kv_heads"], qwen["head_size"]) == ("full", 36, 8, 128)
    deepseek = next(m for m in models if m["id"] == "deepseek-ai/DeepSeek-V3")
    assert (deepseek["attention_kind"], deepseek["kv_heads"], deepseek["head_size"]) == ("mla", 1, 576)


def test_gpus_lists_memory_and_source(client):
    gpus = client.get("/api/gpus").get_json()["gpus"]
    rtx = next(g for g in gpus if g["id"] == "RTX-5090")
    assert round(rtx["total_memory_bytes"] / 2**30, 2) == 31.36
    assert all(g["source"] for g in gpus)


def test_calc_takes_async_scheduling_and_prefix_caching(client):
    body = {"model": "google/gemma-2-9b-it", "max_model_len": 8192, "kv_cache_memory_bytes": 20 * 2**30,
            "max_num_batched_tokens": 2048}
    on = client.post("/api/calc", json=body).get_json()
    off = client.post("/api/calc", json={**body, "async_scheduling": False}).get_json()
    assert (on["max_concurrency_text"], off["max_concurrency_text"]) == ("7.61x", "8.70x")
    assert off["inputs"]["async_scheduling"] is False
    hybrid = {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "max_model_len": 262144, "kv_cache_memory_bytes": 20 * 2**30}
    caching = client.post("/api/calc", json=hybrid).get_json()
    plain = client.post("/api/calc", json={**hybrid, "enable_prefix_caching": False}).get_json()
    assert caching["blocks_per_request"] == plain["blocks_per_request"] + 3
