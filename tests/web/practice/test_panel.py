"""The calculator panel of a card and scenario is drawn once and kept; after an error it shows
what the reader typed, drawn for that request."""

import re

import pytest

from quizapp.web import caches
from quizapp.web.practice import card_page


@pytest.fixture
def draws(monkeypatch):
    drawn = []
    real = card_page._draw_panel
    monkeypatch.setattr(card_page, "_draw_panel", lambda rows: drawn.append(rows) or real(rows))
    caches.clear()
    return drawn


def panel_of(page: str) -> str:
    return re.search(r'<div id="controls">(.*?)</div>\s*<button type="submit" class="secondary" id="recalculate">',
                     page, re.S).group(1)


def test_one_scenario_draws_its_panel_once(reader, draws):
    pages = [reader.open().text for _ in range(3)]
    assert len(draws) == 1
    assert panel_of(pages[0]) == panel_of(pages[2])
    assert 'id="in-model"' in panel_of(pages[0])


def test_another_scenario_draws_its_own(reader, draws):
    own = reader.open().text
    fp8 = reader.open("?kv_cache_dtype=fp8").text
    reader.open("?kv_cache_dtype=fp8")
    assert len(draws) == 2
    assert '<option value="fp8" selected>' in panel_of(fp8)
    assert '<option value="fp8" selected>' not in panel_of(own)


def test_an_error_shows_what_was_typed_every_time(reader, draws):
    for typed in ("12x", "13x"):
        page = reader.open(f"?pool_tokens={typed}").text
        assert f'value="{typed}"' in panel_of(page)
        assert 'aria-invalid="true"' in panel_of(page)
    assert len(draws) == 2


def test_the_fragment_carries_the_same_panel_as_the_page(client, reader, draws):
    page = reader.open("?kv_cache_dtype=fp8").text
    fragment = client.get("/cards/kv-pool-users/fragment?kv_cache_dtype=fp8").get_json()
    assert fragment["controls"] == panel_of(page)
