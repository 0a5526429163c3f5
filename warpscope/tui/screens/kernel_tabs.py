"""What each tab of the kernel view says, as Rich renderables built from a ``KernelDetail``.

Every number is printed beside any bar that shows it, and the binding limit is marked
with a word and an arrow, so nothing here depends on colour (``NO_COLOR``).
"""

from __future__ import annotations

import polars as pl
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from warpscope.analysis.calibration import calibration_of
from warpscope.analysis.roofline import LEVELS, HierarchicalRoofline, rooflines
from warpscope.analysis.text import si, waves
from warpscope.explore.glossary import lookup
from warpscope.explore.kernel import KernelDetail
from warpscope.occupancy.advice import LIMIT_LABELS, blocked_by
from warpscope.tui.text import DASH, dims, literal, n, one_line, p, t
from warpscope.tui.widgets.bars import bar_chart


def _facts(rows: list[tuple[str, str | Text]], title: str | None = None) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, value in rows:
        table.add_row(label, value if isinstance(value, Text) else literal(value))
    if title:
        table.title, table.title_justify, table.title_style = title, "left", "bold underline"
    return table


def _heading(text: str) -> Text:
    return Text(f"\n{text}", style="bold underline")


def overview(d: KernelDetail) -> RenderableType:
    k, m = d.kernel, d.kernel.metrics
    launches = len(k.launch_ids)
    timing = f"{t(k.total_ns)} in {launches} launch{'es' if launches > 1 else ''}"
    if d.time_share_pct is not None:
        timing += f", {p(d.time_share_pct)} of all kernel time"
    config = _facts(
        [
            ("name", literal(k.kernel or k.kernel_short or DASH)),
            ("device", literal(f"{k.device or DASH} (compute capability {k.compute_capability or DASH})")),
            ("time", timing + (f" (mean {t(k.total_ns / launches)})" if k.total_ns and launches > 1 else "")),
            ("grid", f"{dims(k.grid)} = {n(m.get('grid_size'), 0)} blocks"),
            ("block", f"{dims(k.block)} = {n(m.get('block_size'), 0)} threads"),
            ("registers", f"{n(m.get('registers_per_thread'), 0)} per thread"),
            (
                "shared memory",
                f"{n(m.get('static_shared_bytes'), 0)} B static + "
                f"{n(m.get('dynamic_shared_bytes'), 0)} B dynamic per block",
            ),
            ("waves per SM", waves(m)),
            (
                "occupancy",
                f"theoretical {p(m.get('theoretical_occupancy_pct'))}, achieved "
                f"{p(m.get('achieved_occupancy_pct'))}, limiter {k.limiter or DASH}",
            ),
        ]
    )
    throughput = [
        (label, m[key], p(m[key]))
        for label, key in (
            ("SM", "sm_throughput_pct"),
            ("memory", "memory_throughput_pct"),
            ("DRAM", "dram_throughput_pct"),
            ("L1/TEX", "l1tex_throughput_pct"),
            ("L2", "l2_throughput_pct"),
            ("issue slots", "issue_slot_utilization_pct"),
        )
        if m.get(key) is not None
    ]
    parts: list[RenderableType] = [config, _heading("Throughput (% of peak)")]
    parts.append(bar_chart(throughput, 100.0, width=30) if throughput else Text("not in this profile"))
    points = rooflines(m)
    if points:
        parts += [_heading("Roofline: % of the roof at each level"), _levels(points)]
    parts.append(_heading("Findings"))
    if not k.findings:
        parts.append(Text("none"))
    for f in k.findings[:5]:
        parts.append(_finding_line(f))
    if len(k.findings) > 5:
        parts.append(Text(f"… {len(k.findings) - 5} more on the Findings tab (7)"))
    return Group(*parts)


def _levels(points: list[HierarchicalRoofline]) -> Table:
    """Each pipe's share of the roof at L1, L2 and DRAM, the level whose bandwidth binds marked
    (◀), and what binds named (where the pipe's peak does, every level shares that roof)."""
    table = Table.grid(padding=(0, 2))
    for justify in ("left", "right", "right", "right", "right", "left"):
        table.add_column(justify=justify, no_wrap=True)
    for r in points:
        cells = []
        for level, _bytes, _roof in LEVELS:
            lv = r.level(level)
            mark = " ◀" if r.bound == level else "  "
            cells.append(DASH if lv is None else f"{level} {p(lv.pct_of_roof)}{mark}")
        bound = "compute" if r.bound == "compute" else f"{r.bound} bandwidth"
        table.add_row(Text(r.pipe, style="bold"), si(r.achieved, f"{r.unit}/s"), *cells, f"bound: {bound}")
    return table


def _finding_line(f: dict) -> Text:
    line = Text(f"[{f['severity']}] ", style="bold")
    line.append("warpscope" if f["origin"] == "warpscope" else f"{f['origin']} rule", style="italic")
    line.append(" · ")
    line.append(literal(one_line(f["title"] or f["message"], 120)))
    if f["estimated_speedup_pct"] is not None:
        line.append(f"  (est. gain {_gain(f)})")
    return line


def _gain(f: dict) -> str:
    """The estimated gain, and for ncu's rules whether it is of the kernel's time (global)
    or of the part of the kernel the rule looks at (local)."""
    kind = f.get("speedup_type") if f.get("origin") == "ncu" else None
    return p(f["estimated_speedup_pct"]) + (f", {kind}" if kind in ("local", "global") else "")


def _message_lines(message: object) -> list[str]:
    """The message's lines (an ncu rule's tables, read through ncu-report, follow it on lines of
    their own), each flattened to one line of visible text."""
    return [one_line(line, 2000) for line in str(message or "").splitlines() if line.strip()]


def divergence(d: KernelDetail) -> RenderableType:
    m = d.kernel.metrics
    branch = m.get("branch_efficiency_pct")
    if branch == 0 and not m.get("divergent_branches"):
        branch = None  # ncu writes 0% when no branch could diverge
    bars = [
        (label, m[key], p(m[key]))
        for label, key in (
            ("warp execution efficiency", "warp_execution_efficiency_pct"),
            ("  predicated-on", "warp_nonpred_execution_efficiency_pct"),
        )
        if m.get(key) is not None
    ]
    if branch is not None:
        bars.append(("branch efficiency", branch, p(branch)))
    parts: list[RenderableType] = [
        bar_chart(bars, 100.0, width=30) if bars else Text("No divergence metrics in this profile."),
        _facts(
            [
                ("divergent branches", n(m.get("divergent_branches"), 0)),
                ("branch instructions", n(m.get("branch_instructions"), 0)),
            ]
        ),
        Text(_definition("warp_execution_efficiency_pct"), style="italic"),
    ]
    lines = _per_line(d, ("divergent_branches", "Avg. Threads Executed"))
    parts += [_heading("Per source line"), lines] if lines is not None else []
    return Group(*parts)


def _per_line(d: KernelDetail, counters: tuple[str, ...]) -> Table | None:
    src = d.source
    have = [c for c in counters if c in src.columns]
    if src.is_empty() or not have:
        return None
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("line", justify="right")
    table.add_column("code", overflow="ellipsis", no_wrap=True, max_width=60)
    for c in have:
        table.add_column(c, justify="right")
    for row in src.head(15).iter_rows(named=True):
        where = str(row["line"]) if row["line"] is not None else (row["address"] or "")
        table.add_row(literal(where), literal(one_line(row["code"], 60)), *(n(row[c]) for c in have))
    return table


def occupancy(d: KernelDetail) -> RenderableType:
    m, occ = d.kernel.metrics, d.occupancy
    bars = [
        (label, m[key], p(m[key]))
        for label, key in (
            ("theoretical", "theoretical_occupancy_pct"),
            ("achieved", "achieved_occupancy_pct"),
        )
        if m.get(key) is not None
    ]
    parts: list[RenderableType] = [bar_chart(bars, 100.0, width=30) if bars else Text("no occupancy metrics")]
    limits = Table(box=None, header_style="bold", pad_edge=False)
    limits.add_column("limit")
    limits.add_column("blocks", justify="right")
    limits.add_column("")
    limiter = d.kernel.limiter or (occ.limiter if occ else None)
    capped = False
    for key, label in LIMIT_LABELS.items():
        value = m.get(f"block_limit_{key}")
        if occ is not None:
            # the calculator's, as `warpscope occupancy` prints: Nsight Compute caps the shared-memory
            # and barrier limits at the block limit (sm_90: 32, where 64 named barriers allow 64)
            capped = capped or (value is not None and value != occ.limits.get(key))
            value = occ.limits.get(key)
        mark = Text("◀ binds", style="bold reverse") if key == limiter else Text("")
        limits.add_row(label, "no limit" if occ is not None and value is None else n(value, 0), mark)
    parts += [_heading("Blocks per SM each resource allows"), limits]
    if capped:
        parts.append(
            Text(
                "The occupancy calculator's limits, as `warpscope occupancy` gives them; Nsight Compute "
                "caps the shared-memory and barrier limits at the block limit."
            )
        )
    if occ is not None:
        parts.append(
            Text(
                f"\nThis launch: {occ.block_size} threads, {occ.registers_per_thread} registers, "
                f"{occ.static_smem + occ.dynamic_smem} B shared → {occ.active_blocks_per_sm} blocks, "
                f"{occ.active_warps_per_sm} of {occ.arch.max_warps_per_sm} warps ({occ.arch.name}); "
                "◆ marks it on the graph (v: next graph)."
            )
        )
        parts.append(_heading("What would help"))
        if occ.occupancy_pct >= 100:
            parts.append(Text("Nothing: the SM already holds its maximum of warps."))
        for change in d.what_if:
            parts.append(literal(f"• {change.text}"))
        if not d.what_if and occ.occupancy_pct < 100:
            parts.append(literal("No single change: " + ", ".join(blocked_by(occ)) + " bind together."))
    achieved, theoretical = m.get("achieved_occupancy_pct"), m.get("theoretical_occupancy_pct")
    if achieved is not None and theoretical and achieved < 0.8 * theoretical:
        parts.append(
            Text(
                f"\nAchieved is {p(100 * achieved / theoretical, 0)} of theoretical: warps finish "
                "unevenly or blocks arrive slowly (tail effect, small grid), not a resource limit."
            )
        )
    return Group(*parts)


def stalls(d: KernelDetail) -> RenderableType:
    shares = (
        d.stall_shares.filter(d.stall_shares["reason"] != "selected")
        if not d.stall_shares.is_empty()
        else d.stall_shares
    )
    if shares.is_empty():
        return Text(
            "No stall reasons in this profile (Nsight Compute's raw page or WarpStateStats section, "
            "nvprof stall_* metrics, or the emulator's timing model have them)."
        )
    top = float(shares["cycles_per_issue"].cast(pl.Float64).max() or 0.0)  # type: ignore[arg-type]
    chart = bar_chart(
        ((r, c, f"{n(c, 2)} cyc/issue · {p(s, 0)}") for r, c, s in shares.iter_rows()), top, width=24
    )
    cpi = d.kernel.metrics.get("warp_cycles_per_issued_instruction")
    parts: list[RenderableType] = [
        Text(
            "Warp cycles per issued instruction, by reason" + (f" (total {n(cpi, 2)})" if cpi else ""),
            style="bold underline",
        ),
        chart,
        _heading("What they mean"),
    ]
    for reason, _, _ in shares.head(6).iter_rows():
        entry = lookup(reason)
        if entry is not None:
            line = Text(f"{reason}: ", style="bold")
            line.append(entry.definition)
            if entry.fix:
                line.append(f" Fix: {entry.fix}.", style="italic")
            parts.append(line)
    return Group(*parts)


def _titled_table(title: str) -> Table:
    """A borderless table under an underlined title (the Memory tab's sections)."""
    return Table(
        box=None,
        header_style="bold",
        pad_edge=False,
        title=title,
        title_justify="left",
        title_style="bold underline",
    )


def memory(d: KernelDetail) -> RenderableType:
    m = d.kernel.metrics
    table = _titled_table("Global memory")
    for name in ("", "requests", "sectors", "sectors/request", "efficiency", "excess sectors"):
        table.add_column(name, justify="left" if not name else "right")
    excess_total = m.get("global_excess_sectors")  # ncu states it for loads and stores together
    for op in ("load", "store"):
        req, sec = m.get(f"global_{op}_requests"), m.get(f"global_{op}_sectors")
        eff = m.get(f"global_{op}_efficiency_pct")
        excess = sec * (1 - eff / 100) if sec is not None and eff is not None else None
        table.add_row(
            op + "s", n(req, 0), n(sec, 0), n(m.get(f"global_{op}_sectors_per_request")), p(eff), n(excess, 0)
        )
    if excess_total is not None:
        table.add_row("both", "", "", "", "", n(excess_total, 0))
    shared = _titled_table("Shared memory")
    for name in ("", "requests", "wavefronts", "wavefronts/request", "bank conflicts", "conflict share"):
        shared.add_column(name, justify="left" if not name else "right")
    for op in ("load", "store"):
        req, wave, conf = (
            m.get(f"shared_{op}_requests"),
            m.get(f"shared_{op}_wavefronts"),
            m.get(f"shared_{op}_bank_conflicts"),
        )
        per = wave / req if wave is not None and req else None
        share = 100 * conf / wave if conf is not None and wave else None
        shared.add_row(op + "s", n(req, 0), n(wave, 0), n(per), n(conf, 0), p(share))
    if m.get("shared_excess_wavefronts") is not None:
        shared.add_row("excess", "", n(m["shared_excess_wavefronts"], 0), "", "", "")
    notes = Text(
        "A warp's 32 four-byte loads need 4 sectors when coalesced; more per request means "
        "scattered or strided addresses. One wavefront per request is conflict-free; n-way bank "
        "conflicts take n.",
        style="italic",
    )
    parts: list[RenderableType] = [table, Text(""), shared]
    local = _local_memory(m)
    if local is not None:
        parts += [Text(""), local]
    parts += [Text(""), notes]
    lines = _per_line(
        d,
        (
            "global_load_sectors",
            "global_store_sectors",
            "L2 Theoretical Sectors Global Excessive",
            "shared_load_bank_conflicts",
            "shared_store_bank_conflicts",
            "L1 Wavefronts Shared Excessive",
        ),
    )
    if lines is not None:
        parts += [_heading("Per source line"), lines]
    return Group(*parts)


def _local_memory(m: dict[str, float]) -> Table | None:
    """Local-memory loads and stores (register spills, indexed local arrays), where the kernel has any."""
    keys = [f"local_{op}_{what}" for op in ("load", "store") for what in ("requests", "sectors")]
    if not any(m.get(k) for k in keys):
        return None
    table = _titled_table("Local memory (spills, local arrays)")
    for name in ("", "requests", "sectors", "sectors/request"):
        table.add_column(name, justify="left" if not name else "right")
    for op in ("load", "store"):
        req, sec = m.get(f"local_{op}_requests"), m.get(f"local_{op}_sectors")
        per = sec / req if sec is not None and req else None
        table.add_row(op + "s", n(req, 0), n(sec, 0), n(per))
    return table


def finding_text(f: dict) -> str:
    """A finding as plain text (what `y` copies)."""
    lines = [
        f"[{f['severity']}] {f['origin']}: {f['rule_id']} — {one_line(f['title'] or '')}",
        *_message_lines(f["message"]),
    ]
    for label in ("why", "fix", "threshold"):
        if f.get(label):
            lines.append(f"{label}: {one_line(f[label], 2000)}")
    if f["estimated_speedup_pct"] is not None:
        lines.append(f"estimated gain: {_gain(f)}")
    if f["evidence"]:
        lines.append("evidence: " + ", ".join(f"{e['metric']} = {n(e['value'], 4)}" for e in f["evidence"]))
    return "\n".join(lines)


def finding(f: dict, launches: int, agreeing: list[dict]) -> RenderableType:
    head = _finding_line(f)
    if launches > 1:
        head.append(f" — on {f['launches']} of {launches} launches")
    body: list[RenderableType] = [head, *(literal(line) for line in _message_lines(f["message"]))]
    for label in ("why", "fix", "threshold", "speedup_formula"):
        if f.get(label):
            line = Text(f"  {label.replace('speedup_formula', 'estimate')}: ", style="bold")
            line.append(literal(one_line(f[label], 2000)))
            body.append(line)
    if f.get("speedup_formula") and (calibrated := calibration_of(f["rule_id"])):
        line = Text("  calibration: ", style="bold")
        line.append(calibrated.text)
        body.append(line)
    if f["evidence"]:
        body.append(
            literal("  evidence: " + ", ".join(f"{e['metric']} = {n(e['value'], 4)}" for e in f["evidence"]))
        )
    if agreeing:
        body.append(
            literal("  Nsight Compute reports it too: " + ", ".join(a["rule_id"] or "?" for a in agreeing))
        )
    return Group(*body)


def _definition(metric: str) -> str:
    entry = lookup(metric)
    return "" if entry is None else f"{metric}: {entry.definition}"
