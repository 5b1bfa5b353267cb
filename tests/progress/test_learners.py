"""Learners: ids with 128 random bits; forget deletes their rows."""

from quizapp.progress import learners

from .conftest import LEARNER, OTHER, some_progress


def test_new_learner_ids_have_128_bits():
    ids = {learners.new_learner_id() for _ in range(100)}
    assert len(ids) == 100 and all(len(i) == 32 and learners.LEARNER_ID.match(i) for i in ids)


def test_forget_deletes_only_that_learner(db):
    some_progress(db, LEARNER)
    some_progress(db, OTHER)
    learners.forget(db, LEARNER)
    for table in ("events", "review_log", "card_states"):
        assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE learner_id = ?", [LEARNER]).fetchone()[0] == 0
        assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE learner_id = ?", [OTHER]).fetchone()[0] > 0
    assert learners.get_learner(db, LEARNER) is None
