"""The markdown report: GitHub-flavoured, deterministic, every quoted string escaped."""

from __future__ import annotations

from warpscope.model.profile import Profile
from warpscope.report.escape import md_cell
from warpscope.report.summary import launch_records


def _num(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def _dims(dims: list[int | None]) -> str:
    return "–" if any(d is None for d in dims) else "×".join(str(d) for d in dims)


def render(profile: Profile) -> str:
    out = ["# warpscope report", ""]
    out += ["| source | format | launches | rows rejected |", "|---|---|---:|---:|"]
    for r in profile.sources.iter_rows(named=True):
        out.append(f"| {md_cell(r['path'])} | {md_cell(r['format'])} | {r['launches']} | {r['rows_rejected']} |")
    out += ["", "| # | kernel | grid | block | regs | duration (µs) | theor. occ. % | achieved occ. % "
                "| limiter | warp exec. eff. % | top stall |",
            "|---:|---|---|---|---:|---:|---:|---:|---|---:|---|"]
    for rec in launch_records(profile):
        m = rec["metrics"]
        dur = m.get("duration_ns")
        stalls = rec["stalls"]
        top = max((k for k in stalls if k != "selected"), key=lambda k: stalls[k], default=None)
        out.append(" | ".join([
            f"| {rec['launch_id']}", md_cell(rec["kernel_short"]), _dims(rec["grid"]), _dims(rec["block"]),
            _num(m.get("registers_per_thread")), _num(dur / 1000 if dur is not None else None, 2),
            _num(m.get("theoretical_occupancy_pct")), _num(m.get("achieved_occupancy_pct")),
            md_cell(rec["occupancy_limiter"]), _num(m.get("warp_execution_efficiency_pct")),
            md_cell(f"{top} ({stalls[top]:.2f})" if top else None),
        ]) + " |")
    return "\n".join(out) + "\n"
