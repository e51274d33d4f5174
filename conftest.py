"""Settings for every pytest run of the repository (lib/ doctests, tests/, tests/browser/, nbval).

Hypothesis keeps its files (the example database, its cache of constants found in the code) in
``.hypothesis/`` under the current directory by default, so running the tests from anywhere else left
a ``.hypothesis/`` there. They go into the repository's own ``.hypothesis/`` (git-ignored) instead,
wherever pytest is started. This file sits at the repository root so that it applies to every test
path, the doctests in lib/ included.
"""

import json
import os
import re
import shutil
import statistics
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

REPO = Path(__file__).resolve().parent
HYPOTHESIS_DIR = REPO / ".hypothesis"

set_hypothesis_home_dir(HYPOTHESIS_DIR)
settings.register_profile("roofline", database=DirectoryBasedExampleDatabase(HYPOTHESIS_DIR / "examples"))
settings.load_profile("roofline")


# -- running on several cores (pytest-xdist) ----------------------------------------------------------
def scope_of(nodeid):
    """The tests that must run on one xdist worker, in collection order: a notebook's cells (they share one
    kernel) and the checks on one page of the book (they share the page, loaded once: their ids start with
    ``page:DOCNAME``). Every other test is a scope of its own, handed to whichever worker is free."""
    path = nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        return path
    page = re.search(r"\[page:([^\]|]+)", nodeid)
    return f"page:{page.group(1)}" if page else nodeid


def pytest_xdist_make_scheduler(config, log):
    """Schedule by :func:`scope_of`, scopes in collection order (browser tests last: see tests/browser)."""
    from xdist.scheduler import LoadScopeScheduling

    class ScopeScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return scope_of(nodeid)

    config.option.loadscopereorder = False  # keep collection order, not largest scope first
    return ScopeScheduling(config, log)


# -- what the browser tests measured, merged over the workers -----------------------------------------
def report_dir():
    """Where tests leave what they measured, one JSON file a record: ``test-report/`` beside the built
    book's html folder (``_build/``, or the parent of ``ROOFLINE_BOOK_HTML``). Each xdist worker writes its
    own records; the summary at the end merges them."""
    html = Path(os.environ.get("ROOFLINE_BOOK_HTML") or REPO / "_build" / "html").resolve()
    return html.parent / "test-report"


def _records(kind):
    folder = report_dir() / kind
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return {f.stem.replace("__", "/"): json.loads(f.read_text()) for f in files}


@pytest.fixture(scope="session")
def report():
    """``report(kind, name, data)``: keep a measurement (``weights``, ``live``, ``loads``, ``times``) for the
    summary printed at the end of the run."""
    return _report


def _report(kind, name, data):
    folder = report_dir() / kind
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (name.replace("/", "__") + ".json")).write_text(json.dumps(data))


def pytest_sessionstart(session):
    """A fresh report folder for this run (in the controller, before any worker writes to it)."""
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(report_dir(), ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    """Print what the browser tests measured, and keep it in ``page_sizes.txt`` and ``live_figures.txt``
    beside the report folder."""
    weights, live, loads, times = (_records(k) for k in ("weights", "live", "loads", "times"))
    out = report_dir().parent
    if weights:
        width = max(len(name) for name in weights)
        lines = [f"{'page':<{width}}  HTML+images+live JS  everything loaded  math ready (s after load)"]
        for name, (own, total, chapter, *math_s) in weights.items():
            ready = f"{math_s[0]:+8.2f} s" if math_s and math_s[0] is not None else f"{'-':>10}"
            lines.append(f"{name:<{width}}  {own / 1e6:16.3f} MB  {total / 1e6:14.3f} MB  {ready}"
                         + ("  (chapter)" if chapter else ""))
        (out / "page_sizes.txt").write_text("\n".join(lines) + "\n")
        terminalreporter.write_sep("-", "page weights")
        for line in lines:
            terminalreporter.write_line(line)
    if live:
        lines = ["figure    checks  redraw ms (median / max)  + layout ms (median / max)  page+images  live scripts"]
        for key, r in live.items():
            lines.append(f"{key:<9} {r['checks']:>6}  {statistics.median(r['redraw_ms']):8.2f} / "
                         f"{max(r['redraw_ms']):6.2f}       {statistics.median(r['frame_ms']):8.2f} / "
                         f"{max(r['frame_ms']):6.2f}      {r['page_bytes'] / 1e6:6.3f} MB   "
                         f"{sum(r['script_bytes'].values()) / 1e6:6.3f} MB (shared by every chapter)")
        (out / "live_figures.txt").write_text("\n".join(lines) + "\n")
        terminalreporter.write_sep("-", "live figures (no kernel)")
        for line in lines:
            terminalreporter.write_line(line)
    if loads:
        terminalreporter.write_line(f"pages loaded: {len(loads)}, each once; {sum(loads.values()):.0f} s in all")
    for what, seconds in times.items():
        terminalreporter.write_line(f"{what}: {seconds:.0f} s")
