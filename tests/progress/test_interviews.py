"""Interview sessions in SQLite: tokens kept as digests, what the candidate saw and when, scores,
signals, notes, clocks, the end; and the limits on what is stored."""

from datetime import datetime, timedelta, timezone

import pytest

from quizapp.progress import interviews, live
from quizapp.progress.interviews import InterviewError, PlannedCard

START = datetime(2026, 3, 2, 14, 0, tzinfo=timezone.utc)
CARDS = [PlannedCard("kv-pool-users"), PlannedCard("kv-bytes-per-token", 1, {"kv_cache_dtype": "fp8"})]


def at(minutes: float) -> datetime:
    return START + timedelta(minutes=minutes)


@pytest.fixture
def created(db):
    return interviews.create(db, "  Ada   Lovelace ", "Inference Engineering", CARDS, at(0))


def test_a_token_finds_its_session_and_says_whose_it_is(db, created):
    assert interviews.find(db, created.interviewer_token) == (created.id, "interviewer")
    assert interviews.find(db, created.candidate_token) == (created.id, "candidate")
    assert interviews.find(db, created.interviewer_token[:-1]) is None
    assert interviews.find(db, "") is None


def test_only_digests_of_the_tokens_are_stored(db, created):
    stored = " ".join(str(v) for row in db.execute("SELECT * FROM interviews").fetchall() for v in row)
    assert created.interviewer_token not in stored and created.candidate_token not in stored
    assert interviews.digest(created.interviewer_token) in stored


def test_the_candidates_token_comes_from_the_interviewers_and_not_back(created):
    assert interviews.candidate_token(created.interviewer_token) == created.candidate_token
    assert len(created.interviewer_token) >= 43 and len(created.candidate_token) >= 43
    assert created.candidate_token != created.interviewer_token


def test_a_new_session_holds_its_cards_and_scenarios_in_order(db, created):
    session = interviews.load(db, created.id)
    assert (session.candidate, session.role, session.started_at, session.current) == (
        "Ada Lovelace", "Inference Engineering", None, None)
    assert [(c.card_id, c.variant, c.overrides) for c in session.cards] == [
        ("kv-pool-users", None, {}), ("kv-bytes-per-token", 1, {"kv_cache_dtype": "fp8"})]


def test_a_reveal_puts_its_card_on_screen_and_keeps_the_first_time(db, created):
    live.reveal(db, created.id, "kv-pool-users", "short", at(2))
    version = interviews.candidate_version(db, created.id)
    live.reveal(db, created.id, "kv-pool-users", "short", at(5))
    session = interviews.load(db, created.id)
    assert session.current == "kv-pool-users" and session.started_at == "2026-03-02T14:02:00.000000+00:00"
    assert session.cards[0].reveals == {"short": "2026-03-02T14:02:00.000000+00:00"}
    assert interviews.candidate_version(db, created.id) == version  # nothing new for the candidate


def test_each_card_is_timed_while_it_is_on_screen(db, created):
    live.show(db, created.id, "kv-pool-users", at(1))
    live.show(db, created.id, "kv-bytes-per-token", at(4))
    live.show(db, created.id, "kv-pool-users", at(6))
    session = interviews.load(db, created.id)
    assert session.cards[0].time_ms(at(7)) == 4 * 60_000
    assert session.cards[1].time_ms(at(7)) == 2 * 60_000
    live.end(db, created.id, at(8))
    session = interviews.load(db, created.id)
    assert session.cards[0].time_ms(at(60)) == 5 * 60_000 and session.current is None
    assert session.elapsed_ms(at(60)) == 7 * 60_000


def test_scores_replace_and_clear(db, created):
    live.score(db, created.id, "kv-pool-users", "short", 2, at(1))
    live.score(db, created.id, "kv-pool-users", "short", 4, at(2))
    live.score(db, created.id, "kv-pool-users", "followup-1", 1, at(2))
    live.score(db, created.id, "kv-pool-users", "followup-1", None, at(3))
    assert interviews.load(db, created.id).cards[0].scores == {"short": 4}


@pytest.mark.parametrize("score", [0, 5, "3", 2.5, True])
def test_a_score_is_on_the_scale(db, created, score):
    with pytest.raises(InterviewError) as error:
        live.score(db, created.id, "kv-pool-users", "short", score)
    assert error.value.field == "score"


def test_signals_are_ticked_and_unticked(db, created):
    live.signal(db, created.id, "kv-pool-users", "wrong-1", True, at(1))
    live.signal(db, created.id, "kv-pool-users", "wrong-2", True, at(2))
    live.signal(db, created.id, "kv-pool-users", "wrong-1", False, at(3))
    assert list(interviews.load(db, created.id).cards[0].signals) == ["wrong-2"]


def test_notes_carry_their_time_and_card_and_can_be_deleted(db, created):
    first = live.add_note(db, created.id, "  solid start ", "kv-pool-users", at(1))
    live.add_note(db, created.id, "overall: calm", None, at(2))
    assert first == {"id": first["id"], "card_id": "kv-pool-users", "text": "solid start",
                     "at": "2026-03-02T14:01:00.000000+00:00"}
    live.delete_note(db, created.id, first["id"])
    assert [n["text"] for n in interviews.load(db, created.id).notes] == ["overall: calm"]
    with pytest.raises(InterviewError):
        live.delete_note(db, created.id, first["id"])


def test_the_end_stops_the_candidates_side_but_not_the_scoring(db, created):
    live.show(db, created.id, "kv-pool-users", at(1))
    live.end(db, created.id, at(9))
    with pytest.raises(InterviewError) as error:
        live.reveal(db, created.id, "kv-pool-users", "full", at(10))
    assert error.value.status == 409
    with pytest.raises(InterviewError):
        live.set_scratch(db, created.id, "late", at(10))
    live.score(db, created.id, "kv-pool-users", "short", 3, at(11))
    live.recommend(db, created.id, "yes", "clear")
    live.end(db, created.id, at(12))  # a second end changes nothing
    session = interviews.load(db, created.id)
    assert session.ended_at == "2026-03-02T14:09:00.000000+00:00" and session.recommendation == "yes"


def test_only_changes_the_candidate_sees_move_their_counter(db, created):
    before = interviews.candidate_version(db, created.id)
    live.add_note(db, created.id, "n")
    live.score(db, created.id, "kv-pool-users", "short", 1)
    live.signal(db, created.id, "kv-pool-users", "wrong-1", True)
    live.recommend(db, created.id, "no", "")
    live.set_scratch(db, created.id, "x")
    assert interviews.candidate_version(db, created.id) == before
    live.show(db, created.id, "kv-pool-users")
    assert interviews.candidate_version(db, created.id) == before + 1


@pytest.mark.parametrize("call, field", [
    (lambda db: interviews.create(db, "", "", CARDS), "candidate"),
    (lambda db: interviews.create(db, "x" * 201, "", CARDS), "candidate"),
    (lambda db: interviews.create(db, "Ada", "r" * 201, CARDS), "role"),
    (lambda db: interviews.create(db, "Ada", "", []), "cards"),
    (lambda db: interviews.create(db, "Ada", "", [PlannedCard(f"card-{i}") for i in range(51)]), "cards"),
    (lambda db: interviews.create(db, "Ada", "", [PlannedCard("a"), PlannedCard("a")]), "cards"),
])
def test_what_a_new_session_refuses(db, call, field):
    with pytest.raises(InterviewError) as error:
        call(db)
    assert error.value.field == field


def test_texts_are_bounded(db, created):
    with pytest.raises(InterviewError):
        live.add_note(db, created.id, "n" * 10_001)
    with pytest.raises(InterviewError):
        live.set_scratch(db, created.id, "s" * 20_001)
    with pytest.raises(InterviewError):
        live.recommend(db, created.id, "yes", "r" * 10_001)
    with pytest.raises(InterviewError) as error:
        live.add_note(db, created.id, "x", "not-in-this-session")
    assert error.value.field == "card"
    live.set_scratch(db, created.id, "s" * 20_000)
    assert len(interviews.load(db, created.id).scratch) == 20_000


def test_the_interviewers_list_shows_its_own_sessions_newest_first(db, created):
    later = interviews.create(db, "Grace", "", CARDS[:1], at(30))
    listed = interviews.listing(db, [created.interviewer_token, later.interviewer_token, created.candidate_token,
                                     "unknown"])
    assert [(s["candidate"], s["cards"]) for s in listed] == [("Grace", 1), ("Ada Lovelace", 2)]
