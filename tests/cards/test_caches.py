"""The card layer's caches: a card is plain data, renders follow the file's text, copies compile once."""

import os
import pickle

import pytest

from quizapp.calc import CalcError
from quizapp.cards import Bank, caches, card_view, resolve_scenario, scenario_from_query
from quizapp.cards.template.render import render_piece
from quizapp.lru import LRU

from .conftest import GOOD_CARD, load


def test_a_loaded_card_is_plain_data(write_card):
    """No Jinja environment or cache rides on a card: it pickles and comes back equal."""
    card = load(write_card())
    assert pickle.loads(pickle.dumps(card)) == card


def test_a_file_changed_within_one_timestamp_renders_its_new_text(write_card):
    """Renders are kept by the file's text, not its modification time (which a file system
    may leave unchanged over two quick writes)."""
    path = write_card()
    before = load(path)
    stamp = os.stat(path).st_mtime_ns
    path.write_text(GOOD_CARD.replace("{{ users_fit }} users.", "{{ users_fit }} readers."), encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))
    after = load(path)
    assert after.mtime == before.mtime
    scenario = resolve_scenario(after, None, {})
    assert "users." in render_piece(before, "short", scenario).html
    assert "readers." in render_piece(after, "short", scenario).html


def test_a_copy_of_a_card_compiles_none_of_its_pieces_again(write_card):
    caches.clear_all()
    load(write_card())
    # Its eight pieces: the question, two answers, a follow-up's question and answer, a wrong
    # answer and why, the taught-in note.
    assert len(caches.TEMPLATES) == 8
    load(write_card(GOOD_CARD.replace("id: tiny", "id: tiny-copy"), name="tiny-copy.md"))
    assert len(caches.TEMPLATES) == 8


def test_clear_all_empties_every_cache_of_the_module(write_card):
    bank = Bank(write_card().parent).refresh()  # indexes, validates and loads the card
    card = bank.get("tiny")
    card_view(card, scenario_from_query(card, {}), set(card.stage_names))
    every = [value for value in vars(caches).values() if isinstance(value, LRU)]
    assert set(map(id, every)) == set(map(id, caches.ALL)), "a cache that clear_all() does not clear"
    assert all(len(cache) for cache in every)
    caches.clear_all()
    assert [len(cache) for cache in every] == [0] * len(every)


def test_a_query_s_scenario_is_resolved_once_and_a_refused_query_is_refused_every_time(write_card):
    card = Bank(write_card().parent).refresh().get("tiny")
    caches.clear_all()
    first = scenario_from_query(card, {"prompt_tokens": "1024", "utm_source": "mail"})
    again = scenario_from_query(card, {"prompt_tokens": "1024"})  # a field that names no scenario aside
    assert again is first and len(caches.SCENARIOS) == 1
    assert first.inputs.prompt_tokens == 1024 and first.key == resolve_scenario(card, None, {"prompt_tokens": 1024}).key
    assert scenario_from_query(card, {"variant": "0"}).inputs.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert scenario_from_query(card, {}).inputs.prompt_tokens == 512
    for _ in range(2):
        with pytest.raises(CalcError) as refused:
            scenario_from_query(card, {"kv_cache_dtype": "fp8"})
        assert refused.value.field == "kv_cache_dtype"
    assert len(caches.SCENARIOS) == 4  # "1024" from a URL and 1024 from a caller are asked apart


def test_a_card_s_stages_are_one_view_for_every_scenario_until_one_is_revealed(write_card):
    """Until a stage is revealed no stage shows the scenario's text, so every scenario of a card
    shares one view of its stages; its question is still each scenario's own. Once the short answer
    is revealed, it is each scenario's: 24,096 tokens are 1,506 blocks of 16, and a user of 512 + 128
    tokens holds 40, so ⌊(1,506 − 1) ÷ 40⌋ = 37 users; twice the pool, ⌊(3,012 − 1) ÷ 40⌋ = 75."""
    card = Bank(write_card().parent).refresh().get("tiny")
    own, bigger, llama = (scenario_from_query(card, query) for query in
                          ({}, {"pool_tokens": "48192"}, {"variant": "0"}))
    views = [card_view(card, scenario, set()) for scenario in (own, bigger, llama)]
    assert views[1].stages is views[0].stages and views[2].stages is views[0].stages
    assert "Qwen/Qwen3-8B" in views[0].question_html and "Llama-3.1-8B" in views[2].question_html
    assert [card_view(card, scenario, {"short"}).stage("short").html for scenario in (own, bigger)] == [
        "<p>37 users.</p>", "<p>75 users.</p>"]
