"""A roofline on log-log axes: the DRAM roof up to the ridge, the compute roof after it, and
kernels as numbered points (numbers, not colours, say which is which: NO_COLOR-safe); or one
kernel's hierarchical roofline, its point at L1 (▲), L2 (■) and DRAM (◆) under each level's roof."""

from __future__ import annotations

import math
from typing import Any

from textual_plotext import PlotextPlot

from warpscope.analysis.roofline import HierarchicalRoofline
from warpscope.analysis.text import decade, si
from warpscope.report.roofline_points import KernelPoint

#: marker of the kernels holding this much of the time or more, and of the rest
BIG, SMALL = "●", "•"
BIG_SHARE_PCT = 5.0


class RooflinePlot(PlotextPlot):
    """The roofs of the first point's device and every point, labelled by its number."""

    def __init__(
        self, points: list[KernelPoint], levels: HierarchicalRoofline | None = None, **kwargs: Any
    ) -> None:
        """``points``: the kernels on the DRAM roofline of their SIMT flop; ``levels``: instead,
        one kernel's pipe under the L1, L2 and DRAM roofs (the kernel view)."""
        super().__init__(**kwargs)
        # the SIMT flop's roofline: kernels with tensor-core work only are not on it
        self.points = [p for p in points if p.point is not None]
        self.levels = levels
        self.labels_left_out = 0

    def on_mount(self) -> None:
        super().on_mount()
        self.draw()
        self.call_after_refresh(self.draw)  # again with the size the layout gives it

    def on_resize(self) -> None:
        self.draw()  # labels are placed for the plot's size in cells

    def draw(self) -> None:
        # drawn in log10 units with decade ticks named by hand: plotext's own log scale
        # overflows on limits in the 1e13 range
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if self.levels is not None:
            self._draw_levels(self.levels)
            return
        if not self.points:
            plt.title("no kernel with flop, DRAM bytes and roofs in this profile")
            self.refresh()
            return
        dram = [p.point for p in self.points if p.point is not None]
        roof = dram[0]
        xs = [math.log10(r.intensity) for r in dram] + [math.log10(roof.ridge)]
        ys = [math.log10(max(r.achieved, 1.0)) for r in dram]
        x0, x1 = math.floor(min(xs) - 0.5), math.ceil(max(xs) + 0.5)
        y0, y1 = math.floor(min(ys) - 0.5), math.ceil(math.log10(roof.peak_flop) + 0.3)
        ridge, top = math.log10(roof.ridge), math.log10(roof.peak_flop)
        plt.plot([x0, ridge], [top - (ridge - x0), top], marker="braille")  # slope 1: the bandwidth
        plt.plot([ridge, x1], [top, top], marker="braille")
        for p, x, y in zip(self.points, xs, ys):
            if _is_marker(p.label):  # a symbol ("◆", the kernel view's one point) is the point
                plt.text(p.label, x, y)
                continue
            share = p.time_share_pct or 0.0
            plt.scatter([x], [y], marker=BIG if share >= BIG_SHARE_PCT else SMALL)
        # each label in cells of its own, beside its point; one that would touch another is
        # left out (the table under the plot lists every kernel)
        ticks = max(len(decade(e)) for e in range(y0, y1 + 1))
        columns, rows = _canvas(self.size.width, self.size.height, ticks)
        cells = [
            (round((x - x0) / (x1 - x0) * (columns - 1)), round((y1 - y) / (y1 - y0) * (rows - 1)))
            for x, y in zip(xs, ys)
        ]
        biggest_first = sorted(
            (i for i in range(len(self.points)) if not _is_marker(self.points[i].label)),
            key=lambda i: -(self.points[i].time_share_pct or 0.0),
        )
        places = place_labels(
            [cells[i] for i in biggest_first], [self.points[i].label for i in biggest_first], columns, rows
        )
        self.labels_left_out = sum(place is None for place in places)
        for place, i in zip(places, biggest_first):
            if place is not None:
                col, row = place
                # plotext puts a text's first character at (x, y): the cell's data coordinates
                plt.text(
                    self.points[i].label,
                    x0 + col / (columns - 1) * (x1 - x0),
                    y1 - row / (rows - 1) * (y1 - y0),
                    alignment="left",
                )
        plt.xlim(x0, x1)
        plt.ylim(y0, y1)
        plt.xticks(list(range(x0, x1 + 1)), [decade(e) for e in range(x0, x1 + 1)])
        plt.yticks(list(range(y0, y1 + 1)), [decade(e) for e in range(y0, y1 + 1)])
        plt.title(
            f"DRAM {roof.peak_bytes / 1e12:.3g} TB/s, {roof.precision} {roof.peak_flop / 1e12:.3g} Tflop/s, "
            f"ridge {roof.ridge:.3g} flop/B ({BIG} ≥ {BIG_SHARE_PCT:g}% of time)"
        )
        plt.xlabel(
            "flop per DRAM byte (log)"
            + (f"; {self.labels_left_out} label(s) left out, not to overlap" if self.labels_left_out else "")
        )
        plt.ylabel("flop/s (log)")
        self.refresh()

    def _draw_levels(self, h: HierarchicalRoofline) -> None:
        """One pipe's point at each memory level, each under its bandwidth roof, all under the
        pipe's peak: Nsight Compute's hierarchical roofline of one kernel."""
        plt = self.plt
        top, y = math.log10(h.peak_work), math.log10(max(h.achieved, 1.0))
        xs = [math.log10(v) for lv in h.levels for v in (lv.intensity, lv.ridge)]
        x0, x1 = math.floor(min(xs) - 0.5), math.ceil(max(xs) + 0.5)
        y0, y1 = math.floor(min(y, top - 2) - 0.5), math.ceil(top + 0.3)
        for lv in h.levels:
            b = math.log10(lv.peak_bytes)
            start = max(x0, y0 - b)  # where the bandwidth roof enters the plot
            plt.plot([start, top - b], [start + b, top], marker="braille")
        plt.plot([min(top - math.log10(lv.peak_bytes) for lv in h.levels), x1], [top, top], marker="braille")
        for lv in h.levels:
            plt.text(LEVEL_MARKERS[lv.level], math.log10(lv.intensity), y)
        plt.xlim(x0, x1)
        plt.ylim(y0, y1)
        plt.xticks(list(range(x0, x1 + 1)), [decade(e) for e in range(x0, x1 + 1)])
        plt.yticks(list(range(y0, y1 + 1)), [decade(e) for e in range(y0, y1 + 1)])
        plt.title(
            f"{h.pipe} {si(h.peak_work, h.unit + '/s')}: "
            + " ".join(f"{LEVEL_MARKERS[lv.level]}{lv.level} {lv.pct_of_roof:.3g}%" for lv in h.levels)
        )
        plt.xlabel(f"{h.unit} per byte of each level (log); bound: {h.bound}")
        plt.ylabel(f"{h.unit}/s (log)")
        self.refresh()


#: how the kernel view marks its point at each memory level
LEVEL_MARKERS = {"L1": "▲", "L2": "■", "DRAM": "◆"}


def _is_marker(label: str) -> bool:
    return len(label) == 1 and not label.isalnum()


def _canvas(width: int, height: int, ticks: int) -> tuple[int, int]:
    """The plot area's size in cells, in a widget of ``width`` x ``height`` whose y tick labels
    are ``ticks`` wide: plotext takes the tick labels and two frame columns, and a line each
    for the title, the frame's top and bottom, the x ticks and the x label."""
    return max(width - ticks - 2, 2), max(height - 5, 2)


def place_labels(
    points: list[tuple[int, int]], labels: list[str], columns: int, rows: int
) -> list[tuple[int, int] | None]:
    """Where each label starts (column, row of the plot area), in order (the first placed
    first): right of its point, else left, above, below; never on a point or touching another
    label (a blank cell between them, so "14" and "50" never read "1450"); None where no place
    is free. ``points``: each label's point, as (column, row)."""
    taken: set[tuple[int, int]] = set(points)
    out: list[tuple[int, int] | None] = []
    for (col, row), label in zip(points, labels, strict=True):
        n = len(label)
        chosen = None
        for c, r in ((col + 1, row), (col - n, row), (col - n // 2, row - 1), (col - n // 2, row + 1)):
            if c < 0 or c + n > columns or not 0 <= r < rows:
                continue
            core = {(c + i, r) for i in range(n)}
            if core & taken or ({(c - 1, r), (c + n, r)} & taken) - {(col, row)}:
                continue
            chosen = (c, r)
            break
        out.append(chosen)
        if chosen is not None:
            taken |= {(chosen[0] + i, chosen[1]) for i in range(-1, n + 1)}
    return out
