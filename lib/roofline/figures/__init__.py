"""Figures, one module per chapter: ``draw_*`` helpers that take an ``ax``, and live figure classes.

Figures compute nothing of their own: every number comes from the library's
equations through a :class:`~roofline.Deployment`. They use matplotlib only; the
notebooks put them under ipywidgets controls.

decode      chapter 1: step time and cost per token against batch size
"""

from . import decode

__all__ = ["decode"]
