"""Reading a report through NVIDIA's ``ncu-report`` package (``--via-ncu`` where it is installed).

``pip install 'warpscope[ncu]'`` installs NVIDIA's own reader of ``.ncu-rep`` files (no GPU, no
Nsight Compute needed). It reads every report format Nsight Compute wrote up to its version, so it
is the first way ``--via-ncu`` tries; ``ncu`` on the PATH is the second (``via_ncu.py``). Each
launch becomes the raw page's row (values at the precision the report stores, as warpscope's own
reader gives them) and each rule result the details page's, with what the details page leaves
out: the rule's tables (``IRuleResult.result_tables``: the title, then one line per row, cells
joined by `` | ``) after its message.

What ncu-report does not give: the process (ID, name, host: the columns are empty), and the
per-instruction counters and CUDA lines (warpscope's own reader reads them).
"""

from __future__ import annotations

import re
from typing import Any

from warpscope.errors import InputError
from warpscope.importers.ncurep import pages

HINT = "NVIDIA's ncu-report is installed: --via-ncu reads the report through it"
#: a rule table's link into the source page, "@source:seedkernels.cu:29:seedkernels.cu, line 30@"
_SOURCE_LINK = re.compile(r"@source:[^@]*?:\d+:([^@]*)@")


def available() -> bool:
    try:
        import ncu_report  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return True


def read(path: str, plain: str) -> tuple[list[dict[str, str | None]], list[dict[str, object]]]:
    """The raw page's rows (identity columns, then every metric as text) and the details page's
    rule rows of the report at ``plain`` (an uncompressed copy of ``path``)."""
    import ncu_report

    try:
        report = ncu_report.load_report(plain)
    except Exception as e:  # NVIDIA's reader refusing the file: said as the file's error
        raise InputError(
            path,
            f"NVIDIA's ncu-report could not read it ({str(e).splitlines()[0] if str(e) else type(e).__name__})",
        ) from None
    rows: list[dict[str, str | None]] = []
    rules: list[dict[str, object]] = []
    for r in range(report.num_ranges()):
        current = report.range_by_idx(r)
        for a in range(current.num_actions()):
            action = current.action_by_idx(a)
            launch = len(rows)
            rows.append(_row(launch, action))
            rules.extend(_rules(launch, action))
    return rows, rules


def _text(metric: Any) -> str | None:
    if metric is None:
        return None
    if not metric.has_value():
        return "no data"
    value = metric.value()
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _row(launch: int, action: Any) -> dict[str, str | None]:
    metric = action.metric_by_name
    metrics: dict[str, str | None] = {}
    for name in action.metric_names():
        m = metric(name)
        if m is not None and m.num_instances() and not m.has_value():
            metrics[name] = None  # per-instance values only: an empty raw-page cell
        else:
            metrics[name] = _text(m)
    major = metrics.get("device__attribute_compute_capability_major")
    minor = metrics.get("device__attribute_compute_capability_minor")

    def dims(kind: str) -> str:
        return "(" + ", ".join(metrics.get(f"launch__{kind}_dim_{a}") or "" for a in "xyz") + ")"

    row: dict[str, str | None] = {
        "ID": str(launch),
        "Process ID": "",
        "Process Name": "",
        "Host Name": "",
        "Kernel Name": pages.as_ncu_prints(action.name(action.NameBase_DEMANGLED) or action.name()),
        "Context": metrics.get("launch__context_id") or "",
        "Stream": metrics.get("launch__stream_id") or "",
        "Block Size": dims("block"),
        "Grid Size": dims("grid"),
        "Device": metrics.get("device__attribute_device_index") or metrics.get("launch__device_id") or "",
        "CC": f"{major}.{minor}" if major is not None and minor is not None else "",
        "Kernel Mangled Name": action.name(action.NameBase_MANGLED),
    }
    row.update(metrics)
    return row


def _rules(launch: int, action: Any) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for rule in action.rule_results():
        if not rule.has_rule_message():
            continue
        message = rule.rule_message()
        text = pages.plain_message(message.get("message", ""))
        tables = [_table(t) for t in rule.result_tables()]
        speedup = rule.speedup_estimation() if rule.has_speedup_estimation() else None
        out.append(
            {
                "launch_id": launch,
                "Rule Name": rule.rule_identifier(),
                "Rule Type": pages.RULE_TYPE.get(int(message.get("type", 0)), ""),
                "Rule Description": "\n\n".join([text, *[t for t in tables if t]]),
                "Section Name": rule.section_identifier(),
                "Estimated Speedup Type": pages.SPEEDUP_TYPE.get(int(speedup["type"]), "") if speedup else "",
                "Estimated Speedup": repr(float(speedup["speedup"])) if speedup else None,
            }
        )
    return out


def _table(table: dict[str, Any]) -> str:
    """A rule's table as text: its title, its header row, then one line per row (ncu-report
    gives the data column by column), cells joined by `` | ``, links as the page prints them."""
    headers = [str(h) for h in table.get("headers", [])]
    columns = table.get("data", [])
    height = max((len(c) for c in columns), default=0)
    lines = [str(table.get("title", "")).strip() + ":", " | ".join(headers)]
    for r in range(height):
        cells = [_cell(c[r]) if r < len(c) else "" for c in columns]
        lines.append(_plain_source(pages.plain_message(" | ".join(cells))))
    return "\n".join(lines) if height else ""


def _cell(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    return str(value)


def _plain_source(text: str) -> str:
    """ "@source:file:29:file, line 30@" (a link into the source page) as "file, line 30"."""
    return _SOURCE_LINK.sub(r"\1", text)
