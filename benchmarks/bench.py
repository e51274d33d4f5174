"""Timings the project promises, measured on this machine.

    python benchmarks/bench.py            # prints a table; --json for machine-readable output

1. Step time over a 1000 x 1000 batch x context grid with the lambdified, input-checked
   function, against evaluating the sympy expression point by point (``subs`` + ``evalf``).
2. One update of each chapter's live figure in headless Chromium, from a control's change to the new SVG
   laid out: in a notebook (roofline.widget's anywidget view, its model changed as ipywidgets.jslink
   changes it: no kernel in the loop) and on the page (the figure's own form); median and 95th
   percentile. Goal: at most 16 ms at the 95th percentile.
3. Execution time of each chapter notebook, top to bottom in a fresh kernel, against a notebook
   that runs only the chapter's import cell in a fresh kernel (kernel start-up and imports are the
   floor every reader pays), in interleaved pairs; min / median / max of each and of the ratio, pair by
   pair. Goal: a median ratio of at most 1.5. With ``--parts``, each chapter's own work split three ways:
   running its cells at all (the same cells, emptied), drawing its figures, and the rest; and what splitting its
   code into cells costs (the chapter against the same code, outputs and all, run as one cell).
4. With ``--suite RUNS`` (and ``--against REV``): the README's test command in fresh clones, one cold
   run (``.venv`` created and installed) and RUNS warm ones, two revisions interleaved. Goal: a warm
   median of at most 120 s on a 2-core machine.

    python benchmarks/bench.py --no-widgets --pairs 4                # chapters only
    python benchmarks/bench.py --no-widgets --pairs 4 --parts        # ... and what their own work is made of
    python benchmarks/bench.py --no-widgets --no-chapters --suite 3 --against v-before
"""

import argparse
import copy
import pathlib
import json
import statistics
import time

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import roofline  # noqa: E402
from roofline import decode  # noqa: E402


REPO = pathlib.Path(__file__).resolve().parents[1]


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_grid(repeat=15):
    d = roofline.Deployment(roofline.models.get("DeepSeek (lecture)"), roofline.hardware.get("GB200"))
    batch = np.logspace(0, 4, 1000)[:, None]
    ctx = np.logspace(2, 6, 1000)[None, :]
    grid_s = timed(lambda: d.step_time_s(batch, ctx), repeat)
    # the same expression, one point at a time, through sympy
    subs = d.subs()
    pts = [(float(b), float(c)) for b, c in zip(np.logspace(0, 4, 200), np.logspace(2, 6, 200))]
    t0 = time.perf_counter()
    sym = [float(decode.step_time.subs({**subs, roofline.symbols.B: b, roofline.symbols.len_ctx: c}).evalf())
           for b, c in pts]
    per_point_s = (time.perf_counter() - t0) / len(pts)
    fast = d.step_time_s(np.array([b for b, _ in pts]), np.array([c for _, c in pts]))
    assert np.allclose(fast, sym, rtol=1e-12), "lambdified and sympy disagree"
    sympy_grid_s = per_point_s * batch.size * ctx.size
    return {"grid_points": int(batch.size * ctx.size), "grid_median_ms": grid_s * 1e3,
            "sympy_per_point_ms": per_point_s * 1e3, "sympy_grid_estimate_s": sympy_grid_s,
            "speedup": sympy_grid_s / grid_s}


HARNESS = """
async ([key, moves, rounds, embedded, esm]) => {
  const mod = await import(URL.createObjectURL(new Blob([esm], {type: "text/javascript"})));
  const el = document.createElement("div");
  document.body.appendChild(el);
  const spec = window.RooflineGenerated.figures[key];
  const attrs = {figure: key};
  spec.controls.forEach((c) => {
    const values = c.kind === "select" ? c.options : c.grid;
    attrs["s_" + c.name] = c.kind === "check" ? c.value : values.indexOf(c.value);
  });
  const model = window.makeModel(attrs);  // tests/browser/widget_model.js
  let move;
  if (embedded) {  // the notebook: the widget's view, its traits set as ipywidgets.jslink sets them
    mod.default.render({model, el});
    move = ([trait, value]) => model.set(trait, value);
  } else {  // the page: the figure's own form, a control's input event
    el.className = "roofline-live";
    el.dataset.figure = key;
    window.rooflineLive.mount(el);
    move = ([trait, value]) => {
      const c = spec.controls.find((x) => "s_" + x.name === trait);
      const input = el.querySelector(`[name="${c.name}"]`);
      if (c.kind === "check") input.checked = value;
      else if (c.kind === "select") input.selectedIndex = value;
      else input.value = value;
      input.dispatchEvent(new Event(c.kind === "range" ? "input" : "change"));
    };
  }
  const ms = [];
  for (let r = 0; r < rounds; r++) {
    for (const m of moves) {
      const t0 = performance.now();
      move(m);
      el.querySelector("svg").getBoundingClientRect();  // the new SVG laid out
      ms.push(performance.now() - t0);
    }
  }
  el.remove();
  return ms;
}
"""


def bench_live_figures(rounds=3):
    """Each chapter's live figure updated in headless Chromium, in a notebook (the anywidget's view of
    roofline.widget, a control's change set on its model as ipywidgets.jslink sets it) and on the page (the
    figure's own form, a control's input event): every option and a dozen stops of each control, ``rounds``
    times; milliseconds from the change to the new SVG laid out, median and 95th percentile."""
    import importlib.util

    from playwright.sync_api import sync_playwright

    from roofline import web, widget

    spec = importlib.util.spec_from_file_location("find_chromium", REPO / "tests" / "browser" / "find_chromium.py")
    finder = importlib.util.module_from_spec(spec)  # the tests' way to find a Chromium (never a download)
    spec.loader.exec_module(finder)
    find_chromium = finder.find_chromium

    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.set_content("<!doctype html><html><head><style>" + (widget.STATIC / "roofline-live.css").read_text()
                         + "</style></head><body style='width: 800px'></body></html>")
        page.evaluate((REPO / "tests" / "browser" / "widget_model.js").read_text())
        for key, live in web.LIVE.items():
            moves = []
            for c in live.controls:
                values = [True, False] if c.kind == "check" else list(range(len(c.options or c.grid)))
                step = max(1, len(values) // 12) if c.kind == "range" else 1
                start = c.value if c.kind == "check" else (c.options or c.grid).index(c.value)
                moves += [("s_" + c.name, v) for v in values[::step]] + [("s_" + c.name, start)]
            out[key] = {}
            for where, embedded in (("notebook", True), ("page", False)):
                ms = sorted(page.evaluate(HARNESS, [key, moves, rounds, embedded, widget._esm(key)]))
                out[key][where] = {"n": len(ms), "median_ms": statistics.median(ms),
                                   "p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))]}
        browser.close()
    return out


def _stats(xs):
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs), "n": len(xs)}


# With --parts: a cell after the import cell that stops the figures being drawn. Each figure is still built (its
# data, its artists), and still shown, as a blank 1 x 1 PNG: what is left out is what sharp_png and a live figure's
# to_png do (matplotlib's drawing, the palette, the PNG).
NO_DRAWING = """\
import roofline.figures as _figures, roofline.figures.live as _live
from PIL import Image as _Image
_png = __import__("io").BytesIO()
_Image.new("RGBA", (1, 1)).save(_png, format="png")
_BLANK = _png.getvalue()
_figures.sharp_png = lambda fig, *a, **k: (_BLANK, {"width": 1})
_live.LiveFigure.to_png = lambda self: _BLANK
_figures._show_sharp()"""


def joined(nb, at):
    """A copy of notebook ``nb`` whose code cells after cell ``at`` (the import cell) run as one cell, with the same
    outputs: each cell's value that IPython would show (its last statement an expression, not None) is shown with
    ``display``, as an output of the one cell. Its markdown cells are left out (a client skips them anyway).

    The chapter less this notebook is what splitting the code into cells costs: for each cell, the kernel's and
    the client's messages, IPython's input transforms and compilation of the cell's text, its streams' flushes."""
    import ast

    import nbformat

    parts = []
    for i, cell in enumerate(nb.cells[at + 1:], at + 1):
        if cell.cell_type != "code":
            continue
        try:
            body = ast.parse(cell.source).body
        except SyntaxError:
            raise ValueError(f"cell {i} is not plain Python (a magic?): the chapter cannot be run as one "
                             "cell") from None
        last = body[-1] if body else None
        if isinstance(last, ast.Expr) and not cell.source.rstrip().endswith(";"):
            lines = cell.source.splitlines()
            # what precedes the value on its first line (col_offset counts UTF-8 bytes, not characters)
            before = lines[last.lineno - 1].encode()[:last.col_offset].decode()
            head = "\n".join(lines[:last.lineno - 1] + [before])
            value = ast.get_source_segment(cell.source, last)
            parts.append(f"{head}\n__shown = (\n{value}\n)\nif __shown is not None:\n    display(__shown)")
        else:
            parts.append(cell.source)
    out = copy.deepcopy(nb)
    out.cells = out.cells[:at + 1] + [nbformat.v4.new_code_cell("\n".join(parts))]
    return out


def _shown(nb):
    """How many outputs other than printed text ``nb``'s cells hold, executed."""
    return sum(o.output_type in ("display_data", "execute_result") for c in nb.cells if c.cell_type == "code"
               for o in c.outputs)


def bench_chapters(pairs=4, only=None, parts=False):
    """Each chapter against its import cell alone, both in a fresh kernel, in ``pairs`` interleaved pairs
    (chapter then imports, imports then chapter, ...), so a slow moment of the machine hits both; the
    ratio is taken pair by pair. Returns per chapter the min / median / max of each, and of the chapter's own work
    (its time less the import cell's, pair by pair).

    With ``parts``, each round also runs the chapter with every code cell after the import cell emptied (``pass``:
    what running that many cells costs, the kernel's and the client's messages, whatever the cells hold) and with
    its figures built but not drawn (:data:`NO_DRAWING`), and as one cell (:func:`joined`), the five in a rotating
    order. The own work then splits into ``cells_s`` (the emptied chapter less the import cell), ``drawing_s`` (the
    chapter less the one that does not draw) and ``rest_s`` (what remains: the derivations, the numbers, the
    outputs), each taken round by round; apart from that split, ``split_s`` is the chapter less its code run as one
    cell (what its cells cost beyond the work in them, for the same outputs: the first round checks that both show
    as many) and ``joined_ratio`` the one cell's time over the import cell's. Each part is a difference of two runs
    of 2-4 s, and moves by about 0.1 s over four rounds: chapter 4's 31 emptied cells once read 0.02 s, where 200
    one-line cells take 3.2 ms each (0.10 s for 31). Compare parts over more rounds, or between chapters only where
    they differ by more than that."""
    import nbformat
    from nbclient import NotebookClient

    def run(nb, folder):
        # the kernel stopped at once after its last cell: ipykernel 7's shutdown now and then hangs joining its
        # control thread, and jupyter_client waits 2.5 s before it terminates the kernel (an import-only run then
        # read 5.0 s against 2.2 s, in about one run in ten)
        nb = copy.deepcopy(nb)
        start = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3", shutdown_kernel="immediate",
                       resources={"metadata": {"path": str(folder)}}).execute()
        return time.perf_counter() - start, nb

    out = {}
    for path in sorted(REPO.glob("notebooks/*.ipynb")):
        if only and not any(path.stem.startswith(o) for o in only):
            continue
        nb = nbformat.read(path, as_version=4)
        # the import cell: the first code cell after the hidden install cell that imports the library
        first = next(c for c in nb.cells[1:] if c.cell_type == "code" and "import roofline" in c.source)
        imports = copy.deepcopy(nb)
        imports.cells = [copy.deepcopy(first)]
        runs = {"chapter": nb, "imports": imports}
        at = nb.cells.index(first)
        if parts:
            runs["cells"] = copy.deepcopy(nb)
            for cell in runs["cells"].cells[at + 1:]:
                if cell.cell_type == "code":
                    cell.source, cell.outputs = "pass", []
            runs["undrawn"] = copy.deepcopy(nb)
            runs["undrawn"].cells.insert(at + 1, nbformat.v4.new_code_cell(NO_DRAWING))
            runs["joined"] = joined(nb, at)
        times = {name: [] for name in runs}
        names = list(runs)
        for i in range(pairs):
            if parts:  # each round the order rotated by one
                order = names[i % len(names):] + names[:i % len(names)]
            else:  # chapter then imports, then imports then chapter
                order = names if i % 2 == 0 else names[::-1]
            shown = {}
            for name in order:
                seconds, done = run(runs[name], path.parent)
                times[name].append(seconds)
                shown[name] = _shown(done)
            if parts and i == 0 and shown["joined"] != shown["chapter"]:
                raise RuntimeError(f"{path.stem} run as one cell showed {shown['joined']} outputs, against "
                                   f"{shown['chapter']} in its cells: the comparison would not be like for like")
        chapter_s, imports_s = times["chapter"], times["imports"]
        ratios = [c / f for c, f in zip(chapter_s, imports_s)]
        # the chapter's own work, pair by pair: the part that is the chapter's, in seconds, which moves less than
        # the ratio when the machine's start-up and import times drift (they are both terms' floor)
        own = [c - f for c, f in zip(chapter_s, imports_s)]
        out[path.stem] = {"chapter_s": _stats(chapter_s), "imports_only_s": _stats(imports_s),
                          "own_s": _stats(own), "ratio": _stats(ratios), "code_cells": sum(
                              c.cell_type == "code" for c in nb.cells[at + 1:])}
        if parts:
            cells = [e - f for e, f in zip(times["cells"], imports_s)]
            drawing = [c - u for c, u in zip(chapter_s, times["undrawn"])]
            out[path.stem] |= {"cells_s": _stats(cells), "drawing_s": _stats(drawing),
                               "rest_s": _stats([o - e - d for o, e, d in zip(own, cells, drawing)]),
                               "split_s": _stats([c - j for c, j in zip(chapter_s, times["joined"])]),
                               "joined_ratio": _stats([j / f for j, f in zip(times["joined"], imports_s)])}
    return out


def bench_suite(runs=3, against=None):
    """``bash scripts/test.sh`` in fresh clones: this repository's HEAD and, with ``against``, another
    revision, each in its own folder with its own ``.venv``. The first run of each is cold (it creates
    ``.venv`` and installs the requirements); then ``runs`` warm runs, the two clones interleaved. Times are
    wall-clock seconds of the whole command; a run that fails is reported with its exit status."""
    import subprocess
    import tempfile

    revs = {"HEAD": "HEAD"} | ({"against": against} if against else {})
    root = pathlib.Path(tempfile.mkdtemp(prefix="roofline-suite-"))
    for name, rev in revs.items():
        folder = root / name
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(folder)], check=True)
        subprocess.run(["git", "checkout", "--quiet", subprocess.run(
            ["git", "rev-parse", rev], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()],
            cwd=folder, check=True)

    def run(name):
        start = time.perf_counter()
        done = subprocess.run(["bash", "scripts/test.sh"], cwd=root / name, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        (root / f"{name}.log").write_text(done.stdout + done.stderr)
        return seconds, done.returncode

    out = {name: {"cold_s": None, "warm_s": [], "failed_runs": 0} for name in revs}
    for name in revs:
        out[name]["cold_s"], rc = run(name)
        out[name]["failed_runs"] += rc != 0
    for i in range(runs):
        for name in (list(revs) if i % 2 == 0 else list(revs)[::-1]):
            seconds, rc = run(name)
            out[name]["warm_s"].append(seconds)
            out[name]["failed_runs"] += rc != 0
    for name in revs:
        out[name]["warm"] = _stats(out[name].pop("warm_s"))
        out[name]["logs"] = str(root)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-chapters", action="store_true", help="skip executing the chapter notebooks")
    ap.add_argument("--no-widgets", action="store_true", help="skip the grid and the widget updates")
    ap.add_argument("--pairs", type=int, default=4, help="interleaved chapter / imports-only pairs (default 4)")
    ap.add_argument("--chapter", action="append", help="only chapters whose name starts with this (repeatable)")
    ap.add_argument("--parts", action="store_true",
                    help="split each chapter's own work: running its cells at all, drawing its figures, the rest")
    ap.add_argument("--suite", type=int, default=0, metavar="RUNS",
                    help="also time the README's test command in a fresh clone: one cold run, then RUNS warm")
    ap.add_argument("--against", metavar="REV", help="with --suite: a second clone at REV, runs interleaved")
    args = ap.parse_args()
    res = {}
    if not args.no_widgets:
        res |= {**bench_grid(), "live": bench_live_figures()}
    if not args.no_chapters:
        res["chapters"] = bench_chapters(args.pairs, args.chapter, args.parts)
    if args.suite:
        res["suite"] = bench_suite(args.suite, args.against)
    if args.json:
        print(json.dumps(res, indent=2))
        return
    if "grid_points" in res:
        print(f"step time, {res['grid_points']:,} points (1000 x 1000): {res['grid_median_ms']:.1f} ms median (target <= 50)")
        print(f"sympy subs+evalf per point: {res['sympy_per_point_ms']:.3f} ms -> {res['sympy_grid_estimate_s']:,.0f} s "
              f"for the grid; speed-up {res['speedup']:,.0f}x")
    for key, r in res.get("live", {}).items():
        print(f"live figure {key}: an update in a notebook {r['notebook']['median_ms']:.1f} ms median, "
              f"{r['notebook']['p95_ms']:.1f} ms p95 (goal <= 16); on the page {r['page']['median_ms']:.1f} / "
              f"{r['page']['p95_ms']:.1f} ms ({r['notebook']['n']} updates each)")
    fmt = "{min:.2f} / {median:.2f} / {max:.2f}"
    for name, r in res.get("chapters", {}).items():
        print(f"{name}: chapter {fmt.format(**r['chapter_s'])} s, its import cell alone {fmt.format(**r['imports_only_s'])}"
              f" s, its own work {fmt.format(**r['own_s'])} s, ratio {fmt.format(**r['ratio'])} (min / median / max"
              f" of {r['ratio']['n']} interleaved pairs; goal: median <= 1.5)")
        if "cells_s" in r:
            print(f"    its own work, median s: {r['code_cells']} cells run at all {r['cells_s']['median']:.2f}, "
                  f"drawing its figures {r['drawing_s']['median']:.2f}, the rest {r['rest_s']['median']:.2f} "
                  f"(own work less both, round by round)")
            print(f"    its code in {r['code_cells']} cells rather than one, the same outputs: "
                  f"{r['split_s']['median']:.2f} s more; as one cell, ratio {fmt.format(**r['joined_ratio'])}")
    for name, r in res.get("suite", {}).items():
        print(f"suite ({name}): cold {r['cold_s']:.0f} s; warm {r['warm']['min']:.0f} / {r['warm']['median']:.0f} / "
              f"{r['warm']['max']:.0f} s (min / median / max of {r['warm']['n']}; goal: median <= 120 s on 2 cores)"
              f"{'; ' + str(r['failed_runs']) + ' runs failed' if r['failed_runs'] else ''}; logs in {r['logs']}")


if __name__ == "__main__":
    main()
