"""The join link as a QR code: SVG text drawn with segno (pure Python, no image library).

Examples
--------
>>> svg = qr_svg("http://10.0.0.5:8501/classroom?room=ACEFH3")
>>> svg.startswith("<svg") and "</svg>" in svg
True
"""

from __future__ import annotations

__all__ = ["qr_svg"]


def qr_svg(text, size=260):
    """A QR code of ``text`` as an SVG of ``size`` × ``size`` pixels (dark on white, with its quiet zone)."""
    import io

    import segno

    qr = segno.make(str(text), error="m", micro=False)
    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=1, border=4, dark="#000", light="#fff", xmldecl=False, svgns=True, nl=False)
    svg = buf.getvalue().decode("utf-8")
    w = qr.symbol_size(scale=1, border=4)[0]
    # scale the picture to `size` pixels, crisp (no anti-aliased module edges)
    return svg.replace(
        "<svg ",
        f'<svg viewBox="0 0 {w} {w}" shape-rendering="crispEdges" ',
        1,
    ).replace(f'width="{w}" height="{w}"', f'width="{int(size)}" height="{int(size)}"', 1)
