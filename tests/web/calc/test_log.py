"""/calc/log and POST /api/read-log: a pasted vLLM startup log read, bounded, and set beside the calculator.

The logs are the log reader's test logs (tests/calc/data/logs, README there): the research note's
§4.3 logs and the reference page's lines.
"""

import re
from pathlib import Path

import pytest

from tests.paths import LOGS


def log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


def csrf_token(client) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get("/calc/log").get_data(as_text=True))[1]


def post_log(client, text: str, path: str = "/calc/log"):
    return client.post(path, data={"csrf_token": csrf_token(client), "log": text})


def test_the_empty_page_is_a_form_with_a_token(client):
    page = client.get("/calc/log").get_data(as_text=True)
    assert 'method="post"' in page and 'name="csrf_token"' in page and 'name="log"' in page
    assert "What the log says" not in page


def test_the_seed_log_is_read_and_set_beside_the_calculator(client):
    response = post_log(client, log("qwen3-8b-l4.log"))
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert '<tr id="setting-model"><th scope="row"><code>--model</code></th><td>Qwen/Qwen3-8B</td><td>2</td></tr>' in page
    assert '<tr id="pool-pool_tokens"><th scope="row">GPU KV cache size</th><td>24,096 tokens</td><td>5</td></tr>' in page
    assert "<strong>147,171 – 147,719 B</strong> per token" in page
    assert "3.31 GiB (3,548,716,729 – 3,559,454,146 B, as rounded) ÷ 24,096 logged tokens" in page
    comparison = page[page.index('id="log-comparison"'):]
    assert re.search(r'id="compare-kv_bytes_per_token">.*?<td>147,171 – 147,719</td><td>147,456</td>\s*'
                     r'<td class="agrees">agrees</td>', comparison, re.S)
    assert 'href="/calc?model=Qwen%2FQwen3-8B&amp;max_model_len=8192&amp;pool_tokens=24096"' in page


def test_the_continue_link_reproduces_the_log_in_the_calculator(client):
    page = post_log(client, log("qwen3-8b-l4.log")).get_data(as_text=True)
    link = re.search(r'id="continue-link" class="button" href="([^"]+)"', page)[1].replace("&amp;", "&")
    calc = client.get(link).get_data(as_text=True)
    assert "GPU KV cache size: 24,096 tokens, Maximum concurrency for 8,192 tokens per request: 2.94x" in calc


def test_a_log_whose_figures_differ_says_why(client):
    page = post_log(client, log("vllm-26646-qwen3-next.log")).get_data(as_text=True)
    assert '<td class="differs">differs</td>' in page
    assert "the log matches the formula of vLLM 0.11" in page


def test_lines_it_does_not_recognise_are_listed(client):
    text = log("qwen3-8b-l4.log") + "INFO 10-20 09:13:05 [custom.py:1] my own plugin says hello\n"
    page = post_log(client, text).get_data(as_text=True)
    assert "Lines not recognised (1)" in page
    assert "line 6: INFO 10-20 09:13:05 [custom.py:1] my own plugin says hello" in page


@pytest.mark.parametrize("text, words", [
    (log("sglang.log"), "not recognised as a vLLM startup log"),
    ("", "the log is empty"),
    ("x" * 2_000_001, "paste at most 2,000,000"),
])
def test_a_text_that_is_not_a_log_is_a_400_with_the_field_marked(client, text, words):
    response = post_log(client, text)
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert words in page
    assert re.search(r'<textarea id="in-log"[^>]*aria-invalid="true"', page)


def test_an_uploaded_log_file_is_read(client):
    from io import BytesIO

    response = client.post("/calc/log", data={"csrf_token": csrf_token(client),
                                              "log_file": (BytesIO(log("qwen3-8b-l4.log").encode()), "vllm.log")},
                           content_type="multipart/form-data")
    assert response.status_code == 200 and "24,096 tokens" in response.get_data(as_text=True)


def test_the_form_needs_its_csrf_token(client):
    for path in ("/calc/log", "/calc/log/fragment", "/calc", "/calc/fragment"):
        assert client.post(path, data={"log": log("qwen3-8b-l4.log")}, csrf=False).status_code == 400, path


def test_the_fragment_is_the_reading(client):
    response = post_log(client, log("qwen3-8b-l4.log"), "/calc/log/fragment")
    data = response.get_json()
    assert response.status_code == 200 and data["error"] is None
    assert data["output"].startswith('<section id="log-output"') and "147,171 – 147,719" in data["output"]
    bad = post_log(client, "hello", "/calc/log/fragment")
    assert bad.status_code == 400 and "not recognised" in bad.get_json()["error"]


def test_a_body_over_the_bound_is_refused_before_it_is_read(client):
    response = client.post("/calc/log", data={"log": "x" * (3 * 1024 * 1024)})
    assert response.status_code == 413


# --- POST /api/read-log -----------------------------------------------------------------------


@pytest.mark.parametrize("name, low, high, predicted", [
    ("qwen3-8b-l4.log", 147_171, 147_719, 147_456),
    ("vllm-25350-fp8.log", 49_109, 49_162, None),
    ("reference-deepseek-v4-flash.log", 54_974, 55_012, None),
])
def test_the_api_reads_the_research_and_reference_logs(client, name, low, high, predicted):
    response = client.post("/api/read-log", json={"log": log(name)})
    data = response.get_json()
    assert response.status_code == 200
    assert data["implied_kv_bytes_per_token"] == {"low": low, "high": high}
    if predicted:
        assert data["predicted"]["kv_bytes_per_token"] == predicted and low <= predicted <= high
    for key in ("vllm_version", "model", "max_model_len", "pool_tokens", "max_concurrency", "kv_cache_memory_bytes",
                "predicted", "unrecognised"):
        assert key in data


def test_the_api_names_the_seed_logs_figures(client):
    data = client.post("/api/read-log", json={"log": log("qwen3-8b-l4.log")}).get_json()
    assert (data["model"], data["max_model_len"], data["pool_tokens"], data["max_concurrency"]) == \
        ("Qwen/Qwen3-8B", 8192, 24096, 2.94)
    assert data["vllm_version"] is None and data["unrecognised"] == []


@pytest.mark.parametrize("body, status, field", [
    ({"log": "not a log at all"}, 400, "log"),
    ({"log": 5}, 400, "log"),
    ({"text": "x"}, 400, "log"),
    (["x"], 400, "log"),
])
def test_the_api_refuses_what_is_not_a_log(client, body, status, field):
    response = client.post("/api/read-log", json=body)
    assert response.status_code == status
    assert response.get_json()["field"] == field and response.get_json()["error"]


def test_the_api_requires_json(client):
    response = client.post("/api/read-log", data=log("qwen3-8b-l4.log"), content_type="text/plain")
    assert response.status_code == 400 and response.get_json()["field"] is None  # web/security.py: JSON only


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
])
def test_the_api_refuses_cross_site_requests(client, headers):
    response = client.post("/api/read-log", json={"log": log("qwen3-8b-l4.log")}, headers=headers)
    assert response.status_code == 403 and "another site" in response.get_json()["error"]


def test_the_api_takes_same_origin_requests(client):
    response = client.post("/api/read-log", json={"log": log("qwen3-8b-l4.log")},
                           headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200


def test_the_api_bounds_the_body(client):
    response = client.post("/api/read-log", json={"log": "x" * (3 * 1024 * 1024)})
    assert response.status_code == 413 and response.get_json()["field"] is None


# -- only the figures the log's format could state (issue 21) -----------------------------------

def test_a_v1_log_lists_no_v0_block_count_and_states_its_one_pool_figure(client):
    # The reference page's lines as pasted: vLLM's V1 format, 181,777 tokens at a 10e9 B pin.
    page = post_log(client, log("reference-deepseek-v4-flash.log")).get_data(as_text=True)
    assert 'id="pool-num_gpu_blocks"' not in page and "# GPU blocks (V0)" not in page
    assert '<tr id="pool-pool_tokens"><th scope="row">GPU KV cache size</th><td>181,777 tokens</td>' in page
    assert "181,777 – 181,778" not in page and "÷ 181,777 logged tokens" in page


def test_a_v0_log_lists_its_blocks_and_no_v1_token_line(client):
    page = post_log(client, log("vllm-v0-blocks.log")).get_data(as_text=True)
    assert '<tr id="pool-num_gpu_blocks"><th scope="row"># GPU blocks (V0)</th><td>5,102 blocks</td>' in page
    assert 'id="pool-pool_tokens"' not in page


def test_an_excerpt_with_its_pool_lines_first_reads_like_the_whole_log(client):
    lines = log("reference-deepseek-v4-flash.log").splitlines()
    page = post_log(client, "\n".join(lines[1:] + lines[:1])).get_data(as_text=True)
    assert '<td>181,777 tokens</td>' in page and "in their timestamps&#39; order" in page


def test_a_script_reading_logs_is_given_no_profile(app):
    """Like the calculator's API, the log reader's stores nothing: a script that posts logs gets no
    session cookie, so no learner id is made for it (storage.STATELESS)."""
    client = app.test_client()
    response = client.post("/api/read-log", json={"log": log("qwen3-8b-l4.log")})
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers and client.get_cookie("session") is None
