"""Six Sphinx tweaks for the book's HTML pages.

Live figures without a kernel. A chapter marks where a live figure goes with
``<div class="roofline-live" data-figure="KEY">``; only those pages (and the appendix's config loader,
``<div class="roofline-model-reader">``) load ``roofline-generated.js`` (the library's equations and
registry data, written by :mod:`roofline.web`), ``roofline-model.js`` (the reader's own model, read from
a config.json in the browser), ``roofline-live.js`` (the controls and the plotter) and
``roofline-live.css``, all served from ``_static``. The last two live in the
package (``roofline/static``), because a notebook's live figure (:mod:`roofline.widget`) is the same script
and style: the build adds that folder to ``html_static_path``. The generated script is written afresh into the
built ``_static`` at every build, and the build warns (an error under ``-W``) when the committed copy in the
package (``roofline/static``, which a notebook's live figure loads) is stale: ``python -m roofline.web
lib/roofline/static/roofline-generated.js`` refreshes it.

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

Kernels over an encrypted transport. The generated pages are executed at every build (myst-nb, through
jupyter-cache and nbclient), and each kernel logged "Kernel is running over TCP without encryption" into the
build's output: nbclient starts it with a kernel manager at jupyter_client's defaults, which leave CurveZMQ off,
and neither myst-nb nor jupyter-book passes any kernel-manager setting through. The build makes "auto" the
kernel managers' default transport encryption: keys are provisioned for any kernel whose kernelspec declares
CurveZMQ support (ipykernel's does, and pyzmq has it), so the kernels run encrypted and have nothing to warn
about; a kernel without that support still starts, as before.

nitpick_ignore from YAML. book/_config.yml lists the ignored targets as YAML pairs, which arrive as
lists; Sphinx looks them up as ``(type, target)`` tuples, so they are made tuples here.
"""

import importlib
import inspect
import shutil
from pathlib import Path

from sphinx.util import logging

LIVE_SCRIPTS = ("roofline-generated.js", "roofline-model.js", "roofline-live.js")  # in load order: data and
# equations first, then the reader's own model (which adds it to the figures' data before they are drawn)
READER = 'class="roofline-model-reader"'  # the appendix's config loader, a page without a live figure
LIVE_CSS = "roofline-live.css"
_logger = logging.getLogger(__name__)


def check_live_bundle(app):
    """Warn (an error under -W) if the committed generated script differs from what the library generates."""
    from roofline import web

    committed = web.PACKAGED
    if not committed.is_file() or committed.read_text() != web.bundle():
        src = Path(app.srcdir).resolve()
        shown = committed.relative_to(src) if committed.is_relative_to(src) else committed
        _logger.warning(f"{committed} is stale: the library's equations or registry changed; run "
                        f"python -m roofline.web {shown}")


def write_live_bundle(app, exception):
    """Write the generated script into the built _static, from the library as it is now, and copy the package's
    scripts and style there again: Sphinx copies static files only when some page is rebuilt, so a build after a
    change to the scripts alone would otherwise serve (and test) the old ones."""
    if exception is None and app.builder.format == "html":
        from roofline import web, widget

        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        (static / LIVE_SCRIPTS[0]).write_text(web.bundle())
        for name in (*LIVE_SCRIPTS[1:], LIVE_CSS):
            shutil.copyfile(widget.STATIC / name, static / name)


def add_live_scripts(app, pagename, templatename, context, doctree):
    body = context.get("body") or ""
    if 'class="roofline-live"' in body or READER in body:
        for name in LIVE_SCRIPTS:
            app.add_js_file(name, loading_method="defer")  # on this page only (Sphinx >= 3.5)
        app.add_css_file(LIVE_CSS)


def serve_package_static(app, config):
    """The package's static folder (roofline-live.js and .css) among the book's static paths."""
    from roofline import widget

    config.html_static_path = list(config.html_static_path) + [str(widget.STATIC)]


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


def encrypt_kernel_transport(app, config):
    from jupyter_client.manager import KernelManager

    KernelManager.transport_encryption.default_value = "auto"


def nitpick_ignore_as_tuples(app, config):
    config.nitpick_ignore = [tuple(entry) for entry in config.nitpick_ignore]


def setup(app):
    app.connect("config-inited", nitpick_ignore_as_tuples)
    app.connect("config-inited", encrypt_kernel_transport)
    app.connect("config-inited", serve_package_static)
    app.connect("builder-inited", check_live_bundle)
    app.connect("build-finished", write_live_bundle)
    app.connect("html-page-context", add_live_scripts)
    app.connect("missing-reference", resolve_reexport)
    # sphinx-book-theme adds the buttons at priority 501; run after it.
    app.connect("html-page-context", drop_launch_buttons, priority=502)
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
