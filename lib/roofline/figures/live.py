"""What every live figure shares: a background cached per axis range, and a PNG for an ipywidgets Image."""

import io

import numpy as np
from matplotlib.backend_bases import FigureCanvasBase


class LiveFigure:
    """A matplotlib figure on an Agg canvas whose updates redraw only what changed.

    A subclass sets ``self.fig`` and ``self.axes`` and lists in ``_changing()`` the artists an
    update changes; :meth:`render` draws the rest once for each set of y ranges and caches it.
    """

    def _changing(self):
        raise NotImplementedError

    def _dynamic(self):
        """The artists an update changes and the axes' spines (redrawn over shaded spans), lowest first."""
        arts = list(self._changing()) + [sp for ax in self.axes for sp in ax.spines.values()]
        return sorted(arts, key=lambda a: a.get_zorder())

    def _request_redraw(self):
        """Ask an interactive backend for a redraw; Agg draws on :meth:`render` instead."""
        if type(self.fig.canvas).draw_idle is not FigureCanvasBase.draw_idle:
            self.fig.canvas.draw_idle()

    def render(self):
        """Draw the figure into its Agg canvas, reusing the background of earlier frames.

        The axes, ticks, labels and key are drawn once for each set of axis ranges (whole decades,
        so they repeat) and cached; a frame restores them and draws the changing artists.
        Returns the canvas' RGBA buffer.
        """
        canvas = self.fig.canvas
        key = tuple(ax.get_xlim() + ax.get_ylim() for ax in self.axes)
        if not hasattr(self, "_backgrounds"):
            self._backgrounds = {}
        background = self._backgrounds.get(key)
        if background is None or canvas.get_width_height() != self._size:
            dynamic = self._dynamic()
            shown = [a.get_visible() for a in dynamic]
            for a in dynamic:
                a.set_visible(False)
            canvas.draw()
            for a, v in zip(dynamic, shown):
                a.set_visible(v)
            if len(self._backgrounds) >= 16:
                self._backgrounds.clear()
            background = self._backgrounds[key] = canvas.copy_from_bbox(self.fig.bbox)
            self._size = canvas.get_width_height()
        canvas.restore_region(background)
        for a in self._dynamic():
            self.fig.draw_artist(a)
        return canvas.buffer_rgba()

    def to_png(self):
        """The figure as PNG bytes, e.g. for an ``ipywidgets.Image`` (renders it once)."""
        from PIL import Image  # matplotlib's own dependency

        buf = io.BytesIO()
        Image.fromarray(np.asarray(self.render())).save(buf, format="png", compress_level=1)  # a widget frame
        return buf.getvalue()
