"""What a page loads of the theme's and the extensions' assets: only what it uses.

The theme's Font Awesome, cut down to the icons the pages draw with CSS. pydata-sphinx-theme's stylesheet
carries Font Awesome's CSS: a rule for each of its 1,900 icons (about 85 KB,
``.fa-github:before{content:"..."}``) and three web fonts (solid, regular, brands: 300 KB together), which
a page downloads as soon as it lays out one of those icons. The book draws its ``<i class="fa-...">`` icons
as inline SVG instead (``_static/fontawesome-subset.js``, loaded by book/_templates/static/webpack-macros.html),
so those rules only made the browser fetch the fonts before the script had run. What the theme still draws
with a font is a handful of CSS icons: admonition titles, external links, the "on this page" chevron.
So at the end of each build the theme's stylesheet is written again as
``_static/styles/pydata-sphinx-theme-book.css`` (the stylesheet webpack-macros.html links): without the
per-icon rules, its ``@font-face`` rules pointing at cuts of the three fonts (WOFF) that hold only the
characters the built stylesheets still use. A change of theme that this no longer fits (no icon rule or
``@font-face`` found) is a build warning, an error under ``-W``.

sphinx-design only where it is used. jupyter-book loads sphinx-design, whose stylesheet and tab script
(62 KB) every page linked; its dropdowns are on two back-matter pages. A page whose body has no ``sd-``
class links neither.

(The search index, 250 KB, is kept to the search page by book/_templates/layout.html.)
"""

import re
from pathlib import Path

from sphinx.util import logging

_logger = logging.getLogger(__name__)

THEME_CSS = "styles/pydata-sphinx-theme.css"       # under _static, as the theme ships it
BOOK_CSS = "styles/pydata-sphinx-theme-book.css"   # what the pages link
FONTS = "vendor/fontawesome/webfonts"
ICON_RULE = re.compile(r'(?:\.fa-[\w-]+:(?:before|after),)*\.fa-[\w-]+:(?:before|after)\{content:"[^"]*"\}')
FONT_FACE = re.compile(r"@font-face\{[^}]*src:url\(\.\./" + FONTS + r"/(fa-[\w-]+)\.woff2\)[^}]*\}")
SRC = re.compile(r"src:[^;}]*")
PRIVATE_USE = re.compile(r"[\ue000-\uf8ff]|\\([ef][0-9a-fA-F]{3})\b")


def icon_characters(css):
    """The private-use characters (Font Awesome's icons) a stylesheet's text names, literally or escaped."""
    return {m.group(0) if not m.group(1) else chr(int(m.group(1), 16)) for m in PRIVATE_USE.finditer(css)}


def subset_font(ttf, chars, out):
    """Write the glyphs of ``chars`` that ``ttf`` has to ``out`` (WOFF); return how many it has."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    cmap = TTFont(ttf, lazy=True).getBestCmap()
    wanted = sorted(ord(c) for c in chars if ord(c) in cmap)
    options = subset.Options()
    options.flavor = "woff"
    options.name_IDs = ["*"]  # Font Awesome's copyright and licence stay in the font
    font = subset.load_font(ttf, options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    subset.save_font(font, out, options)
    return len(wanted)


def write_book_css(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    css = (static / THEME_CSS).read_text(encoding="utf-8")
    trimmed = ICON_RULE.sub("", css)
    trimmed = re.sub(r"/\*# sourceMappingURL=[^*]*\*/", "", trimmed)  # the theme's map is of the whole file
    if len(trimmed) > len(css) - 50_000:
        _logger.warning(f"{THEME_CSS}: Font Awesome's icon rules not found (a new theme version?); "
                        f"book/_ext/roofline_assets.py no longer fits it")
    others = "".join(p.read_text(encoding="utf-8", errors="replace") for p in static.rglob("*.css")
                     if p.name != Path(BOOK_CSS).name and p != static / THEME_CSS)
    chars = icon_characters(trimmed + others)

    faces = 0

    def cut(match):
        nonlocal faces
        faces += 1
        name = match.group(1)
        subset_font(str(static / FONTS / f"{name}.ttf"), chars, str(static / FONTS / f"{name}.book.woff"))
        return SRC.sub(f'src:url(../{FONTS}/{name}.book.woff) format("woff")', match.group(0), count=1)

    trimmed = FONT_FACE.sub(cut, trimmed)
    if faces != 3:
        _logger.warning(f"{THEME_CSS}: {faces} Font Awesome @font-face rules found, not 3 (a new theme version?); "
                        f"book/_ext/roofline_assets.py no longer fits it")
    (static / BOOK_CSS).write_text(trimmed, encoding="utf-8")


SPHINX_DESIGN = ("sphinx-design.min.css", "design-tabs.js")


def drop_unused_sphinx_design(app, pagename, templatename, context, doctree):
    if 'class="sd-' in (context.get("body") or "") or 'class="sd-' in (context.get("toc") or ""):
        return
    for key in ("css_files", "script_files"):  # new lists: the builder's own are shared by all pages
        context[key] = [f for f in context.get(key, [])
                        if Path(str(getattr(f, "filename", f) or "")).name not in SPHINX_DESIGN]


def setup(app):
    app.connect("build-finished", write_book_css)
    app.connect("html-page-context", drop_unused_sphinx_design, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
