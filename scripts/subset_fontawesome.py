"""Write book/_static/fontawesome-subset.js: the few Font Awesome icons the book shows, as inline SVG.

The theme (pydata-sphinx-theme) loads Font Awesome's whole SVG+JS bundle, about 1.5 MB, on every page to draw
about twenty icons. The book's copy of the theme's asset macros (book/_templates/static/webpack-macros.html)
loads this file instead: only the icons the built book uses (each page's HTML and the theme's scripts are
searched for ``fa-<name>`` classes), with Font Awesome's own CSS, turning each ``<i class="fa-... fa-<name>">``
into the same inline SVG the full bundle would make.

Run it after a change of theme version or of the icons the book uses, with the book built and Node.js on the
PATH (Node evaluates the theme's bundle to read the icons' paths; the book itself needs no Node):

    bash scripts/build_book.sh && python scripts/subset_fontawesome.py

The browser tests fail if a page shows an icon this file lacks.
"""

import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "_static" / "fontawesome-subset.js"
STYLE_CLASSES = {"fa", "fas", "far", "fab", "fa-solid", "fa-regular", "fa-brands", "fa-lg", "fa-fw", "fa-xs",
                 "fa-sm", "fa-xl", "fa-2x", "fa-spin"}

NODE = r"""
const fs = require("fs");
const noop = () => {};
const el = {appendChild: noop, insertBefore: noop, setAttribute: noop, getAttribute: () => null, style: {},
            childNodes: [], classList: {add: noop, remove: noop, contains: () => false}, removeChild: noop,
            querySelectorAll: () => [], querySelector: () => null};
global.window = global;
global.document = {documentElement: el, head: el, body: el, createElement: () => ({...el}),
                   createElementNS: () => ({...el}), querySelector: () => null, querySelectorAll: () => [],
                   addEventListener: noop, readyState: "complete", createTextNode: () => ({})};
global.MutationObserver = function () { this.observe = noop; this.disconnect = noop; };
global.navigator = {userAgent: "node"};
global.performance = {mark: noop, measure: noop};
eval(fs.readFileSync(process.argv[1], "utf8"));
const want = JSON.parse(process.argv[2]);
const icons = {};
for (const name of want) {
  for (const prefix of ["fas", "fab", "far"]) {
    const d = FontAwesome.findIconDefinition({prefix, iconName: name});
    if (d) { icons[name] = [d.icon[0], d.icon[1], d.icon[4]]; break; }
  }
}
console.log(JSON.stringify({icons, css: FontAwesome.dom.css()}));
"""

TEMPLATE = """\
/* Font Awesome Free (https://fontawesome.com, icons CC BY 4.0, code MIT): only the icons this book shows,
   written by scripts/subset_fontawesome.py from the theme's bundle, which it replaces. Each
   <i class="fa-... fa-NAME"> becomes the inline SVG the full bundle would draw. */
(function () {
  "use strict";
  var ICONS = %(icons)s;
  var CSS = %(css)s;
  var STYLE = /^(fa|fas|far|fab|fa-solid|fa-regular|fa-brands|fa-lg|fa-fw|fa-xs|fa-sm|fa-xl|fa-2x|fa-spin)$/;
  var SVG = "http://www.w3.org/2000/svg";

  function iconOf(el) {
    for (var i = 0; i < el.classList.length; i++) {
      var c = el.classList[i];
      if (c.indexOf("fa-") === 0 && !STYLE.test(c) && ICONS[c.slice(3)]) return c.slice(3);
    }
    return null;
  }

  function replace(el) {
    var name = iconOf(el);
    if (!name) return;
    var d = ICONS[name];
    var svg = document.createElementNS(SVG, "svg");
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i];
      if (a.name !== "class") svg.setAttribute(a.name, a.value);
    }
    svg.setAttribute("class", "svg-inline--fa " + el.getAttribute("class"));
    svg.setAttribute("viewBox", "0 0 " + d[0] + " " + d[1]);
    if (!el.hasAttribute("aria-label") && !el.hasAttribute("title")) svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.setAttribute("role", "img");
    var path = document.createElementNS(SVG, "path");
    path.setAttribute("fill", "currentColor");
    path.setAttribute("d", d[2]);
    svg.appendChild(path);
    el.parentNode.replaceChild(svg, el);
  }

  function scan(root) {
    var found = root.querySelectorAll ? root.querySelectorAll("i[class*='fa-'], span[class*='fa-']") : [];
    for (var i = 0; i < found.length; i++) replace(found[i]);
    if (root.matches && root.matches("i[class*='fa-'], span[class*='fa-']")) replace(root);
  }

  // first in <head>, as Font Awesome puts its own: the theme's stylesheets come after and win, so its
  // --fa-font-solid (the "Font Awesome 6 Free" webfont it ships, for icons drawn by CSS) stays in force
  var style = document.createElement("style");
  style.textContent = CSS;
  document.head.insertBefore(style, document.head.firstChild);
  scan(document);
  new MutationObserver(function (changes) {
    changes.forEach(function (ch) { ch.addedNodes.forEach(function (n) { if (n.nodeType === 1) scan(n); }); });
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
"""


def used_icons(html_dir, theme_static):
    names = set()
    files = list(html_dir.rglob("*.html")) + list(theme_static.rglob("*.js"))
    for path in files:
        if path.name in ("fontawesome.js", OUT.name):
            continue
        for cls in re.findall(r"\bfa-[a-z0-9-]+", path.read_text(errors="replace")):
            if cls not in STYLE_CLASSES:
                names.add(cls[3:])
    return sorted(names)


def main():
    import pydata_sphinx_theme

    html = ROOT / "_build" / "html"
    if not (html / "index.html").is_file():
        sys.exit("build the book first: bash scripts/build_book.sh")
    static = pathlib.Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
    bundle = static / "scripts" / "fontawesome.js"
    want = used_icons(html, static)
    data = json.loads(subprocess.run(["node", "-e", NODE, str(bundle), json.dumps(want)], check=True,
                                     capture_output=True, text=True).stdout)
    # names the scan found that are not icons (e.g. 'fa-' in a stylesheet's text) are dropped
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(TEMPLATE % {"icons": json.dumps(data["icons"], separators=(",", ":")),
                               "css": json.dumps(data["css"])})
    print(f"{OUT.relative_to(ROOT)}: {len(data['icons'])} icons, {OUT.stat().st_size:,} bytes "
          f"(the theme's bundle: {bundle.stat().st_size:,})")


if __name__ == "__main__":
    main()
