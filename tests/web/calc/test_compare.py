"""/calc/compare: 2–4 scenarios on the same memory, every value side by side, the charts server-drawn,
and one URL that holds them all (shared inputs bare, a scenario's own as a.model=…)."""

import re

from quizapp.web.calc.compare import letters_in

TWO = "/calc/compare?a.model=Qwen/Qwen3-8B&b.model=meta-llama/Llama-3.1-8B-Instruct&gpu=L4&max_model_len=8192" \
      "&prompt_tokens=512&output_tokens=128"


def row(page: str, name: str) -> list[str]:
    start = page.index(f'<tr id="row-{name}">')
    return re.findall(r"<td[^>]*>([^<]*)</td>", page[start:page.index("</tr>", start)])


def test_the_scenarios_a_query_names():
    assert letters_in({"gpu": "L4"}) == ["a", "b"]
    assert letters_in({"a.model": "x", "d.model": "y"}) == ["a", "b", "d"]


def test_two_models_on_the_same_gpu_side_by_side(client):
    response = client.get(TWO)
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert row(page, "kv_bytes_per_token") == ["144 KiB", "128 KiB"]
    assert row(page, "total_memory_bytes") == ["22.49 GiB", "22.49 GiB"]  # the same memory
    assert row(page, "pool_tokens") == ["39,584 tokens", "46,992 tokens"]
    assert row(page, "users_fit") == ["61 users", "73 users"]


def test_the_charts_are_svg_drawn_on_the_server(client):
    page = client.get(TWO).get_data(as_text=True)
    charts = page[page.index('<div class="chart-grid">'):page.index('<section class="time-section"')]
    titles = ("KV bytes per token (KiB)", "Pool (tokens, as vLLM logs it)", "Max concurrency", "Users that fit",
              "Decode tokens/s, one sequence (upper bound)", "Decode tokens/s, the batch (upper bound)",
              "Time to first token, ms (lower bound)")
    assert charts.count("<svg") == len(titles)
    for title in titles:
        assert f"<figcaption>{title}</figcaption>" in charts
    assert "A: Qwen3-8B: 144 KiB" in charts and "B: Llama-3.1-8B-Instruct: 73 users" in charts


def test_the_time_charts_sit_side_by_side_on_shared_axes(client):
    page = client.get(TWO).get_data(as_text=True)
    section = page[page.index('<section class="time-section"'):page.index("<h3>Every value</h3>")]
    for letter in "ab":
        for index in (0, 1):
            assert f'id="time-chart-{letter}-{index}"' in section
    decode_a = section[section.index('id="time-chart-a-0"'):section.index('id="time-chart-b-0"')]
    decode_b = section[section.index('id="time-chart-b-0"'):section.index('id="time-chart-a-1"')]
    ticks = lambda svg: re.findall(r'text-anchor="end">([^<]+)</text>', svg)
    assert ticks(decode_a) == ticks(decode_b) and ticks(decode_a)  # the same tokens/s scale for both


def test_a_scenarios_own_input_overrides_the_shared_one(client):
    page = client.get(TWO + "&b.kv_cache_dtype=fp8").get_data(as_text=True)
    assert row(page, "kv_bytes_per_token") == ["144 KiB", "64 KiB"]
    assert row(page, "kv_dtype") == ["bfloat16", "fp8"]


def test_the_url_holds_every_scenario_in_a_readable_order(client):
    page = client.get("/calc/compare?gpu=L4&b.model=meta-llama/Llama-3.1-8B-Instruct&a.model=Qwen/Qwen3-8B"
                      "&c.model=google/gemma-2-9b-it&c.kv_cache_dtype=fp8").get_data(as_text=True)
    assert ('id="share-link" href="/calc/compare?a.model=Qwen%2FQwen3-8B&amp;b.model=meta-llama%2FLlama-3.1-8B-Instruct'
            '&amp;c.model=google%2Fgemma-2-9b-it&amp;c.kv_cache_dtype=fp8&amp;gpu=L4"') in page
    assert page.count('class="scenario-column"') == 3


def test_scenarios_can_be_added_up_to_four_and_removed(client):
    page = client.get(TWO).get_data(as_text=True)
    add = re.search(r'<a href="([^"]+)" id="add-scenario"', page)[1].replace("&amp;", "&")
    three = client.get(add).get_data(as_text=True)
    assert three.count('class="scenario-column"') == 3
    assert row(three, "kv_bytes_per_token") == ["144 KiB", "128 KiB", "128 KiB"]
    remove = re.findall(r'<a href="([^"]+)" class="remove-scenario">Remove scenario A', three)[0].replace("&amp;", "&")
    two = client.get(remove).get_data(as_text=True)
    assert row(two, "kv_bytes_per_token") == ["128 KiB", "128 KiB"]
    four = client.get(TWO + "&c.model=Qwen/Qwen3-14B&d.model=Qwen/Qwen3-32B").get_data(as_text=True)
    assert 'id="add-scenario"' not in four


def test_a_bad_scenario_is_a_400_with_its_own_field_marked(client):
    response = client.get(TWO.replace("b.model=meta-llama/Llama-3.1-8B-Instruct", "b.model=Qwen/Qwen3-9B"))
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert re.search(r'<select id="in-b-model"[^>]*aria-invalid="true"', page)
    assert re.search(r'<p class="field-error" id="err-in-b-model">unknown model', page)
    assert "144 KiB" in page  # A still computes


def test_a_shared_input_that_fails_a_scenario_is_marked_with_its_name(client):
    response = client.get("/calc/compare?a.model=Qwen/Qwen3-8B&b.model=meta-llama/Llama-3.1-8B-Instruct"
                          "&tensor_parallel_size=3")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert re.search(r'<input id="in-tensor_parallel_size"[^>]*aria-invalid="true"', page)
    message = re.search(r'<p class="field-error" id="err-in-tensor_parallel_size">([^<]*)</p>', page)[1]
    assert message.startswith("A: ") and "; B: " in message


def test_the_fragment(client):
    data = client.get(TWO.replace("/calc/compare?", "/calc/compare/fragment?")).get_json()
    assert data["output"].startswith('<section id="compare-output"')
    assert data["url"].startswith("/calc/compare?a.model=Qwen%2FQwen3-8B&b.model=")
    assert "A Pool (tokens, as vLLM logs it) 39,584 tokens" not in data["announce"]
    assert data["announce"].startswith("Compared. A KV bytes per token 144 KiB")


def test_the_calculator_page_links_to_a_comparison_of_its_scenario(client):
    page = client.get("/calc").get_data(as_text=True)
    link = re.search(r'id="compare-link" href="([^"]+)"', page)[1].replace("&amp;", "&")
    compared = client.get(link).get_data(as_text=True)
    assert row(compared, "kv_bytes_per_token") == ["144 KiB", "72 KiB"]


def test_a_skipped_letter_is_the_next_one_added(client):
    response = client.get("/calc/compare?d.model=Qwen/Qwen3-14B&model=Qwen/Qwen3-8B&gpu=L40S")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and page.count('class="scenario-column"') == 3
    assert "c.model=Qwen%2FQwen3-14B" in re.search(r'<a href="([^"]+)" id="add-scenario"', page)[1]
