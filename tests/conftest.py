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
