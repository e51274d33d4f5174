"""Timings the project promises, measured on this machine.

    python benchmarks/bench.py            # prints a table; --json for machine-readable output

1. Step time over a 1000 x 1000 batch x context grid with the lambdified, input-checked
   function, against evaluating the sympy expression point by point (``subs`` + ``evalf``).
2. One widget update of chapter 1's figure, a slider change until the figure is redrawn: the
   notebook's widget calls ``DecodeFigure.update(...)`` and then ``to_png()``, which renders the
   figure with the Agg backend and encodes the PNG that the ``ipywidgets.Image`` shows. ``to_png``
   reuses a cached image of the axes, ticks and key for y ranges it has drawn before (whole decades,
   so a slider drag repeats them); timed that way, "cold" (cache emptied before every update, a
   y range never seen), and as a full ``fig.canvas.draw()``.
3. Execution time of each chapter notebook, top to bottom in a fresh kernel, against a notebook
   that runs only the chapter's import cell in a fresh kernel (kernel start-up and imports are the
   floor every reader pays), in interleaved pairs; min / median / max of each and of the ratio, pair by
   pair. Goal: a median ratio of at most 1.5.
4. With ``--suite RUNS`` (and ``--against REV``): the README's test command in fresh clones, one cold
   run (``.venv`` created and installed) and RUNS warm ones, two revisions interleaved. Goal: a warm
   median of at most 120 s on a 2-core machine.

    python benchmarks/bench.py --no-widgets --pairs 4                # chapters only
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
from roofline.figures import decode as plots  # noqa: E402


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


def bench_widget(repeat=40):
    models = [roofline.models.get(n) for n in ("DeepSeek (lecture)", "DeepSeek-V3", "Llama 3.1 70B")]
    chips = [roofline.hardware.get(n) for n in ("GB200", "B200", "H100")]
    precisions = ["fp4", "fp4", "fp8"]
    deps = [roofline.Deployment(m, h, precision=p) for m, h, p in zip(models, chips, precisions)]
    fig = plots.DecodeFigure(deps[0], len_ctx=4096)
    fig.fig.canvas.draw()
    state = {"i": 0}

    def one_update(render):
        i = state["i"] = state["i"] + 1
        fig.update(deployment=deps[i % 3], len_ctx=[2048, 8192, 65536][i % 3], marker_batch=[64, 512, 4096][i % 3])
        render()

    def cold():
        fig._backgrounds = {}
        fig.to_png()

    return {"widget_update_median_ms": timed(lambda: one_update(fig.to_png), repeat) * 1e3,
            "widget_update_cold_median_ms": timed(lambda: one_update(cold), repeat) * 1e3,
            "redraw_only_median_ms": timed(lambda: one_update(fig.fig.canvas.draw), repeat) * 1e3}


def _cycle(fig, settings, repeat):
    """Median time of ``fig.update(**settings[i % n])`` plus ``fig.to_png()``, cycling through ``settings``."""
    fig.to_png()
    state = {"i": 0}

    def one_update():
        state["i"] += 1
        fig.update(**settings[state["i"] % len(settings)])
        fig.to_png()

    return timed(one_update, repeat)


def bench_widget_moe(repeat=40):
    """Chapter 2's live figure: an update (model, racks, batch, context) and its PNG."""
    from roofline.figures import moe as moe_plots

    v3, kimi = roofline.models.get("DeepSeek-V3"), roofline.models.get("Kimi K2")
    gb200, h100 = roofline.hardware.get("GB200"), roofline.hardware.get("H100")
    settings = [dict(deployment=roofline.Deployment(v3, gb200, precision="fp4", n_chips=64), n_racks=1,
                     len_ctx=2048, marker_batch=512),
                dict(deployment=roofline.Deployment(kimi, gb200, precision="fp4", n_chips=128), n_racks=2,
                     len_ctx=8192, marker_batch=4096),
                dict(deployment=roofline.Deployment(v3, h100, precision="fp8", n_chips=72), n_racks=9,
                     len_ctx=32768, marker_batch=20000)]
    fig = moe_plots.MoeFigure(settings[0]["deployment"], len_ctx=2048)
    return {"moe_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def bench_widget_pipeline(repeat=40):
    """Chapter 3's live timeline: a new schedule computed and drawn, and its PNG."""
    from roofline.figures import pipeline as pipe_plots

    fig = pipe_plots.PipelineFigure(4, 4, "gpipe", labels=False)  # as the notebook's widget
    settings = [dict(n_stages=4, n_micro=4, kind="gpipe"), dict(n_stages=8, n_micro=16, kind="1f1b"),
                dict(n_stages=6, n_micro=8, kind="inference")]
    return {"pipeline_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def bench_widget_memory(repeat=40):
    """Chapter 4's live figure: memory per GPU against P and the weight floor, updated and encoded."""
    from roofline.figures import memory as mem_plots

    kimi, v3 = roofline.models.get("Kimi K2"), roofline.models.get("DeepSeek-V3")
    h100, gb200 = roofline.hardware.get("H100"), roofline.hardware.get("GB200")
    settings = [dict(deployment=roofline.Deployment(kimi, h100, precision="fp8", n_chips=8), micro_batch=64,
                     len_ctx=8192, n_stages=4),
                dict(deployment=roofline.Deployment(v3, gb200, precision="fp4", n_chips=64), micro_batch=500,
                     len_ctx=32768, n_stages=2),
                dict(deployment=roofline.Deployment(v3, h100, precision="fp8", n_chips=16), micro_batch=128,
                     len_ctx=4096, n_stages=8)]
    fig = mem_plots.MemoryFigure(settings[0]["deployment"], micro_batch=64, len_ctx=8192)
    return {"memory_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def bench_widget_training(repeat=40):
    """Chapter 5's live figure: costs along a loss and over-training against traffic, solved and drawn."""
    from roofline.figures import training as train_plots

    fig = train_plots.TrainingFigure()  # as the notebook's widget
    settings = [dict(n_active=1e11, traffic=5e7, months=2, rl_flops=3, decode_mfu=1 / 3, law_name="epoch"),
                dict(n_active=4e11, traffic=1e9, months=6, rl_flops=6, decode_mfu=0.2, law_name="hoffmann"),
                dict(n_active=2e10, traffic=2e6, months=1, rl_flops=2, decode_mfu=1.0, law_name="epoch")]
    return {"training_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def bench_widget_serving(repeat=40):
    """Chapter 6's live figure: cost against context and against pass length, updated and encoded."""
    from roofline.figures import serving as serve_plots

    base = roofline.notebook.deploy("DeepSeek (lecture)", "GB200", "fp4").values
    settings = [dict(values=dict(base, n_active=1e11, n_total=1e12, kv_bytes=1667), batch=16384, len_ctx=64e3),
                dict(values=dict(base, n_active=3.7e10, n_total=6.7e11, kv_bytes=70272), batch=512, len_ctx=8e3),
                dict(values=dict(base, n_active=2e11, n_total=2e12, kv_bytes=4096, price=4.0), batch=4096,
                     len_ctx=300e3)]
    fig = serve_plots.ServingFigure(settings[0]["values"], batch=16384, len_ctx=64e3)  # as the notebook's widget
    return {"serving_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def bench_widget_revnet(repeat=40):
    """Chapter 7's live timeline: three memory timelines recomputed and drawn, and the PNG."""
    from roofline.figures import revnet as rev_plots

    fig = rev_plots.TimelineFigure(n_layers=80, d_model=8192, n_heads=64, micro_batch=1, len_ctx=4096,
                                   saved_act_bytes=2)  # as the notebook's widget
    settings = [dict(n_layers=80, d_model=8192, n_heads=64, micro_batch=1, len_ctx=4096, saved_act_bytes=2),
                dict(n_layers=126, d_model=16384, n_heads=128, micro_batch=2, len_ctx=8192, saved_act_bytes=1),
                dict(n_layers=32, d_model=4096, n_heads=32, micro_batch=8, len_ctx=2048, saved_act_bytes=4)]
    return {"revnet_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def bench_widget_prefill(repeat=40):
    """Chapter 8's live figure: the time to first token against prompt length and a user's speed against batch
    with speculation, updated and encoded."""
    from roofline.figures import prefill as prefill_plots

    deploy = roofline.notebook.deploy  # as the notebook's widget builds each deployment
    settings = [dict(deployment=deploy("DeepSeek-V3", "H200", "fp8"), prompt_tokens=8192, batch=64, len_ctx=4096,
                     accept_rate=0.875, pass_len=2),
                dict(deployment=deploy("Llama 3.1 70B", "GB200", "fp4"), prompt_tokens=131072, batch=512,
                     len_ctx=32768, accept_rate=0.7, pass_len=4),
                dict(deployment=deploy("DeepSeek-V3", "B200", "fp8"), prompt_tokens=1024, batch=4096, len_ctx=2048,
                     accept_rate=0.6, pass_len=8)]
    fig = prefill_plots.PrefillFigure(settings[0]["deployment"], prompt_tokens=8192, batch=64,
                                      len_ctx=4096)  # as the notebook's widget
    return {"prefill_widget_update_median_ms": _cycle(fig, settings, repeat) * 1e3}


def _stats(xs):
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs), "n": len(xs)}


def bench_chapters(pairs=4, only=None):
    """Each chapter against its import cell alone, both in a fresh kernel, in ``pairs`` interleaved pairs
    (chapter then imports, imports then chapter, ...), so a slow moment of the machine hits both; the
    ratio is taken pair by pair. Returns per chapter the min / median / max of the three."""
    import nbformat
    from nbclient import NotebookClient

    def run(nb, folder):
        start = time.perf_counter()
        NotebookClient(copy.deepcopy(nb), timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(folder)}}).execute()
        return time.perf_counter() - start

    out = {}
    for path in sorted(REPO.glob("notebooks/*.ipynb")):
        if only and not any(path.stem.startswith(o) for o in only):
            continue
        nb = nbformat.read(path, as_version=4)
        # the import cell: the first code cell after the hidden install cell that imports the library
        first = next(c for c in nb.cells[1:] if c.cell_type == "code" and "import roofline" in c.source)
        imports = copy.deepcopy(nb)
        imports.cells = [copy.deepcopy(first)]
        chapter_s, imports_s, ratios = [], [], []
        for i in range(pairs):
            if i % 2 == 0:
                c, f = run(nb, path.parent), run(imports, path.parent)
            else:
                f, c = run(imports, path.parent), run(nb, path.parent)
            chapter_s.append(c)
            imports_s.append(f)
            ratios.append(c / f)
        out[path.stem] = {"chapter_s": _stats(chapter_s), "imports_only_s": _stats(imports_s),
                          "ratio": _stats(ratios)}
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
    ap.add_argument("--suite", type=int, default=0, metavar="RUNS",
                    help="also time the README's test command in a fresh clone: one cold run, then RUNS warm")
    ap.add_argument("--against", metavar="REV", help="with --suite: a second clone at REV, runs interleaved")
    args = ap.parse_args()
    res = {}
    if not args.no_widgets:
        res |= {**bench_grid(), **bench_widget(), **bench_widget_moe(), **bench_widget_pipeline(),
                **bench_widget_memory(), **bench_widget_training(), **bench_widget_serving(),
                **bench_widget_revnet(), **bench_widget_prefill()}
    if not args.no_chapters:
        res["chapters"] = bench_chapters(args.pairs, args.chapter)
    if args.suite:
        res["suite"] = bench_suite(args.suite, args.against)
    if args.json:
        print(json.dumps(res, indent=2))
        return
    if "grid_points" in res:
        print(f"step time, {res['grid_points']:,} points (1000 x 1000): {res['grid_median_ms']:.1f} ms median (target <= 50)")
        print(f"sympy subs+evalf per point: {res['sympy_per_point_ms']:.3f} ms -> {res['sympy_grid_estimate_s']:,.0f} s "
              f"for the grid; speed-up {res['speedup']:,.0f}x")
        print(f"widget update (update + render + PNG for the Image widget): {res['widget_update_median_ms']:.1f} ms "
              f"median (target <= 50); cold, a y range never drawn: {res['widget_update_cold_median_ms']:.1f} ms; "
              f"update + full canvas.draw: {res['redraw_only_median_ms']:.1f} ms")
        print(f"chapter 2 widget update (update + render + PNG): {res['moe_widget_update_median_ms']:.1f} ms median "
              f"(target <= 50)")
        print(f"chapter 3 widget update (schedule + draw + PNG): {res['pipeline_widget_update_median_ms']:.1f} ms "
              f"median (target <= 50)")
        print(f"chapter 4 widget update (update + render + PNG): {res['memory_widget_update_median_ms']:.1f} ms "
              f"median (target <= 50)")
        print(f"chapter 5 widget update (optimum + draw + PNG): {res['training_widget_update_median_ms']:.1f} ms "
              f"median (target <= 50)")
        print(f"chapter 6 widget update (two panels + PNG): {res['serving_widget_update_median_ms']:.1f} ms "
              f"median (target <= 50)")
        print(f"chapter 7 widget update (timelines + draw + PNG): {res['revnet_widget_update_median_ms']:.1f} ms "
              f"median (target <= 50)")
        print(f"chapter 8 widget update (two panels + PNG): {res['prefill_widget_update_median_ms']:.1f} ms "
              f"median (target <= 50)")
    fmt = "{min:.2f} / {median:.2f} / {max:.2f}"
    for name, r in res.get("chapters", {}).items():
        print(f"{name}: chapter {fmt.format(**r['chapter_s'])} s, its import cell alone {fmt.format(**r['imports_only_s'])}"
              f" s, ratio {fmt.format(**r['ratio'])} (min / median / max of {r['ratio']['n']} interleaved pairs;"
              f" goal: median <= 1.5)")
    for name, r in res.get("suite", {}).items():
        print(f"suite ({name}): cold {r['cold_s']:.0f} s; warm {r['warm']['min']:.0f} / {r['warm']['median']:.0f} / "
              f"{r['warm']['max']:.0f} s (min / median / max of {r['warm']['n']}; goal: median <= 120 s on 2 cores)"
              f"{'; ' + str(r['failed_runs']) + ' runs failed' if r['failed_runs'] else ''}; logs in {r['logs']}")


if __name__ == "__main__":
    main()
