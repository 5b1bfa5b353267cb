"""PostgreSQL behind the storage functions: the SQL dialect's one place, its schema against
SQLite's, migrations applied once by servers that start together, and the settings that name it."""

import os
import threading

import pytest

from quizapp.progress.db import postgres
from quizapp.progress.db.connection import close, connect, is_postgres, shown_database
from quizapp.progress.db.migrations import migrations
from quizapp.progress.db.postgres_schema import MIGRATIONS


def test_placeholders_become_psycopgs_outside_quoted_text():
    assert postgres.placeholders("SELECT ? FROM t WHERE a = '?' AND b = ?") == \
        "SELECT %s FROM t WHERE a = '?' AND b = %s"
    assert postgres.placeholders("SELECT 5 % 2") == "SELECT 5 %% 2"


def test_a_url_names_postgresql_and_anything_else_a_sqlite_file():
    assert is_postgres("postgresql://u@db/quizapp") and is_postgres("postgres://db/q")
    assert not is_postgres("/var/lib/quizapp/quizapp.sqlite") and not is_postgres("postgresql.sqlite")


def test_a_shown_url_has_no_password():
    assert shown_database("postgresql://quiz:s3cret@db.internal:5432/quizapp") == \
        "postgresql://quiz:***@db.internal:5432/quizapp"
    assert shown_database("/srv/quizapp.sqlite") == "/srv/quizapp.sqlite"


def test_both_schemas_have_the_same_migrations_in_the_same_order():
    # sqlite-utils keeps its migrations in registration order, by function name.
    sqlite_names = [m.name for m in migrations._migrations]
    assert sqlite_names == [m.__name__ for m in MIGRATIONS]


def columns(db, backend: str) -> dict[str, list[str]]:
    if backend == "sqlite":
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                                           "LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'").fetchall()]
        return {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})").fetchall()] for t in tables}
    rows = db.execute("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = "
                      "current_schema() AND table_name != 'quizapp_migrations' ORDER BY ordinal_position").fetchall()
    found: dict[str, list[str]] = {}
    for table, column in rows:
        if column != "rowid":  # events' insertion order: SQLite's is implicit
            found.setdefault(table, []).append(column)
    return found


@pytest.fixture
def postgres_url(new_database, backend):
    if backend != "postgresql":
        pytest.skip("compares PostgreSQL's schema with SQLite's")
    return new_database()


def test_the_postgresql_schema_has_sqlites_tables_and_columns(postgres_url, tmp_path):
    lite, pg = connect(tmp_path / "same.sqlite"), connect(postgres_url)
    assert columns(pg, "postgresql") == columns(lite, "sqlite")
    close(lite), close(pg)


def test_servers_that_start_together_apply_each_migration_once(postgres_url):
    errors, dbs = [], []

    def start():
        try:
            dbs.append(connect(postgres_url))
        except Exception as error:  # noqa: BLE001 (the assertion below names it)
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    applied = dbs[0].execute("SELECT name FROM quizapp_migrations ORDER BY name").fetchall()
    assert [r[0] for r in applied] == [m.__name__ for m in MIGRATIONS]
    for db in dbs:
        close(db)


def test_a_nul_character_is_stored_as_the_replacement_character(postgres_url):
    # PostgreSQL's text cannot hold NUL; SQLite's can. A typed answer with one is stored, not a 500.
    from quizapp.progress import events

    db = connect(postgres_url)
    learner = "0123456789abcdef0123456789abcdef"
    assert events.record(db, learner, events.Event("evt-nul-0001", "kv-pool-users", "answer", value="4\x00 GiB"))
    assert events.history(db, learner)[0]["value"] == "4\ufffd GiB"
    close(db)


def test_ci_runs_the_postgresql_side():
    """In CI the PostgreSQL runs are not optional: scripts/test starts a server and sets the URL."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        assert os.environ.get("QUIZAPP_TEST_POSTGRES", "").startswith("postgresql://")
