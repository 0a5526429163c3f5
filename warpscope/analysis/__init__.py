"""Findings and recommendations: warpscope's rules, run over a Profile.

``analyze(profile)`` returns the profile with its ``findings`` table holding warpscope's
findings beside the rows Nsight Compute's own rules wrote (``origin`` says which); an
ncu row that reports a problem a warpscope finding already reports names that finding
in ``covered_by``, so nothing is counted twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np
import polars as pl
import pyarrow as pa

from warpscope.analysis import (  # noqa: F401  (register rules)
    atomics,
    bottleneck,
    divergence,
    ilp,
    impact,
    launch_config,
    local_memory,
    memory,
    occupancy,
    program,
    reduction,
    tensor_cores,
    transfers,
)
from warpscope.analysis import columnar as columnar_engine
from warpscope.analysis.candidacy import candidate_flags, flagged, launch_rows, read_by_predicates
from warpscope.analysis.columnar import COLUMNAR
from warpscope.analysis.finding import (
    CATEGORIES,
    RULES,
    SEVERITIES,
    Finding,
    Rule,
    findings_frame,
    table_frame,
)
from warpscope.analysis.groups import launch_groups, representatives
from warpscope.analysis.views import LaunchView, LazyViews, run_views
from warpscope.analysis.workers import evaluate_all
from warpscope.model import schema
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile
from warpscope.occupancy.calculator import Occupancy
from warpscope.occupancy.profile_check import launch_occupancies

__all__ = [
    "CATEGORIES",
    "RULES",
    "SEVERITIES",
    "Finding",
    "Rule",
    "analyze",
    "findings_for",
    "run_findings",
]

SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def rank_key(severity: str | None, speedup: float | None, rule_id: str | None) -> tuple[int, float, str]:
    """Order of findings everywhere: severity, then estimated gain, then rule id."""
    return (SEVERITY_RANK.get(severity or "info", len(SEVERITIES)), -(speedup or 0.0), rule_id or "")


def findings_for(view: LaunchView, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Every launch-scope rule (or those of ``rules``, in registry order) applied to one launch,
    best first."""
    if rules is None:
        rules = (r for r in RULES.values() if r.scope == "launch")
    found = [f for r in rules for f in r.run(view)]
    return sorted(found, key=lambda f: rank_key(f.severity, f.estimated_speedup_pct, f.rule))


def analyze(
    profile: Profile,
    views: list[LaunchView] | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    grouped: bool = True,
    groups: pl.DataFrame | None = None,
    workers: int | None = None,
    prefilter: bool = True,
    columnar: bool = True,
) -> Profile:
    """The profile with warpscope's findings added (earlier warpscope findings replaced).

    ``views`` are the profile's ``launch_views`` when the caller has them already;
    ``progress(done, total)`` hears of the launches analysed (a UI shows it). Launches the
    rules cannot tell apart (``groups.launch_groups``) are analysed once; ``grouped=False``
    runs the rules on every launch (the same findings, slower: tests compare the two);
    ``groups`` are the profile's ``launch_groups`` when the caller has them already.
    A long profile's launches are evaluated by ``workers`` forked processes (``analysis.workers``:
    the same findings; default, one per core; 1: in this process). ``prefilter`` runs each rule
    only on the launches its candidacy predicate keeps (``analysis.candidacy``: the same
    findings; False runs every rule on every launch, as tests compare). ``columnar`` evaluates
    the launches whose values it reads exactly as their views do with the columnar engine
    (``analysis.columnar``: the same findings, launch for launch; False: the views one launch at
    a time, as tests compare).
    """
    if not grouped:
        groups = None
    elif groups is None:
        groups = launch_groups(profile)
    reps = set(groups["rep"]) if groups is not None else None
    weight = representatives(groups) if groups is not None else {}
    library_of_short = {s: library_of(s) for s in profile.launches["kernel_short"].unique().to_list()}
    libraries = {
        launch_id: library
        for launch_id, short in profile.launches.select("launch_id", "kernel_short").iter_rows()
        if (library := library_of_short[short])
    }
    launch_rules = [r for r in RULES.values() if r.scope == "launch"]
    # the launches the rules see: every launch, or one per group
    seen = profile if reps is None or len(reps) == profile.launches.height else profile.subset(sorted(reps))
    occupancies = launch_occupancies(seen.launches, seen.metrics)
    rules_of: dict[int, tuple[Rule, ...]] | None = None
    kernel_ns = _kernel_time(profile)
    total_ns = sum(kernel_ns.values())
    by_columns = None
    if prefilter:
        rows = launch_rows(seen, occupancies, libraries, _READ)
        flags = candidate_flags(rows, [r.id for r in launch_rules])
        some = pl.any_horizontal(pl.exclude("launch_id"))
        weight = _skipped_counted(profile, weight, reps, set(flags.filter(some)["launch_id"].to_list()))
        # launches whose values the arrays read as their views do: evaluated at once (the rules
        # without a columnar form on their views, graded with the rest)
        at_once = (
            flags.select(some).to_series() & columnar_engine.routable(rows)
            if columnar
            else pl.Series([False] * rows.height, dtype=pl.Boolean)
        )
        rules_of = _candidates(flags.filter(~at_once), launch_rules)
        if at_once.any():
            others = [r.id for r in launch_rules if r.id not in COLUMNAR]
            needs_views = flags.select(pl.any_horizontal(pl.lit(False), *others)).to_series()
            per_launch = _candidates(
                flags.filter(at_once & needs_views).select("launch_id", *others), launch_rules
            )
            by_columns, progress = _columnar(
                rows.filter(at_once),
                seen,
                per_launch,
                occupancies,
                weight,
                progress,
                total_ns,
                kernel_ns,
                workers,
            )
    keep = reps if rules_of is None else rules_of.keys()
    evaluated: Sequence[LaunchView]
    if views is None:  # made where they are evaluated (forked workers make their own)
        evaluated = LazyViews(seen, None if rules_of is None else sorted(rules_of), occupancies)
    elif keep is not None and len(keep) < len(views):
        evaluated = [v for v in views if v.launch_id in keep]
    else:
        evaluated = views

    def evaluate(view: LaunchView) -> list[Finding]:
        rules = launch_rules if rules_of is None else rules_of.get(view.launch_id, ())
        if not rules:
            return []
        return impact.assess(view, findings_for(view, rules), total_ns, kernel_ns.get(view.kernel_short, 0.0))

    # progress in launches: a representative stands for its group
    found = evaluate_all(evaluated, evaluate, progress, weight, profile.launches.height, workers)
    if by_columns is not None:
        found = _in_launch_order(pl.concat([by_columns, found]))
    ncu = profile.findings.filter(pl.col("origin") != "warpscope")
    # which ncu rows warpscope's findings cover, and the symptoms they explain (joins: a
    # full-section profile has ~20 ncu rows a launch)
    theirs = _grade_ncu(_mark_covered(ncu, found, groups), libraries, found, groups)
    ours = pl.concat([_credit_ncu(found, theirs), findings_frame(_run_rows(profile))])
    if groups is not None and len(reps or ()) < groups.height:  # some launch stands for others
        ours = _to_members(ours, groups)
    return replace(
        profile,
        findings=_in_launch_order(pl.concat([ours, theirs])),
    )


#: the canonical values the candidacy predicates and the columnar rules read
_READ = read_by_predicates() | columnar_engine.READS


def _in_launch_order(findings: pl.DataFrame) -> pl.DataFrame:
    """``findings`` sorted by launch (stable; the run's findings last), sorted only where they are
    not already: a long profile's findings come in launch order, and sorting them moves every
    text."""
    if findings["launch_id"].is_sorted(nulls_last=True):
        return findings
    return findings.sort("launch_id", nulls_last=True, maintain_order=True)


def _candidates(flags: pl.DataFrame, rules: list[Rule]) -> dict[int, tuple[Rule, ...]]:
    """launch_id -> the launch rules that may fire on it (``flags``: ``candidate_flags`` of the
    launches evaluated one at a time); launches no rule may fire on are left out."""
    by_id = {r.id: r for r in rules}
    named: dict[tuple[str, ...], tuple[Rule, ...]] = {}
    out = {}
    for launch_id, ids in flagged(flags).items():
        if ids not in named:
            named[ids] = tuple(by_id[i] for i in ids)
        out[launch_id] = named[ids]
    return out


def _columnar(
    rows: pl.DataFrame,
    profile: Profile,
    per_launch: dict[int, tuple[Rule, ...]],
    occupancies: dict[int, Occupancy],
    weight: dict[int, int],
    progress: Callable[[int, int], None] | None,
    total_ns: float,
    kernel_ns: dict[str, float],
    workers: int | None,
) -> tuple[pl.DataFrame, Callable[[int, int], None] | None]:
    """The findings of the launches of ``rows`` (their values read as their views do): the
    columnar rules on all of them, the rules of ``per_launch`` on the views of the launches that
    need them; and the progress callback for the launches evaluated one at a time (counting on
    from the launches done here)."""
    names = sorted({c for c in rows.columns if not c.startswith(("_", "occ."))})
    launches = columnar_engine.from_rows(rows, occupancies, names)
    total = sum(weight.get(i, 1) for i in launches.launch_id.tolist())
    views = LazyViews(profile, sorted(per_launch), occupancies)
    rules = columnar_engine.PerLaunch(np.array(views.ids, dtype=np.int64), views, per_launch)
    found = table_frame(
        pa.concat_tables(
            columnar_engine.evaluate_forked(launches, total_ns, kernel_ns, rules, workers, progress, total)
        )
    )
    if progress is None:
        return found, None
    outer = progress

    def counted_on(done: int, all_: int) -> None:
        outer(total + done, all_)

    return found, counted_on


def _skipped_counted(
    profile: Profile, weight: dict[int, int], reps: set[int] | None, evaluated: set[int]
) -> dict[int, int]:
    """Launch weights for progress with the launches no rule may fire on (never evaluated)
    counted in the next one that is evaluated: progress still reaches every launch."""
    out: dict[int, int] = {}
    carried = 0
    for launch_id in profile.launches["launch_id"].sort():
        if reps is not None and launch_id not in reps:
            continue
        carried += weight.get(launch_id, 1)
        if launch_id in evaluated:
            out[launch_id], carried = carried, 0
    return out


def _kernel_time(profile: Profile) -> dict[str, float]:
    """Per kernel (short name), its launches' time: each launch's canonical duration where the
    profile states one, else the launch row's (as a LaunchView reads it)."""
    stated = (
        profile.metrics.filter(
            (pl.col("metric") == "duration_ns") & pl.col("value").is_finite() & schema.single_value()
        )
        .group_by("launch_id", maintain_order=True)
        .agg(pl.col("value").first().alias("stated"))
    )
    times = (
        profile.launches.select("launch_id", "kernel_short", "duration_ns")
        .join(stated, on="launch_id", how="left")
        .sort("launch_id")
        .select(pl.col("kernel_short").fill_null(""), pl.coalesce("stated", "duration_ns").fill_null(0.0))
    )
    out: dict[str, float] = {}
    for kernel, ns in times.iter_rows():  # summed in launch order, as the per-launch views did
        out[kernel] = out.get(kernel, 0.0) + ns
    return out


def _to_members(ours: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """Each representative's findings copied to every launch of its group, in the same order."""
    launch_rows = ours.filter(pl.col("launch_id").is_not_null()).with_row_index("_order")
    copied = (
        launch_rows.join(groups.rename({"launch_id": "_member"}), left_on="launch_id", right_on="rep")
        .sort("_member", "_order")
        .with_columns(pl.col("_member").alias("launch_id"))
        .drop("_member", "_order")
    )
    return pl.concat([copied, ours.filter(pl.col("launch_id").is_null())])


def run_findings(profile: Profile) -> pl.DataFrame:
    """Only the findings about whole runs (no launch): quick where ``analyze`` is not, for a view
    that needs them before every launch is analysed."""
    return schema.conform("findings", findings_frame(_run_rows(profile)))


def _run_rows(profile: Profile) -> list[tuple[int | None, Finding]]:
    runs = run_views(profile)
    return [
        (None, _about(f, run.source, len(runs) > 1))
        for run in runs
        for r in RULES.values()
        if r.scope == "run"
        for f in r.run(run)
    ]


def _about(f: Finding, source: str, several: bool) -> Finding:
    """A run finding names its file when the profile holds several runs."""
    return replace(f, message=f"{source}: {f.message}") if several else f


#: evidence grade of an Nsight Compute rule's own estimate, credited in the finding it agrees with
NCU_RULE = "ncu rule"


def _credit_ncu(found: pl.DataFrame, ncu: pl.DataFrame) -> pl.DataFrame:
    """Each finding that an Nsight Compute rule agrees with names that rule and its estimated
    speedup in its evidence (``ncu.<Rule>.est_speedup_pct``; ``ncu.<Rule>`` = 1 without one):
    one finding per problem, crediting both. (No rule's own evidence is named ``ncu.*``: the
    credits are appended.)"""
    if ncu.is_empty() or "covered_by" not in ncu.columns:
        return found
    # one credit per (launch, finding, ncu rule): its estimate, or 1 where it makes none; a rule
    # that speaks twice for one finding is credited once, with its last row's estimate
    speedup = pl.col("estimated_speedup_pct")
    rows = (
        ncu.filter(pl.col("covered_by").is_not_null() & pl.col("launch_id").is_not_null())
        .select(
            "launch_id",
            pl.col("covered_by").cast(pl.String).alias("rule_id"),
            pl.concat_str(
                pl.lit("ncu."),
                pl.col("rule_id").cast(pl.String),
                pl.when(speedup.is_not_null()).then(pl.lit(".est_speedup_pct")).otherwise(pl.lit("")),
            ).alias("metric"),
            speedup.fill_null(1.0).cast(pl.Float64).alias("value"),
        )
        .with_row_index("_order")
    )
    if rows.is_empty():
        return found
    credits = (
        rows.group_by("launch_id", "rule_id", "metric", maintain_order=True)
        .agg(pl.col("value").last(), pl.col("_order").first())
        .sort("_order")
        .group_by("launch_id", "rule_id", maintain_order=True)
        .agg(pl.struct("metric", "value").alias("_extra"))
    )
    extra = pl.col("_extra")
    ncu_grades = pl.lit(NCU_RULE).repeat_by(extra.list.len())
    credited = found.join(credits, on=["launch_id", "rule_id"], how="left", maintain_order="left")
    return credited.with_columns(
        pl.when(extra.is_not_null())
        .then(pl.concat_list(pl.col("evidence").fill_null([]), extra))
        .otherwise(pl.col("evidence"))
        .alias("evidence"),
        pl.when(extra.is_not_null())
        .then(pl.concat_list(pl.col("evidence_grade").fill_null([]), ncu_grades))
        .otherwise(pl.col("evidence_grade"))
        .alias("evidence_grade"),
    ).select(found.columns)


#: ncu rules graded by what they are about rather than by their estimate: the profile's own
#: sampling (advice for the next ncu run, not the kernel), and L2 compression, whose estimate
#: assumes the data would compress where the rule's own evidence is that none did (0.00% on
#: every H100 sample: memory nobody marked compressible, data that is not all zeros)
NCU_RULE_CEILING = {"PMSamplingData": "info", "PCSamplingData": "info", "MemoryL2Compression": "low"}


#: ncu rule categories that are symptoms, and the warpscope rules that explain them (as for
#: warpscope's own symptoms: latency-bound, and stall reasons)
NCU_SYMPTOMS = {
    "latency_bound": impact.FOLLOWS_FROM["latency_bound"],
    "stalls": tuple(
        sorted({r for k, v in impact.FOLLOWS_FROM.items() if k.startswith("stall_reason:") for r in v})
    ),
}


def _grade_ncu(
    ncu: pl.DataFrame, libraries: dict[int, str], found: pl.DataFrame, groups: pl.DataFrame | None
) -> pl.DataFrame:
    """Nsight Compute's rule results graded as warpscope grades its own: severity capped by the
    rule's own estimated speedup (below 5% low, below 20% at most medium: a 0.5% "OPT" is not a
    medium problem) and by ``NCU_RULE_CEILING``; a symptom (latency-bound, stalls) whose cause
    warpscope reports on the same launch is info, as warpscope's own symptoms are; and on a
    library kernel what only says how the library's code runs is info (the caller chooses the
    call, not the kernel's launch or design)."""
    if ncu.is_empty():
        return ncu
    gain = pl.col("estimated_speedup_pct")
    rank = SEVERITY_RANK  # high first
    severity = pl.col("severity").replace_strict(rank, default=len(rank), return_dtype=pl.Int64)
    ceiling = (
        pl.when(gain.is_null())
        .then(0)
        .when(gain < impact.MIN_GAIN_FOR["medium"])
        .then(rank["low"])
        .when(gain < impact.MIN_GAIN_FOR["high"])
        .then(rank["medium"])
        .otherwise(0)
    )
    library = pl.col("launch_id").is_in(list(libraries)) & pl.col("category").is_in(
        list(impact.LIBRARY_INFO_CATEGORIES)
    )
    by_rule = pl.col("rule_id").replace_strict(
        {r: rank[c] for r, c in NCU_RULE_CEILING.items()}, default=0, return_dtype=pl.Int64
    )
    graded = pl.max_horizontal(severity, ceiling, by_rule)
    # a symptom whose cause warpscope reports on the same launch: one finding per problem
    follows = _explained(ncu, found, groups)
    graded = pl.when(library | follows).then(pl.lit(rank["info"])).otherwise(graded)
    names = {i: s for s, i in rank.items()}
    return ncu.with_columns(
        pl.when(severity < len(rank))  # a severity warpscope knows: graded; any other: as said
        .then(graded.replace_strict(names, return_dtype=pl.String))
        .otherwise(pl.col("severity"))
        .alias("severity")
    )


def _with_rep(ncu: pl.DataFrame, groups: pl.DataFrame | None) -> pl.DataFrame:
    """``ncu``'s rows numbered (``_n``) with the launch whose findings stand for theirs (``_rep``:
    itself where not grouped)."""
    rows = ncu.select("launch_id", pl.col("rule_id").cast(pl.String), pl.col("category").cast(pl.String))
    rows = rows.with_row_index("_n")
    if groups is None:
        return rows.with_columns(pl.col("launch_id").alias("_rep"))
    return rows.join(groups, on="launch_id", how="left", maintain_order="left").rename({"rep": "_rep"})


def _explained(ncu: pl.DataFrame, found: pl.DataFrame, groups: pl.DataFrame | None) -> pl.Series:
    """For each Nsight Compute row: a symptom (``NCU_SYMPTOMS``) whose cause warpscope reports,
    not as info, on the same launch."""
    symptoms = pl.DataFrame(
        [(category, rule) for category, rules in NCU_SYMPTOMS.items() for rule in rules],
        schema={"category": pl.String, "_cause": pl.String},
        orient="row",
    )
    roots = (
        found.filter(pl.col("severity") != "info")
        .select("launch_id", pl.col("rule_id").cast(pl.String).alias("_cause"))
        .unique()
    )
    rows = _with_rep(ncu, groups)
    hit = (
        rows.join(symptoms, on="category")
        .join(roots, left_on=["_rep", "_cause"], right_on=["launch_id", "_cause"], how="semi")
        .select("_n")
        .unique()
    )
    return rows.select(pl.col("_n").is_in(hit["_n"].implode())).to_series().alias("explained")


def _mark_covered(ncu: pl.DataFrame, found: pl.DataFrame, groups: pl.DataFrame | None) -> pl.DataFrame:
    """``ncu`` with ``covered_by``: the warpscope finding (rule) on the same launch that reports
    the Nsight Compute rule's problem (``Rule.ncu``), of the same category where one is; the
    first such in the findings' order."""
    if ncu.is_empty():
        return schema.conform("findings", ncu)
    reports = pl.DataFrame(
        [(r.id, n) for r in RULES.values() for n in r.ncu],
        schema={"_rule": pl.String, "_ncu": pl.String},
        orient="row",
    )
    fired = (
        found.select(
            "launch_id",
            pl.col("rule_id").cast(pl.String).alias("_rule"),
            pl.col("category").cast(pl.String).alias("_cat"),
        )
        .with_row_index("_f")
        .join(reports, on="_rule")
    )
    rows = _with_rep(ncu, groups)
    chosen = (
        rows.join(fired, left_on=["_rep", "rule_id"], right_on=["launch_id", "_ncu"])
        .sort("_n", "_f")
        .group_by("_n")
        .agg(
            pl.col("_rule").filter(pl.col("_cat") == pl.col("category")).first().alias("_same"),
            pl.col("_rule").first().alias("_any"),
        )
        .select("_n", pl.coalesce("_same", "_any").alias("covered_by"))
    )
    covered = rows.join(chosen, on="_n", how="left", maintain_order="left")["covered_by"]
    return schema.conform("findings", ncu.with_columns(covered.alias("covered_by")))
