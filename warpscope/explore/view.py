"""What the kernel table shows for a given sort, filter and set of expanded kernels.

``TableView.rows()`` returns the display frame (one column per ``table.COLUMNS`` entry,
numbers rounded for reading) and, row for row, which kernel group and launch each line
stands for, so the UI can open the kernel under the cursor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import polars as pl

from warpscope.explore.names import labels
from warpscope.explore.query import compile_filter
from warpscope.explore.table import BY_ID, COLUMNS, KernelTable
from warpscope.report.kernel_groups import file_totals, with_time_share

Mode = Literal["kernels", "launches"]

#: what a column sorts by, where that is not the column itself
#: columns sorted by another: names by label, time by ns, findings by rank, and grid and block
#: by their size (as text "16384×1×1" would sort before "4×1×1")
_SORT_BY = {
    "name": "label",
    "duration_us": "duration_ns",
    "worst_finding": "worst_rank",
    "grid": "grid_size",
    "block": "block_size",
}
#: what a launch row needs (sorting gathers every column, so only these are carried)
_LAUNCH_COLUMNS = (
    "group",
    "launch_id",
    "label",
    "source_file",
    "device",
    "duration_ns",
    "grid",
    "block",
    "grid_size",
    "block_size",
    "top_stall",
    "worst_finding",
    "worst_rank",
    "bank_conflicts",
    *(c.id for c in COLUMNS if c.metric == c.id),
)
#: text columns cut to ``TEXT_WIDTH`` characters in the table, so the name column gets the rest
_CUT_TEXT = {"worst_finding", "top_stall"}
TEXT_WIDTH = 32
#: columns whose natural first sort is ascending (names; worst finding = lowest rank first)
_ASCENDING_FIRST = {"name", "grid", "block", "top_stall", "worst_finding"}


@dataclass
class TableView:
    """Sort, filters and expansions over a ``KernelTable``."""

    table: KernelTable
    mode: Mode = "kernels"
    sort: str = "duration_us"
    descending: bool = True
    name_filter: str = ""
    expression: str = ""
    expanded: set[int] = field(default_factory=set)
    #: time shares of all files and devices together, not each of its own
    pooled: bool = False
    #: characters the name column has (None: names whole); names are shortened to fit where
    #: they differ least (``names.py``)
    name_width: int | None = None
    # per (name filter, expression): the launches that pass, and their all-launches rows
    # (a few kept, so backspacing and switching views never recompute)
    _filtered: dict[tuple[str, str], pl.DataFrame] = field(default_factory=dict, repr=False)
    _launch_views: dict[tuple[str, str, int | None, bool], tuple[pl.DataFrame, ...]] = field(
        default_factory=dict, repr=False
    )
    _labels: dict[int, pl.Expr] = field(default_factory=dict, repr=False)  # per width

    # -- state changes -----------------------------------------------------------
    def sort_by(self, column: str) -> None:
        """Sort by ``column``; the same column again reverses the order."""
        if column not in BY_ID:
            raise ValueError(f"no column {column!r}")
        if column == self.sort:
            self.descending = not self.descending
        else:
            self.sort, self.descending = column, column not in _ASCENDING_FIRST

    def set_expression(self, text: str) -> None:
        """Filter by an expression such as ``achieved_occupancy_pct < 50``; raises ``ValueError``."""
        if text.strip():
            compile_filter(text, self.table)  # fail here, before the view changes
        self.expression = text.strip()

    def set_table(self, table: KernelTable) -> None:
        """Show ``table`` (e.g. the same launches with findings) with this sort and filters."""
        self.table = table
        self._filtered.clear()
        self._launch_views.clear()
        self._labels.clear()

    def toggle(self, group: int) -> None:
        self.expanded.symmetric_difference_update({group})

    # -- rows ------------------------------------------------------------------
    def filtered(self) -> pl.DataFrame:
        """The launches that pass both filters."""
        key = (self.name_filter, self.expression)
        if key in self._filtered:
            return self._filtered[key]
        launches = self.table.launches
        mask = pl.lit(True)
        if self.name_filter:
            needle = self.name_filter.lower()
            mask = pl.col("kernel_lower").str.contains(needle, literal=True) | pl.col(
                "kernel_short_lower"
            ).str.contains(needle, literal=True)
        if self.expression:
            mask = mask & compile_filter(self.expression, self.table)
        out = launches.filter(mask) if (self.name_filter or self.expression) else launches
        _remember(self._filtered, key, out)
        return out

    def rows(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """(display frame, keys frame with ``group``, ``launch_id``, ``is_kernel``), row for row."""
        launches = self.filtered()
        if self.mode == "launches":
            return self._launch_view(launches)
        else:
            kernels = self._sorted(
                _kernel_rows(self.table.kernels(launches, pooled=self.pooled), self.expanded, self._label(2))
            )
            frame = kernels.with_columns(pl.lit(True).alias("is_kernel"))
            if self.expanded:
                frame = self._with_children(frame, launches)
        keys = frame.select("group", "launch_id", "is_kernel")
        return _display(frame), keys

    def _launch_view(self, launches: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Every launch: the display rows are built once per filter, a sort only reorders them."""
        key = (self.name_filter, self.expression, self.name_width, self.pooled)
        if key not in self._launch_views:
            ids = len(str(self.table.launches["launch_id"].max() or 0)) + 2  # " #12345"
            rows = _launch_rows(
                launches.select(_LAUNCH_COLUMNS),
                file_totals(self.table.launches, pooled=self.pooled),
                self._label(ids),
            )
            _remember(
                self._launch_views,
                key,
                (rows, _display(rows), rows.select("group", "launch_id", pl.lit(False).alias("is_kernel"))),
            )
        rows, display, keys = self._launch_views[key]
        by = _SORT_BY.get(self.sort, self.sort)
        order = rows.select(
            pl.arg_sort_by([by, "launch_id"], descending=[self.descending, False], nulls_last=True)
        )[:, 0]
        return display[order], keys[order]

    def total_kernels(self) -> int:
        return int(self.table.launches["group"].n_unique())

    # -- helpers ---------------------------------------------------------------
    def _label(self, beside: int) -> pl.Expr:
        """The kernel's label, fit to the name column less ``beside`` characters; kernels of one
        name launched with several shapes say their grid (and block), so that the name column
        alone tells every row apart."""
        if self.name_width is None:
            return pl.col("label")
        width = max(self.name_width - beside, 8)
        if width not in self._labels:
            groups = self.table.launches.unique("group", keep="first", maintain_order=True)
            shape = pl.col("grid").fill_null("?")
            shape = (
                pl.when(pl.struct("label", "grid").is_duplicated())
                .then(shape + pl.lit(" / ") + pl.col("block").fill_null("?"))
                .otherwise(shape)
            )
            full = groups.select(
                "group",
                pl.when(pl.col("label").is_duplicated())
                .then(pl.col("label") + pl.lit(" [") + shape + pl.lit("]"))
                .otherwise(pl.col("label"))
                .alias("full"),
            )
            short = labels(full["full"].to_list(), width)
            mapping = dict(zip(full["group"].to_list(), [short[n] for n in full["full"].to_list()]))
            self._labels[width] = pl.col("group").replace_strict(
                mapping, default=pl.col("label"), return_dtype=pl.String
            )
        return self._labels[width]

    def _sorted(self, frame: pl.DataFrame) -> pl.DataFrame:
        by = _SORT_BY.get(self.sort, self.sort)
        return frame.sort([by, "launch_id"], descending=[self.descending, False], nulls_last=True)

    def _with_children(self, kernels: pl.DataFrame, launches: pl.DataFrame) -> pl.DataFrame:
        children = launches.filter(pl.col("group").is_in(sorted(self.expanded))).select(_LAUNCH_COLUMNS)
        if children.is_empty():
            return kernels
        totals = file_totals(self.table.launches, pooled=self.pooled)
        children = self._sorted(_launch_rows(children, totals, None)).with_columns(
            pl.lit(False).alias("is_kernel")
        )
        order = kernels.select("group").with_row_index("_parent")
        parts = pl.concat(
            [
                kernels.with_columns(pl.lit(0).alias("_child")),
                children.with_columns(pl.lit(1).alias("_child")),
            ],
            how="diagonal_relaxed",
        )
        return (
            parts.with_row_index("_pos")
            .join(order, on="group", how="left")
            .sort(["_parent", "_child", "_pos"])
            .drop("_parent", "_child", "_pos")
        )


_CACHED = 8


def _remember(cache: dict, key: tuple, value: object) -> None:
    """Keep ``value`` under ``key``, dropping the oldest entries beyond ``_CACHED``."""
    cache[key] = value
    while len(cache) > _CACHED:
        del cache[next(iter(cache))]


def _kernel_rows(kernels: pl.DataFrame, expanded: set[int], label: pl.Expr) -> pl.DataFrame:
    marker = (
        pl.when(pl.col("launches") <= 1)
        .then(pl.lit("  "))
        .when(pl.col("group").is_in(sorted(expanded)))
        .then(pl.lit("▾ "))
        .otherwise(pl.lit("▸ "))
    )
    return kernels.with_columns((marker + label).alias("name"))


def _launch_rows(launches: pl.DataFrame, totals: pl.DataFrame, label: pl.Expr | None) -> pl.DataFrame:
    """Launches as table rows: with a ``label`` they carry the kernel name, children only their id."""
    ident = pl.lit("#") + pl.col("launch_id").cast(pl.String)
    name = (label + pl.lit(" ") + ident) if label is not None else (pl.lit("   └ ") + ident)
    rows = launches.with_columns(name.alias("name"), pl.lit(1, dtype=pl.UInt32).alias("launches"))
    return with_time_share(rows, totals)


def _display(frame: pl.DataFrame) -> pl.DataFrame:
    """The columns of ``COLUMNS``, numbers rounded to what a reader needs."""
    out = []
    for c in COLUMNS:
        if c.id == "duration_us":
            expr = (pl.col("duration_ns") / 1000).round(2)
        elif c.numeric:
            expr = pl.col(c.id).cast(pl.Float64).round(c.digits)
            if c.digits == 0:
                expr = expr.cast(pl.Int64)
        elif c.id in _CUT_TEXT:  # the kernel view has it whole
            text = pl.col(c.id)
            expr = (
                pl.when(text.str.len_chars() > TEXT_WIDTH)
                .then(text.str.slice(0, TEXT_WIDTH - 1) + pl.lit("…"))
                .otherwise(text)
            )
        else:
            expr = pl.col(c.id)
        out.append(expr.alias(c.label))
    return frame.select(out)
