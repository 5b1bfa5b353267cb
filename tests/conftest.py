"""What every test shares: Hypothesis writes nothing into the checkout.

Hypothesis keeps two things on disk by default, both under ``./.hypothesis/``: an example
database (failing examples, replayed next run) and a cache of each tested module's constants
(``.hypothesis/constants/``, which ``database=None`` does not turn off). The property tests are
derandomized, so a database would replay nothing CI does not already run: the profile has
none, and Hypothesis's home is a temporary folder removed when the run ends.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

_HOME = tempfile.mkdtemp(prefix="quizapp-hypothesis-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
set_hypothesis_home_dir(_HOME)

settings.register_profile("quizapp", database=None)
settings.load_profile("quizapp")


# Storage on both databases. The tests of storage, progress, interviews and the web take the
# ``database`` fixture (or ``new_database`` for more than one) and run once on a SQLite file and
# once on PostgreSQL, each test in a schema of its own that is dropped after it. PostgreSQL is
# the server at QUIZAPP_TEST_POSTGRES (scripts/test starts one); without it those runs skip,
# except in CI (CI=true), where a missing server fails them.
import os  # noqa: E402
import uuid  # noqa: E402
from urllib.parse import quote  # noqa: E402

import pytest  # noqa: E402

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only(why): a test of SQLite's own machinery (its query plans, "
                                       "traces, lock files), not run on PostgreSQL")


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    if request.param == "postgresql" and request.node.get_closest_marker("sqlite_only"):
        pytest.skip(f"SQLite only: {request.node.get_closest_marker('sqlite_only').args[0]}")
    if request.param == "postgresql" and not os.environ.get("QUIZAPP_TEST_POSTGRES"):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI runs the storage tests on PostgreSQL: QUIZAPP_TEST_POSTGRES is not set")
        pytest.skip("no PostgreSQL: set QUIZAPP_TEST_POSTGRES (scripts/test starts a server)")
    return request.param


@pytest.fixture
def new_database(backend, tmp_path):
    """A factory: each call names a new, empty database of the test's backend (a SQLite file,
    or a postgresql:// URL whose search_path is a fresh schema)."""
    made: list[str] = []

    def make(name: str = "db") -> str:
        if backend == "sqlite":
            return str(tmp_path / f"{name}-{len(made)}.sqlite")
        import psycopg
        schema = f"test_{uuid.uuid4().hex[:16]}"
        base = os.environ["QUIZAPP_TEST_POSTGRES"]
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        made.append(schema)
        return f"{base}{'&' if '?' in base else '?'}options={quote(f'-csearch_path={schema}')}"

    yield make
    if made:
        import psycopg
        with psycopg.connect(os.environ["QUIZAPP_TEST_POSTGRES"], autocommit=True) as conn:
            for schema in made:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def database(new_database) -> str:
    """A new, empty database of the test's backend: what DATABASE is set to."""
    return new_database()


def count_rows(db, table: str) -> int:
    """How many rows a table holds, on either database."""
    return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def table_rows(db, table: str, order: str = "1") -> list[dict]:
    """A table's rows as dicts, on either database."""
    cursor = db.execute(f"SELECT * FROM {table} ORDER BY {order}")
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
