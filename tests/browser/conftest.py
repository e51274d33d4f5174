"""Fixtures for the browser tests: a built book, a local web server, headless Chromium, and each page
loaded once.

The book is built once per run with ``scripts/build_book.sh`` unless ``ROOFLINE_BOOK_HTML`` points at an
existing ``_build/html``; ``scripts/test.sh`` builds it in the background while the other tests run and sets
``ROOFLINE_BOOK_BUILD_RC`` to the file where the build writes its exit status, which the tests wait for.
With pytest-xdist the first worker to need the book builds it and the others wait for that build (a file
lock). It is served from 127.0.0.1 on a free port and opened in a Chromium through Playwright
(``ROOFLINE_CHROMIUM``, else Playwright's own if installed, else the system's); no browser is ever downloaded.
Without Chromium the tests are skipped, unless ``ROOFLINE_BROWSER_REQUIRED=1`` (as in CI), which turns the skip
into a failure.

Every page is opened once per run (:func:`loaded`) and shared by all the checks on it; what the page showed
as it loaded (a screenshot, which exercise solutions were visible) is recorded then, so a check that changes
the page (opening every hidden block, moving a live figure's controls, clicking Live Code) cannot hide what
an earlier one must see. The checks on one page run on one xdist worker (their ids start with
``page:DOCNAME``: see ``scope_of`` in the root conftest.py), in the order of :data:`STAGES`: the ones that
change the page last.
"""

import fcntl
import functools
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from find_chromium import find_chromium

REPO = Path(__file__).resolve().parents[2]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _wait_for_background_build(rc_file, log_file, timeout_s=1200):
    """Wait for ``scripts/test.sh``'s background book build to write its exit status; fail with its log.
    Returns the seconds waited."""
    start = time.perf_counter()
    pid = int(os.environ.get("ROOFLINE_BOOK_BUILD_PID", "0"))
    while not rc_file.is_file() or not rc_file.read_text().strip():
        if time.perf_counter() - start > timeout_s:
            pytest.fail(f"the book build did not finish within {timeout_s} s ({rc_file} never written)")
        if pid and not _alive(pid) and not rc_file.is_file():
            log = log_file.read_text(errors="replace")[-6000:] if log_file.is_file() else "(no log)"
            pytest.fail(f"the book build (pid {pid}) ended without writing {rc_file}; the end of {log_file}:\n{log}")
        time.sleep(0.2)
    waited = time.perf_counter() - start
    rc = rc_file.read_text().strip()
    if rc != "0":
        log = log_file.read_text(errors="replace")[-6000:] if log_file.is_file() else "(no log)"
        pytest.fail(f"the book build failed (exit status {rc}); the end of {log_file}:\n{log}")
    return waited


@pytest.fixture(scope="session")
def html_dir(testrun_uid, report):
    """The built book: ``ROOFLINE_BOOK_HTML`` if set (after its background build, if one is running),
    otherwise a fresh build, made once per run however many workers need it."""
    given = os.environ.get("ROOFLINE_BOOK_HTML")
    if given:
        rc_file = os.environ.get("ROOFLINE_BOOK_BUILD_RC")
        if rc_file:
            rc_file = Path(rc_file)
            waited = _wait_for_background_build(rc_file, rc_file.with_suffix(".log"))
            report("times", f"waiting for the book build ({os.environ.get('PYTEST_XDIST_WORKER', 'one process')})",
                   waited)
        path = Path(given).resolve()
        assert (path / "index.html").is_file(), f"ROOFLINE_BOOK_HTML={given} holds no index.html"
        return path
    build = REPO / "_build"
    build.mkdir(exist_ok=True)
    done = build / ".built-by-test-run"
    with open(build / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker of this run may be building: wait for it
        if not (done.is_file() and done.read_text() == testrun_uid):
            start = time.perf_counter()
            # jupyter-book from the same environment as this pytest, even if it is not activated
            env = {**os.environ,
                   "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
            subprocess.run(["bash", str(REPO / "scripts" / "build_book.sh")], cwd=REPO, env=env, check=True)
            report("times", "book build", time.perf_counter() - start)
            done.write_text(testrun_uid)
    return build / "html"


@pytest.fixture(scope="session")
def testrun_uid(request):
    """One id per test run, the same in every xdist worker (pytest-xdist's own when it runs)."""
    workerinput = getattr(request.config, "workerinput", None)
    return workerinput["testrunuid"] if workerinput else f"{os.getpid()}-{time.time()}"


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
    """A Chromium (:func:`find_chromium`), headless, driven by Playwright."""
    chromium = find_chromium()
    if chromium is None:
        message = ("no Chromium found (ROOFLINE_CHROMIUM, Playwright's own, or chromium on the PATH); "
                   "scripts/test.sh installs Debian's")
        if os.environ.get("ROOFLINE_BROWSER_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def block_other_hosts(context, blocked):
    """Let requests to the local server through; abort any other and record its URL in ``blocked``."""

    def route(route):
        url = route.request.url
        if urllib.parse.urlsplit(url).hostname in LOCAL_HOSTS or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", route)


def evaluate_json(page, js, arg=None):
    """``page.evaluate(js, arg)`` for a result with large arrays (a figure's plotted values): the page sends it as
    one JSON text, which Python reads with ``json.loads``, instead of Playwright's structured copy, value by value
    (a figure's read, 20-57 kB, went from 8-17 ms to 2 ms). Non-finite numbers arrive as Python's ``inf``,
    ``-inf`` and ``nan``, and ``undefined`` as None, as Playwright gives them."""
    text = page.evaluate(_AS_JSON_JS.replace("FUNCTION", js), arg)
    for literal in ("Infinity", "-Infinity", "NaN"):  # the page's marked non-finite numbers, as json.loads reads them
        text = text.replace(f'"\\u0000{literal}"', literal)
    return json.loads(text)


_AS_JSON_JS = """async (arg) => JSON.stringify(await (FUNCTION)(arg), (k, x) =>
  typeof x === "number" && !Number.isFinite(x) ? "\\u0000" + x : (x === undefined ? null : x))"""


# The math is MathML in the HTML (book/_ext/roofline_math.py): what a page waits for is its fonts.
WAIT_FOR_FONTS_JS = """
async () => {
  await document.fonts.ready;
  return true;
}
"""

VIEWPORT = {"width": 1280, "height": 900}


@dataclass
class Loaded:
    """One page of the book as Chromium loaded it, and everything it did since."""

    docname: str
    url: str
    page: object
    status: int = 0
    errors: list = field(default_factory=list)     # console errors and uncaught exceptions
    failed: list = field(default_factory=list)     # failed requests and HTTP errors
    external: list = field(default_factory=list)   # requests to any host but the local server (aborted)
    loaded: list = field(default_factory=list)     # (url, resource type) of every response
    external_at_load: list = field(default_factory=list)
    solutions_visible_at_load: list = field(default_factory=list)
    load_s: float = 0.0


@pytest.fixture(scope="session")
def loaded(browser, base_url, out_dir, report):
    """``loaded(docname)``: the page, opened once per run at 1280 x 900 and kept open for every check on it.

    On first use the page is loaded (its load event: every script, stylesheet and image not loaded lazily; the
    network's going quiet, half a second later, added nothing the checks read) and its fonts (the math's among
    them) are in; then a screenshot of its first screen goes to ``_build/screenshots/`` and the visibility of
    each exercise solution is recorded. The screenshot is for a person to look at, no check reads it; ``ROOFLINE_FULL_SCREENSHOTS=1`` takes
    the whole page instead (3 s for a chapter, 13 s for the API page: a minute of the suite's time in all).
    """
    pages, contexts = {}, []

    def load(docname):
        if docname in pages:
            return pages[docname]
        start = time.perf_counter()
        context = browser.new_context(viewport=VIEWPORT)
        contexts.append(context)
        url = base_url + docname + ".html"
        p = Loaded(docname, url, context.new_page())
        block_other_hosts(context, p.external)
        p.page.on("console", lambda msg: p.errors.append(msg.text) if msg.type == "error" else None)
        p.page.on("pageerror", lambda exc: p.errors.append(str(exc)))
        p.page.on("requestfailed", lambda req: p.failed.append(f"{req.url} ({req.failure})"))

        def on_response(resp):
            if resp.status >= 400:
                p.failed.append(f"{resp.url} (HTTP {resp.status})")
            p.loaded.append((resp.url, resp.request.resource_type))

        p.page.on("response", on_response)
        p.status = p.page.goto(url, wait_until="load").status
        p.page.evaluate(WAIT_FOR_FONTS_JS)
        p.external_at_load = list(p.external)
        shots = out_dir / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        p.page.screenshot(path=str(shots / (docname.replace("/", "__") + ".png")),
                          full_page=os.environ.get("ROOFLINE_FULL_SCREENSHOTS") == "1")
        p.solutions_visible_at_load = p.page.evaluate(
            "() => Array.from(document.querySelectorAll('div.solution.dropdown > section'))"
            ".map(el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')")
        p.load_s = time.perf_counter() - start
        report("loads", docname, p.load_s)
        pages[docname] = p
        return p

    yield load
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def page_weights(report):
    """Record a page's weight (bytes of its own HTML, images and live scripts; of everything it loaded) and when
    its math was ready (seconds after the load event; None on a page without math)."""
    return lambda docname, own, total, chapter, math_s=None: report("weights", docname,
                                                                     [own, total, chapter, math_s])


STAGES = ["test_page", "test_live_figure", "test_live_figure_on_any_screen",
          "test_schedules_agree_with_the_library_everywhere",
          "test_nothing_wider_than_its_column", "test_nothing_cut_off_on_a_phone", "test_thebe_loads_only_on_click"]
"""The order of the checks on one loaded page: first what the page shows as it loads, then the checks that
move its live figure (and put it back), then the one that opens every hidden block, the one that views the page
on a phone (and puts it back), and last the one that clicks Live Code (whose blocked request to thebe's CDN is
expected)."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Browser tests last (the book builds meanwhile), each page's checks in the order of :data:`STAGES`."""
    browser = [i for i in items if i.get_closest_marker("browser")]
    rest = [i for i in items if not i.get_closest_marker("browser")]
    rank = {name: n for n, name in enumerate(STAGES)}
    browser.sort(key=lambda i: rank.get(i.originalname, -1))  # stable: collection order within a stage
    items[:] = rest + browser


def page_id(docname, *more):
    """The test id of a check on ``docname``: ``page:DOCNAME`` (then ``|`` and ``more``), which keeps every
    check on a page on the xdist worker that loaded it."""
    return "|".join([f"page:{docname}", *more])
