"""The authors' pages: the bank's problems with paths relative to the questions folder, a broken
card's page, and a preview of every card in each variant and each model of its space."""

import re

import pytest

from quizapp import create_app
from quizapp.cards import load_bank, resolve_scenario

from .. import test_security

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def client_for(tmp_path, folder, **config):
    return create_app({"TESTING": True, "QUESTIONS_DIR": str(folder), "DATABASE": str(tmp_path / "db.sqlite"),
                       **config}).test_client()


def test_the_authors_page_shows_paths_relative_to_the_questions_folder(tmp_path, broken_bank):
    folder, line = broken_bank
    page = client_for(tmp_path, folder).get("/author/").text
    assert str(tmp_path) not in page
    assert "<code>kv-pool-users.md</code>" in page and "the <code>questions/</code> folder" in page
    assert f"<code>broken.md:{line}: error: unknown value &#39;users_fits&#39;" in page
    assert 'id="file-broken"' in page


def test_every_card_broken_or_not_has_a_preview_link(tmp_path, broken_bank):
    folder, _ = broken_bank
    page = client_for(tmp_path, folder).get("/author/").text
    assert 'href="/author/cards/kv-pool-users"' in page and 'href="/author/cards/broken"' in page


def test_a_broken_card_s_page_tells_an_author_what_is_wrong(tmp_path, broken_bank):
    folder, line = broken_bank
    response = client_for(tmp_path, folder).get("/cards/broken")
    assert response.status_code == 404
    assert (f"This card has an error:</strong> <code>broken.md:{line}: error: unknown value "
            "&#39;users_fits&#39;") in response.text
    assert 'href="/author/#file-broken"' in response.text and str(tmp_path) not in response.text


def test_a_broken_card_s_preview_lists_its_problems(tmp_path, broken_bank):
    folder, line = broken_bank
    response = client_for(tmp_path, folder).get("/author/cards/broken")
    assert response.status_code == 200
    assert re.search(rf'<li class="error"><code>broken.md:{line}: error: unknown value', response.text)


def test_the_api_says_it_in_json(tmp_path, broken_bank):
    folder, line = broken_bank
    response = client_for(tmp_path, folder).get("/api/cards/broken/values")
    assert response.status_code == 404
    assert response.get_json() == {"error": f"This card has an error: broken.md:{line}: unknown value 'users_fits'",
                                   "field": None}


def test_readers_get_a_plain_not_found_when_author_tools_are_off(tmp_path, broken_bank):
    folder, _ = broken_bank
    response = client_for(tmp_path, folder, AUTHOR_TOOLS=False).get("/cards/broken")
    assert response.status_code == 404
    assert "has an error" not in response.text and "There is no card &#39;broken&#39;" in response.text


def test_a_card_that_does_not_exist_is_still_a_plain_not_found(client):
    response = client.get("/cards/nowhere")
    assert response.status_code == 404 and "There is no card &#39;nowhere&#39;" in response.text


def options(page: str, select_id: str) -> list[tuple[str, str, bool]]:
    """(value, text, selected) of each option of a select."""
    select = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', page, re.S)
    assert select, f"no select #{select_id}"
    return [(value, text.strip(), bool(selected)) for value, selected, text in
            re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)</option>', select[1])]


def test_the_preview_picks_a_variant_and_a_model_of_the_space(client, questions_dir):
    card = load_bank(questions_dir).get("kv-pool-users")
    page = client.get("/author/cards/kv-pool-users").text
    assert [text for _, text, _ in options(page, "pick-variant")] == \
        ["The card's own scenario", *(v.name for v in card.variants)]
    # One model picker (issue 18): the live calculator's, which the preview follows.
    assert 'id="pick-model"' not in page and page.count('<select id="in-model"') == 1
    models = options(page, "in-model")
    # The space's models, less a variant's own that cannot start in the card's scenario (issue 17):
    # Qwen3-32B's 65.5e9 B of BF16 weights on the card's 22.49 GiB L4.
    assert [value for value, _, _ in models] == [m for m in card.space.models if m not in card.space.variant_only]
    assert "Qwen/Qwen3-32B" in card.space.variant_only
    assert ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B", True) in models


def test_the_preview_shows_the_picked_model_with_every_stage(client, questions_dir):
    card = load_bank(questions_dir).get("kv-pool-users")
    page = client.get(f"/author/cards/kv-pool-users?variant=1&model={LLAMA}").text
    expected = resolve_scenario(card, 1, {"model": LLAMA}).result
    assert f"You serve {LLAMA} on one GPU" in page
    assert f"{expected['users_fit']:,} users with {expected['tokens_per_user']:,} tokens each" in page
    assert (LLAMA, LLAMA, True) in options(page, "in-model")
    assert ("1", card.variants[1].name, True) in options(page, "pick-variant")
    assert "Author preview: every stage is shown" in page


def test_the_preview_keeps_to_the_card_s_space(client):
    response = client.get("/author/cards/kv-pool-users?model=deepseek-ai/DeepSeek-V3")
    assert response.status_code == 400
    assert "this card is not written for deepseek-ai/DeepSeek-V3" in response.text


def test_the_preview_s_calculator_stays_in_the_preview(client):
    page = client.get("/author/cards/kv-pool-users").text
    assert '<form id="calc-form" method="get" action="/author/cards/kv-pool-users">' in page
    assert 'href="/author/cards/kv-pool-users" id="reset-scenario"' in page
    assert "app.js" not in page  # its live recalculation would show the reader's stages, not every stage


@pytest.mark.parametrize("template", ["author/broken.html", "author/preview.html"])
def test_author_templates_hold_no_inline_script_or_style(template):
    test_security.test_templates_hold_no_inline_script_style_or_event_handler(template)
