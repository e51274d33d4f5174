"""The test run leaves nothing behind outside the repository."""

import os
from pathlib import Path

from hypothesis import settings
from hypothesis.configuration import storage_directory

REPO = Path(__file__).resolve().parents[1]


def test_hypothesis_keeps_its_files_in_the_repository(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # as if pytest had been started from another directory
    assert storage_directory("constants", intent_to_write=False).path.is_relative_to(REPO / ".hypothesis")
    database = settings().database
    assert database is None or Path(database.path).is_relative_to(REPO / ".hypothesis"), database
    assert os.listdir(tmp_path) == []


def test_one_version_number():
    """The package's metadata takes its version from ``roofline.__version__`` (pyproject.toml's dynamic
    version), so the two cannot disagree."""
    import importlib.metadata

    import roofline

    assert importlib.metadata.version("roofline") == roofline.__version__
