"""The occupancy calculator's graphs: occupancy over block size, registers or shared memory.

A plotext line of the sweep with the launch's own point drawn as a large marker and
named in the title, so the current point is found without colour.
"""

from __future__ import annotations

from typing import Any

from textual_plotext import PlotextPlot

from warpscope.explore.kernel import KernelDetail
from warpscope.occupancy.sweeps import SWEEPS

LABELS = {
    "block_size": "threads per block",
    "registers": "registers per thread",
    "shared_mem": "shared memory per block (bytes)",
}


class OccupancyPlot(PlotextPlot):
    """One sweep of a kernel's occupancy; ``cycle`` shows the next one."""

    def __init__(self, detail: KernelDetail, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.detail = detail
        self.over = SWEEPS[0]

    def on_mount(self) -> None:
        super().on_mount()
        self.draw()

    def cycle(self) -> None:
        self.over = SWEEPS[(SWEEPS.index(self.over) + 1) % len(SWEEPS)]
        self.draw()

    def draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        table = self.detail.sweep(self.over)
        if table.is_empty():
            plt.title("no launch configuration to sweep")
            self.refresh()
            return
        x, y = table["value"].to_list(), table["occupancy_pct"].to_list()
        plt.plot(x, y, marker="braille")
        current = table.filter(table["current"])
        if current.height:
            cx, cy = current["value"][0], current["occupancy_pct"][0]
            plt.scatter([cx], [cy], marker="◆")
            plt.title(f"◆ this launch: {cx} → {cy:.4g}%")
        achieved = self.detail.kernel.metrics.get("achieved_occupancy_pct")
        if achieved is not None:
            plt.hline(achieved)
            plt.text(f"achieved {achieved:.3g}%", x[-1], min(achieved + 6, 100), alignment="right")
        plt.ylim(0, 105)
        plt.xlabel(f"{LABELS[self.over]} (v: next graph)")
        plt.ylabel("occupancy %")
        self.refresh()
