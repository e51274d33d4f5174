"""The figure helpers: artists exist, updates change the data in place, the regime label is right."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from roofline import Deployment, hardware, models  # noqa: E402
from roofline.figures.decode import DecodeFigure, draw_cost, draw_latency  # noqa: E402

LECTURE = Deployment(models.get("lecture"), hardware.get("GB200"), price_usd_per_hour=2.0)
BATCH = np.geomspace(1, 1e5, 50)


def test_draw_latency_returns_labelled_artists():
    ax = Figure().subplots()
    art = draw_latency(ax, LECTURE, BATCH, len_ctx=256)
    assert set(art) == {"compute", "weights", "kv", "memory", "total", "balance", "wall"}
    assert ax.get_xlabel() == "batch size (sequences)" and "(ms)" in ax.get_ylabel()
    assert ax.get_title() == ""
    # the weight-fetch floor is flat at N_total x 0.5 B / (72 x 8 TB/s) = 0.608 ms (hand arithmetic)
    assert np.allclose(art["weights"].get_ydata(), 700e9 * 0.5 / (72 * 8e12) * 1e3)
    # bold line = max(compute, weights + KV) at every batch
    y = {k: art[k].get_ydata() for k in art if k not in ("balance", "wall")}
    assert np.allclose(y["total"], np.maximum(y["compute"], y["memory"]))


def test_draw_cost_falls_to_the_floor():
    ax = Figure().subplots()
    art = draw_cost(ax, LECTURE, BATCH, len_ctx=256)
    total, floor = art["total"].get_ydata(), art["floor"].get_ydata()
    assert np.all(np.diff(total) <= 1e-15)            # cost per token never rises with batch
    assert total[-1] == pytest.approx(floor[-1])      # and ends on the compute/KV floor
    # compute floor: 72 chips x $2/h / 3600 x 37e9 x 2 FLOP / (72 x 1e16 FLOP/s), per million tokens
    assert art["compute"].get_ydata()[0] == pytest.approx(2 / 3600 * 37e9 * 2 / 1e16 * 1e6)


def test_update_changes_data_in_place_and_names_the_regime():
    fig = DecodeFigure(LECTURE, len_ctx=256, marker_batch=100)
    line = fig.latency["kv"]
    before = line.get_ydata().copy()
    assert fig.regime == "weight-bound"                               # B = 100 << B* ~ 6,000
    assert fig.update(marker_batch=50_000) == "compute-bound"
    assert fig.update(len_ctx=8192) == "KV-bound"                     # KV slope > compute slope past ~842 tokens
    assert fig.latency["kv"] is line and not np.allclose(line.get_ydata(), before)
    assert len(fig.latency["balance"].get_xdata()) == 0             # never compute-bound: no balance point
    assert "KV-bound" in fig.label.get_text()
    fig.fig.canvas.draw()


def test_bad_input_raises_value_error():
    fig = DecodeFigure(LECTURE, len_ctx=256)
    with pytest.raises(ValueError, match="len_ctx"):
        fig.update(len_ctx=0)
    with pytest.raises(ValueError, match="marker_batch"):
        fig.update(marker_batch=float("nan"))
    with pytest.raises(ValueError, match="deployment"):
        fig.update(deployment="GB200")
    with pytest.raises(ValueError, match="batch"):
        draw_latency(Figure().subplots(), LECTURE, [-1, 10], len_ctx=256)
    with pytest.raises(ValueError, match="batch_range"):
        DecodeFigure(LECTURE, len_ctx=256, batch_range=(100, 10))


def test_memory_wall_starts_where_the_kv_cache_stops_fitting():
    """The shaded span starts at the max batch: (72 x HBM - 350 GB of FP4 weights) / (L x 70,272 B)."""
    ax = Figure().subplots()
    art = draw_latency(ax, LECTURE, BATCH, len_ctx=100_000)
    wall = (72 * hardware.get("GB200").hbm_bytes - 350e9) / (100_000 * 70272)
    assert art["wall"].get_x() == pytest.approx(wall) and art["wall"].get_label() == "KV cache does not fit"
    fig = DecodeFigure(LECTURE, len_ctx=100_000, marker_batch=5000)
    assert "does NOT fit" in fig.label.get_text()
    fig.update(len_ctx=256)
    assert "KV fits" in fig.label.get_text() and fig.latency["wall"].get_width() == 0  # wall beyond the axis
    short = draw_latency(Figure().subplots(), LECTURE, BATCH, len_ctx=256)["wall"]
    assert short.get_label() == "_nolegend_"  # no shaded region to name at a short context


def test_refined_lines_show_experts_touched_where_the_model_has_expert_shapes():
    """DeepSeek-V3 at B=1 reads its always-on weights and 8 of 256 experts, about 37.5B parameters; the
    lecture's round model has no expert shapes, so its dotted lines stay hidden."""
    v3 = Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), precision="fp4", price_usd_per_hour=2.0)
    fig = DecodeFigure(v3, len_ctx=256, refined=True, batch_range=(1, 1e4))
    touched = fig.latency["weights_touched"].get_ydata()
    expert = 3 * 7168 * 2048 * 58
    assert touched[0] == pytest.approx((671e9 - 248 * expert) * 0.5 / (72 * 8e12) * 1e3, rel=1e-9)
    assert touched[-1] == pytest.approx(fig.latency["weights"].get_ydata()[-1], rel=1e-9)  # all touched
    assert fig.latency["total_refined"].get_visible()
    fig.update(deployment=LECTURE)
    assert not fig.latency["total_refined"].get_visible()
    with pytest.raises(ValueError, match="refined"):
        fig.update(refined="yes")


def test_sharp_png_draws_twice_the_size_it_is_shown_at_in_a_palette_close_to_full_colour():
    import io

    from PIL import Image

    from roofline.figures import sharp_png

    fig = Figure(figsize=(7.0, 4.0), dpi=100)
    draw_latency(fig.subplots(), LECTURE, BATCH, len_ctx=256)
    png, size = sharp_png(fig, bbox_inches=None)
    image = Image.open(io.BytesIO(png))
    assert size == {"width": 700} and image.size == (1400, 800) and image.mode == "P"
    full = io.BytesIO()
    fig.savefig(full, format="png", dpi=200)
    error = np.abs(np.asarray(Image.open(full).convert("RGB"), int) - np.asarray(image.convert("RGB"), int)).max(axis=2)
    assert error.mean() < 0.5 and np.percentile(error, 99.9) <= 20  # lines, text and fills hold in 256 colours
    assert len(png) < len(full.getvalue())  # and the palette is lighter
    tight, size = sharp_png(fig)  # bbox_inches="tight", as IPython shows figures: rounded down, never blurred
    assert Image.open(io.BytesIO(tight)).size[0] >= 2 * size["width"]


def test_sharp_pngs_tight_box_holds_what_is_drawn_past_the_canvas():
    """The tight box is cut from one drawing: on the canvas, or on the canvas grown to hold a legend set below the
    plot, a note entirely beneath it and a second axis's label beside it. It is matplotlib's own tight box to a few
    pixels (matplotlib's keeps each text's whole line height; the cut keeps the ink), with the same padding."""
    import io

    from PIL import Image

    from roofline.figures import sharp_png

    for past in (False, True):
        fig = Figure(figsize=(7.0, 4.0), dpi=100)
        ax = fig.subplots()
        draw_latency(ax, LECTURE, BATCH, len_ctx=256)
        if past:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncols=3)
            fig.text(0.1, -0.45, "a note below the canvas")
            ax.twinx().set_ylabel("a label past the right edge, " * 2)
        png, size = sharp_png(fig)
        image = Image.open(io.BytesIO(png))
        full = io.BytesIO()
        fig.savefig(full, format="png", dpi=200, bbox_inches="tight")
        want = Image.open(full).size
        # matplotlib's box holds each text's whole line, ascent and descent, inked or not: up to 12 px more at 1x
        assert all(b - 24 <= a <= b + 4 for a, b in zip(image.size, want)), (past, image.size, want)
        assert image.size[0] >= 2 * size["width"]
        ink = np.asarray(image.convert("L")) < 250
        rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
        pad = 2 * 100 * 0.1  # matplotlib's padding, 0.1 inch, at twice the dpi
        assert min(rows[0], cols[0], image.size[1] - 1 - rows[-1], image.size[0] - 1 - cols[-1]) >= pad - 1


def test_sharp_png_draws_a_figure_as_laid_out_the_same_every_time():
    """A figure whose texts and key lie on its canvas is drawn on the canvas, not grown: its axes' labels, which sit
    at the canvas's edge until matplotlib first draws them, do not grow it, nor push a key anchored to the figure
    down under a gap. Drawn again, it is the same PNG."""
    import io

    from PIL import Image

    from roofline.figures import sharp_png

    fig = Figure(figsize=(7.0, 4.0), dpi=100)
    ax = fig.subplots()
    draw_latency(ax, LECTURE, BATCH, len_ctx=256)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncols=3, frameon=False)
    fig.subplots_adjust(bottom=0.35)
    first, size = sharp_png(fig)
    assert sharp_png(fig) == (first, size)
    width, height = Image.open(io.BytesIO(first)).size
    assert height <= 2 * 400 and width <= 2 * 700  # the canvas at twice its dpi, cut to the ink
    # measured as matplotlib measures its tight box, the axes' limits set, before any drawing: a note in data units
    # (in the unset limits, 0 to 1, it sat hundreds of inches away), and an arrow's label past the canvas, its
    # point in data units (unset limits hid it, and its last word was cut)
    fig = Figure(figsize=(7.0, 4.0), dpi=100)
    ax = fig.subplots()
    ax.plot([0, 1000], [0, 1000])
    ax.text(500, 500, "a note in data units")
    ax.annotate("a label past the right edge", xy=(500, 500), xytext=(1.02, 0.5), textcoords="axes fraction",
                arrowprops={"arrowstyle": "->"})
    png, _ = sharp_png(fig)
    assert sharp_png(fig)[0] == png
    full = io.BytesIO()
    fig.savefig(full, format="png", dpi=200, bbox_inches="tight")
    assert abs(Image.open(io.BytesIO(png)).size[0] - Image.open(full).size[0]) <= 24
    # a text placed far outside the figure is named, not drawn on a canvas of thousands of inches
    ax.set(xlim=(0, 1000), ylim=(0, 1000))
    ax.text(1e6, 500, "far away")
    with pytest.raises(ValueError, match="more than ten times the figure's 7 x 4"):
        sharp_png(fig)


def test_a_live_figures_frame_is_sharp_and_leaves_its_widget_frame_as_it_was():
    fig = DecodeFigure(LECTURE, len_ctx=256, marker_batch=2000)
    widget = fig.to_png()
    frame = fig.frame()  # an IPython Image
    assert frame.data[:4] == b"\x89PNG" and int.from_bytes(frame.data[16:20], "big") >= 2 * frame.width
    fig.update(marker_batch=2000)  # the same settings, drawn again on the Agg canvas the frame printed from
    assert fig.to_png() == widget


def test_use_style_in_ipython_freezes_the_heap_the_imports_built(monkeypatch):
    """In a kernel, use_style (a chapter's first cell, after its imports) freezes the objects alive then, so the
    chapter's full garbage collections do not walk the imports' 160,000-200,000 objects again."""
    import gc

    import IPython
    from IPython.core.interactiveshell import InteractiveShell

    import roofline.figures as rf

    froze = []
    monkeypatch.setattr(rf, "_freeze_imports", lambda: froze.append(True))
    monkeypatch.setattr(rf.scale, "register_scale", lambda s: None)  # this worker's other tests keep matplotlib's log
    with matplotlib.rc_context():
        monkeypatch.setattr(IPython, "get_ipython", lambda: None)
        rf.use_style()  # outside IPython: the style only
        assert froze == []
        existed = InteractiveShell.initialized()  # another test of this worker may have made one
        shell = InteractiveShell.instance()
        hooked = rf._show_sharp in shell.events.callbacks["post_run_cell"]
        monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
        try:
            rf.use_style()
        finally:
            if not hooked:
                shell.events.unregister("post_run_cell", rf._show_sharp)
            if not existed:
                InteractiveShell.clear_instance()
    assert froze == [True]
    monkeypatch.undo()
    gc.unfreeze()
    try:
        rf._freeze_imports()
        assert gc.get_freeze_count() > 10_000  # this worker's modules: numpy, sympy, matplotlib, the library
    finally:
        gc.unfreeze()


def test_log_locators_keep_every_tick_matplotlib_draws_and_build_fewer(monkeypatch):
    """The book's log locators drop the ticks beyond the axis (roofline.figures._in_view): matplotlib draws the
    same ticks, at the same places, on axes from a fraction of a decade to hundreds of decades, and builds fewer."""
    import matplotlib.pyplot as plt

    from roofline import figures

    figures.use_style()
    ranges = [(1, 10), (2, 2.5), (3, 3000), (63.1, 1.58e6), (1e-3, 1e3), (0.56, 1.78e5), (1e-2, 1e10), (1e-30, 1e30),
              (5e3, 7)]

    def drawn(lo, hi):
        fig, ax = plt.subplots()
        ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi))
        fig.canvas.draw()
        locs = [[float(t.get_loc()) for t in axis._update_ticks()] for axis in (ax.xaxis, ax.yaxis)]
        built = sum(len(a.majorTicks) + len(a.minorTicks) for a in (ax.xaxis, ax.yaxis))
        plt.close(fig)
        return locs, built

    ours = [drawn(*r) for r in ranges]
    monkeypatch.setattr(figures, "_in_view", lambda locs, vmin, vmax: locs)  # every tick LogLocator gives
    theirs = [drawn(*r) for r in ranges]
    assert [o[0] for o in ours] == [t[0] for t in theirs]
    assert sum(o[1] for o in ours) < 0.8 * sum(t[1] for t in theirs), (ours, theirs)


def test_the_log_scale_builds_matplotlibs_log_norms_and_registers_without_a_warning():
    """After use_style, "log" is the book's PlainLogScale: matplotlib builds a norm="log" from it (passing axis=None),
    its options still apply, and registering it warns of nothing."""
    import warnings

    import matplotlib.pyplot as plt

    from roofline import figures

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures.use_style()
    fig, ax = plt.subplots()
    ax.imshow(np.arange(1.0, 10.0).reshape(3, 3), norm="log")
    ax.scatter([1, 2], [1, 2], c=[1, 100], norm="log")
    ax.set_xscale("log", base=2, subs=[2, 5], nonpositive="mask")
    scale = ax.xaxis._scale
    assert (type(scale).__name__, scale.base, list(scale.subs)) == ("PlainLogScale", 2, [2, 5])
    fig.canvas.draw()
    plt.close(fig)
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        figures.PlainLogScale(bogus=1)
