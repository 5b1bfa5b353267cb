"""The bank and card pages: staged reveals decided by the server, numbers live from the calculator."""

import re

import pytest

from quizapp import create_app

SHORT_TEXT = "real users hold"
FULL_TEXT = "Bytes for one token"


def stage_html(page: str, stage: str) -> str:
    match = re.search(rf'<div class="stage-content" id="content-{stage}"[^>]*>(.*?)</div>\s*</section>', page, re.S)
    assert match, f"no stage {stage}"
    return match.group(1)


def test_bank_lists_the_card_with_roles_levels_and_tags(client):
    page = client.get("/").text
    assert "How many users fit in the KV pool" in page
    assert "Inference Engineering" in page and "L2, L3" in page and "kv-cache" in page


@pytest.mark.parametrize("query, shown", [
    ("?role=Inference+Engineering", True), ("?role=Nobody", False), ("?tag=capacity", True),
    ("?q=concurrency+manager", True), ("?q=quantum", False),
])
def test_bank_filters(client, query, shown):
    assert ("How many users fit in the KV pool" in client.get("/" + query).text) is shown


def test_question_before_any_reveal(reader):
    page = reader.open().text
    assert "8,192" in page and "2.94" in page
    assert SHORT_TEXT not in page and FULL_TEXT not in page
    assert "37 users" not in page and "144 KiB" not in page
    # Only the short answer can open first: no other stage has a button yet (cards/stage_order.py).
    assert page.count('aria-expanded="false"') == 1
    assert "Opens once the short answer is shown." in page and "Opens once the full answer is shown." in page
    # The panel shows inputs only before a stage is revealed: no derivation gives the answer away.
    assert "users_fit" not in page and "blocks per user" not in page


def test_reveal_short_without_javascript_returns_the_page(client):
    posted = client.post("/cards/kv-pool-users/reveal/short", data={"answer": "about 37"})
    assert posted.status_code == 303 and posted.location.endswith("/cards/kv-pool-users#stage-short")
    response = client.get(posted.location)
    page = response.text
    assert response.status_code == 200
    short = stage_html(page, "short")
    assert "24,096" in short and "37" in short and SHORT_TEXT in short
    assert FULL_TEXT not in page
    assert "about 37" in short  # the typed answer is kept beside the answer
    assert "users_fit" in page  # now the panel shows its arithmetic


def test_reveal_full_shows_144_and_96_kib(reader):
    reader.reveal("short")
    page = reader.reveal("full").text
    full = stage_html(page, "full")
    assert "144 KiB" in full and "96 KiB" in full


def test_reveals_accumulate_across_requests(reader):
    reader.reveal("short")
    reader.reveal("full")
    reader.reveal("wrong")
    page = reader.open().text
    assert SHORT_TEXT in page and FULL_TEXT in page and "Divide the GPU memory by the model size." in page
    assert "waits in the queue" not in page


def test_reveal_as_fragment_json(client):
    response = client.post("/cards/kv-pool-users/reveal/short", headers={"Accept": "application/json"})
    assert response.get_json()["revealed"] == ["short"]
    assert "What happens to a request" not in str(response.get_json())  # follow-ups wait for the full answer
    response = client.post("/cards/kv-pool-users/reveal/full", headers={"Accept": "application/json"})
    data = response.get_json()
    assert data["focus"] == "full" and data["revealed"] == ["short", "full"]
    assert "144 KiB" in data["stages"]["full"]
    # Follow-up questions appear with the full answer; their answers stay out.
    assert "What happens to a request" in data["stages"]["followup-1"]
    assert "waits in the queue" not in str(data)


def test_follow_up_answer_is_its_own_stage(reader):
    reader.reveal("short")
    reader.reveal("full")
    page = reader.reveal("followup-2").text
    assert "fewer KV heads" in stage_html(page, "followup-2")
    assert "waits in the queue" not in page


def test_llama_says_128_kib_and_users_follow_the_same_pool_bytes(reader):
    query = "?model=meta-llama/Llama-3.1-8B-Instruct"
    reader.reveal("short", query)
    page = reader.reveal("full", query).text
    assert "128 KiB" in stage_html(page, "full")
    short = stage_html(page, "short")
    # 3,553,099,776 B (the L4 pool) ÷ 2,097,152 B per block = 1,694 blocks → 27,104 tokens, 42 users.
    assert "27,104" in short and "42 users" in short
    assert "keeps its 3.31 GiB" in page


def test_fp8_says_72_kib(reader):
    reader.reveal("short", "?kv_cache_dtype=fp8")
    page = reader.reveal("full", "?kv_cache_dtype=fp8").text
    full = stage_html(page, "full")
    assert "72 KiB" in full and "48 KiB" in full and "FP8" in full


@pytest.mark.parametrize("query, old, stage", [
    ("?max_model_len=4096", "8,192", "question"),
    ("?max_model_len=4096", "2.94", "question"),
    ("?model=meta-llama/Llama-3.2-3B-Instruct", "24,096", "short"),
    ("?prompt_tokens=1024", "37", "short"),
    ("?model=mistralai/Mistral-7B-Instruct-v0.3", "144 KiB", "full"),
    ("?kv_cache_dtype=fp8", "96 KiB", "full"),
])
def test_every_number_changes_with_the_scenario(reader, query, old, stage):
    reader.reveal("short")
    reader.reveal("full")
    base = reader.open().text
    changed = reader.open(query).text
    def part(page):
        if stage == "question":
            return re.search(r'<div id="question-text">(.*?)</div>', page, re.S).group(1)
        return stage_html(page, stage)
    assert old in part(base)
    assert old not in part(changed)


def test_values_api_for_authors(client):
    data = client.get("/api/cards/kv-pool-users/values?kv_cache_dtype=fp8").get_json()
    assert data["kv_bytes_per_token"] == 73728 and data["users_fit"] == 75
    assert client.get("/api/cards/kv-pool-users/values?variant=9").status_code == 400
    assert client.get("/api/cards/nope/values").status_code == 404


def test_variant_and_next_variant_link(reader):
    page = reader.open("?variant=1").text
    assert "Qwen3-8B with an FP8 KV cache" in page
    assert 'href="/cards/kv-pool-users?variant=2"' in page


@pytest.mark.parametrize("query, variant, following", [
    ("", None, "/cards/kv-pool-users?variant=0"),
    ("?variant=1", 1, "/cards/kv-pool-users?variant=2"),
    ("?variant=3", 3, "/cards/kv-pool-users"),  # the last of its four variants, then its own scenario again
])
def test_the_fragment_sends_the_variant_and_the_next_variants_link(client, query, variant, following):
    data = client.get("/cards/kv-pool-users/fragment" + query).get_json()
    assert (data["variant"], data["next_variant_url"]) == (variant, following)
    assert f'href="{following}" id="next-variant"' in client.get("/cards/kv-pool-users" + query).text


def test_the_fragment_sends_the_pages_own_notice(client):
    query = "?max_model_len=100000"
    data = client.get("/cards/kv-pool-users/fragment" + query).get_json()
    page = client.get("/cards/kv-pool-users" + query).text
    assert "vLLM would refuse to start in that scenario" in data["notice"] and data["notice"] in page
    hidden = client.get("/cards/kv-pool-users/fragment").get_json()["notice"]
    assert hidden == '<div class="notice error" role="alert" id="scenario-error" hidden></div>'


@pytest.mark.parametrize("query, field", [
    ("?tensor_parallel_size=3", "tensor_parallel_size"),
    ("?max_model_len=-1", "max_model_len"),
    ("?model=%3Cscript%3Ealert(1)%3C/script%3E", "model"),
    ("?pool_tokens=1e400", "pool_tokens"),
    ("?variant=x", "variant"),
])
def test_bad_scenario_is_a_400_page_naming_the_field(reader, query, field):
    response = reader.open(query)
    page = response.text
    assert response.status_code == 400
    assert f"<code>{field}</code>" in page
    assert "<script>alert" not in page
    assert "8,192" in page  # the card still shows, on its own scenario


def test_unknown_card_and_stage_are_404_pages(reader):
    response = reader.open(card="no-such-card")
    assert response.status_code == 404 and "no-such-card" in response.text
    response = reader.reveal("everything")
    assert response.status_code == 404 and "short, full" in response.text


def test_reset_hides_the_answers_again(client, reader):
    reader.reveal("short")
    page = client.post("/cards/kv-pool-users/reset", follow_redirects=True).text
    assert SHORT_TEXT not in page


def test_broken_card_is_reported_and_the_bank_still_serves(database, tmp_path, broken_bank):
    folder, line = broken_bank
    client = create_app({"TESTING": True, "QUESTIONS_DIR": str(folder),
                         "DATABASE": database}).test_client()
    bank = client.get("/").text
    assert "How many users fit in the KV pool" in bank and "1 card with errors" in bank
    author = client.get("/author/").text
    assert f"broken.md:{line}: error: unknown value &#39;users_fits&#39;" in author
    assert client.get("/cards/kv-pool-users").status_code == 200
    assert client.get("/cards/broken").status_code == 404


def test_author_preview_shows_every_stage(client, reader):
    page = client.get("/author/cards/kv-pool-users").text
    assert SHORT_TEXT in page and FULL_TEXT in page and "waits in the queue" in page
    assert "vLLM 101" in page
    # The preview does not reveal anything in the reader's own session.
    assert SHORT_TEXT not in reader.open().text
