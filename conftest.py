"""Settings for every pytest run of the repository (lib/ doctests, tests/, tests/browser/).

Hypothesis keeps its files (the example database, its cache of constants found in the code) in
``.hypothesis/`` under the current directory by default, so running the tests from anywhere else left
a ``.hypothesis/`` there. They go into the repository's own ``.hypothesis/`` (git-ignored) instead,
wherever pytest is started. This file sits at the repository root so that it applies to every test
path, the doctests in lib/ included.
"""

from pathlib import Path

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

REPO = Path(__file__).resolve().parent
HYPOTHESIS_DIR = REPO / ".hypothesis"

set_hypothesis_home_dir(HYPOTHESIS_DIR)
settings.register_profile("roofline", database=DirectoryBasedExampleDatabase(HYPOTHESIS_DIR / "examples"))
settings.load_profile("roofline")
