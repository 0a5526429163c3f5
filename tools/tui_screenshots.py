"""Write the README's screenshots (SVG, by Textual's own screenshot) from the real H100 export.

python tools/tui_screenshots.py      # -> docs/images/kernel-table.svg, kernel-view.svg
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import warpscope  # noqa: E402
from warpscope.explore.workspace import Workspace  # noqa: E402
from warpscope.tui import WarpscopeApp  # noqa: E402
from warpscope.tui.widgets.grid import Grid  # noqa: E402

OUT = ROOT / "docs" / "images"


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    app = WarpscopeApp(Workspace(warpscope.load(ROOT / "sample_traces" / "h100" / "seed_full_raw.csv")))
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.app.workers.wait_for_complete()
        while app.analysis is not None and app.analysis.is_alive():
            await asyncio.sleep(0.05)
        await pilot.pause()
        app.save_screenshot(str(OUT / "kernel-table.svg"))
        grid = app.screen.query_one(Grid)
        names = [str(grid.get_cell_at(_at(r))).strip() for r in range(grid.row_count)]
        grid.move_cursor(row=names.index("heavyRegisters"), column=0)
        await pilot.press("enter", "3")
        await pilot.pause()
        app.save_screenshot(str(OUT / "kernel-view.svg"))
    print(f"wrote {OUT / 'kernel-table.svg'} and {OUT / 'kernel-view.svg'}")


def _at(row: int):
    from textual.coordinate import Coordinate

    return Coordinate(row, 0)


if __name__ == "__main__":
    asyncio.run(main())
