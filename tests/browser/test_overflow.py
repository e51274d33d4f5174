"""Nothing on a page is wider than the column it sits in, at a 1280 px wide window.

On every page of the book (the page loaded once for all browser checks) every code block, cell output, table, displayed equation and API
signature is measured once the page and its fonts have loaded, with every hidden code cell and exercise
solution opened. A block whose content is wider than its box (``scrollWidth > clientWidth``, with
1 px of rounding allowed) makes the reader scroll sideways or is cut off; the failure lists each one
with the page, the selector that found it, the start of its text and both widths.
"""

import pytest

from conftest import VIEWPORT, page_id
from test_book import PAGES

pytestmark = pytest.mark.browser

TOLERANCE_PX = 1

# What is measured, found by reading the built HTML (sphinx-book-theme 1.3, myst-nb 1.4):
SELECTORS = [
    "div.highlight pre",                   # code cells, their stream and text outputs, code blocks
    "div.cell_output",                     # a cell's outputs as a whole (HTML, images, markdown)
    "div.cell_output pre",
    ".output pre",
    "div.pst-scrollable-table-container",  # every table, in the theme's wrapper
    "table",
    "div.math",                            # displayed equations ...
    'math[display="block"]',               # ... the MathML in them (book/_ext/roofline_math.py)
    "dl.py > dt.sig",                      # API signatures
    "dl.py > dd",                          # API docstrings
]

OPEN_HIDDEN_JS = """
async () => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  document.querySelectorAll("div.dropdown > .admonition-title").forEach(t => t.click());
  await new Promise(resolve => setTimeout(resolve, 500));
  return true;
}
"""

MEASURE_JS = """
([selectors, tolerance]) => {
  const seen = new Set();
  const wide = [];
  // a block may also spill out of the text column without scrolling (overflow: visible): its right
  // edge must not pass the column's
  const column = document.querySelector("article.bd-article");
  const columnRight = column ? column.getBoundingClientRect().right : Infinity;
  for (const selector of selectors) {
    for (const el of document.querySelectorAll(selector)) {
      if (seen.has(el) || el.closest("#pst-primary-sidebar, #pst-secondary-sidebar, .bd-header")) continue;
      seen.add(el);
      if (el.clientWidth === 0 && el.getClientRects().length === 0) continue;  // not displayed
      const right = el.getBoundingClientRect().right;
      if (el.scrollWidth > el.clientWidth + tolerance || right > columnRight + tolerance) {
        wide.push({selector, text: el.textContent.replace(/\\s+/g, " ").trim().slice(0, 70),
                   scrollWidth: el.scrollWidth, clientWidth: el.clientWidth,
                   pastColumn: Math.round(right - columnRight)});
      }
    }
  }
  return wide;
}
"""


def wide_blocks(page):
    """Each block of the loaded ``page`` whose content is wider than its box, as dicts (after opening every
    hidden block)."""
    page.evaluate(OPEN_HIDDEN_JS)
    return page.evaluate(MEASURE_JS, [SELECTORS, TOLERANCE_PX])


@pytest.mark.parametrize("docname", PAGES, ids=page_id)
def test_nothing_wider_than_its_column(docname, loaded):
    wide = wide_blocks(loaded(docname).page)
    report = "\n".join(f"  {docname}  {w['selector']}  {w['text']!r}  "
                       f"scrollWidth={w['scrollWidth']} clientWidth={w['clientWidth']} "
                       f"past the column by {w['pastColumn']} px" for w in wide)
    assert not wide, f"{docname}: {len(wide)} block(s) wider than their box at {VIEWPORT['width']} px:\n{report}"
