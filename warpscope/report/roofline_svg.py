"""The program's roofline as an SVG a GitHub comment or README can embed.

Written by hand rather than with a plotting library: the figure is two roof segments, decade
grid lines, numbered points and their legend, and it must be byte-identical for the same
profile (reports are deterministic). matplotlib would add a large dependency to a headless
path and stamps dates and random ids into its SVG unless configured not to.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from warpscope.analysis.text import decade, si
from warpscope.report.escape import visible
from warpscope.report.names import middle
from warpscope.report.roofline_points import KernelPoint

WIDTH, HEIGHT = 720, 480
LEFT, RIGHT, TOP, BOTTOM = 70, 250, 40, 50  # plot margins; the legend sits on the right
BIG_SHARE_PCT = 5.0
#: point labels and the legend are set in a monospace font of this size, whose characters are
#: CHAR px wide (0.6 em in the common monospace fonts, a little spare), so what fits is known
FONT_PX, CHAR = 11, 6.8
LINE = 14  # px between legend lines
LEGEND_X = WIDTH - RIGHT + 12
LEGEND_CHARS = int((WIDTH - LEGEND_X - 6) // CHAR)  # characters of a legend line
#: lines of the legend, its "… more" line included (one more line below says how many point
#: labels had no room)
LEGEND_LINES = (HEIGHT - TOP - 12) // LINE - 1


def roofline_svg(points: list[KernelPoint], title: str) -> str:
    """The SVG text: the roofs of the first point's device, every point numbered as in the
    kernel table, a legend naming them (names escaped: they come from the profile)."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(visible(title))}</text>',
    ]
    if not points:
        out.append(f'<text x="{LEFT}" y="{HEIGHT // 2}">no kernel with flop, DRAM bytes and roofs</text>')
        return "\n".join([*out, "</svg>"]) + "\n"
    roof = points[0].point
    xs = [math.log10(p.point.intensity) for p in points] + [math.log10(roof.ridge)]
    ys = [math.log10(max(p.point.achieved, 1.0)) for p in points]
    x0, x1 = math.floor(min(xs) - 0.5), math.ceil(max(xs) + 0.5)
    y0, y1 = math.floor(min(ys) - 0.5), math.ceil(math.log10(roof.peak_flop) + 0.3)
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return round(LEFT + (x - x0) / (x1 - x0) * pw, 1)

    def py(y: float) -> float:
        return round(TOP + ph - (y - y0) / (y1 - y0) * ph, 1)

    for e in range(x0, x1 + 1):
        out.append(f'<line x1="{px(e)}" y1="{TOP}" x2="{px(e)}" y2="{TOP + ph}" stroke="#ddd"/>')
        out.append(f'<text x="{px(e)}" y="{TOP + ph + 16}" text-anchor="middle">{decade(e)}</text>')
    for e in range(y0, y1 + 1):
        out.append(f'<line x1="{LEFT}" y1="{py(e)}" x2="{LEFT + pw}" y2="{py(e)}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(e) + 4}" text-anchor="end">{decade(e)}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{HEIGHT - 12}" text-anchor="middle">flop per DRAM byte</text>')
    out.append(
        f'<text x="16" y="{TOP + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + ph / 2})">flop/s</text>'
    )
    ridge, top = math.log10(roof.ridge), math.log10(roof.peak_flop)
    start = max(x0, ridge - (top - y0))  # where the bandwidth roof enters the plot
    out.append(
        f'<polyline fill="none" stroke="#0072B2" stroke-width="2" points="{px(start)},'
        f'{py(top - (ridge - start))} {px(ridge)},{py(top)} {px(x1)},{py(top)}"/>'
    )
    out.append(
        f'<text x="{px(x1) - 4}" y="{py(top) - 6}" text-anchor="end" fill="#0072B2">'
        f"{roof.precision} {si(roof.peak_flop, 'flop/s')} · DRAM {si(roof.peak_bytes, 'B/s')} · "
        f"ridge {roof.ridge:.3g} flop/B</text>"
    )
    for p, x, y in zip(points, xs, ys):
        big = (p.time_share_pct or 0.0) >= BIG_SHARE_PCT
        out.append(
            f'<circle cx="{px(x)}" cy="{py(y)}" r="{5 if big else 3}" fill="#D55E00" '
            f'fill-opacity="{0.9 if big else 0.6}"/>'
        )
    centres = [(px(x), py(y)) for x, y in zip(xs, ys)]
    order = sorted(range(len(points)), key=lambda i: -(points[i].time_share_pct or 0.0))
    places = label_places([centres[i] for i in order], [points[i].label for i in order])
    left_out = 0
    for i, place in zip(order, places):
        if place is None:
            left_out += 1
            continue
        out.append(
            f'<text x="{place[0]}" y="{place[1]}" font-family="monospace" font-size="{FONT_PX}">'
            f"{escape(visible(points[i].label))}</text>"
        )
    shown = points if len(points) <= LEGEND_LINES else points[: LEGEND_LINES - 1]
    for i, p in enumerate(shown):
        out.append(
            f'<text x="{LEGEND_X}" y="{TOP + 12 + LINE * i}" font-family="monospace" font-size="{FONT_PX}">'
            f"{escape(visible(legend_line(p)))}</text>"
        )
    if len(shown) < len(points):
        out.append(
            f'<text x="{LEGEND_X}" y="{TOP + 12 + LINE * len(shown)}">… {len(points) - len(shown)} more</text>'
        )
    if left_out:
        out.append(
            f'<text x="{LEGEND_X}" y="{TOP + 12 + LINE * LEGEND_LINES}" font-family="monospace" '
            f'font-size="{FONT_PX}" fill="#555">{left_out} point label(s) left out: no room</text>'
        )
    return "\n".join([*out, "</svg>"]) + "\n"


def legend_line(p: KernelPoint) -> str:
    """``label name (share%)`` in at most ``LEGEND_CHARS`` characters: the name shortened in
    the middle (the template arguments at its end tell kernels apart)."""
    share = f" ({p.time_share_pct:.3g}%)" if p.time_share_pct is not None else ""
    room = LEGEND_CHARS - len(p.label) - 1 - len(share)
    return f"{p.label} {middle(p.kernel_short, room)}{share}"


def label_places(centres: list[tuple[float, float]], labels: list[str]) -> list[tuple[float, float] | None]:
    """Where each label's text starts (x, baseline y), in order (the first placed first):
    right of its point, else left, above, below; its box never over another label's or
    another point, with a gap; None where no place is free."""
    boxes: list[tuple[float, float, float, float]] = [(x - 5, y - 5, x + 5, y + 5) for x, y in centres]
    out: list[tuple[float, float] | None] = []
    for n, ((x, y), label) in enumerate(zip(centres, labels, strict=True)):
        w, h = len(label) * CHAR, FONT_PX
        chosen = None
        for tx, ty in ((x + 7, y + 4), (x - 7 - w, y + 4), (x - w / 2, y - 8), (x - w / 2, y + 8 + h)):
            box = (tx - 2, ty - h, tx + w + 2, ty + 2)
            inside = (
                box[0] >= LEFT and box[2] <= WIDTH - RIGHT and box[1] >= TOP and box[3] <= HEIGHT - BOTTOM
            )
            if inside and not any(_overlap(box, b) for j, b in enumerate(boxes) if j != n):
                chosen = (round(tx, 1), round(ty, 1))
                boxes.append(box)
                break
        out.append(chosen)
    return out


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
