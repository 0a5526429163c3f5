"""The markdown report: GitHub-flavoured, deterministic, every quoted string escaped.

Layout: the sources, a summary table of kernels (time share, key metrics, worst finding),
findings about the whole run (transfers), then one section per kernel: launch
configuration, occupancy with the what-if, divergence, memory, stalls, and the findings
ordered by estimated gain, each with why, fix, evidence and Nsight Compute's matching rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from warpscope.analysis.calibration import calibration_of
from warpscope.analysis.calibration import cell as calibration_cell
from warpscope.analysis.roofline import LEVELS, main_roofline, roofline, rooflines
from warpscope.analysis.text import DASH, count, num, pct, si, us, waves
from warpscope.analysis.text import dims as _dims
from warpscope.analysis.text import num_or_dash as _n
from warpscope.analysis.text import pct_or_dash as _p
from warpscope.model.profile import Profile
from warpscope.occupancy.advice import what_would_help
from warpscope.report.budget import COMMENT_BUDGET as COMMENT_BUDGET
from warpscope.report.budget import RESERVE, cut_note, fit_sections
from warpscope.report.budget import size as _size
from warpscope.report.coverage import notes as coverage_notes
from warpscope.report.escape import md_cell, md_code, md_prose
from warpscope.report.kernels import Kernel, kernels
from warpscope.report.names import HEADING_WIDTH, TABLE_WIDTH, middle
from warpscope.report.opportunities import opportunities
from warpscope.report.runs import run_records


def _ids(ids: list[int]) -> str:
    if len(ids) == 1:
        return f"launch {ids[0]}"
    if ids == list(range(ids[0], ids[0] + len(ids))):
        return f"launches {ids[0]}–{ids[-1]}"
    shown = ", ".join(str(i) for i in ids[:5])
    return f"launches {shown}" + (", …" if len(ids) > 5 else "")


def _title(k: Kernel, width: int = TABLE_WIDTH) -> str:
    """The kernel's short name, its middle elided past ``width`` characters."""
    return md_cell(middle(k.kernel_short or k.kernel or "", width))


def render(
    profile: Profile,
    *,
    roofline_figure: str | None = None,
    budget: int | None = None,
    launch_groups: pl.DataFrame | None = None,
) -> str:
    """The report of an analysed profile (``warpscope.analysis.analyze``); ``roofline_figure``:
    the path (relative to the report) of the roofline SVG to show in the Roofline section.

    ``budget``: at most this many characters. Sources, the fix-first list and the run always
    come; then the kernel table and the kernels' sections in order of time, as many as fit,
    and a last line that says what was left out and that ``--full`` gives everything.
    ``launch_groups``: the profile's ``analysis.groups.launch_groups``, where the caller has them."""
    groups = kernels(profile, launch_groups)
    head = (
        ["# warpscope report", ""] + _sources(profile) + _races(profile) + _fix_first(opportunities(profile))
    )
    run = _runs(run_records(profile)) + _run_findings(profile.findings.filter(pl.col("launch_id").is_null()))
    sections = [_kernel(i, k) for i, k in enumerate(groups, 1)]
    table, roof = _summary(groups), _roofline(groups, roofline_figure)
    full = head + table + roof + run + [x for s in sections for x in s]
    if budget is None or _size(full) <= budget:
        return _joined(full)
    briefs = [_kernel(i, k, brief=True) for i, k in enumerate(groups, 1)]
    return _within(budget, head, run, groups, briefs, table, roofline_figure)


def _joined(lines: list[str]) -> str:
    return "\n".join(lines).rstrip("\n") + "\n"


#: of what a cut report has left after its head and run: the most its kernel table may take
TABLE_SHARE = 0.2
#: kernels in a cut report's roofline table (the most time first)
CUT_ROOFLINE_ROWS = 20


def _within(
    budget: int,
    head: list[str],
    run: list[str],
    groups: list[Kernel],
    sections: list[list[str]],
    table: list[str],
    roofline_figure: str | None,
) -> str:
    """The report cut to ``budget`` characters: the kernels that hold the most time first
    (``table``: the kernel table of every kernel, already rendered)."""
    left = budget - RESERVE - _size(head) - _size(run)
    # the kernel table for as many kernels as fit in half of what is left, then their roofline
    # if it fits too
    rows, shown, size = table[4:-1], 0, _size(table[:4]) + 200
    while shown < len(rows) and size + len(rows[shown]) + 1 <= left * TABLE_SHARE:
        size += len(rows[shown]) + 1
        shown += 1
    table = table[:4] + rows[:shown] + [""]
    if shown < len(groups):
        # of all the kernel time (time shares are per file and device: summed over files, >100%)
        total = sum(k.total_ns or 0.0 for k in groups)
        rest = 100 * sum(k.total_ns or 0.0 for k in groups[shown:]) / total if total else 0.0
        table = table[:-1] + ["", f"… and {len(groups) - shown} more kernels ({pct(rest)} of the time).", ""]
    roof = _roofline(groups[: min(shown, CUT_ROOFLINE_ROWS)], roofline_figure, main_only=True)
    if _size(table) + _size(roof) > left:
        roof = []
    out, written = fit_sections(head + table + roof + run, sections, budget)
    out += cut_note(
        budget,
        written,
        len(groups),
        "kernel sections, the kernels with the most time first, each finding in one line",
        "`warpscope report --full` (or `-o FILE`) writes the whole report, with each finding's "
        "why, fix and evidence.",
    )
    return _joined(out)


FIX_FIRST_ROWS = 10


def _fix_first(entries: list[dict[str, Any]]) -> list[str]:
    """The top of the fix-first list: what to fix first, and what it should buy."""
    if not entries:
        return []
    out = [
        "## Fix first",
        "",
        "| # | kernel | problem | severity | confidence | launches | kernel time | est. saved | of program "
        "| calibrated |",
        "|---:|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    several = len({e["source_file"] for e in entries}) > 1  # an export and its emulation: apart
    for i, e in enumerate(entries[:FIX_FIRST_ROWS], 1):
        kernel = md_cell(middle(e["kernel_short"] or e["kernel"] or "")) + (
            f" ({md_cell(e['library'])})" if e["library"] else ""
        )
        if several:
            kernel += f" · {md_cell(Path(e['source_file'] or '').name)}"
        out.append(
            f"| {i} | {kernel} | {md_code(e['rule'])} | {e['severity']} | {e['confidence']} | {e['launches']} "
            f"| {us(e['time_ns'])} | {DASH if e['est_saved_ns'] is None else us(e['est_saved_ns'])} "
            f"| {_p(e['program_share_pct'])} | {calibration_cell(e['calibration'], DASH)} |"
        )
    shown = min(len(entries), FIX_FIRST_ROWS)
    out.append("")
    out.append(
        f"{shown} of {len(entries)} (kernel, problem) pairs, ranked by estimated time saved over the "
        "whole profile, after any kernel that holds most of the time; a kernel's entries never "
        "add up past its time (fixes overlap). Calibrated: the rule's median |estimated − measured| "
        "in points of kernel time, and in brackets the number of fixes measured on the H100 it was "
        "judged on (benchmarks/advice_calibration.py; – where none yet). "
        "The fix for each is in the kernel's section below."
    )
    return out + [""]


def _sources(profile: Profile) -> list[str]:
    out = ["| source | format | launches | rows rejected |", "|---|---|---:|---:|"]
    notes = []
    for r in profile.sources.iter_rows(named=True):
        out.append(
            f"| {md_cell(r['path'])} | {md_cell(r['format'])} | {r['launches']} | {r['rows_rejected']} |"
        )
        notes += [f"- {md_cell(r['path'])}: {md_cell(n)}" for n in r["notes"] or ()]
    notes += coverage_notes(profile)
    return out + [""] + (notes + [""] if notes else [])


def _races(profile: Profile) -> list[str]:
    """The emulator's racecheck: each race with both lines (before anything else is worth reading)."""
    out = []
    for kind, title in (("barrier", "Divergent barriers"), ("past_end", "Reads past an array's end")):
        warnings = profile.hazards.filter(pl.col("kind") == kind)
        if not warnings.is_empty():
            out += [f"## {title}", ""]
            out += [
                f"- launch {r['launch_id']}: {md_cell(r['message'])}" for r in warnings.iter_rows(named=True)
            ]
            out += [""]
    rows = profile.hazards.filter(pl.col("kind").is_in(["RAW", "WAR", "WAW"]))
    if rows.is_empty():
        return out
    total = int(rows["count"].sum())
    out += [
        "## Data races (racecheck)",
        "",
        f"{total:,} accesses raced: a thread wrote what another thread of its block read or wrote, "
        "with no barrier between (`cuda.syncthreads()`; `cuda.syncwarp()` within a warp). The "
        "emulator runs a block in lockstep, so its results hide them; a GPU's do not.",
        "",
    ]
    for r in rows.iter_rows(named=True):
        out.append(f"- launch {r['launch_id']}: {md_cell(r['message'])}")
    return out + [""]


def _summary(groups: list[Kernel]) -> list[str]:
    out = [
        "## Kernels",
        "",
        "| # | kernel | launches | time | time share | grid | block | occupancy theor. / achieved "
        "| warp exec. eff. | worst finding |",
        "|---:|---|---:|---:|---:|---|---|---|---:|---|",
    ]
    for i, k in enumerate(groups, 1):
        m = k.metrics
        worst = k.worst
        worst_text = (
            f"{worst['severity']}: "
            + (
                md_prose(worst["title"])
                if worst["origin"] == "warpscope"
                else md_cell(worst["rule_id"] or worst["category"])
            )
            if worst
            else DASH
        )
        out.append(
            " | ".join(
                [
                    f"| {i}",
                    _title(k),
                    str(len(k.launch_ids)),
                    us(k.total_ns) if k.total_ns is not None else DASH,
                    _p(k.time_share_pct),
                    _dims(k.grid),
                    _dims(k.block),
                    f"{_p(m.get('theoretical_occupancy_pct'))} / {_p(m.get('achieved_occupancy_pct'))}",
                    _p(m.get("warp_execution_efficiency_pct")),
                    worst_text,
                ]
            )
            + " |"
        )
    return out + [""]


def _roofline(groups: list[Kernel], figure: str | None = None, *, main_only: bool = False) -> list[str]:
    """Each kernel's point on the roofline, numbered as in the kernel table (kernels whose
    profile has the flop, DRAM bytes and roofs: Nsight Compute's raw page with the
    SpeedOfLight_RooflineChart metrics, or the emulator), then its points under the L1, L2 and
    DRAM roofs, tensor-core paths included (the hierarchical roofline sections' metrics);
    ``main_only``: only the pipe each kernel uses the most (a report cut to a budget)."""
    rows = [(i, k, r) for i, k in enumerate(groups, 1) if (r := roofline(k.metrics)) is not None]
    levels = _hierarchical(groups, main_only)
    if not rows and not levels:
        return []
    out = ["## Roofline", ""]
    if figure is not None and rows:
        out += [
            f"![Roofline: every kernel under the L1, L2, DRAM, compute and tensor-core roofs]({figure.replace(' ', '%20')})",
            "",
        ]
    if rows:
        out += [
            "| # | kernel | flop | DRAM bytes | intensity | achieved | roof there | of roof | bound (ridge) |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for i, k, r in rows:
            out.append(
                f"| {i} | {_title(k)} | {si(r.flop, 'flop')} ({r.precision}) | {si(r.dram_bytes, 'B')} "
                f"| {num(r.intensity, 3)} flop/B | {si(r.achieved, 'flop/s')} | {si(r.roof, 'flop/s')} "
                f"| {pct(r.pct_of_roof)} | {r.bound} ({num(r.ridge, 1)} flop/B) |"
            )
        peak = rows[0][2]
        out += [
            "",
            f"Roofs of the first kernel's device: {si(peak.peak_bytes, 'B/s')} DRAM, "
            f"{si(peak.peak_flop, 'flop/s')} {peak.precision}; a kernel left of the ridge is bound by "
            "DRAM bandwidth, right of it by arithmetic. Means over each kernel's launches.",
            "",
        ]
    return out + levels


def _hierarchical(groups: list[Kernel], main_only: bool) -> list[str]:
    """The hierarchical and tensor-core rooflines: per kernel and pipe (its SIMT floating point,
    each tensor-core path it ran), the intensity and the share of the roof at each memory level;
    ``main_only``: the pipe each kernel uses the most, its shares of roof only (a cut report)."""
    points = (lambda m: [r] if (r := main_roofline(m)) else []) if main_only else rooflines
    rows = [(i, k, r) for i, k in enumerate(groups, 1) for r in points(k.metrics)]
    if not rows:
        return []
    out = ["### Under the L1, L2 and DRAM roofs", ""]
    if main_only:
        out += ["| # | pipe | achieved | L1 | L2 | DRAM | bound |", "|---:|---|---:|---:|---:|---:|---|"]
    else:
        out += [
            "| # | kernel | pipe | achieved | L1 | L2 | DRAM | bound |",
            "|---:|---|---|---:|---:|---:|---:|---|",
        ]
    for i, k, r in rows:
        cells = []
        for level, _bytes, _roof in LEVELS:
            lv = r.level(level)
            if lv is None:
                cells.append(DASH)
            else:
                cells.append(
                    pct(lv.pct_of_roof)
                    if main_only
                    else f"{num(lv.intensity, 3)} {r.unit}/B, {pct(lv.pct_of_roof)}"
                )
        name = "" if main_only else f" {_title(k)} |"
        out.append(
            f"| {i} |{name} {r.pipe} | {si(r.achieved, r.unit + '/s')} | {' | '.join(cells)} "
            f"| {r.bound} ({pct(r.pct_of_roof)} of roof) |"
        )
    if main_only:
        return out + [
            "",
            "Share of each level's roof, on the pipe each kernel uses the most (`--full`: every pipe).",
            "",
        ]
    out += [
        "",
        "Each memory level's intensity (work per byte it moved: L1 = returned to the SMs for global "
        "and local accesses, L2 = sent to the SMs, DRAM = read and written) and the share of the "
        "lower roof there (that level's bandwidth, or the pipe's peak); the bound is the roof the "
        "kernel meets first. As in Nsight Compute's hierarchical roofline charts, a SIMT pipe counts "
        "its own precision's flop only (the table above counts all), and tensor-core paths (op/s, a "
        "multiply-add counts 2) have the roofs of their own instruction and precision.",
        "",
    ]
    return out


def _runs(records: list[dict[str, Any]]) -> list[str]:
    """Each run's step (or the whole run) by family of work."""
    out = []
    for r in records:
        step, steps = r["step"], r["steps"]
        out += ["## The run" + (f": {md_cell(r['source'])}" if len(records) > 1 else ""), ""]
        if steps is None:
            out.append(
                f"No repeated step: {count(r['launches'], 'launch')}, {us(r['kernel_ns'])} of kernel time, by family of work:"
            )
        else:
            warm = (
                f", after {count(steps['warmup_launches'], 'launch')} of warm-up ({us(steps['warmup_ns'])})"
                if steps["warmup_launches"]
                else ""
            )
            out.append(
                f"{count(r['launches'], 'launch')}: a step of {count(steps['launches_per_step'], 'launch')} repeated "
                f"{steps['count']} times from launch position {steps['first_launch']}{warm}. One step, "
                f"{us(step['kernel_ns'])} of kernel time, by family of work:"
            )
        out += ["", "| family | launches | time | share |", "|---|---:|---:|---:|"]
        for f in step["families"]:
            out.append(
                f"| {f['family']} | {num(f['launches'], 1)} | {us(f['time_ns'])} | {_p(f['share_pct'])} |"
            )
        out.append("")
    return out


def _run_findings(rows: pl.DataFrame) -> list[str]:
    if rows.is_empty():
        return []
    out = ["## Whole run", ""]
    for n, f in enumerate(rows.iter_rows(named=True), 1):
        out += _finding(n, f, [])
    return out


def _kernel(i: int, k: Kernel, brief: bool = False) -> list[str]:
    """A kernel's section; ``brief``: each finding in one line (a report cut to a budget)."""
    m = k.metrics
    avg = " (averages over the launches)" if len(k.launch_ids) > 1 else ""
    out = [f"## {i}. {_title(k, HEADING_WIDTH)}", ""]
    if k.kernel and (k.kernel != k.kernel_short or len(k.kernel) > HEADING_WIDTH):
        out += [f"Full name: {md_cell(k.kernel)}", ""]
    out += ["| | |", "|---|---|"]
    time = f"{us(k.total_ns)}, {_p(k.time_share_pct)} of kernel time" if k.total_ns is not None else DASH
    rows = [
        ("launches", f"{len(k.launch_ids)} ({_ids(k.launch_ids)}){avg}"),
        (
            "device",
            f"{md_cell(k.device) or DASH} (compute capability {md_cell(k.compute_capability) or DASH})",
        ),
        ("time", time),
        ("launch", _launch_line(k)),
        ("occupancy", _occupancy_line(k)),
        ("divergence", _divergence_line(m)),
        ("memory", _memory_line(m)),
        (
            "throughput",
            f"SM {_p(m.get('sm_throughput_pct'))}, memory {_p(m.get('memory_throughput_pct'))} "
            f"of peak; issue slots {_p(m.get('issue_slot_utilization_pct'))} busy",
        ),
        ("stalls", _stalls_line(k)),
    ]
    out += [f"| {name} | {text} |" for name, text in rows]
    out += ["", "### Findings", ""]
    if not k.findings:
        out += ["None.", ""]
    for n, f in enumerate(k.findings, 1):
        covered = k.covered.get(f["rule_id"], []) if f["origin"] == "warpscope" else []
        out += [_brief_finding(n, f)] if brief else _finding(n, f, covered, len(k.launch_ids))
    return out + ([""] if brief and k.findings else [])


def _launch_line(k: Kernel) -> str:
    m = k.metrics
    parts = [
        f"grid {_dims(k.grid)} ({_n(m.get('grid_size'))} blocks)",
        f"block {_dims(k.block)} ({_n(m.get('block_size'))} threads)",
        f"{_n(m.get('registers_per_thread'))} registers per thread",
        f"shared {_n(m.get('static_shared_bytes'))} B static + {_n(m.get('dynamic_shared_bytes'))} B dynamic",
        f"{waves(m)} waves per SM",
    ]
    return "; ".join(parts)


def _occupancy_line(k: Kernel) -> str:
    m = k.metrics
    text = (
        f"theoretical {_p(m.get('theoretical_occupancy_pct'))}, achieved "
        f"{_p(m.get('achieved_occupancy_pct'))}; limiter: {md_cell(k.limiter) or DASH}"
    )
    occ = k.view.occupancy if k.view is not None else None
    if occ is not None and occ.occupancy_pct < 100:
        changes = what_would_help(occ)
        text += "; what would help: " + (
            "; ".join(md_cell(c.text) for c in changes) if changes else "no single change"
        )
    return text


def _divergence_line(m: dict[str, float]) -> str:
    # Nsight Compute states 0% when no branch had a target to diverge to: no data, not 0%
    branch_eff = m.get("branch_efficiency_pct")
    if (branch_eff == 0 and not m.get("divergent_branches")) or m.get("branch_instructions") == 0:
        branch_eff = None
    return (
        f"warp execution efficiency {_p(m.get('warp_execution_efficiency_pct'))} "
        f"(predicated-on {_p(m.get('warp_nonpred_execution_efficiency_pct'))}); branch efficiency "
        f"{_p(branch_eff)}; {_n(m.get('divergent_branches'))} divergent branches"
    )


def _memory_line(m: dict[str, float]) -> str:
    def shared(op: str) -> str:
        req, wave, conf = (
            m.get(f"shared_{op}_requests"),
            m.get(f"shared_{op}_wavefronts"),
            m.get(f"shared_{op}_bank_conflicts"),
        )
        if not req or wave is None:
            return f"shared {op}s {DASH}"
        share = f", {pct(100 * conf / wave)} conflicts" if conf is not None and wave else ""
        return f"shared {op}s {num(wave / req, 2)} wavefronts/request{share}"

    return "; ".join(
        [
            f"global loads {_n(m.get('global_load_sectors_per_request'))} sectors/request",
            f"global stores {_n(m.get('global_store_sectors_per_request'))} sectors/request",
            shared("load"),
            shared("store"),
        ]
    )


def _stalls_line(k: Kernel) -> str:
    ranked = sorted(
        ((r, c) for r, c in k.stalls.items() if r != "selected" and c > 0), key=lambda rc: (-rc[1], rc[0])
    )[:4]
    if not ranked:
        return DASH
    cpi = k.metrics.get("warp_cycles_per_issued_instruction") or (k.view and k.view.cycles_per_issue)
    total = f" of {num(cpi, 1)}" if cpi else ""
    return (
        ", ".join(f"{md_code(r)} {num(c, 1)}" for r, c in ranked) + f" cycles per issued instruction{total}"
    )


def _brief_finding(n: int, f: dict[str, Any]) -> str:
    """A finding in one line: severity, rule, title, estimated gain."""
    ours = f["origin"] == "warpscope"
    line = f"{n}. **{f['severity']}** {md_code(f['rule_id'] or '(unnamed rule)')}" + (
        "" if ours else " (ncu)"
    )
    if f["title"]:
        line += f" — {(md_prose if ours else md_cell)(f['title'])}"
    gain = f["estimated_speedup_pct"]
    return line + (f" (est. gain {pct(gain)})" if gain is not None else "")


def _finding(n: int, f: dict[str, Any], agreeing: list[dict[str, Any]], launches: int = 1) -> list[str]:
    ours = f["origin"] == "warpscope"
    prose = md_prose if ours else md_cell
    gain = f["estimated_speedup_pct"]
    head = [
        f"**{f['severity']}**" + (f" (confidence {f['confidence']})" if f.get("confidence") else ""),
        md_code(f["category"] or "uncategorised"),
        md_code(f["rule_id"] or "(unnamed rule)"),
        f"origin {md_cell(f['origin'])}",
    ]
    line = f"{n}. " + " · ".join(head)
    if f["title"]:
        line += f" — **{prose(f['title'])}**"
    if gain is not None:
        line += f" (est. gain {pct(gain)})"
    if launches > 1:
        line += f" — on {f['launches']} of {launches} launches"
    out = [line, f"   {prose(f['message'])}"]
    for label in ("why", "fix", "threshold"):
        if f.get(label):
            out.append(f"   - {label}: {prose(f[label])}")
    if f["evidence"]:
        out.append(
            "   - evidence: "
            + ", ".join(f"{md_code(e['metric'])} = {num(e['value'], 4)}" for e in f["evidence"])
        )
    if gain is not None and f.get("speedup_formula"):
        out.append(f"   - estimate: {prose(f['speedup_formula'])}")
        if calibrated := calibration_of(f["rule_id"]):
            out.append(f"   - calibration: {calibrated.text}")
    if agreeing:
        said = ", ".join(
            md_cell(a["rule_id"])
            + (f" (est. {pct(a['estimated_speedup_pct'])})" if a["estimated_speedup_pct"] is not None else "")
            for a in agreeing
        )
        out.append(f"   - Nsight Compute reports it too: {said}")
    return out + [""]
