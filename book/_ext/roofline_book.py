"""Two Sphinx tweaks for the book's HTML pages.

Launch buttons only on pages built from a Jupyter notebook. The generated pages (notation, appendix) are MyST-markdown notebooks so that their tables are
computed at build time. sphinx-book-theme would give them Binder, Colab and Live Code buttons that
open ``book/*.md``, which Colab cannot read; this drops that menu from every page whose source is not
an ``.ipynb`` file. Chapter notebooks keep their buttons.

No script twice. sphinx-thebe registers its inline configuration (``const THEBE_JS_URL = ...``)
both with the application and with the already initialised HTML builder, so every page got it twice
and the second copy raised "Identifier 'THEBE_JS_URL' has already been declared" in the console.
"""


def drop_launch_buttons(app, pagename, templatename, context, doctree):
    if context.get("page_source_suffix") == ".ipynb":
        return
    buttons = context.get("header_buttons") or []
    context["header_buttons"] = [b for b in buttons if b.get("label") != "launch-buttons"]


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        # an inline script's filename is None in one copy and "" in the other
        key = (script.filename or "", tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique  # a new list: the builder's own list is shared by all pages


def setup(app):
    # sphinx-book-theme adds the buttons at priority 501; run after it.
    app.connect("html-page-context", drop_launch_buttons, priority=502)
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
