"""A roofline on log-log axes: the DRAM roof up to the ridge, the compute roof after it, and
kernels as numbered points (numbers, not colours, say which is which: NO_COLOR-safe)."""

from __future__ import annotations

import math
from typing import Any

from textual_plotext import PlotextPlot

from warpscope.analysis.text import decade
from warpscope.report.roofline_points import KernelPoint

#: marker of the kernels holding this much of the time or more, and of the rest
BIG, SMALL = "●", "•"
BIG_SHARE_PCT = 5.0


class RooflinePlot(PlotextPlot):
    """The roofs of the first point's device and every point, labelled by its number."""

    def __init__(self, points: list[KernelPoint], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.points = points

    def on_mount(self) -> None:
        super().on_mount()
        self.draw()

    def draw(self) -> None:
        # drawn in log10 units with decade ticks named by hand: plotext's own log scale
        # overflows on limits in the 1e13 range
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if not self.points:
            plt.title("no kernel with flop, DRAM bytes and roofs in this profile")
            self.refresh()
            return
        roof = self.points[0].point
        xs = [math.log10(p.point.intensity) for p in self.points] + [math.log10(roof.ridge)]
        ys = [math.log10(max(p.point.achieved, 1.0)) for p in self.points]
        x0, x1 = math.floor(min(xs) - 0.5), math.ceil(max(xs) + 0.5)
        y0, y1 = math.floor(min(ys) - 0.5), math.ceil(math.log10(roof.peak_flop) + 0.3)
        ridge, top = math.log10(roof.ridge), math.log10(roof.peak_flop)
        plt.plot([x0, ridge], [top - (ridge - x0), top], marker="braille")  # slope 1: the bandwidth
        plt.plot([ridge, x1], [top, top], marker="braille")
        for p, x, y in zip(self.points, xs, ys):
            share = p.time_share_pct or 0.0
            plt.scatter([x], [y], marker=BIG if share >= BIG_SHARE_PCT else SMALL)
            plt.text(p.label, x, y + 0.25 * (y1 - y0) / 8)
        plt.xlim(x0, x1)
        plt.ylim(y0, y1)
        plt.xticks(list(range(x0, x1 + 1)), [decade(e) for e in range(x0, x1 + 1)])
        plt.yticks(list(range(y0, y1 + 1)), [decade(e) for e in range(y0, y1 + 1)])
        plt.title(
            f"DRAM {roof.peak_bytes / 1e12:.3g} TB/s, {roof.precision} {roof.peak_flop / 1e12:.3g} Tflop/s, "
            f"ridge {roof.ridge:.3g} flop/B ({BIG} ≥ {BIG_SHARE_PCT:g}% of time)"
        )
        plt.xlabel("flop per DRAM byte (log)")
        plt.ylabel("flop/s (log)")
        self.refresh()
