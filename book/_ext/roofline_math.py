"""Math written as MathML when the book is built: no MathJax, nothing to typeset in the browser.

Every math node Sphinx hands the HTML writer (``$...$`` and ``$$...$$`` in the text, glued math, the LaTeX
outputs of notebook cells, which are sympy's equations) is converted by latex2mathml into a ``<math>`` element
that the browser lays out itself (MathML Core: Chromium since 2023, Firefox and Safari before). A page no
longer loads MathJax (1.2 MB of script and fonts) nor waits for it: the math is laid out with the text.

The markup follows Sphinx's MathJax renderer (``sphinx.ext.mathjax``): inline math in
``<span class="math notranslate nohighlight">``, display math in ``<div class="math ...">`` with its equation
number and permalink, several equations of one block aligned, a line break in one block wrapped in ``split``.
The TeX is the ``<math>`` element's ``alttext`` (screen readers, copying). A formula latex2mathml cannot read,
or reads only in part (a command left as text, an ``<merror>``), is a build warning naming its source: an
error under ``-W``.

The math font. Browsers lay MathML out with the fonts they find, and many systems have no math font, so the
book serves one: STIX Two Math (SIL Open Font License 1.1; its copy ships in the ziamath package, from PyPI).
At the end of each build the font is cut down to the glyphs the built pages' math uses (with the italic
letters the browser substitutes in ``<mi>`` and the stretchy variants in its MATH table) and written as
``_static/fonts/stix-two-math.woff``, with its copyright and licence in the font's name table. Pages with math
link ``math.css`` (the font, and the column alignment that MathML Core leaves to CSS) and preload the font.
"""

import html
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

_logger = logging.getLogger(__name__)

FONT = "fonts/stix-two-math.woff"   # under _static
CSS = "math.css"                    # book/_static/math.css
_MATH = re.compile(r"<math\b.*?</math>", re.S)
_NAMES = {"max", "min", "log", "lim", "exp", "ln", "tanh", "mod", "sup", "inf"}  # \max ...: upright
_SCRIPTED = {"msub", "msup", "msubsup", "munder", "mover", "munderover"}
_THIN = "0.1667em"


def _name_of(el):
    """The operator name (max, log ...) that ``el`` is, or is the base of (\\log_2), else None."""
    base = el[0] if el.tag in _SCRIPTED and len(el) else el
    if base.tag in ("mi", "mo") and (base.text or "").strip() in _NAMES:
        return base
    return None


def _ordinary(el):
    """Whether ``el`` is, in TeX's terms, an ordinary atom (a letter, a number, a fraction, a group that
    does not start with an operator): what takes a thin space beside an operator name."""
    if el.tag in ("mo", "mspace"):
        return False
    if el.tag in ("mrow", "mstyle") and len(el):
        return _ordinary(el[0])
    return el.tag not in _SCRIPTED or _ordinary(el[0])


def _space_operator_names(root):
    """Write \\max, \\log, \\tanh ... as TeX sets them. latex2mathml makes some an ``<mo>``, which MathML
    spaces like a large operator ("max (a, b)"), and some an ``<mi>``, which it does not space at all ("W tanh"
    set as "Wtanh"): each becomes an upright ``<mi>`` with a thin space on a side where an ordinary atom
    stands (none before an opening parenthesis), as TeX's Op atom has."""
    for parent in list(root.iter()):
        if parent.tag in _SCRIPTED:  # the name is the base of a script: spaced as a whole, by its parent
            continue
        i = 0
        while i < len(parent):
            name = _name_of(parent[i])
            if name is None:
                i += 1
                continue
            text = name.text.strip()
            name.attrib.clear()
            name.tag, name.text = "mi", text
            if i + 1 < len(parent) and _ordinary(parent[i + 1]):
                parent.insert(i + 1, ET.Element("mspace", width=_THIN))
            if i > 0 and _ordinary(parent[i - 1]):
                parent.insert(i, ET.Element("mspace", width=_THIN))
                i += 1
            i += 1


_PRIMES = {"\u2032", "\u2033", "\u2034", "\u2057"}


def _unraise_primes(root):
    """Write ``f'`` as ``f`` and a prime beside it, not as a superscript. A prime character is drawn raised
    already; as latex2mathml's superscript it is raised and shrunk a second time, unless the browser swaps in
    the font's script-style prime ('ssty', which Chromium does not)."""
    for parent in list(root.iter()):
        for i, el in enumerate(list(parent)):
            if el.tag != "msup" or len(el) != 2:
                continue
            sup = el[1]
            if sup.tag == "mrow" and len(sup) == 1:
                sup = sup[0]
            if sup.tag in ("mi", "mo") and (sup.text or "").strip() and set(sup.text.strip()) <= _PRIMES:
                prime = ET.Element("mo", lspace="0", rspace="0")
                prime.text = sup.text.strip()
                parent.remove(el)
                parent.insert(i, prime)
                parent.insert(i, el[0])


def _tex_spacing(root):
    """Space operators as TeX does where MathML's operator dictionary differs: a slash is an ordinary symbol
    (``tokens/s``, not ``tokens / s``), a comma has a thin space after it and none before, and inside a
    sub- or superscript a binary operator or relation (``zb-h1``) has no space at all."""
    scripts = {id(el) for parent in root.iter() if parent.tag in _SCRIPTED for el in list(parent)[1:]}
    in_script = set()
    for el in root.iter():
        if id(el) in scripts:
            in_script.update(id(d) for d in el.iter())
    for mo in root.iter("mo"):
        text = (mo.text or "").strip()
        if mo.get("fence") == "true" or mo.get("stretchy") is not None:
            continue
        if text == "/":
            mo.set("lspace", "0")
            mo.set("rspace", "0")
        elif text == ",":
            mo.set("lspace", "0")
            mo.set("rspace", "0" if id(mo) in in_script else _THIN)
        elif id(mo) in in_script:
            mo.set("lspace", "0")
            mo.set("rspace", "0")


def mathml(tex, display, node):
    """``tex`` as a ``<math>`` element (UTF-8 characters, not character references; no namespace, which HTML
    implies), its TeX in ``alttext``. A formula latex2mathml cannot read in full is a warning at ``node``."""
    try:
        out = convert(tex, display="block" if display else "inline")
        root = ET.fromstring(out.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "", 1))
    except Exception as err:  # noqa: BLE001 (latex2mathml raises many kinds; each is reported the same way)
        _logger.warning(f"latex2mathml cannot read {tex[:200]!r}: {err}", location=node, type="math")
        return f"<code>{html.escape(tex)}</code>"
    _unraise_primes(root)
    _space_operator_names(root)
    _tex_spacing(root)
    out = ET.tostring(root, encoding="unicode")
    if "\\" in out or "<merror" in out:
        _logger.warning(f"latex2mathml left part of {tex[:200]!r} unconverted: {out[:300]}", location=node,
                        type="math")
    root.set("alttext", tex.strip())
    return ET.tostring(root, encoding="unicode")


def visit_math(self, node):
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(mathml(node.astext(), False, node))
    self.body.append("</span>")
    raise nodes.SkipNode


def display_tex(node):
    """The TeX of a display block, as sphinx.ext.mathjax wraps it: blocks separated by blank lines are
    aligned equations, a block with a line break is a ``split``."""
    if node["nowrap"]:
        return node.astext()
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    parts = [rf"\begin{{split}}{part}\end{{split}}" if r"\\" in part else part for part in parts]
    if len(parts) > 1:
        return r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
    return parts[0] if parts else ""


def visit_displaymath(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node["number"]:
        self.body.append(f'<span class="eqno">({get_node_equation_number(self, node)})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(mathml(display_tex(node), True, node))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def link_math_assets(app, pagename, templatename, context, doctree):
    """On a page with math: math.css, and the font preloaded (it is needed as soon as the text is laid out)."""
    if app.builder.math_renderer_name != "mathml" or "<math " not in (context.get("body") or ""):
        return
    app.add_css_file(CSS)  # on this page only
    href = context["pathto"]("_static/" + FONT, 1)
    context["metatags"] = (context.get("metatags") or "") + (
        f'\n    <link rel="preload" href="{href}" as="font" type="font/woff" crossorigin="anonymous" />')


def _italic(char):
    """The mathematical italic form of a Latin or Greek letter (what a browser draws for ``<mi>x</mi>``)."""
    name = unicodedata.name(char, "")
    for old, new in (("LATIN CAPITAL LETTER ", "MATHEMATICAL ITALIC CAPITAL "),
                     ("LATIN SMALL LETTER ", "MATHEMATICAL ITALIC SMALL "),
                     ("GREEK CAPITAL LETTER ", "MATHEMATICAL ITALIC CAPITAL "),
                     ("GREEK SMALL LETTER ", "MATHEMATICAL ITALIC SMALL ")):
        if name.startswith(old) and len(name) > len(old):
            try:
                return unicodedata.lookup(new + name[len(old):])
            except KeyError:
                return "\u210e" if char == "h" else None  # italic h is PLANCK CONSTANT
    return None


IMPLICIT = {"\u221a"}  # drawn without being in the text: the radical of <msqrt> and <mroot>


def math_characters(html_dir):
    """Every character inside a ``<math>`` element of the built pages, the italic forms of its letters and
    the characters MathML draws on its own (:data:`IMPLICIT`)."""
    chars = set(IMPLICIT)
    for page in Path(html_dir).rglob("*.html"):
        for element in _MATH.findall(page.read_text(encoding="utf-8")):
            text = re.sub(r"<[^>]*>", "", re.sub(r'alttext="[^"]*"', "", element))
            chars.update(html.unescape(text))
    chars.update(filter(None, map(_italic, list(chars))))
    return chars


def write_math_font(app, exception):
    """Cut STIX Two Math down to the characters the built pages' math uses; write it into _static."""
    if exception is not None or app.builder.format != "html" or app.builder.math_renderer_name != "mathml":
        return
    from importlib.resources import files

    from fontTools import subset

    chars = math_characters(app.outdir)
    if not chars:
        return
    options = subset.Options()
    options.flavor = "woff"
    # fontTools' default OpenType features, not 'ssty' (script-size glyphs: it would double the glyphs, and
    # Chromium does not apply it); no hinting instructions (a third of the size, none of the shapes)
    options.hinting = False
    options.name_IDs = ["*"]          # the copyright and the licence travel with the font
    options.name_languages = ["*"]
    options.notdef_outline = True
    font = subset.load_font(str(files("ziamath") / "fonts" / "STIXTwoMath-Regular.ttf"), options)
    missing = sorted(c for c in chars if ord(c) not in font.getBestCmap() and c.isprintable() and c != " ")
    if missing:
        _logger.warning(f"STIX Two Math lacks {''.join(missing)!r}, which the book's math uses: the browser "
                        f"would draw them from another font", type="math")
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars if c.isprintable() or c == " "])
    subsetter.subset(font)
    out = Path(app.outdir) / "_static" / FONT
    out.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(out), options)


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("html-page-context", link_math_assets)
    app.connect("build-finished", write_math_font)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
