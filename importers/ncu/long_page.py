"""Nsight Compute's long pages: ``--page details`` (one row per metric per launch, rule
rows too) and ``--print-summary`` (one row per metric per kernel shape, min/max/avg).

Columns are matched by name, never position, so the 12-column 2019 header, the
15-column one, the 20-column one with rule columns and the 21-column
``--print-details all`` one (``Body Item Label``) all read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from warpscope.importers.ncu import assemble
from warpscope.importers.ncu.launches import launch_columns
from warpscope.importers.ncu.values import matches_by_run, parse_numbers
from warpscope.model import schema

if TYPE_CHECKING:
    from warpscope.importers.ncu.first_rows import PendingIdentity

#: read as Categorical: a few hundred texts repeated on every launch, and the metrics table
#: keeps them as Categorical anyway (cheaper to read, to hold and to match as keys)
CATEGORICAL_COLUMNS = {
    c: pl.Categorical() for c in ("Section Name", "Metric Name", "Body Item Label", "Metric Unit")
}
# in every header from 2019 to 2025, on every page that has launch rows
IDENTITY_REQUIRED = ["Process ID", "Process Name", "Host Name", "Kernel Name"]
VALUE_COLUMNS = {"Metric Value": None, "Minimum": "min", "Maximum": "max", "Average": "avg"}


@dataclass
class PageResult:
    launches: pl.DataFrame
    metrics: pl.DataFrame
    stalls: pl.DataFrame
    findings: pl.DataFrame
    rows_in: int
    rejected: list[tuple[int, str]]  # (row index in frame, reason)
    set_aside: int = 0  # rows of tables embedded in the page (not launch rows)
    raw_metrics: pl.DataFrame | None = None  # raw page: the columns the catalog does not map
    raw_units: pl.DataFrame | None = None  # their units (name, unit)
    raw_pages: pl.DataFrame | None = None  # or those columns kept as the page's text


def required_columns(summary: bool) -> list[str]:
    values = ["Minimum", "Maximum", "Average"] if summary else ["Metric Value"]
    keys = [] if summary else ["ID"]
    return keys + [*IDENTITY_REQUIRED, "Section Name", "Metric Name", "Metric Unit", *values]


def import_long(
    frame: pl.DataFrame,
    *,
    summary: bool,
    fmt: str,
    launch_offset: int = 0,
    identity: PendingIdentity | None = None,
) -> PageResult:
    """Turn a long page (all columns as strings) into Profile tables.

    ``frame`` has the page's columns plus ``_row`` (0-based data row index), or all but the
    per-launch ones, given in ``identity`` (one row per launch, every launch's kernel named).
    """
    frame, set_aside = _drop_embedded_tables(frame, summary)
    rows_in = frame.height
    has_rules = "Rule Name" in frame.columns
    if "_rule_row" in frame.columns:  # the text output marks rule messages itself
        rule = pl.col("_rule_row")
    else:
        rule = (
            (pl.col("Rule Name").is_not_null() & (pl.col("Rule Name") != "")) if has_rules else pl.lit(False)
        )
    values = [c for c in VALUE_COLUMNS if c in frame.columns]
    metric_ok = (
        pl.col("Metric Name").is_not_null()
        & (pl.col("Metric Name") != "")
        & pl.all_horizontal([pl.col(c).is_not_null() for c in values])
    )
    key_ok = pl.col("Section Name").is_not_null()
    if identity is None:
        key_ok = key_ok & pl.col("Kernel Name").is_not_null()
    key_ok = key_ok & matches_by_run(frame["Process ID" if summary else "ID"], r"^\d+$")
    keys = (
        ["Process ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC"]
        if summary
        else ["ID", "Process ID"]
    )
    launch_id = (
        pl.struct(k for k in keys if k in frame.columns).rle_id().cast(pl.Int64) + launch_offset
    ).alias("launch_id")
    # every per-row expression in one pass over the page's chunks, which Polars works on in
    # parallel (the plain number cast: 0.01 s here, 0.02 s as one column later)
    frame = frame.with_columns(
        (key_ok & (metric_ok | rule)).alias("_ok"),
        rule.alias("_rule"),
        launch_id,
        *(pl.col(c).cast(pl.Float64, strict=False).alias(_number(c)) for c in values),
        *(identity.row_columns(frame.schema) if identity is not None else ()),
    )
    if identity is not None:
        identity.start(frame)
    rejected, good = [], frame
    if not frame["_ok"].all():  # a filter copies every column: only when a row is bad
        bad = frame.filter(~pl.col("_ok"))
        rejected = [(int(r), _why(summary, frame.columns)) for r in bad["_row"].to_list()]
        good = frame.filter(pl.col("_ok")).with_columns(launch_id)  # a bad row may part a run
    good, cut = _drop_cut_last_launch(good)
    rejected += cut

    findings = rule_findings(_rule_rows(good)) if has_rules else schema.empty("findings")
    rows, key_table = assemble.keyed(_metric_rows(good, values))

    def launch_rows() -> pl.DataFrame:  # asked for last: the identity may still be being read
        found = identity.result() if identity is not None else None
        return _launches(good, fmt=fmt, summary=summary, identity=found, launch_offset=launch_offset)

    launches, metrics, stalls = assemble.assemble(rows, key_table, launch_rows)
    return PageResult(launches, metrics, stalls, findings, rows_in, rejected, set_aside)


_USUAL_LAUNCHES = 64
_RULE_COLUMNS = [
    "launch_id",
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Section Name",
    "Estimated Speedup",
    "Estimated Speedup Type",
]


def _rule_rows(good: pl.DataFrame) -> pl.DataFrame:
    """The rule rows, with only the columns a finding reads (a filter copies every column)."""
    return good.select(c for c in _RULE_COLUMNS if c in good.columns).filter(good["_rule"])


def _drop_cut_last_launch(good: pl.DataFrame) -> tuple[pl.DataFrame, list[tuple[int, str]]]:
    """A file cut at a line boundary ends inside its last launch: that launch is rejected
    whole rather than half imported.

    Nsight Compute prints the same sections for every launch of a run, so the last launch is
    complete when it has every section the other launches have and at least as many rows in
    its final section as any of them (``--print-details all`` body tables vary by a row or two).
    """
    ids = good["launch_id"]
    if ids.is_empty() or ids[0] == ids[-1]:
        return good, []
    # the launches before the last one tell what a whole launch looks like: the last
    # _USUAL_LAUNCHES of them are enough, and keep this cheap on millions of rows (launch ids
    # are run ids: ascending, one apart, so they start at a row found by bisection)
    first = ids.search_sorted(ids[-1] - _USUAL_LAUNCHES, side="left")
    rows = good.slice(first).filter(~pl.col("_rule"))
    per_launch = rows.group_by("launch_id", maintain_order=True).agg(
        pl.col("Section Name").unique().sort().alias("sections"), pl.col("Section Name").last().alias("final")
    )
    launch_ids = per_launch["launch_id"].to_list()
    if len(launch_ids) < 2:
        return good, []
    last, others = per_launch.row(-1, named=True), per_launch.head(-1)
    usual = others["sections"].mode().to_list()
    final_rows = rows.filter(pl.col("Section Name") == last["final"]).group_by("launch_id").len()
    fewest = final_rows.filter(pl.col("launch_id") != launch_ids[-1])["len"].min()
    have = final_rows.filter(pl.col("launch_id") == launch_ids[-1])["len"].sum()
    if last["sections"] in usual and (fewest is None or have >= fewest):  # type: ignore[operator]
        return good, []
    cut = good.filter(pl.col("launch_id") == launch_ids[-1])
    which = f"launch (ID {cut['ID'][0]})" if "ID" in cut.columns else f"kernel ({cut['Kernel Name'][0]})"
    why = f"the last {which} is cut short: the file ends inside it (truncated copy?)"
    return good.filter(pl.col("launch_id") != launch_ids[-1]), [(int(r), why) for r in cut["_row"].to_list()]


def _drop_embedded_tables(frame: pl.DataFrame, summary: bool) -> tuple[pl.DataFrame, int]:
    """Remove the small tables some sections print inside the page (NUMA Affinity's
    "GPU ID","GPU Name",... table): a run of short rows that starts with its own
    (non-numeric) header and whose rows all have as many fields as that header.
    Any other short row is a bad row and is rejected."""
    key = "Process ID" if summary else "ID"
    if frame["Section Name"].null_count() == 0:  # no short row at all: nothing to look at
        return frame, 0
    short = pl.col("Section Name").is_null()
    fields = pl.sum_horizontal([pl.col(c).is_not_null() for c in frame.columns if c != "_row"])
    runs = frame.select(
        short.alias("short"),
        short.rle_id().alias("run"),
        (~pl.col(key).fill_null("").str.contains(r"^\d+$")).alias("headerish"),
        fields.alias("fields"),
    ).with_columns(
        (
            pl.col("headerish").first().over("run")
            & (pl.len().over("run") >= 2)
            & (pl.col("fields").n_unique().over("run") == 1)
        ).alias("table")
    )
    embedded = runs["short"] & runs["table"]
    count = int(embedded.sum())
    return (frame.filter(~embedded) if count else frame), count


def _why(summary: bool, columns: list[str]) -> str:
    need = ", ".join(required_columns(summary))
    return f"not a metric or rule row of the table (expected {need})"


def _launches(
    good: pl.DataFrame, *, fmt: str, summary: bool, identity: pl.DataFrame | None, launch_offset: int
) -> pl.DataFrame:
    # launch ids are run ids: a launch's first row starts its run
    runs = good["launch_id"].rle()
    if identity is not None:  # a row per launch of the page, a cut last one too
        ids = runs.struct.field("value").alias("launch_id")
        return launch_columns(identity[ids - launch_offset].with_columns(ids), fmt=fmt)
    lengths = runs.struct.field("len")
    firsts = good[(lengths.cum_sum() - lengths).cast(pl.UInt32)] if lengths.len() else good.clear()
    invocations = (
        firsts["Invocations"].cast(pl.Int64, strict=False)
        if summary and "Invocations" in firsts.columns
        else None
    )
    return launch_columns(firsts, fmt=fmt, invocations=invocations)


def _number(value_column: str) -> str:
    """The column holding ``value_column`` as Polars' plain cast reads it (null where it does not)."""
    return f"_number {value_column}"


def _metric_rows(good: pl.DataFrame, values: list[str]) -> pl.DataFrame:
    """The metric cells of the page's rows (rule rows left out), one row per value column, with
    their text and its plain cast (``number``)."""
    base = [
        pl.col("launch_id"),
        pl.col("Metric Name").alias("name"),
        pl.col("Section Name").alias("section"),
        (
            pl.col("Body Item Label") if "Body Item Label" in good.columns else pl.lit(None, dtype=pl.String)
        ).alias("item"),
        pl.col("Metric Unit").alias("unit"),
    ]
    parts = []
    for col in values:
        stat = VALUE_COLUMNS[col]
        # the columns first, then the filter: only what is kept is copied
        parts.append(
            good.select(
                *base,
                pl.col(col).alias("text"),
                pl.col(_number(col)).alias("number"),
                pl.lit(stat, dtype=pl.String).alias("stat"),
                "_row",
                "_rule",
            )
            .filter(~pl.col("_rule"))
            .drop("_rule")
        )
    out = pl.concat(parts, how="vertical")
    if len(parts) > 1:
        out = out.sort("_row", maintain_order=True)
    return out.drop("_row").with_columns(pl.col("item").replace("", None))


SEVERITY = {
    "ERROR": "high",
    "ERR": "high",
    "WARNING": "medium",
    "WRN": "medium",
    "OPT": "medium",
    "INF": "info",
    "INFO": "info",
}
# Nsight Compute rule -> warpscope finding category (the fixed set of the findings model)
RULE_CATEGORY = {
    "TheoreticalOccupancy": "occupancy",
    "AchievedOccupancy": "occupancy",
    "LaunchConfiguration": "launch_config",
    "WorkloadImbalance": "tail_effect",
    "TailEffect": "tail_effect",
    "UncoalescedGlobalAccess": "coalescing",
    "UncoalescedSharedAccess": "bank_conflicts",
    "SharedMemoryConflicts": "bank_conflicts",
    "MemoryCacheAccessPattern": "coalescing",
    "CPIStall": "stalls",
    "IssueSlotUtilization": "stalls",
    "ThreadDivergence": "divergence",
    "BranchDivergence": "divergence",
    "HighPipeUtilization": "compute_bound",
    "MemoryL2Compression": "memory_bound",
    "SharedMemoryBankConflicts": "bank_conflicts",
}
#: rules whose message tells the category: (text, category) pairs, the first found wins; a
#: message with none keeps the rule's RULE_CATEGORY (SOLBottleneck: none)
_BY_MESSAGE = {
    # SOLBottleneck says one of several things (stable wording since 2021)
    "SOLBottleneck": (
        ("grid is too small", "launch_config"),
        ("low compute throughput", "latency_bound"),
        ("Compute is more heavily utilized", "compute_bound"),
        ("Memory is more heavily utilized", "memory_bound"),
    ),
    # HighPipeUtilization also reports the opposite: every pipe idle is latency, not compute
    "HighPipeUtilization": (("under-utilized", "latency_bound"),),
}


def _category(rules: pl.DataFrame) -> pl.Series:
    category = rules["Rule Name"].replace_strict(RULE_CATEGORY, default=None, return_dtype=pl.String)
    for rule, said in _BY_MESSAGE.items():
        at = (rules["Rule Name"] == rule).fill_null(False).arg_true()
        if at.is_empty():
            continue
        # only these rules' messages are read (a search of every message costs real time)
        message = pl.lit(rules["Rule Description"].gather(at).fill_null(""))
        found = category.gather(at)
        for text, name in reversed(said):
            found = pl.select(
                pl.when(message.str.contains(text, literal=True)).then(pl.lit(name)).otherwise(pl.lit(found))
            ).to_series()
        category = category.scatter(at, found)
    return category


def rule_findings(rules: pl.DataFrame) -> pl.DataFrame:
    """Findings of origin ncu from rule rows (Rule Name, Rule Type, Rule Description, Section
    Name, Estimated Speedup [Type], launch_id), as the details page and a report state them."""
    if rules.is_empty():
        return schema.empty("findings")
    # a file may lack any rule column but "Rule Name": what is missing is absent
    rules = rules.with_columns(
        pl.lit(None, dtype=pl.String).alias(c)
        for c in ("Rule Type", "Rule Description", "Section Name")
        if c not in rules.columns
    )
    speedup = (
        pl.lit(parse_numbers(rules["Estimated Speedup"]))
        if "Estimated Speedup" in rules.columns
        else pl.lit(None)
    )
    stype = (
        pl.col("Estimated Speedup Type").replace("", None)
        if "Estimated Speedup Type" in rules.columns
        else pl.lit(None, dtype=pl.String)
    )
    out = rules.select(
        "launch_id",
        pl.lit("ncu").alias("origin"),
        pl.col("Rule Name").replace("", None).alias("rule_id"),
        pl.lit(_category(rules)).alias("category"),
        pl.col("Rule Type")
        .fill_null("")
        .str.to_uppercase()
        .replace_strict(SEVERITY, default="info", return_dtype=pl.String)
        .alias("severity"),
        pl.col("Section Name").alias("section"),
        pl.col("Rule Description").fill_null("").alias("message"),
        speedup.cast(pl.Float64).alias("estimated_speedup_pct"),
        stype.alias("speedup_type"),
        pl.lit([], dtype=schema.EVIDENCE).alias("evidence"),
    )
    return schema.conform("findings", out)
