"""Four Sphinx tweaks for the book's HTML pages.

Launch buttons only on pages built from a Jupyter notebook. The generated pages (notation, appendix) are MyST-markdown notebooks so that their tables are
computed at build time. sphinx-book-theme would give them Binder, Colab and Live Code buttons that
open ``book/*.md``, which Colab cannot read; this drops that menu from every page whose source is not
an ``.ipynb`` file. Chapter notebooks keep their buttons.

No script twice. sphinx-thebe registers its inline configuration (``const THEBE_JS_URL = ...``)
both with the application and with the already initialised HTML builder, so every page got it twice
and the second copy raised "Identifier 'THEBE_JS_URL' has already been declared" in the console.

Names the package re-exports. ``roofline.Deployment`` is :class:`roofline.deployment.Deployment`
imported into the package; Sphinx documents it once, under its own module, and would not resolve
``:class:`roofline.Deployment``` (or ``roofline.Deployment.terms``). A reference that starts with
``roofline.NAME``, where ``NAME`` is a class or function the package imports from one of its modules,
is resolved again under that module's name; anything else stays unresolved (and fails the nit-picky
build).

nitpick_ignore from YAML. book/_config.yml lists the ignored targets as YAML pairs, which arrive as
lists; Sphinx looks them up as ``(type, target)`` tuples, so they are made tuples here.
"""

import importlib
import inspect


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


def resolve_reexport(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    parts = node.get("reftarget", "").split(".")
    if len(parts) < 2 or parts[0] != "roofline":
        return None
    package = importlib.import_module("roofline")
    obj = getattr(package, parts[1], None)
    if not (inspect.isclass(obj) or inspect.isfunction(obj)) or obj.__module__ == "roofline":
        return None
    canonical = ".".join([obj.__module__, obj.__qualname__, *parts[2:]])
    return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                             canonical, node, contnode)


def nitpick_ignore_as_tuples(app, config):
    config.nitpick_ignore = [tuple(entry) for entry in config.nitpick_ignore]


def setup(app):
    app.connect("config-inited", nitpick_ignore_as_tuples)
    app.connect("missing-reference", resolve_reexport)
    # sphinx-book-theme adds the buttons at priority 501; run after it.
    app.connect("html-page-context", drop_launch_buttons, priority=502)
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
