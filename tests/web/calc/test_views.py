"""/calc: every calculator input, grouped and named as vLLM names it; every value with its arithmetic;
vLLM's refusals beside the field they are about; a scenario in the URL; a config.json by POST."""

import re

import pytest

from quizapp.calc import FIELD_NAMES, FIELDS
from quizapp.web.calc.form import GROUPS, PAGE_FIELDS

SEED = "/calc?model=Qwen/Qwen3-8B&max_model_len=8192&pool_tokens=24096&prompt_tokens=512&output_tokens=128"


def csrf_token(client, path="/calc") -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).get_data(as_text=True))[1]


def control_of(page: str, name: str) -> str:
    """The markup of one input's control, from its wrapper to the next."""
    start = page.index(f'data-field="{name}"')
    end = page.find('<div class="control', start + 1)
    return page[start:end if end > 0 else None]


def test_the_groups_hold_every_input_once():
    assert sorted(PAGE_FIELDS) == sorted(set(FIELD_NAMES) - {"config"})
    assert len(PAGE_FIELDS) == len(set(PAGE_FIELDS))
    assert [legend for _, legend, _ in GROUPS][:2] == ["Model", "Precision and parallelism"]


def test_every_input_is_on_the_page_with_its_flag_and_the_calculators_help(client):
    page = client.get("/calc").get_data(as_text=True)
    for field in FIELDS:
        if field.name == "config":
            assert 'name="config"' in page and field.help in page  # in the POST form beside the GET one
            continue
        control = control_of(page, field.name)
        assert f'name="{field.name}"' in control, field.name
        assert field.help.replace("'", "&#39;") in control, field.name
        if field.vllm_flag:
            assert f"<code>{field.vllm_flag.split('/')[0]}" in control or field.vllm_flag in control, field.name
    assert "<code>--max-model-len</code>" in page and "<code>--gpu-memory-utilization</code>" in page


def test_a_bare_calc_shows_qwen3_8b_on_the_l4(client):
    response = client.get("/calc")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert '<div id="figure-kv_bytes_per_token"><dt>KV bytes per token</dt><dd>144 KiB</dd></div>' in page
    assert "36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB" in page
    assert '<option value="L4" selected>' in page


def test_the_seed_scenario_gives_the_log_line_and_its_values(client):
    page = client.get(SEED).get_data(as_text=True)
    assert "GPU KV cache size: 24,096 tokens, Maximum concurrency for 8,192 tokens per request: 2.94x" in page
    row = page[page.index('id="value-num_blocks"'):]
    assert "1,506 blocks" in row[:400] and "⌊24,096 tokens ÷ 16 tokens per block⌋ = 1,506 blocks" in row[:600]
    users = page[page.index('id="value-users_fit"'):][:600]
    assert "37 users" in users and "⌊(1,506 blocks − 1 null block) ÷ 40 blocks per user⌋ = 37 users" in users


def test_the_form_holds_the_scenario_it_shows(client):
    page = client.get(SEED).get_data(as_text=True)
    assert 'name="pool_tokens" type="number" value="24096"' in page
    assert '<option value="Qwen/Qwen3-8B" selected>' in page


def test_the_share_link_is_the_canonical_url(client):
    text = client.get("/calc?output_tokens=128&model=Qwen%2FQwen3-8B&kv_cache_dtype=auto&prompt_tokens=512").text
    assert 'id="share-link" href="/calc?model=Qwen%2FQwen3-8B&amp;prompt_tokens=512&amp;output_tokens=128"' in text


def test_a_submitted_form_is_sent_on_to_its_scenarios_url(client):
    response = client.get("/calc?model=Qwen%2FQwen3-8B&kv_bytes_per_token=&kv_cache_dtype=auto&block_size=16"
                          "&max_model_len=8192&gpu=")
    assert response.status_code == 302
    assert response.headers["Location"] == "/calc?model=Qwen%2FQwen3-8B&max_model_len=8192"
    assert client.get("/calc?model=").status_code == 400  # an empty scenario stays where it is


def test_the_memory_bar_is_svg_drawn_on_the_server(client):
    page = client.get("/calc?model=Qwen/Qwen3-8B&gpu=L4&max_model_len=8192").get_data(as_text=True)
    bar = page[page.index('<figure class="memory-bar'):page.index("</figure>")]
    assert bar.count('class="bar segment') == 4
    assert "<title>Weights: 15.26 GiB</title>" in bar and "<title>Headroom: 1.8 GiB</title>" in bar
    assert "<strong>KV pool</strong> 5.44 GiB" in bar
    assert "Utilization ceiling 20.69 GiB" in bar


def test_a_bad_input_is_a_400_with_the_field_marked(client):
    response = client.get("/calc?model=Qwen/Qwen3-8B&max_model_len=-5")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    control = control_of(page, "max_model_len")
    assert 'aria-invalid="true"' in control
    assert "max_model_len must be positive, got -5" in control
    assert 'value="-5"' in control  # shown back as typed
    assert 'aria-invalid="true"' not in control_of(page, "model")


@pytest.mark.parametrize("query, field", [
    ("model=Qwen/Qwen3-9B", "model"),
    ("model=Qwen/Qwen3-8B&tensor_parallel_size=3", "tensor_parallel_size"),
    ("model=Qwen/Qwen3-8B&gpu=Z80", "gpu"),
    ("model=Qwen/Qwen3-8B&gpu_memory_utilization=1.5&gpu=L4", "gpu_memory_utilization"),
    ("model=Qwen/Qwen3-8B&kv_cache_memory_bytes=lots", "kv_cache_memory_bytes"),
    ("model=Qwen/Qwen3-8B&async_scheduling=maybe", "async_scheduling"),
    ("model=Qwen/Qwen3-8B&vllm_version=0.2", "vllm_version"),
    ("model=Qwen/Qwen3-8B&kv_bytes_per_token=1000", "kv_bytes_per_token"),
    ("model=", "model"),
])
def test_each_refused_input_is_marked_beside_itself(client, query, field):
    response = client.get("/calc?" + query)
    assert response.status_code == 400
    assert 'aria-invalid="true"' in control_of(response.get_data(as_text=True), field)


def test_vllms_refusal_is_beside_the_field_that_caused_it(client):
    page = client.get("/calc?model=Qwen/Qwen3-8B&gpu=L4&gpu_memory_utilization=0.99&free_memory_bytes=20GiB"
                      "&max_model_len=8192").get_data(as_text=True)
    control = control_of(page, "gpu_memory_utilization")
    assert "Free memory on device cuda:0 (20.0/22.49 GiB) on startup is less than desired GPU memory utilization" \
        in control
    assert "vLLM would refuse to start" in page


def test_a_too_long_max_model_len_is_refused_beside_it_in_vllms_words(client):
    page = client.get("/calc?model=Qwen/Qwen3-8B&gpu=L4&max_model_len=40960").get_data(as_text=True)
    assert "To serve at least one request with the model&#39;s max seq len (40960)" in control_of(page, "max_model_len")


def test_the_card_snippet_is_the_scenario_block(client):
    page = client.get(SEED).get_data(as_text=True)
    snippet = page[page.index('id="card-snippet"'):page.index("</pre>", page.index('id="card-snippet"'))]
    assert "scenario:\n  model: Qwen/Qwen3-8B\n  max_model_len: 8192\n  pool_tokens: 24096\n" in snippet


def test_async_scheduling_is_an_input_of_the_page(client):
    base = "/calc?model=google/gemma-2-9b-it&max_model_len=8192&kv_cache_memory_bytes=20GiB&max_num_batched_tokens=2048"
    on = client.get(base).get_data(as_text=True)
    off = client.get(base + "&async_scheduling=false").get_data(as_text=True)
    assert "7.61x" in on and "8.70x" in off
    assert '<option value="false" selected>--no-async-scheduling</option>' in off


def test_the_fragment_is_the_output_and_the_messages(client):
    response = client.get("/calc/fragment?" + SEED.split("?")[1])
    data = response.get_json()
    assert response.status_code == 200
    assert data["output"].startswith('<section id="calc-output"')
    assert "2.94x" in data["output"] and data["errors"] == {}
    assert data["url"].startswith("/calc?model=Qwen%2FQwen3-8B")
    bad = client.get("/calc/fragment?model=Qwen/Qwen3-8B&max_model_len=abc")
    assert bad.status_code == 400
    assert bad.get_json()["errors"] == {"max_model_len": "max_model_len must be a whole number, got 'abc'"}


def test_a_pasted_config_is_posted_computed_and_not_bookmarkable(client):
    config = ('{"_name_or_path": "my-org/tiny", "model_type": "llama", "num_hidden_layers": 36, '
              '"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 4096, '
              '"torch_dtype": "bfloat16", "max_position_embeddings": 8192}')
    response = client.post("/calc", data={"csrf_token": csrf_token(client), "config": config, "pool_tokens": "24096",
                                          "model": "Qwen/Qwen3-8B"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "144 KiB" in page and "cannot be bookmarked" in page
    assert 'id="share-link"' not in page and 'method="post"' in page
    assert 'name="model"' not in page  # the config says what the model is


def test_a_config_that_is_not_json_is_marked(client):
    response = client.post("/calc", data={"csrf_token": csrf_token(client), "config": '{"num_hidden_layers": 3,'})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "the config.json is not valid JSON" in page and 'id="in-config"' in page
    assert 'aria-invalid="true"' in page[page.index('<textarea id="in-config"'):][:400]


def test_an_uploaded_config_is_read(client):
    from io import BytesIO

    config = b'{"num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,' \
             b' "hidden_size": 4096, "torch_dtype": "bfloat16"}'
    response = client.post("/calc", data={"csrf_token": csrf_token(client), "config_file": (BytesIO(config), "c.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 200 and "144 KiB" in response.get_data(as_text=True)


def test_a_post_without_the_csrf_token_is_refused(client):
    assert client.post("/calc", data={"config": "{}"}).status_code == 400


@pytest.mark.parametrize("query", [
    "model=" + "x" * 5000, "max_model_len=" + "9" * 5000, "kv_cache_memory_bytes=1e999", "block_size=%00",
    "model=Qwen/Qwen3-8B&gpu_memory_utilization=nan&gpu=L4", "config=%7B%7D", "model=%3Cscript%3E",
])
def test_strange_queries_are_400_or_200_never_500(client, query):
    response = client.get("/calc?" + query)
    assert response.status_code in (200, 400)
    assert "<script>" not in response.get_data(as_text=True).replace('<script src="/static/calc.js"', "")


@pytest.mark.parametrize("key, value", [("vocab_size", 1e308), ("num_hidden_layers", "x"), ("layer_types", 5),
                                        ("sliding_window", []), ("hidden_size", None), ("text_config", "x")])
def test_a_strange_config_is_400_or_200_never_500(client, key, value):
    import json

    config = {"model_type": "llama", "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8,
              "head_dim": 128, "hidden_size": 4096, "torch_dtype": "bfloat16", key: value}
    response = client.post("/calc", data={"csrf_token": csrf_token(client), "config": json.dumps(config),
                                          "gpu": "L4"})
    assert response.status_code in (200, 400)


def test_a_deeply_nested_config_is_refused(client):
    response = client.post("/calc", data={"csrf_token": csrf_token(client), "config": "[" * 100_000})
    assert response.status_code == 400


def test_every_wrong_input_is_marked_at_once_and_listed_above_the_form(client):
    response = client.get("/calc?model=Qwen/Qwen3-8B&max_model_len=abc&gpu_memory_utilization=2&gpu=L4")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert 'aria-invalid="true"' in control_of(page, "max_model_len")
    assert 'aria-invalid="true"' in control_of(page, "gpu_memory_utilization")
    summary = page[page.index('id="form-errors"'):page.index('<form id="calc-form"')]
    assert '<a href="#in-max_model_len"><code>max_model_len</code></a>' in summary
    assert "gpu_memory_utilization must be in (0, 1], got 2.0" in summary


# --------------------------------------------------------------------------- the time section

SPARK = "/calc?model=meta-llama/Llama-3.1-8B-Instruct&gpu=DGX-Spark&prompt_tokens=1000&output_tokens=200"


def time_section(page: str) -> str:
    return page[page.index('<section class="time-section"'):page.index("</section>", page.index('id="time-heading"'))]


def test_the_time_section_shows_the_bounds_said_as_bounds(client):
    section = time_section(client.get(SPARK).get_data(as_text=True))
    assert "Lower bounds on time, upper bounds on speed, from the DGX Spark (GB10) spec sheet" in section
    assert "273 GB/s" in section and "Real engines are slower" in section
    for name in ("decode_tokens_per_second", "decode_throughput", "ttft_seconds", "e2e_seconds", "critical_batch"):
        assert f'id="figure-{name}"' in section, name
    # Llama-3.1-8B bf16 reads 16,060,522,496 B − its 1,050,673,152 B embedding table + 1,100 tokens × 131,072 B
    # of KV a step (15,154,028,544 B) at 273 GB/s: 18.0 tokens/s at most.
    assert "18.0 tokens/s" in section


def test_the_charts_are_drawn_on_the_server_with_their_legends(client):
    section = time_section(client.get(SPARK).get_data(as_text=True))
    assert section.count("<svg") - section.count('class="swatch"') == 2
    assert "Decode tokens/s against the batch (upper bounds)" in section and "the knee: critical_batch" in section
    assert "Prefill time against the prompt" in section and "<desc" in section


def test_published_runs_on_the_gpu_are_shown_with_their_share_and_source(client):
    section = time_section(client.get(SPARK).get_data(as_text=True))
    assert section.count('<li><strong>') == 3  # two llama.cpp runs and a vLLM one on a DGX Spark
    assert "https://github.com/ggml-org/llama.cpp/blob/" in section and "of the bound" in section


def test_without_a_catalog_gpu_the_page_says_what_the_bounds_need(client):
    page = client.get("/calc?model=Qwen/Qwen3-8B&pool_tokens=24096").get_data(as_text=True)
    assert 'id="time-section"' not in page and "to see how fast" in page


def test_a_scenario_is_drawn_once_and_served_the_same_to_the_fragment(client):
    first = client.get(SPARK).get_data(as_text=True)
    second = client.get(SPARK).get_data(as_text=True)
    strip = lambda page: re.sub(r'name="csrf_token" value="[^"]*"', "", page)
    assert strip(first) == strip(second)
    fragment = client.get(SPARK.replace("/calc?", "/calc/fragment?")).get_json()["output"]
    assert fragment in first
