"""The program on the roofline: every kernel as a point, and the table of their numbers."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from warpscope.analysis.text import si
from warpscope.report.roofline_points import KernelPoint, kernel_points
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import DASH, literal, n, p, short_name
from warpscope.tui.widgets.footer import FittingFooter
from warpscope.tui.widgets.roofline_plot import RooflinePlot


class RooflineScreen(WarpscopeScreen):
    """Every kernel with a roofline point; Enter opens the highlighted one."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("enter", "open", "Open kernel")]

    def compose(self) -> ComposeResult:
        ws = self.workspace
        self.points: list[KernelPoint] = kernel_points(ws.profile)
        title = Text("Roofline", style="bold")
        title.append(
            f" · {len(self.points)} kernels under their roofs, numbered as in the kernel table"
            if self.points
            else " · no kernel has flop counts, DRAM bytes and roofs (Nsight Compute's raw page with the "
            "SpeedOfLight_RooflineChart section, or the emulator)"
        )
        yield Static(title, id="roofline-title")
        yield RooflinePlot(self.points, id="roofline-plot")
        table: DataTable[Text | str] = DataTable(id="roofline-table", cursor_type="row", zebra_stripes=True)
        # fits 80 columns: flop/s without the unit (the header has it), the name cut at 24
        table.add_columns("#", "Kernel", "flop/B", "flop/s", "Of roof", "Bound", "Time")
        for point in self.points:
            r = point.point
            # a kernel with tensor-core work only is not on the plot (the SIMT flop's roofline):
            # its row still says which roof binds it
            table.add_row(
                str(point.number),
                literal(short_name(point.kernel_short, 24)),
                Text(DASH if r is None else n(r.intensity, 3), justify="right"),
                Text(DASH if r is None else si(r.achieved, "").strip(), justify="right"),
                Text(DASH if r is None else p(r.pct_of_roof), justify="right"),
                _bound(point),
                Text(p(point.time_share_pct), justify="right"),
            )
        yield table
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if not self.points or table.cursor_row is None:
            return
        from warpscope.tui.screens.kernel import KernelScreen

        point = self.points[min(table.cursor_row, len(self.points) - 1)]
        self.app.push_screen(KernelScreen(point.launch_ids))

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_open()


def _bound(point: KernelPoint) -> str:
    """What binds the kernel: among the L1, L2 and DRAM roofs and its pipe's peak where the
    profile has them (the tensor precision named where its main pipe is a tensor core: its
    flop/s beside are the SIMT ones), else the DRAM roofline's side of the ridge."""
    main = point.main
    if main is None:
        return point.point.bound if point.point is not None else DASH
    if not main.tensor:
        return main.bound
    # "bf16 peak" rather than "compute bf16": the column stays 9 wide at 80 columns
    return f"{main.precision} peak" if main.bound == "compute" else f"{main.bound} {main.precision}"
