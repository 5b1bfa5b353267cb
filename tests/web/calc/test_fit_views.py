"""/calc, /calc/compare and /api/calc on a scenario that does not fit its GPU (issue 17).

Llama-3.1-405B's 405.85e9 BF16 parameters are 811.7e9 B = 755.96 GiB (the figure issue 17 quotes),
against the L4's 22.49 GiB; its 128 heads first allow a fitting share at 64 GPUs (811.7e9 ÷ 32 =
25.4e9 B is more than the L4's ~24.1e9 B).
"""

import re

VERDICT = "Does not fit: 755.96 GiB of weights on one 22.49 GiB L4."


def test_calc_says_first_that_it_does_not_fit_and_links_the_size_that_does(client):
    response = client.get("/calc?model=meta-llama/Llama-3.1-405B&gpu=L4")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    output = page[page.index('id="calc-output"'):]
    assert output.index(VERDICT) < output.index('class="summary"')
    link = re.search(r'<a id="fit-link" href="([^"]+)"', output).group(1)
    assert "tensor_parallel_size=64" in link
    assert output.count("Failed to load model - not enough GPU memory") == 1  # vLLM's words, once
    assert "Try increasing" not in output
    assert "The GPU&#39;s total 22.49 GiB" in output or "The GPU's total 22.49 GiB" in output  # the bar's line


def test_the_linked_size_fits(client):
    page = client.get("/calc?model=meta-llama/Llama-3.1-405B&gpu=L4&tensor_parallel_size=64").get_data(as_text=True)
    assert "Does not fit" not in page and 'id="fit-verdict">Fits: ' in page


def test_the_api_gives_the_fit(client):
    data = client.post("/api/calc", json={"model": "meta-llama/Llama-3.1-405B", "gpu": "L4"}).get_json()
    assert data["fit"]["fits"] is False and data["fit"]["min_tensor_parallel_size"] == 64
    assert data["fit"]["verdict"] == VERDICT[0].lower() + VERDICT[1:-1]


def test_compare_says_which_scenario_does_not_fit(client):
    page = client.get("/calc/compare?a.model=meta-llama/Llama-3.1-405B&b.model=Qwen/Qwen3-8B&gpu=L4").get_data(
        as_text=True)
    assert page.count("Does not fit: 755.96 GiB of weights on one 22.49 GiB L4") == 1
