"""Write importers/ncurep/metric_units.csv: the unit Nsight Compute prints for each metric,
read from the units row of raw pages exported with ``--print-units base``.

    python tools/make_metric_units.py sample_traces/h100/*raw_base*.csv*

A metric printed with different units in different exports is reported and left out.
"""

from __future__ import annotations

import csv
import gzip
import io
import sys
from pathlib import Path

IDENTITY = 11  # "ID" .. "CC": the raw page's identity columns
OUT = Path(__file__).resolve().parent.parent / "importers" / "ncurep" / "metric_units.csv"


def units_row(path: str) -> tuple[list[str], list[str]]:
    raw = Path(path).read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    start = text.index('"ID","Process ID"')
    reader = csv.reader(io.StringIO(text[start:]))
    header, units = next(reader), next(reader)
    if units[0] != "":
        raise SystemExit(f"{path}: no units row (export with --page raw --print-units base)")
    return header[IDENTITY:], units[IDENTITY:]


def main(paths: list[str]) -> None:
    seen: dict[str, set[str]] = {}
    for path in paths:
        for name, unit in zip(*units_row(path), strict=True):
            seen.setdefault(name, set()).add(unit)
    clash = sorted(n for n, u in seen.items() if len(u) > 1)
    for name in clash:
        print(f"left out, printed as {sorted(seen[name])}: {name}", file=sys.stderr)
    with OUT.open("w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["name", "unit"])
        out.writerows((n, next(iter(seen[n]))) for n in sorted(seen) if n not in clash)
    print(f"{OUT}: {len(seen) - len(clash)} metrics from {len(paths)} exports")


if __name__ == "__main__":
    main(sys.argv[1:])
