"""A kernel's per-line counters as the Source tab shows them: each row once, in source order
or hottest first, and the line a finding points at.

The inputs differ in shape: Nsight Compute's CUDA+SASS source page lists each CUDA line and
under it its instructions (each instruction block printed twice, with ``...`` rows marking
gaps); its SASS page and a ``.ncu-rep`` list instructions (the report's with their CUDA line);
the emulator lists source lines. Here a row is a CUDA line (``kind`` "line") or an
instruction ("sass"), each address and each line once, in the listing's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from warpscope.report.escape import visible

#: counters that say where time goes, in order of preference for "hottest"
HOT_COUNTERS = (
    "Warp Stall Sampling (All Samples)",
    "# Samples",
    "Instructions Executed",
    "warp_instructions",
)
#: counters shown beside the code when present, in this order, with the short header the
#: table gives them (the tab's legend says the full names)
SHORT_NAMES = {
    "Warp Stall Sampling (All Samples)": "samples",
    "# Samples": "# samples",
    "Instructions Executed": "warp inst",
    "Avg. Threads Executed": "threads",
    "L2 Theoretical Sectors Global Excessive": "excess sect",
    "L1 Wavefronts Shared Excessive": "excess wf",
    "L1 Conflicts Shared N-Way": "n-way",
    "L2 Theoretical Sectors Local": "local sect",
    "warp_instructions": "warp inst",
    "thread_instructions": "thread inst",
    "divergent_branches": "divergent",
    "global_load_sectors": "ld sectors",
    "global_store_sectors": "st sectors",
    "shared_load_bank_conflicts": "ld conflicts",
    "shared_store_bank_conflicts": "st conflicts",
}
SOURCE_COUNTERS = tuple(SHORT_NAMES)
#: per finding category, the counters that locate it, in order of preference, and whether
#: the line to look at has the most (True) or the least (False) of it
FINDING_COUNTERS: dict[str, tuple[tuple[str, bool], ...]] = {
    "bank_conflicts": (
        ("L1 Wavefronts Shared Excessive", True),
        ("L1 Conflicts Shared N-Way", True),
        ("shared_load_bank_conflicts", True),
        ("shared_store_bank_conflicts", True),
    ),
    "coalescing": (
        ("L2 Theoretical Sectors Global Excessive", True),
        ("global_load_sectors", True),
        ("global_store_sectors", True),
    ),
    "divergence": (("divergent_branches", True), ("Avg. Threads Executed", False)),
    "local_memory": (("L2 Theoretical Sectors Local", True),),
}
Order = Literal["source", "hottest"]


@dataclass(frozen=True)
class SourceListing:
    """The first listed launch's rows: ``row`` (source order), ``kind``, ``line``,
    ``address``, ``code`` and one column per counter of ``counters`` (hottest first)."""

    rows: pl.DataFrame
    counters: list[str]

    @classmethod
    def of(cls, source: pl.DataFrame) -> SourceListing:
        """From a profile's ``source`` table (long form, any launches: the first is shown)."""
        if source.is_empty():
            return cls(pl.DataFrame(), [])
        first = source.filter(pl.col("launch_id") == source["launch_id"].min()).with_columns(
            pl.col("counter").cast(pl.String)
        )
        present = set(first["counter"].unique().to_list())
        shown = [c for c in SOURCE_COUNTERS if c in present]
        hot = next((c for c in HOT_COUNTERS if c in present), shown[0] if shown else None)
        if hot is None:
            return cls(pl.DataFrame(), [])
        counters = [hot] + [c for c in shown if c != hot]
        if hot != "# Samples":  # the same count as the sampling column, where both are printed
            counters = [c for c in counters if c != "# Samples"]
        where = first.group_by("row", maintain_order=True).agg(
            pl.col("file").first(), pl.col("line").first(), pl.col("address").first(), pl.col("code").first()
        )
        values = (
            first.filter(pl.col("counter").is_in(counters))
            .pivot(on="counter", index="row", values="value", aggregate_function="sum")
            .with_columns(pl.exclude("row").fill_null(0.0))  # a report keeps non-zero cells only
        )
        rows = (
            where.join(values, on="row", how="left")
            .filter((pl.col("code").fill_null("").str.strip_chars() != "...") | pl.col("line").is_not_null())
            .with_columns(
                pl.when(pl.col("address").is_not_null())
                .then(pl.lit("sass"))
                .otherwise(pl.lit("line"))
                .alias("kind")
            )
        )
        # each instruction once (the CUDA+SASS page prints each block twice), each line once
        rows = rows.filter(
            pl.when(pl.col("kind") == "sass")
            .then(pl.col("address").is_first_distinct())
            .otherwise(pl.col("line").is_null() | pl.struct("kind", "file", "line").is_first_distinct())
        )
        sass = rows.filter(pl.col("kind") == "sass")
        if sass["line"].is_not_null().any():
            # instructions with their CUDA line (a report): source order is line order, each
            # line (where the report has its text) above its instructions, the file with the
            # most instructions first (the kernel's own; then the headers it inlines)
            rank = sass.group_by("file").len().sort(["len", "file"], descending=[True, False])
            ranks = dict(zip(rank["file"].to_list(), range(rank.height), strict=True))
            rows = rows.with_columns(
                pl.col("file")
                .replace_strict(ranks, default=len(ranks), return_dtype=pl.Int64)
                .alias("_file"),
                (pl.col("kind") == "sass").alias("_sass"),
            ).sort(["_file", "line", "_sass", "row"], nulls_last=True)
        rows = rows.with_row_index("order").select(
            "order", "kind", "file", "line", "address", "code", *[c for c in counters if c in rows.columns]
        )
        return cls(rows, [c for c in counters if c in rows.columns])

    @property
    def hot(self) -> str | None:
        return self.counters[0] if self.counters else None

    def is_empty(self) -> bool:
        return self.rows.is_empty()

    def primary(self) -> pl.DataFrame:
        """The rows hottest-first ranks: CUDA lines where the page has them, else instructions."""
        lines = self.rows.filter(pl.col("kind") == "line")
        return lines if not lines.is_empty() else self.rows

    def ordered(self, order: Order) -> pl.DataFrame:
        """Every row in source order, or the primary rows hottest first."""
        if order == "source" or self.hot is None:
            return self.rows
        return self.primary().sort([self.hot, "order"], descending=[True, False], nulls_last=True)

    def worst(self, category: str | None) -> tuple[int, str] | None:
        """(``order`` of the row, counter) a finding of ``category`` points at: the row with the
        most of the first counter the page has for it (for threads executed: the instruction
        with the fewest, under 32), else the hottest row (``located`` tells which)."""
        if self.is_empty():
            return None
        for counter, most in FINDING_COUNTERS.get(category or "", ()):
            if counter not in self.counters:
                continue
            if most:
                rows = self.primary().filter(pl.col(counter) > 0)
            else:  # an average per instruction: a line's is a sum of them
                rows = self.rows.filter(pl.col("kind") == "sass", pl.col(counter) > 0, pl.col(counter) < 32)
            if rows.is_empty():
                continue
            best = rows.sort([counter, "order"], descending=[most, False]).row(0, named=True)
            return int(best["order"]), counter
        if self.hot is None:
            return None
        return int(self.ordered("hottest")["order"][0]), self.hot

    @staticmethod
    def located(category: str | None, counter: str) -> bool:
        """Whether ``counter`` locates findings of ``category`` (not only the hottest row)."""
        return any(c == counter for c, _ in FINDING_COUNTERS.get(category or "", ()))

    def table(self, order: Order) -> pl.DataFrame:
        """The rows as text for the table: line, address (its last four hex digits), code
        (instructions indented under their line), counters by short name, compact numbers."""
        rows = self.ordered(order)
        nested = order == "source" and rows["kind"].eq("line").any()
        # a line of another file than the kernel's (a header's inlined function) says its file
        files = self.rows.filter(pl.col("kind") == "line")["file"].drop_nulls()
        if files.n_unique() > 1:
            own = files[0]
            rows = rows.with_columns(
                pl.when((pl.col("kind") == "line") & pl.col("file").is_not_null() & (pl.col("file") != own))
                .then(pl.col("file").str.replace(r"^.*[/\\]", "") + ": " + pl.col("code").fill_null(""))
                .otherwise(pl.col("code"))
                .alias("code")
            )
        # file text is untrusted: on one line, control and bidi characters shown as escapes
        code = (
            pl.col("code")
            .fill_null("")
            .map_elements(lambda c: visible(" ".join(c.split())), return_dtype=pl.String)
        )
        return rows.select(
            pl.col("line").cast(pl.String).fill_null("").alias("line"),
            pl.col("address").str.slice(-4).fill_null("").alias("addr"),
            (
                pl.when(pl.col("kind") == "sass").then(pl.lit("  ") + code).otherwise(code)
                if nested
                else code
            ).alias("code"),
            *(
                pl.col(c).map_elements(compact, return_dtype=pl.String).alias(SHORT_NAMES[c])
                for c in self.counters
            ),
        )

    def legend(self) -> str:
        """What each short counter header stands for."""
        return " · ".join(f"{SHORT_NAMES[c]}: {c}" for c in self.counters)


def compact(value: float | None) -> str:
    """A count in at most six characters: 37, 4096, 31.5, 32.8k, 13.6M (never 1.36e+07)."""
    if value is None:
        return ""
    magnitude = abs(value)
    if magnitude >= 10_000:
        for scale, suffix in ((1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P"), (1e18, "E")):
            if magnitude / scale < 999.5:
                return f"{value / scale:.3g}{suffix}"
        return "-huge" if value < 0 else "huge"
    if value == int(value) or magnitude >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}" if magnitude >= 0.01 else f"{value:.2f}"
