"""Metrics by the name the file gave them: ``dram__bytes_read.sum``, ``launch__grid_size``.

The kernel table's filters take any canonical metric id; a Nsight Compute user also knows
the profiler's own names, and a full raw page has two thousand of them the catalog does not
map. Those live in ``metrics`` rows (mapped columns and stall reasons, by ``name``) and in
the raw page's unmapped cells (the rest, ``Profile.raw_cells``). Values come in base units, as
canonical metrics do: a ``metrics`` row's ``value``; a raw cell as printed, grouping commas
dropped, scaled by its file's unit (``raw_units``). Nothing is read until a name is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from warpscope.model import schema
from warpscope.model.profile import Profile
from warpscope.model.units import to_base


@dataclass
class StatedMetrics:
    """A profile's metrics by their exported names, read on first use."""

    metrics: pl.DataFrame = field(repr=False)
    raw: Profile = field(repr=False)  # whose unmapped raw-page cells are read
    raw_units: pl.DataFrame = field(repr=False)
    source_files: pl.DataFrame = field(repr=False)  # launch_id, source_file
    _names: set[str] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, profile: Profile) -> StatedMetrics:
        return cls(
            profile.metrics,
            profile,
            profile.raw_units,
            profile.launches.select("launch_id", "source_file"),
        )

    def names(self) -> set[str]:
        """Every exported metric name the profile has a value for."""
        if self._names is None:
            rows = self.metrics.filter(pl.col("value").is_not_null())["name"].cast(pl.String).unique()
            self._names = {n for n in rows.to_list() if n} | self.raw.raw_names()
        return self._names

    def values(self, name: str) -> pl.DataFrame:
        """launch_id and ``value`` (Float64, base units) of the metric exported as ``name``."""
        rows = self.metrics.filter(
            (pl.col("name").cast(pl.String) == name) & pl.col("value").is_not_null() & schema.single_value()
        )
        if not rows.is_empty():
            return rows.group_by("launch_id", maintain_order=True).agg(pl.col("value").first())
        if name not in self.raw.raw_names():
            return pl.DataFrame(schema={"launch_id": pl.Int64, "value": pl.Float64})
        cells = self.raw.raw_cells([name]).select("launch_id", pl.col(name).alias("text")).collect()
        # one unit per file (several processes in one file each repeat the units row)
        units = (
            self.raw_units.filter(pl.col("name") == name)
            .select("source_file", "unit")
            .unique("source_file", keep="first", maintain_order=True)
        )
        factors = {u: to_base(u)[0] for u in units["unit"].fill_null("").unique().to_list()}
        scale = units.with_columns(
            pl.col("unit").fill_null("").replace_strict(factors, return_dtype=pl.Float64).alias("scale")
        )
        return (
            cells.join(self.source_files, on="launch_id", how="left")
            .join(scale, on="source_file", how="left")
            .select(
                "launch_id",
                (
                    pl.col("text")
                    .str.replace_all(",", "", literal=True)
                    .str.strip_chars()
                    .cast(pl.Float64, strict=False)
                    * pl.col("scale").fill_null(1.0)
                ).alias("value"),
            )
            .filter(pl.col("value").is_not_null() & pl.col("value").is_finite())
        )
