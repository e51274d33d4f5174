"""Nothing on a page is wider than the column it sits in, at a 1280 px wide window; nothing is cut off at 390 px.

On every page of the book (the page loaded once for all browser checks) every code block, cell output, table, displayed equation and API
signature is measured once the page and its fonts have loaded, with every hidden code cell and exercise
solution opened. A block whose content is wider than its box (``scrollWidth > clientWidth``, with
1 px of rounding allowed) makes the reader scroll sideways or is cut off; the failure lists each one
with the page, the selector that found it, the start of its text and both widths.

On a phone (390 px, every page of the book and Sphinx's general index, module index and search page, the same
page loaded once, its hidden blocks open, resized) the page is no wider than the screen, and every element in the
text column either lies inside it or inside a box that scrolls sideways (a table's, a code cell's, a displayed
equation's): nothing runs past the column and nothing is cut off by a box that clips (``overflow: hidden``).
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
  const closed = Array.from(document.querySelectorAll("details")).filter(d => !d.open);
  closed.forEach(d => { d.open = true; });
  // a folded admonition (an exercise's solution, an aside) is toggle-hidden until its title is clicked
  const folded = document.querySelectorAll("div.dropdown.toggle-hidden > .admonition-title");
  folded.forEach(t => t.click());
  // time for what opened to settle; none where everything was open already (the phone's check, after the
  // wide one's)
  if (closed.length || folded.length) await new Promise(resolve => setTimeout(resolve, 500));
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


PHONE = {"width": 390, "height": 844}
SPHINX_PAGES = ["genindex", "py-modindex", "search"]  # built by Sphinx, not in the table of contents

PHONE_JS = """
(tolerance) => {
  const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  const column = article.getBoundingClientRect();
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.classList.length ? "." + Array.from(el.classList).slice(0, 3).join(".") : "");
  const bad = [];
  for (const el of article.querySelectorAll("*")) {
    if (!el.getClientRects().length) continue;
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || style.visibility === "hidden") continue;
    // how far right its content reaches: its box, or what spills out of a block (overflow: visible)
    let right = r.right;
    if (style.overflowX === "visible" && style.display !== "inline" && el.scrollWidth > el.clientWidth) {
      right = Math.max(right, r.left + el.clientLeft + el.scrollWidth);
    }
    // the nearest box around it that scrolls (it is reachable) or clips, else the text column
    let clip = null, scrolls = false;
    for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === "auto" || o === "scroll") { scrolls = true; break; }
      if (o === "hidden" || o === "clip") { clip = a; break; }
    }
    if (scrolls) continue;
    const box = clip ? clip.getBoundingClientRect() : column;
    const by = Math.max(right - box.right, box.left - r.left);
    if (by > tolerance) {
      bad.push({node: el, what: clip ? "cut off by " + describe(clip) : "past the column", el: describe(el),
                by: Math.round(by), text: (el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60)});
    }
  }
  // the innermost offenders: an element none of whose descendants is one too
  const leaves = bad.filter(b => !bad.some(o => o !== b && b.node.contains(o.node))).map(({node, ...rest}) => rest);
  return {pageWidth: document.documentElement.scrollWidth, screen: window.innerWidth, blocks: leaves};
}
"""

NEXT_FRAME_JS = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


@pytest.mark.parametrize("docname", PAGES + SPHINX_PAGES, ids=page_id)
def test_nothing_cut_off_on_a_phone(docname, loaded):
    page = loaded(docname).page
    page.evaluate(OPEN_HIDDEN_JS)
    page.set_viewport_size(PHONE)
    try:
        page.evaluate(NEXT_FRAME_JS)  # laid out again, live figures redrawn for the narrow column
        seen = page.evaluate(PHONE_JS, TOLERANCE_PX)
    finally:
        page.set_viewport_size(VIEWPORT)
    blocks = "\n".join(f"  {docname}  {b['el']} {b['what']} by {b['by']} px: {b['text']!r}"
                       for b in seen["blocks"][:20])
    assert seen["pageWidth"] <= seen["screen"] + TOLERANCE_PX and not seen["blocks"], (
        f"{docname} at {PHONE['width']} px: the page is {seen['pageWidth']} px wide; "
        f"{len(seen['blocks'])} element(s) past the column or cut off:\n{blocks}")
