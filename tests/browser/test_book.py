"""Every page of the built book, opened in headless Chromium.

For each page in ``book/_toc.yml``: no console errors, no failed request (no 404, the favicon
included: the page's icon link and ``/favicon.ico`` at the site root), nothing fetched from any host
but the local server, exactly one search field, every image decoded, all math typeset by the MathJax served with the book,
every same-site link answering 200 (and its #fragment existing), exercise solutions hidden until
clicked, launch buttons pointing at the page's notebook on ``main``. A full-page screenshot of each
page goes to ``_build/screenshots/`` and page weights to ``_build/page_sizes.txt``. Each page is the one
loaded once for every browser check (``loaded`` in conftest.py).
"""

import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml

from conftest import page_id

pytestmark = pytest.mark.browser

TOC = Path(__file__).resolve().parents[2] / "book" / "_toc.yml"
REPO_URL = "https://github.com/llm-roofline/roofline-book"
BRANCH = "main"
MAX_CHAPTER_BYTES = 2_000_000  # a chapter page with its images
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

# Text nodes that still hold TeX delimiters after MathJax ran, outside code.
RAW_MATH_JS = r"""
() => {
  const skip = "PRE,CODE,SCRIPT,STYLE,TEXTAREA,MJX-CONTAINER";
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

    # math: each math element typeset by MathJax, no TeX left as text, no TeX errors
    n_math = page.locator(".math").count()
    if n_math:
        untypeset = page.evaluate(
            "() => Array.from(document.querySelectorAll('.math'))"
            ".filter(el => !el.querySelector('mjx-container')).map(el => el.textContent.slice(0, 60))")
        assert not untypeset, f"{docname}: math left untypeset: {untypeset[:5]}"
        assert page.locator("mjx-container").count() >= n_math
        assert page.locator("mjx-merror").count() == 0, f"{docname}: MathJax reported a TeX error"
    assert page.evaluate(RAW_MATH_JS) == [], f"{docname}: raw TeX delimiters left in the text"
    if n_math:
        src = page.evaluate("() => Array.from(document.scripts).map(s => s.src).filter(s => /mathjax/i.test(s))")
        assert src and all(s.startswith(base_url) for s in src), f"{docname}: MathJax not served locally: {src}"
        assert page.evaluate("() => MathJax.version").startswith("3."), f"{docname}: not MathJax 3"

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
    # the theme's scripts, fonts and MathJax are shared by every page, counted once in "everything loaded"
    own = _file_size(html_dir, url) + sum(
        _file_size(html_dir, u) for u, kind in dict(p.loaded).items()
        if kind == "image" or LIVE_SCRIPT.search(urllib.parse.urlsplit(u).path))
    total = sum(_file_size(html_dir, u) for u in dict(p.loaded))
    page_weights(docname, own, total, is_chapter(docname))
    if is_chapter(docname):
        assert own < MAX_CHAPTER_BYTES, f"{docname}: {own / 1e6:.2f} MB with its images and live scripts"

    assert not p.external, f"{docname}: requests to other hosts: {p.external}"
    assert not failed, f"{docname}: failed requests: {failed}"
    assert not p.errors, f"{docname}: console errors: {p.errors}"


def test_chapter_pages_have_outputs(html_dir):
    """The chapters are committed executed: each page shows cell outputs and at least one figure."""
    for docname in filter(is_chapter, PAGES):
        html = (html_dir / f"{docname}.html").read_text()
        assert 'class="cell_output' in html, f"{docname}: no cell outputs (notebook saved unexecuted?)"
        assert "<img" in html, f"{docname}: no figure"


@pytest.mark.parametrize("docname", [next(filter(is_chapter, PAGES))], ids=page_id)
def test_thebe_loads_only_on_click(docname, loaded):
    """Live Code fetches thebe from its CDN when clicked, never at page load (the last check on its page:
    the request is aborted, and the page's errors from then on are thebe's)."""
    p = loaded(docname)
    assert p.external_at_load == [], "fetched at page load"
    with p.page.expect_request(lambda req: "thebe" in req.url, timeout=10_000):
        p.page.locator("button.btn-launch-thebe").first.dispatch_event("click")
    assert all("thebe" in url or "binder" in url for url in p.external), p.external
