"""Every page of the built book, opened in headless Chromium.

For each page in ``book/_toc.yml``: no console errors, no failed request (no 404, the favicon
included: the page's icon link and ``/favicon.ico`` at the site root), nothing fetched from any host
but the local server, exactly one search field, every image decoded, all math laid out as MathML written at
build time (book/_ext/roofline_math.py: no MathJax, no TeX left as text) in the book's math font within 0.5 s
of the page's load, every same-site link answering 200 (and its #fragment existing), exercise solutions hidden
until clicked, launch buttons pointing at the page's notebook on ``main``, and a chapter's first visit at most
2 MB (everything it loads, uncompressed). A screenshot of each page's first screen goes to
``_build/screenshots/`` (the whole page with ``ROOFLINE_FULL_SCREENSHOTS=1``) and page weights to
``_build/page_sizes.txt``. Each page is the one loaded once for every browser check
(``loaded`` in conftest.py).
"""

import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import VIEWPORT, page_id

pytestmark = pytest.mark.browser

TOC = Path(__file__).resolve().parents[2] / "book" / "_toc.yml"
REPO_URL = "https://github.com/llm-roofline/roofline-book"
BRANCH = "main"
MAX_CHAPTER_BYTES = 2_000_000  # a chapter's first visit: the page and everything it loads (issue 22)
MAX_MATH_READY_S = 0.5  # math laid out in its own font at most this long after the page's load event
MATH_FONT = "STIX Two Math"  # book/_static/math.css, cut at build time by book/_ext/roofline_math.py
LIVE_SCRIPT = re.compile(r"/_static/roofline-[\w-]+\.js$")  # the live figures' scripts (roofline-live.js)


def toc_docnames(toc=TOC):
    """Every page named in the table of contents, root first, in reading order."""
    data = yaml.safe_load(toc.read_text())
    names = [data["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))

    for part in data.get("parts", []):
        walk(part.get("chapters"))
    walk(data.get("chapters"))
    return [str(Path(n).with_suffix("")) for n in names]


def is_chapter(docname):
    """Chapter pages are the notebooks under notebooks/."""
    return docname.startswith("notebooks/")


PAGES = toc_docnames()

# Text nodes that still hold TeX delimiters, outside code.
RAW_MATH_JS = r"""
() => {
  const skip = "PRE,CODE,SCRIPT,STYLE,TEXTAREA,MATH";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const bad = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(skip)) continue;
    const text = node.textContent;
    if (/\\\(|\\\)|\\\[|\\\]|\$\$/.test(text)) bad.push(text.trim().slice(0, 80));
  }
  return bad;
}
"""

# Each math element of the page: whether it holds MathML that Chromium lays out as math, and what it shows.
MATH_JS = """
() => Array.from(document.querySelectorAll('.math')).map(el => {
  const m = el.querySelector(':scope > math');
  return {text: el.textContent.slice(0, 60), mathml: !!m, display: m ? getComputedStyle(m).display : null,
          error: !!el.querySelector('merror')};
})
"""

# When the page's math was ready (its font arrived; the MathML itself is in the HTML), against its load event.
MATH_READY_JS = """
(family) => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fonts = performance.getEntriesByType('resource').filter(r => /stix-two-math/.test(r.name));
  const faces = Array.from(document.fonts).filter(f => f.family.replace(/"/g, '') === family);
  return {load: nav.loadEventEnd, parsed: nav.domContentLoadedEventEnd,
          font: fonts.length ? Math.max(...fonts.map(r => r.responseEnd)) : null,
          status: faces.map(f => f.status)};
}
"""

IMAGES_JS = """
async () => {
  const imgs = Array.from(document.images);
  imgs.forEach(img => { img.loading = "eager"; });
  await Promise.all(imgs.map(img => img.decode().catch(() => null)));
  return imgs.map(img => ({src: img.currentSrc || img.src, ok: img.complete && img.naturalWidth > 0}));
}
"""


def _file_size(html_dir, url):
    """Bytes of the file a local URL serves, or 0 if it is not a plain file."""
    path = html_dir / urllib.parse.unquote(urllib.parse.urlsplit(url).path).lstrip("/")
    if path.is_dir():
        path = path / "index.html"
    return path.stat().st_size if path.is_file() else 0


@pytest.fixture(scope="session")
def link_status():
    """GET each same-site URL once; remember its status and the ids in it."""
    cache = {}

    def fetch(url):
        if url not in cache:
            try:
                with urllib.request.urlopen(url, timeout=10) as resp:
                    body = resp.read().decode("utf-8", "replace")
                    cache[url] = (resp.status, set(re.findall(r'\sid="([^"]+)"', body)))
            except urllib.error.HTTPError as err:
                cache[url] = (err.code, set())
        return cache[url]

    return fetch


@pytest.mark.parametrize("docname", PAGES, ids=page_id)
def test_page(docname, loaded, base_url, html_dir, link_status, page_weights):
    p = loaded(docname)
    page, url, failed = p.page, p.url, p.failed
    assert p.status == 200, url

    # one search field: sphinx-book-theme's in the sidebar (pydata-sphinx-theme would add one to the header)
    visible_search = page.locator(".search-button-field:visible, .search-button:visible").count()
    assert visible_search == 1, f"{docname}: {visible_search} search fields/buttons visible at 1280 px"

    # favicon: the page links one, and it and /favicon.ico (which browsers ask for on their own) answer 200
    icons = page.evaluate("() => Array.from(document.querySelectorAll('link[rel~=icon]')).map(l => l.href)")
    assert icons, f"{docname}: no favicon link"
    for icon in icons + [base_url + "favicon.ico"]:
        answer = page.request.get(icon)
        if answer.status != 200:
            failed.append(f"{icon} (HTTP {answer.status})")

    # images: every <img> decoded
    images = page.evaluate(IMAGES_JS)
    broken = [img["src"] for img in images if not img["ok"]]
    assert not broken, f"{docname}: images that did not load: {broken}"

    # icons: the book's own Font Awesome subset (book/_static/fontawesome-subset.js, written by
    # scripts/subset_fontawesome.py) drew every icon as inline SVG; an <i class="fa-..."> left means an icon
    # the subset lacks (rerun the script), and the theme's 1.5 MB bundle must not be what was served
    left = page.evaluate("() => Array.from(document.querySelectorAll(\"i[class*='fa-']\")).map(i => i.className)")
    assert not left, f"{docname}: icons not drawn (missing from the Font Awesome subset): {left}"
    assert page.locator("svg.svg-inline--fa").count() > 0, f"{docname}: no icon drawn"
    fa_bytes = page.evaluate("async () => (await (await fetch("
                             "document.querySelector('script[src*=\"fontawesome\"]').src)).text()).length")
    assert fa_bytes < 100_000, f"{docname}: Font Awesome is {fa_bytes:,} bytes: the theme's bundle, not the subset"
    assert page.locator("script[src*='scripts/fontawesome.js']").count() == 0, f"{docname}: the theme's bundle loads"
    # icons drawn by CSS (admonition and exercise titles) use the theme's webfont, not one no page defines
    font = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--fa-font-solid')")
    assert "Font Awesome 6 Free" in font, f"{docname}: CSS icons ask for {font!r}, a font the book does not ship"

    # math: each math element holds MathML, written at build time, that Chromium lays out as math (no
    # MathJax, nothing typeset in the browser), with no error and no TeX left as text; its font had arrived
    # within MAX_MATH_READY_S of the load event
    maths = page.evaluate(MATH_JS)
    not_mathml = [m["text"] for m in maths if not m["mathml"] or not (m["display"] or "").endswith("math")]
    assert not not_mathml, f"{docname}: math not rendered as MathML: {not_mathml[:5]}"
    assert not [m for m in maths if m["error"]], f"{docname}: MathML with an <merror>"
    assert page.evaluate(RAW_MATH_JS) == [], f"{docname}: raw TeX delimiters left in the text"
    assert not [u for u, _ in p.loaded if "mathjax" in u.lower()], f"{docname}: MathJax loaded"
    ready = page.evaluate(MATH_READY_JS, MATH_FONT)
    math_ready_s = None
    if maths:
        assert ready["font"] is not None and ready["status"] == ["loaded"], (
            f"{docname}: the math font {MATH_FONT!r} did not load: {ready}")
        math_ready_s = (max(ready["font"], ready["parsed"]) - ready["load"]) / 1000
        assert math_ready_s <= MAX_MATH_READY_S, (
            f"{docname}: math ready {math_ready_s:.2f} s after the load event (at most {MAX_MATH_READY_S} s)")

    # exercise solutions: hidden as the page loaded (recorded then), shown when their title is clicked
    solutions = page.locator("div.solution.dropdown")
    bodies = solutions.locator("> section")
    assert bodies.count() == solutions.count(), f"{docname}: a solution without a body"
    assert len(p.solutions_visible_at_load) == solutions.count()
    for i, visible in enumerate(p.solutions_visible_at_load):
        assert not visible, f"{docname}: solution {i + 1} visible before clicking"
    if solutions.count():
        solutions.first.locator(".admonition-title").click()
        bodies.first.wait_for(state="visible", timeout=5000)

    # launch buttons on chapter pages: the notebook itself, on main
    hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    if is_chapter(docname):
        notebook = f"{docname}.ipynb"
        binder = [h for h in hrefs if "mybinder.org" in h]
        colab = [h for h in hrefs if "colab.research.google.com" in h]
        assert binder and colab, f"{docname}: launch buttons missing"
        for href in binder:
            assert f"/v2/gh/llm-roofline/roofline-book/{BRANCH}" in href and notebook in href, href
        for href in colab:
            assert href.endswith(f"/github/llm-roofline/roofline-book/blob/{BRANCH}/{notebook}"), href
        assert page.locator("button.btn-launch-thebe").count() == 1, f"{docname}: no Live Code (Thebe) button"
    assert REPO_URL in hrefs, f"{docname}: no repository button"
    assert any(h.startswith(REPO_URL + "/issues") for h in hrefs), f"{docname}: no issues button"

    # same-site links answer 200, and their #fragments exist
    dead = []
    for href in sorted(set(hrefs)):
        if not href.startswith(base_url):
            continue
        target, _, fragment = href.partition("#")
        status, ids = link_status(target)
        if status != 200:
            dead.append(f"{href} (HTTP {status})")
        elif fragment and urllib.parse.unquote(fragment) not in ids:
            dead.append(f"{href} (no id {fragment!r})")
    assert not dead, f"{docname}: broken internal links: {dead}"

    # weight: the page, its images and its live-figure scripts (counted on every chapter, though shared);
    # "everything loaded" adds what is shared by every page (the theme's scripts and styles, the fonts), which
    # a first visit downloads too: that is what a chapter must keep under MAX_CHAPTER_BYTES
    own = _file_size(html_dir, url) + sum(
        _file_size(html_dir, u) for u, kind in dict(p.loaded).items()
        if kind == "image" or LIVE_SCRIPT.search(urllib.parse.urlsplit(u).path))
    total = sum(_file_size(html_dir, u) for u in dict(p.loaded))
    page_weights(docname, own, total, is_chapter(docname), math_ready_s)
    if is_chapter(docname):
        assert total <= MAX_CHAPTER_BYTES, (
            f"{docname}: a first visit loads {total / 1e6:.2f} MB, more than {MAX_CHAPTER_BYTES / 1e6:.0f} MB: "
            + ", ".join(f"{urllib.parse.urlsplit(u).path.rsplit('/', 1)[-1]} {_file_size(html_dir, u) / 1e3:.0f} KB"
                        for u in sorted(dict(p.loaded), key=lambda u: -_file_size(html_dir, u))[:8]))
    # the search index only where search runs (search.html), the theme's icon fonts only as the book's cuts
    # (book/_ext/roofline_assets.py)
    paths = [urllib.parse.urlsplit(u).path for u, _ in p.loaded]
    assert not [q for q in paths if q.endswith("/searchindex.js")], f"{docname}: loads the search index"
    whole_fonts = [q for q in paths if re.search(r"/fa-[a-z]+-\d+\.(woff2|ttf)$", q)]
    assert not whole_fonts, f"{docname}: loads the theme's whole Font Awesome fonts: {whole_fonts}"

    assert not p.external, f"{docname}: requests to other hosts: {p.external}"
    assert not failed, f"{docname}: failed requests: {failed}"
    assert not p.errors, f"{docname}: console errors: {p.errors}"


def test_chapter_pages_have_outputs(html_dir):
    """The chapters are committed executed: each page shows cell outputs and at least one figure."""
    for docname in filter(is_chapter, PAGES):
        html = (html_dir / f"{docname}.html").read_text()
        assert 'class="cell_output' in html, f"{docname}: no cell outputs (notebook saved unexecuted?)"
        assert "<img" in html, f"{docname}: no figure"


def test_search_finds_a_chapter(browser, base_url):
    """Search runs on search.html, the one page that loads the search index (book/_templates/layout.html keeps
    it off the others), and finds a word of chapter 1 there."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(base_url + "search.html?q=roofline", wait_until="load")
        # the results are listed one by one after the load: waited for until chapter 1's is among them
        hits = ("() => Array.from(document.querySelectorAll('#search-results ul.search li a'), "
                "a => a.getAttribute('href'))")
        try:
            page.wait_for_function(f"() => ({hits})().some(h => h.includes('notebooks/01_batch_size'))", timeout=10_000)
        except PlaywrightTimeout:
            found = page.evaluate(hits)
            pytest.fail(f"chapter 1 not among the {len(found)} results after 10 s; the first: {found[:10]}")
    finally:
        context.close()


@pytest.mark.parametrize("docname", [next(filter(is_chapter, PAGES))], ids=page_id)
def test_thebe_loads_only_on_click(docname, loaded):
    """Live Code fetches thebe from its CDN when clicked, never at page load (the last check on its page:
    the request is aborted, and the page's errors from then on are thebe's)."""
    p = loaded(docname)
    assert p.external_at_load == [], "fetched at page load"
    with p.page.expect_request(lambda req: "thebe" in req.url, timeout=10_000):
        p.page.locator("button.btn-launch-thebe").first.dispatch_event("click")
    assert all("thebe" in url or "binder" in url for url in p.external), p.external
