"""Running the suite leaves the checkout as it was (tests/conftest.py)."""

from hypothesis import settings
from hypothesis.configuration import storage_directory

from tests.paths import ROOT


def test_hypothesis_keeps_nothing_in_the_checkout():
    assert settings().database is None
    home = storage_directory("constants", intent_to_write=False).path
    assert ROOT not in home.parents, home
