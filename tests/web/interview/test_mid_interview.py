"""Issue 18, point 7, without a browser: the scenario changed mid-question (from the console's form
and over the API), where each figure of the scenario comes from, the candidate's worked answer
checked on the console, the setup page's scenarios, the report's Print button and what ends with
the interview. The numbers are the web tests' kv-pool-users card on Qwen3-8B with the L4 log's pool."""

import html
import re

import pytest

from quizapp.web.interview.report import md_escape

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture
def session(interviewer):
    created = interviewer.create(["kv-pool-users"])
    interviewer.post(created["interviewer_url"] + "/show", {"card": "kv-pool-users"})
    return created


def rows(page: str) -> dict[str, tuple[str, str]]:
    """The scenario rows a page shows: label -> (value, source)."""
    found = re.findall(r'<dt>([^<]+)</dt><dd>([^<]*?)(?: <span class="source">([^<]*)</span>)?</dd>', page)
    return {label: (html.unescape(value.strip()), html.unescape(source)) for label, value, source in found}


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_the_console_says_where_each_figure_comes_from(client, session, interviewer):
    url = session["interviewer_url"]
    shown = rows(client.get(url).text)
    assert shown["KV pool"] == ("24,096 tokens", "logged")  # the card's startup log printed it
    assert shown["Model"] == ("Qwen/Qwen3-8B", "the card's scenario")
    interviewer.post(url + "/scenario", {"card": "kv-pool-users", "scenario": {"model": LLAMA}})
    shown = rows(client.get(url).text)
    assert shown["Model"] == (LLAMA, "set by the interviewer")
    # The logged pool keeps its 3,553,099,776 B: Llama 3.1 8B takes 32 × 8 × 128 × 2 × 2 = 131,072 B a
    # token, so ⌊3,553,099,776 ÷ 131,072⌋ = 27,108 tokens, in whole blocks of 16: 27,104. Not logged.
    value, source = shown["KV pool"]
    assert value == "27,104 tokens (3.31 GiB)" and source.startswith("computed for this scenario")


def test_a_scenario_change_over_the_api_reaches_the_candidate_and_the_report(client, session, interviewer):
    url, candidate = session["interviewer_url"], session["candidate_url"]
    interviewer.post(url + "/reveal", {"card": "kv-pool-users", "stage": "short"})
    before = client.get(candidate + "/state").get_json()
    assert "fits 37 users" in text(before["html"])
    response = interviewer.post(url + "/scenario", {"card": "kv-pool-users",
                                                    "scenario": {"model": LLAMA, "kv_cache_dtype": "fp8"}})
    assert response.status_code == 200
    after = client.get(candidate + "/state").get_json()
    assert after["version"] > before["version"]
    # FP8: 64 KiB a token; the pool's 3,553,099,776 B hold 54,208 tokens, ⌊(3,388 − 1) ÷ 40⌋ = 84 users.
    assert "the pool of 54,208 tokens fits 84 users" in text(after["html"]) and "37 users" not in text(after["html"])
    report = client.get(url + "/report").text
    change = re.search(r'<ul class="scenario-changes"><li><span class="note-time">[^<]+</span> ([^<]+)</li></ul>', report)
    assert sorted(change.group(1).split(", ")) == ["kv_cache_dtype → fp8", f"model → {LLAMA}"]
    markdown = client.get(url + "/report.md").get_data(as_text=True)
    assert "kv_cache_dtype → fp8" in markdown and f"model → {LLAMA}" in markdown  # as typed: no escapes


@pytest.mark.parametrize("scenario, field", [
    ({"model": "deepseek-ai/DeepSeek-V3"}, "scenario.model"),          # MLA: not the card's attention kind
    ({"block_size": 32}, "scenario.block_size"),                       # not an input of the card's space
    ({"no_such_input": 1}, "scenario.no_such_input"),
    ({"variant": "no such variant"}, "scenario.variant"),
])
def test_a_change_outside_the_card_s_space_is_a_400_naming_the_field(session, interviewer, scenario, field):
    response = interviewer.post(session["interviewer_url"] + "/scenario", {"card": "kv-pool-users",
                                                                          "scenario": scenario})
    assert response.status_code == 400 and response.get_json()["field"] == field


def test_every_input_the_space_allows_can_change_gpu_and_fraction_included(client, session, interviewer):
    url = session["interviewer_url"]
    response = interviewer.post(url + "/scenario", {"card": "kv-pool-users", "scenario": {
        "gpu": "H200", "gpu_memory_utilization": 0.9, "max_model_len": 16384, "prompt_tokens": 2000,
        "tensor_parallel_size": 2}})
    assert response.status_code == 200, response.get_json()
    shown = rows(client.get(url).text)
    assert shown["GPU"][0] == "H200 141GB" and shown["GPU memory utilization"] == ("0.9", "set by the interviewer")
    assert shown["KV pool"][1] == "computed for this scenario" and shown["Tensor parallel"] == ("2", "set by the interviewer")


def test_the_console_s_form_changes_the_scenario_without_javascript(client, session):
    url = session["interviewer_url"]
    page = client.get(url).text
    assert '/scenario" data-action="scenario"' in page and '<select id="in-model" name="model">' in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    response = client.post(url + "/scenario", data={"csrf_token": token, "card": "kv-pool-users",
                                                    "view": "kv-pool-users", "model": LLAMA, "kv_cache_dtype": "auto",
                                                    "max_model_len": "8,192", "pool_rule": "tokens",
                                                    "pool_tokens": "24,096", "prompt_tokens": "512",
                                                    "output_tokens": "128"})
    assert response.status_code == 303
    assert rows(client.get(url).text)["Model"] == (LLAMA, "set by the interviewer")
    refused = client.post(url + "/scenario", data={"csrf_token": token, "card": "kv-pool-users",
                                                   "view": "kv-pool-users", "model": "deepseek-ai/DeepSeek-V3"})
    assert refused.status_code == 303
    page = client.get(refused.location).text
    assert "Not changed: this card is not written for deepseek-ai/DeepSeek-V3" in page and "(field scenario.model)" in page


def test_the_candidate_s_steps_reach_the_console_checked_and_never_their_own_screen(client, session, interviewer):
    url, candidate = session["interviewer_url"], session["candidate_url"]
    page = client.get(candidate).text
    assert 'name="step-kv_bytes_per_token"' in page and 'name="step-num_blocks"' in page and 'name="answer"' in page
    response = interviewer.post(candidate + "/answer", {"answer": "37 users",
                                                        "steps": {"step-kv_bytes_per_token": "72 KiB"}})
    assert response.status_code == 200
    [card] = client.get(url + "/state").get_json()["cards"]
    # 36 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes = 144 KiB: 72 KiB counts K and V once.
    assert "The first step that diverges is step 1, the KV bytes per token: you wrote 72 KiB" in card["answer_html"]
    assert "Right: 37 users." in card["answer_html"]
    state = client.get(candidate + "/state").get_json()
    assert "diverges" not in str(state) and "Right:" not in str(state)
    assert 'value="72 KiB"' in state["answer_html"]  # the box keeps what was typed
    report = client.get(url + "/report").text
    assert "The first step that diverges is step 1" in report


def test_an_answer_needs_a_card_on_the_screen_and_a_live_interview(client, interviewer):
    created = interviewer.create(["kv-pool-users"])
    refused = interviewer.post(created["candidate_url"] + "/answer", {"answer": "37"})
    assert refused.status_code == 409
    interviewer.post(created["interviewer_url"] + "/show", {"card": "kv-pool-users"})
    too_long = interviewer.post(created["candidate_url"] + "/answer", {"answer": "9" * 201})
    assert too_long.status_code == 400 and too_long.get_json()["field"] == "answer"
    interviewer.post(created["interviewer_url"] + "/end", {})
    assert interviewer.post(created["candidate_url"] + "/answer", {"answer": "37"}).status_code == 409
    assert interviewer.post(created["interviewer_url"] + "/scenario", {
        "card": "kv-pool-users", "scenario": {"model": LLAMA}}).status_code == 409


def test_after_the_end_the_scratch_box_says_it_is_closed(client, session, interviewer):
    page = client.get(session["candidate_url"]).text
    assert "the interviewer sees what you type as you type it" in page
    interviewer.post(session["interviewer_url"] + "/end", {})
    page = client.get(session["candidate_url"]).text
    opened = re.search(r'<p class="muted" data-scratch-open( hidden)?>', page)
    closed = re.search(r'<p class="muted" data-scratch-closed( hidden)?>', page)
    assert opened.group(1) == " hidden" and closed.group(1) is None
    assert "the scratch box is closed" in page and re.search(r"<textarea[^>]*readonly", page)


def test_the_report_has_a_print_button(client, session):
    page = client.get(session["interviewer_url"] + "/report").text
    assert '<button type="button" class="secondary" data-print hidden>Print</button>' in page
    assert '<script src="/static/print.js" defer></script>' in page


def test_the_setup_page_says_what_a_variant_or_an_input_changes(client, interviewer):
    csrf = interviewer.csrf()
    preview = client.post("/interview/new/scenario", json={"card": "kv-pool-users", "scenario": {"variant": "1"}},
                          headers={"X-CSRFToken": csrf})
    data = preview.get_json()
    assert preview.status_code == 200 and data["summary"] == "Scenario: variant: Qwen3-8B with an FP8 KV cache"
    assert rows(data["html"])["KV cache dtype"] == ("fp8", "the variant's")
    changed = client.post("/interview/new/scenario", headers={"X-CSRFToken": csrf}, json={
        "card": "kv-pool-users", "scenario": {"model": LLAMA}}).get_json()
    assert changed["summary"] == "Scenario: the card's own, changed by the interviewer"
    assert rows(changed["html"])["Model"] == (LLAMA, "set by the interviewer")
    refused = client.post("/interview/new/scenario", headers={"X-CSRFToken": csrf}, json={
        "card": "kv-pool-users", "scenario": {"model": "deepseek-ai/DeepSeek-V3"}})
    assert refused.status_code == 400 and refused.get_json()["field"] == "scenario.model"
    assert "Not possible: this card is not written for deepseek-ai/DeepSeek-V3" in refused.get_json()["html"]
    # Without the script: the form's "show what changes" button draws the same.
    page = client.post("/interview/new", data={"candidate": "Grace", "check": "1",
                                               "variant.kv-pool-users": "1"}).text
    assert "Scenario: variant: Qwen3-8B with an FP8 KV cache" in page
    assert '<dt>KV cache dtype</dt><dd>fp8 <span class="source">the variant&#39;s</span>' in page


@pytest.mark.parametrize("text, markdown", [
    # Ordinary punctuation means nothing to Markdown: it stays as typed.
    ("good.", "good."), ("trade-offs next time.", "trade-offs next time."),
    ("Follow-up 1 (L2 Working)", "Follow-up 1 (L2 Working)"), ("max_model_len", "max_model_len"),
    ("~37 users, 2:1 or 3/4", "~37 users, 2:1 or 3/4"), ("a < b & c", "a < b & c"),
    # What Markdown reads as syntax is escaped (CommonMark: backslash escapes, entity references).
    ("_emphasis_ and *strong*", r"\_emphasis\_ and \*strong\*"), ("[x](javascript:alert(1))", r"\[x\](javascript:alert(1))"),
    ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"), ("&amp;", "&amp;amp;"),
    ("`code`", r"\`code\`"), ("a | b", r"a \| b"), ("~~struck~~", r"\~\~struck\~\~"),
    ("# heading", r"\# heading"), ("- item", r"\- item"), ("1. item", r"1\. item"), ("> quote", r"\> quote"),
    ("https://example.com", r"https\://example.com"), ("www.example.com", r"www\.example.com"),
])
def test_the_markdown_escapes_only_what_would_change_its_meaning(text, markdown):
    assert md_escape(text) == markdown
