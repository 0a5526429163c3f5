"""An independent reading of ncu CSV files with Python's csv module, for comparing
what the importer stored with what the file says, cell by cell."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

from warpscope.model.catalog import CATALOG
from warpscope.model.units import to_base


def rows(path: Path) -> list[list[str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return list(csv.reader(line for line in f if line.startswith('"')))


def number(text: str) -> float | None:
    t = text.strip().replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


def raw_expectations(path: Path) -> dict[tuple[int, str], float]:
    """(row index, canonical id) -> value in canonical units, straight from the raw page."""
    table = rows(path)
    header, units = table[0], table[1]
    col = {name: i for i, name in enumerate(header)}
    out: dict[tuple[int, str], float] = {}
    for n, row in enumerate(table[2:]):
        for metric in CATALOG:
            for alias in metric.ncu:  # first alias present wins, as in the catalog
                if alias.name in col and number(row[col[alias.name]]) is not None:
                    factor, _ = to_base(units[col[alias.name]])
                    out[(n, metric.id)] = number(row[col[alias.name]]) * factor * alias.factor
                    break
    return out


def details_expectations(path: Path) -> dict[tuple[int, str], float]:
    """(ID, canonical id) -> value from the details page's labelled rows."""
    table = rows(path)
    header = table[0]
    col = {name: i for i, name in enumerate(header)}
    labels = {(a.section, a.name): (m.id, a.factor) for m in CATALOG for a in m.labels}
    out: dict[tuple[int, str], float] = {}
    for row in table[1:]:
        if len(row) <= col["Metric Value"] or not row[col["Metric Name"]]:
            continue
        key = (row[col["Section Name"]], row[col["Metric Name"]])
        if key in labels and number(row[col["Metric Value"]]) is not None:
            metric, alias_factor = labels[key]
            factor, _ = to_base(row[col["Metric Unit"]])
            out.setdefault(
                (int(row[col["ID"]]), metric), number(row[col["Metric Value"]]) * factor * alias_factor
            )
    return out
