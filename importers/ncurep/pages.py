"""The raw and details pages' rows as ncu prints them, made from a report's launches and rule
results (shared by warpscope's own reader and the ncu-report path, ``via_ncu_report.py``)."""

from __future__ import annotations

import re

import polars as pl

from warpscope.importers.ncurep import units

#: RuleResultMessageType -> the details page's "Rule Type"
RULE_TYPE = {0: "", 1: "INF", 2: "WRN", 3: "ERR", 4: "OPT"}
#: RuleResultSpeedupType -> the details page's "Estimated Speedup Type"
SPEEDUP_TYPE = {0: "", 1: "local", 2: "global"}

#: a template argument's literal cast, "(int)4", "(bool)1", "(unsigned long)2", which the
#: report's demangled names keep and ncu's pages print without ("4", "1", "2")
_LITERAL_CAST = re.compile(r"\((?:[A-Za-z_][\w:]*)(?: [A-Za-z_]\w*)*\)(-?\d+)(?=[,>])")
#: rule text markup: "@section:Id:Shown@" and "@url:Shown:https://...@", which the details
#: page prints as "Shown" and "Shown (https://...)"
_SECTION_LINK = re.compile(r"@section:[^:@]*:([^@]*)@")
_URL_LINK = re.compile(r"@url:([^:@]*):([^@]*)@")


def as_ncu_prints(name: str) -> str:
    return _LITERAL_CAST.sub(r"\1", name)


def plain_message(text: str) -> str:
    return _URL_LINK.sub(r"\1 (\2)", _SECTION_LINK.sub(r"\1", text))


def rule_rows(rows: list[dict[str, object]]) -> pl.DataFrame:
    schema = {
        "launch_id": pl.Int64,
        "Rule Name": pl.String,
        "Rule Type": pl.String,
        "Rule Description": pl.String,
        "Section Name": pl.String,
        "Estimated Speedup Type": pl.String,
        "Estimated Speedup": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def raw_frame(rows: list[dict[str, str | None]]) -> pl.DataFrame:
    identity = list(rows[0])[:12]
    names = sorted({k for r in rows for k in r} - set(identity))
    columns = identity + names
    units_row = dict.fromkeys(identity, "") | {n: units.unit_of(n) for n in names}
    frame = pl.DataFrame(
        [units_row, *rows], schema=dict.fromkeys(columns, pl.String), orient="row", infer_schema_length=None
    )
    return frame.with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))
