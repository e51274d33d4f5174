"""Figures, one module per chapter: ``draw_*`` helpers that take an ``ax``, and live figure classes.

Figures compute nothing of their own: every number comes from the library's
equations through a :class:`~roofline.Deployment`. They use matplotlib only; the
notebooks put them under ipywidgets controls.

decode      chapter 1: step time and cost per token against batch size
moe         chapter 2: the lecture's rack diagrams, and the step with the all-to-all
pipeline    chapter 3: the layer stack cut into racks, and pipeline timelines from computed schedules
memory      chapter 4: memory per GPU against pipeline stages, the weight floor against scale-up size
revnet      chapter 7: the Feistel and RevNet diagrams, mixing measured, training memory over time
serving     chapter 6: cost against context with a two-tier price, against pass length; drain times
training    chapter 5: costs of one quality against pre-training tokens, over-training against traffic
live        what every live figure shares: a cached background, a PNG for a widget
"""

STYLE = {
    "figure.figsize": (7.0, 4.0), "figure.dpi": 100, "savefig.dpi": 100,
    "font.size": 11, "axes.labelsize": 11, "axes.titlesize": 11,
    "xtick.labelsize": 10.5, "ytick.labelsize": 10.5, "legend.fontsize": 10, "legend.frameon": False,
}
"""matplotlib rcParams for the book's static figures: 700 px wide, at least the book's text column (about
690 px at a 1280-px window), so no text is shrunk below 10 pt (``plt.rcParams.update(STYLE)`` in each
chapter's first cell)."""

from . import decode, live, memory, moe, pipeline, revnet, serving, training  # noqa: E402

__all__ = ["STYLE", "decode", "live", "memory", "moe", "pipeline", "revnet", "serving", "training"]
