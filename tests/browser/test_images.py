"""Every image on every page says what it shows, and every figure in the text is sharp on a high-density screen.

On each page of the book (the page loaded once for all browser checks): every ``<img>`` has alt text, neither
empty nor a file name or path (myst-nb's alt for a cell's image is its path unless the cell's metadata gives one,
``mystnb.image.alt``), and a figure in the text column has a few words of it. Each image in the text column is an
SVG or has at least twice as many pixels across as the CSS px it is shown at (``roofline.figures.sharp_png``), so
it stays sharp at a device pixel ratio of 2. An image the page hides (a live figure's static frame, once the live
one is drawn) is measured at the width its style gives it.
"""

import re

import pytest

from conftest import page_id
from test_book import PAGES

pytestmark = pytest.mark.browser

MIN_ALT_WORDS = 4
DENSITY = 2
NOT_YET = set()  # as FIGURES_NOT_YET in tests/test_notebooks.py: a chapter not yet re-executed (xfail until it is)

IMAGES_JS = """
async () => {
  const imgs = Array.from(document.images);
  imgs.forEach(img => { img.loading = "eager"; });
  await Promise.all(imgs.map(img => img.decode().catch(() => null)));
  const article = document.querySelector("article.bd-article");
  return imgs.map(img => {
    const shown = img.getClientRects().length ? img.getBoundingClientRect().width : 0;
    const styled = parseFloat(getComputedStyle(img).width);
    return {src: img.currentSrc || img.src, alt: img.getAttribute("alt"), inText: !!article && article.contains(img),
            natural: img.naturalWidth, css: shown || (Number.isFinite(styled) ? styled : null)};
  });
}
"""


def looks_like_a_path(text):
    """A file name or path (``../_images/ab12.png``), not words."""
    return bool(re.search(r"\.(png|jpe?g|gif|svg|webp)$|_images/", text)
                or (" " not in text and re.search(r"[/\\.]", text)))


def figure_pages():
    for docname in PAGES:
        marks = [pytest.mark.xfail(strict=True, reason="not yet re-executed")] if docname in NOT_YET else []
        yield pytest.param(docname, id=page_id(docname), marks=marks)


@pytest.mark.parametrize("docname", list(figure_pages()))
def test_images_say_what_they_show_and_figures_are_sharp(docname, loaded):
    images = loaded(docname).page.evaluate(IMAGES_JS)
    short = lambda src: src.rsplit("/", 1)[-1][:24]  # noqa: E731
    no_alt = [short(i["src"]) for i in images if not (i["alt"] or "").strip()]
    assert not no_alt, f"{docname}: images without alt text: {no_alt}"
    paths = [(short(i["src"]), i["alt"]) for i in images if looks_like_a_path(i["alt"].strip())]
    assert not paths, f"{docname}: alt text that is a file name or path: {paths}"
    figures = [i for i in images if i["inText"]]
    terse = [(short(i["src"]), i["alt"]) for i in figures if len(i["alt"].split()) < MIN_ALT_WORDS]
    assert not terse, f"{docname}: figures whose alt text does not say what they show: {terse}"
    blurry = [f"{short(i['src'])}: {i['natural']} px shown at {i['css']} px" for i in figures
              if not i["src"].split("?")[0].endswith(".svg")
              and (not i["css"] or i["natural"] < DENSITY * i["css"] - 0.5)]
    assert not blurry, f"{docname}: figures with fewer than {DENSITY} pixels per CSS px: {blurry}"
