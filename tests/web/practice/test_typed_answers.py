"""Typed answers on the card page: the verdict names the scenario it was checked for, the working
box is kept and never graded, and nothing of the answer is stored before the short answer is
revealed (issue 12, H2). On the web tests' own bank."""

from __future__ import annotations

from urllib.parse import quote

import pytest

# ---------------------------------------------------------------- the scenario a verdict names


LLAMA_FP8 = "?model=meta-llama/Llama-3.1-8B-Instruct&kv_cache_dtype=fp8"


def test_a_verdict_names_the_scenario_it_was_checked_for(reader):
    shown = reader.feedback(reader.answer("37").text)
    assert shown["headline"] == "Checked for Qwen3-8B on the L4: right."
    assert shown["message"] == "Right: 37 users."


def test_changing_the_scenario_relabels_the_verdict(client, reader):
    reader.answer("37")
    expected = ("Checked for Qwen3-8B on the L4: right; for this scenario (Llama-3.1-8B-Instruct with the KV "
                "cache in FP8 on the L4) the answer is 84 users.")
    assert reader.feedback(reader.open(LLAMA_FP8).text)["headline"] == expected
    fragment = client.get("/cards/kv-pool-users/fragment" + LLAMA_FP8).get_json()
    assert reader.feedback(fragment["stages"]["short"])["headline"] == expected
    # Back in the scenario it was checked for, the verdict stands alone again.
    assert reader.feedback(reader.open().text)["headline"] == "Checked for Qwen3-8B on the L4: right."


def test_a_change_that_keeps_the_label_still_says_the_answer_for_this_scenario(reader):
    reader.answer("37")
    # 1,024 + 128 tokens = 72 blocks a user: ⌊(1,506 − 1) ÷ 72⌋ = 20 users.
    shown = reader.feedback(reader.open("?prompt_tokens=1024").text)
    assert shown["headline"] == ("Checked for Qwen3-8B on the L4: right; for this scenario the answer is "
                                 "20 users.")


def test_the_unit_beside_the_box_comes_from_the_card_s_value(reader):
    assert '<span class="answer-unit" id="answer-unit">users</span>' in reader.open().text
    assert '<span class="answer-unit" id="answer-unit">KiB</span>' in reader.open(card="kv-bytes-per-token").text


# ---------------------------------------------------------------- the working box


def test_the_working_is_kept_and_shown_but_never_graded(reader):
    working = "each user holds 640 tokens so 37 fit"
    reader.open()
    page = reader.reveal("short", answer="37", working=working).text
    assert reader.feedback(page)["verdict"] == "right"
    assert f'<p class="working">{working}</p>' in page
    [stored] = reader.stored_answers()
    assert stored["detail"]["working"] == working
    assert "640 tokens does not fit" not in page


def test_working_without_a_number_is_kept_and_nothing_is_checked(reader):
    reader.open()
    page = reader.reveal("short", working="3 is wrong, it is 37").text
    [stored] = reader.stored_answers()
    assert stored["value"] == "" and stored["detail"]["working"] == "3 is wrong, it is 37"
    assert "verdict" not in stored["detail"] and "expected" not in stored["detail"]
    assert "No number in the answer box, so nothing was checked." in page
    assert "startup concurrency" not in page


def test_words_around_the_unit_are_read_as_the_number_and_its_unit(reader):
    """Issue 18: "37 simultaneous users" was unreadable where "37 users" is right."""
    shown = reader.feedback(reader.answer("37 simultaneous users").text)
    assert (shown["verdict"], shown["message"]) == ("right", "Right: 37 users.")
    # Llama 3.1 70B at TP 4: 80 layers × 8 KV heads ÷ 4 ranks × 128 × 2 (K and V) × 2 bytes = 80 KiB a token.
    shown = reader.feedback(reader.answer("about 80 KiB per token", card="kv-bytes-per-token").text)
    assert shown["verdict"] == "right"


@pytest.mark.parametrize("typed", ["3 is wrong, it is 37", "each user holds 640 tokens so 37 fit"])
def test_sentences_in_the_number_box_are_not_misread(reader, typed):
    """Issue 8's unfair verdicts: a sentence is unreadable (and says why), never a wrong unit or a mistake."""
    shown = reader.feedback(reader.answer(typed).text)
    assert shown["verdict"] == "unreadable"
    assert "working box" in shown["message"]


# ---------------------------------------------------------------- issue 12, H2: nothing stored before the reveal


ANSWER_TEXTS = ["expected", "derivation", "null block", "startup concurrency", "37 users"]


@pytest.mark.parametrize("stage", ["taught", "wrong", "full", "followup-1"])
def test_no_answer_is_graded_or_stored_with_another_reveal(client, reader, stage):
    reader.open()
    response = client.post(f"/cards/kv-pool-users/reveal/{stage}", data={"answer": "3"})
    export = client.get("/me/export").text
    for text in ANSWER_TEXTS:
        assert text not in export
    assert not reader.stored_answers()
    assert response.status_code == 409  # and the reveal itself is out of order


def test_an_answer_sent_with_a_later_reveal_is_ignored(reader):
    reader.reveal("short")
    reader.reveal("full", answer="3")
    reader.reveal("followup-1", answer="3")
    assert not reader.stored_answers()


def test_the_short_answer_s_reveal_stores_the_graded_answer(reader):
    reader.answer("3")
    [stored] = reader.stored_answers()
    assert stored["detail"]["expected"] == "37" and "null block" in stored["detail"]["derivation"]
    assert stored["detail"]["mistake"]["name"] == "max_concurrency"
    assert stored["detail"]["checked_for"] == "Qwen3-8B on the L4"


def test_an_oversized_number_is_unreadable_and_the_reveal_is_kept(client, reader):
    """Issue 12, M4: "hundred " × 160 was a 500 and lost the reveal."""
    page = reader.answer("hundred " * 160)
    assert page.status_code == 200
    assert reader.feedback(page.text)["verdict"] == "unreadable"
    assert "short" in [row["stage"] for row in client.get("/me/export").get_json()["events"]
                       if row["kind"] == "reveal"]


def test_a_card_url_with_a_quoted_query_grades_in_that_scenario(reader):
    query = "?model=" + quote("meta-llama/Llama-3.1-8B-Instruct", safe="")
    assert reader.feedback(reader.answer("42", query).text)["verdict"] == "right"


# ---------------------------------------------------------------- issue 18, point 6: worked answers, step by step


def test_the_answer_box_offers_one_optional_box_per_step(reader):
    page = reader.open().text
    assert 'name="step-kv_bytes_per_token"' in page and 'name="step-num_blocks"' in page
    assert 'name="step-users_fit"' not in page  # the answer's own value is the number box
    assert "Step 1: The KV bytes per token" in page and "Step 3, the answer: the number" in page


def test_a_step_that_diverges_is_named_with_its_arithmetic_and_the_right_answer_still_counts(reader):
    """The acceptance: 72 KiB for the bytes per token (key and value counted once) and 37 users."""
    reader.open()
    page = reader.reveal("short", answer="37 users", **{"step-kv_bytes_per_token": "72 KiB"}).text
    # 36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB.
    assert ("The first step that diverges is step 1, the KV bytes per token: you wrote 72 KiB, and it is 144 KiB "
            "(36 layers × 8 KV heads × 128 head size × 2 (K and V) × 2 bytes = 147,456 B = 144 KiB).") in page
    assert reader.feedback(page)["message"] == "Right: 37 users."
    [stored] = reader.stored_answers()
    assert [(s["name"], s["verdict"]) for s in stored["detail"]["steps"]] == [("kv_bytes_per_token", "wrong")]


def test_steps_are_checked_in_the_reader_s_scenario(reader):
    # Llama 3.1 8B in FP8: 32 layers × 8 KV heads × 128 × 2 (K and V) × 1 byte = 65,536 B = 64 KiB.
    reader.open(LLAMA_FP8)
    page = reader.reveal("short", LLAMA_FP8, **{"step-kv_bytes_per_token": "64 KiB"}).text
    assert "Every step you gave is right." in page and "Right: 64 KiB." in page
