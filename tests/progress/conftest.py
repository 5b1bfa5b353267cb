import pytest

from quizapp.progress import events
from quizapp.progress.db.connection import close, connect
from quizapp.progress.events import Event


@pytest.fixture
def db(database):
    """The storage modules' connection, on each backend (``database`` in tests/conftest.py)."""
    connection = connect(database)
    yield connection
    close(connection)


LEARNER = "0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210"


def some_progress(db, learner):
    """A reveal and a grade of kv-pool-users: rows in events, review_log and card_states."""
    events.record(db, learner, Event("evt-rev-0001", "kv-pool-users", "reveal", "short"))
    events.record(db, learner, Event("evt-grade-01", "kv-pool-users", "grade", value="good"))
