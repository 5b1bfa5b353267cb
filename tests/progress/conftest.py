import pytest

from quizapp.progress.db import connect


@pytest.fixture
def db(tmp_path):
    database = connect(tmp_path / "progress.sqlite")
    yield database
    database.conn.close()


LEARNER = "0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210"
