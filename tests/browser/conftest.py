"""Fixtures for the browser tests: a built book, a local web server and headless Chromium.

The book is built once per session with ``scripts/build_book.sh`` unless ``ROOFLINE_BOOK_HTML``
points at an existing ``_build/html``. It is served from 127.0.0.1 on a free port and opened in
Debian's Chromium (``/usr/bin/chromium``, or ``ROOFLINE_CHROMIUM``) through Playwright; no browser
is ever downloaded. Without Chromium the tests are skipped, unless ``ROOFLINE_BROWSER_REQUIRED=1``
(as in CI), which turns the skip into a failure.
"""

import functools
import http.server
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
_WEIGHTS = {}  # docname -> (HTML + image bytes, all bytes loaded, is a chapter)
_TIMES = {}    # what took how long, s
LIVE_REPORT = {}  # live figure -> redraw and frame times (ms), the page's and the live scripts' bytes


@pytest.fixture(scope="session")
def html_dir():
    """The built book: ``ROOFLINE_BOOK_HTML`` if set, otherwise a fresh build."""
    given = os.environ.get("ROOFLINE_BOOK_HTML")
    if given:
        path = Path(given).resolve()
        assert (path / "index.html").is_file(), f"ROOFLINE_BOOK_HTML={given} holds no index.html"
        return path
    start = time.perf_counter()
    # jupyter-book from the same environment as this pytest, even if it is not activated
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    subprocess.run(["bash", str(REPO / "scripts" / "build_book.sh")], cwd=REPO, env=env, check=True)
    _TIMES["book build"] = time.perf_counter() - start
    return REPO / "_build" / "html"


@pytest.fixture(scope="session")
def out_dir(html_dir):
    """Where screenshots and page sizes go: next to the html folder (``_build/``)."""
    return html_dir.parent


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def base_url(html_dir):
    """The book served over HTTP on 127.0.0.1, on a free port chosen by the OS."""
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    if not Path(CHROMIUM).is_file():
        message = f"no Chromium at {CHROMIUM} (apt-get install chromium, or set ROOFLINE_CHROMIUM)"
        if os.environ.get("ROOFLINE_BROWSER_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def page_weights(out_dir):
    """Record a page's weight; keeps ``_build/page_sizes.txt`` up to date."""

    def record(docname, own, total, chapter):
        _WEIGHTS[docname] = (own, total, chapter)
        (out_dir / "page_sizes.txt").write_text("\n".join(_format_weights()) + "\n")

    return record


def _format_weights():
    width = max(len(name) for name in _WEIGHTS)
    lines = [f"{'page':<{width}}  HTML+images+live JS  everything loaded"]
    for name, (own, total, chapter) in _WEIGHTS.items():
        lines.append(f"{name:<{width}}  {own / 1e6:16.3f} MB  {total / 1e6:8.3f} MB"
                     + ("  (chapter)" if chapter else ""))
    return lines


def _format_live():
    lines = ["figure    checks  redraw ms (median / max)  + layout ms (median / max)  page+images  live scripts"]
    for key, r in LIVE_REPORT.items():
        lines.append(f"{key:<9} {r['checks']:>6}  {statistics.median(r['redraw_ms']):8.2f} / {max(r['redraw_ms']):6.2f}"
                     f"       {statistics.median(r['frame_ms']):8.2f} / {max(r['frame_ms']):6.2f}"
                     f"      {r['page_bytes'] / 1e6:6.3f} MB   {sum(r['script_bytes'].values()) / 1e6:6.3f} MB "
                     f"(shared by every chapter)")
    return lines


def write_live_report(out_dir):
    """Keep ``_build/live_figures.txt`` up to date with the live figures measured so far."""
    (out_dir / "live_figures.txt").write_text("\n".join(_format_live()) + "\n")


def pytest_terminal_summary(terminalreporter):
    """Print the page weights measured by the page tests."""
    if _WEIGHTS:
        terminalreporter.write_sep("-", "page weights")
        for line in _format_weights():
            terminalreporter.write_line(line)
    if LIVE_REPORT:
        terminalreporter.write_sep("-", "live figures (no kernel)")
        for line in _format_live():
            terminalreporter.write_line(line)
    for what, seconds in _TIMES.items():
        terminalreporter.write_line(f"{what}: {seconds:.0f} s")
