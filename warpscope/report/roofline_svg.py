"""The program's roofline as an SVG a GitHub comment or README can embed.

Written by hand rather than with a plotting library: the figure is a few roof segments, decade
grid lines, numbered points and their legend, and it must be byte-identical for the same
profile (reports are deterministic). matplotlib would add a large dependency to a headless
path and stamps dates and random ids into its SVG unless configured not to.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from warpscope.analysis.roofline import PRECISIONS
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


#: how each memory level's roof and points are drawn: (colour, dash pattern, marker)
LEVEL_STYLE = {"DRAM": ("#0072B2", "", "●"), "L2": ("#009E73", "6 3", "■"), "L1": ("#E69F00", "2 3", "▲")}
LINE_NAME = {"": "solid", "6 3": "dashed", "2 3": "dotted"}
SIMT_FILL, TENSOR_FILL = "#D55E00", "#CC79A7"


def roofline_svg(points: list[KernelPoint], title: str) -> str:
    """The SVG text: the roofs of the first point's device (each memory level's bandwidth, the
    SIMT precision's peak, each tensor-core path's peak), every kernel's point at each level
    (● DRAM, ■ L2, ▲ L1; tensor-core work ◆ at DRAM) numbered as in the kernel table, a legend
    naming them (names escaped: they come from the profile)."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(visible(title))}</text>',
    ]
    if not points:
        out.append(f'<text x="{LEFT}" y="{HEIGHT // 2}">no kernel with flop, DRAM bytes and roofs</text>')
        return "\n".join([*out, "</svg>"]) + "\n"
    simt = [(p, p.point) for p in points if p.point is not None]
    tensor = [(p, t) for p in points for t in p.tensor if t.level("DRAM") is not None]
    hierarchy = [h for p in points for h in (p.levels, *p.tensor) if h is not None]
    # the device's roofs, from its first kernel: bandwidth per level, peak work per pipe
    bandwidth = {lv.level: lv.peak_bytes for lv in hierarchy[0].levels} if hierarchy else {}
    roofs: dict[str, float] = {}
    if simt:
        first = simt[0][1]
        bandwidth["DRAM"] = first.peak_bytes
        roofs[first.precision] = first.peak_flop
    for _, t in tensor:
        roofs.setdefault(t.pipe, t.peak_work)
    if "DRAM" not in bandwidth or not roofs:
        out.append(f'<text x="{LEFT}" y="{HEIGHT // 2}">no kernel with flop, DRAM bytes and roofs</text>')
        return "\n".join([*out, "</svg>"]) + "\n"
    top = max(roofs.values())
    fastest = max(bandwidth.values())
    # where each drawn thing sits, in log10 units
    dots = [(p, math.log10(r.intensity), math.log10(max(r.achieved, 1.0))) for p, r in simt]
    diamonds = [
        (p, math.log10(t.level("DRAM").intensity), math.log10(max(t.achieved, 1.0)))  # type: ignore[union-attr]
        for p, t in tensor
    ]
    marks = [
        (level, math.log10(lv.intensity), math.log10(max(h.achieved, 1.0)), h.tensor)
        for p in points
        for h in (p.levels, *p.tensor)
        if h is not None and (h.tensor or p.point is not None)
        for level in ("L2", "L1")
        if (lv := h.level(level)) is not None
    ]
    ridges = [math.log10(peak / bw) for peak in roofs.values() for bw in bandwidth.values()]
    xs = [x for _, x, _ in dots + diamonds] + [x for _, x, _, _ in marks] + ridges
    ys = [y for _, _, y in dots + diamonds]
    x0, x1 = math.floor(min(xs) - 0.5), math.ceil(max(xs) + 0.5)
    y0, y1 = math.floor(min(ys) - 0.5), math.ceil(math.log10(top) + 0.3)
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
    out.append(
        f'<text x="{LEFT + pw / 2}" y="{HEIGHT - 12}" text-anchor="middle">'
        "flop (tensor cores: op) per byte of each level</text>"
    )
    out.append(
        f'<text x="16" y="{TOP + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + ph / 2})">flop/s (tensor cores: op/s)</text>'
    )
    # each level's bandwidth up to the highest roof, then each pipe's peak from where the
    # fastest level meets it
    key = []
    for level in ("DRAM", "L2", "L1"):
        if level not in bandwidth:
            continue
        colour, dash, marker = LEVEL_STYLE[level]
        b = math.log10(bandwidth[level])
        ridge = math.log10(top) - b
        start = max(x0, y0 - b)  # where the bandwidth roof enters the plot
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2"'
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + f' points="{px(start)},{py(start + b)} {px(ridge)},{py(ridge + b)}"/>'
        )
        key.append((colour, f"{marker} {level} {si(bandwidth[level], 'B/s')} ({LINE_NAME[dash]})"))
    # the roofs' names above their right ends, highest first, each a line of text below the one
    # before where the roofs lie closer than that (tensor roofs: a sixth of a decade apart)
    below = -math.inf
    for pipe, peak in sorted(roofs.items(), key=lambda kv: -kv[1]):
        y, colour = math.log10(peak), TENSOR_FILL if pipe not in PRECISIONS else "#0072B2"
        ridge = y - math.log10(fastest)
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{px(ridge)},{py(y)} {px(x1)},{py(y)}"/>'
        )
        unit = "flop/s" if pipe in PRECISIONS else "op/s"
        below = max(py(y) - 4, below + 12)
        out.append(
            f'<text x="{px(x1) - 4}" y="{round(below, 1)}" text-anchor="end" fill="{colour}" '
            'stroke="white" stroke-width="3" paint-order="stroke">'
            f"{escape(pipe)} {si(peak, unit)}</text>"
        )
    out.append(
        f'<text x="{LEFT}" y="{TOP - 6}" font-size="10">'
        + "  ".join(f'<tspan fill="{c}">{escape(t)}</tspan>' for c, t in key)
        + f'  <tspan fill="{TENSOR_FILL}">◆ tensor-core ops at DRAM</tspan></text>'
    )
    for level, x, y, is_tensor in marks:
        fill = TENSOR_FILL if is_tensor else SIMT_FILL
        cx, cy = px(x), py(y)
        if level == "L2":
            out.append(
                f'<rect x="{cx - 3}" y="{cy - 3}" width="6" height="6" fill="{fill}" fill-opacity="0.45"/>'
            )
        else:
            out.append(
                f'<polygon points="{cx},{round(cy - 4, 1)} {cx - 4},{round(cy + 3, 1)} {cx + 4},{round(cy + 3, 1)}" '
                f'fill="{fill}" fill-opacity="0.45"/>'
            )
    for p, x, y in dots:
        big = (p.time_share_pct or 0.0) >= BIG_SHARE_PCT
        out.append(
            f'<circle cx="{px(x)}" cy="{py(y)}" r="{5 if big else 3}" fill="{SIMT_FILL}" '
            f'fill-opacity="{0.9 if big else 0.6}"/>'
        )
    for _, x, y in diamonds:
        cx, cy = px(x), py(y)
        out.append(
            f'<polygon points="{cx},{round(cy - 5, 1)} {round(cx + 5, 1)},{cy} {cx},{round(cy + 5, 1)} '
            f'{round(cx - 5, 1)},{cy}" fill="{TENSOR_FILL}" fill-opacity="0.9"/>'
        )
    labelled = dots + diamonds
    centres = [(px(x), py(y)) for _, x, y in labelled]
    order = sorted(range(len(labelled)), key=lambda i: -(labelled[i][0].time_share_pct or 0.0))
    # the L1 and L2 marks may sit under a number (left free, they would leave out half the
    # numbers of a busy figure): the numbers are what say which kernel a point is
    places = label_places([centres[i] for i in order], [labelled[i][0].label for i in order])
    left_out = 0
    for i, place in zip(order, places):
        if place is None:
            left_out += 1
            continue
        out.append(
            f'<text x="{place[0]}" y="{place[1]}" font-family="monospace" font-size="{FONT_PX}">'
            f"{escape(visible(labelled[i][0].label))}</text>"
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
