"""How the main view is drawn: one value the page builds from its toggles and passes down to the figure.

What is drawn (the model, its record, the data seen, the sample) comes from the run; how it is drawn (which
regions, zoomed or not, how tall) is a :class:`ViewOptions`, so a new option is one field here and one use in
:mod:`cae.app.figures.network`, not an argument threaded through every call between the page and the figure.
No Streamlit and no Plotly here: pages import it cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["ViewOptions"]


@dataclass(frozen=True)
class ViewOptions:
    """The main view's options (every page that draws the network: Playground, Explain, Classroom, Compare).

    Attributes
    ----------
    show_vigilance : bool
        Draw the vigilance region of s1 (where CIM to s1 is at most V).
    show_bandwidth : bool
        Draw each node's bandwidth σ as a circle.
    focus : bool
        Zoom to s1, s2, the sample and the vigilance region of s1 (the full view while there is no s1).
    show_all_regions : bool
        Draw every node's vigilance region, in its cluster's colour.
    window : int
        The recent window: the last ``window`` samples drawn brighter.
    height : int or None
        The figure's height in pixels; None: as tall as the box the page gives it (the Playground's stage, sized by
        the page's style to the screen).
    dims : (int, int)
        The two features drawn.
    title : str or None
        A title above the plot.
    current_name : str
        The legend's name of the sample marked with a star ("current sample", "next sample", …).
    note : str or None
        A line written in the plot's top left corner before the first step (what to press first).
    legend : bool
        The legend and the edge-age colour bar in the figure (Plotly's); False: neither, the figure is all picture,
        and its key (:func:`cae.app.figures.key.figure_key_html`) is shown beside it by the page.
    font_size : int
        The size of every text in the figure (px): 14 at least for a class reading from the back (the present mode
        of a projector: 20).
    px : int or None
        The picture's side as the browser draws it (px: the Playground's square, measured by the page): nodes, edges,
        data points and marks are drawn in proportion to it (:func:`cae.app.figures._draw.mark_scale`), so that a
        933-px picture on a projector shows them as a 605-px one does. None: the sizes of a 605-px picture.

    Examples
    --------
    >>> view = ViewOptions(show_vigilance=True, height=430)
    >>> view.with_(height=406).height, view.height  # a frozen value: a changed copy
    (406, 430)
    """

    show_vigilance: bool = False
    show_bandwidth: bool = False
    focus: bool = False
    show_all_regions: bool = False
    window: int = 300
    height: int | None = 560
    dims: tuple[int, int] = (0, 1)
    title: str | None = None
    current_name: str = "current sample"
    note: str | None = None
    legend: bool = True
    font_size: int = 14
    px: int | None = None

    def with_(self, **changes: object) -> ViewOptions:
        """A copy with ``changes`` (field names of this class)."""
        return replace(self, **changes)  # type: ignore[arg-type]
