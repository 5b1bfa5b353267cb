"""A reader's scenario that cannot start (issue 17): the plain verdict beside the field, the reader's
choice kept in view, a 400 with the field for JSON, and vLLM's words once.

The arithmetic behind each case: the L4 holds 22.49 GiB (about 24.1e9 B); Qwen3-14B's 14.8e9 BF16
parameters take 29.5e9 B and Qwen3-32B's 32.8e9 take 65.5e9 B, more than the GPU; Qwen3-8B's 16.4e9 B
is more than the 0.5 × 24.1e9 = 12.1e9 B that gpu_memory_utilization 0.5 requests.
"""

import re

CARD = "/cards/kv-pool-users"


def field_error(page: str, name: str) -> str:
    match = re.search(rf'<p class="field-error" id="err-{name}">(.*?)</p>', page, re.S)
    assert match, f"no error beside {name}"
    return match.group(1)


def test_a_model_the_l4_cannot_hold_is_refused_beside_the_model_field_and_stays_chosen(client):
    response = client.get(CARD + "?model=Qwen/Qwen3-14B")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    error = field_error(page, "model")
    assert "does not fit" in error and "of weights on one 22.49 GiB L4" in error
    select = re.search(r'<select id="in-model".*?</select>', page, re.S).group(0)
    assert re.search(r'<option value="Qwen/Qwen3-14B" selected', select)
    assert "That scenario cannot be computed" not in page and "No available memory" not in page


def test_a_variants_model_on_the_cards_own_gpu_gets_the_verdict_and_what_would_fit(client):
    page = client.get(CARD + "?model=Qwen/Qwen3-32B").get_data(as_text=True)
    error = field_error(page, "model")
    assert error.startswith("Does not fit: ") and "tensor_parallel_size" in error
    assert page.count("Failed to load model - not enough GPU memory") == 1  # vLLM's words, once
    assert "That scenario cannot start" in page


def test_the_fraction_rule_that_leaves_no_pool_keeps_the_readers_rule_and_fraction(client):
    response = client.get(CARD + "?pool_rule=fraction&gpu_memory_utilization=0.5")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "leave no room for the KV cache" in field_error(page, "gpu_memory_utilization")
    assert re.search(r'name="gpu_memory_utilization"[^>]*value="0.5"', page)
    rule = re.search(r'<select id="in-pool_rule".*?</select>', page, re.S).group(0)
    assert re.search(r'<option value="fraction" selected', rule)
    assert "this card cannot be shown for that scenario" not in page


def test_the_values_api_answers_400_with_the_field(client):
    response = client.get("/api/cards/kv-pool-users/values?model=Qwen/Qwen3-14B")
    assert response.status_code == 400
    assert response.get_json()["field"] == "model"
    assert "does not fit" in response.get_json()["error"]
    response = client.get("/api/cards/kv-pool-users/values?pool_rule=fraction&gpu_memory_utilization=0.5")
    assert response.status_code == 400 and response.get_json()["field"] == "gpu_memory_utilization"
    assert response.get_json()["error"].startswith("Does not fit: ")


def model_options(page: str) -> list[str]:
    select = re.search(r'<select id="in-model".*?</select>', page, re.S).group(0)
    return re.findall(r'<option value="([^"]+)"', select)


def test_a_variants_model_too_big_for_the_cards_own_gpu_is_offered_only_in_its_variant(client):
    # Qwen3-32B's 65.5e9 B of BF16 weights do not fit the card's 22.49 GiB L4; its variant puts it on an H100.
    own = model_options(client.get(CARD).get_data(as_text=True))
    assert "Qwen/Qwen3-32B" not in own and "Qwen/Qwen3-8B" in own
    variants = client.get(CARD).get_data(as_text=True)
    index = re.findall(r'<option value="(\d+)"[^>]*>Qwen3-32B on an H100', variants)
    query = f"?variant={index[0]}" if index else "?variant=2"
    assert "Qwen/Qwen3-32B" in model_options(client.get(CARD + query).get_data(as_text=True))
