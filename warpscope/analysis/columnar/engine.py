"""The columnar engine: which launches it takes (``routable``), the rules on them, their grading
(``impact.assess`` over arrays) and their findings table, in forked slices for a long profile."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from warpscope.analysis import impact
from warpscope.analysis.columnar.launches import Launches
from warpscope.analysis.columnar.listed import GRADES, Listed, PerLaunch
from warpscope.analysis.columnar.rules import COLUMNAR, Found
from warpscope.analysis.evidence import EXACT_METRICS
from warpscope.analysis.finding import (
    CATEGORICAL_COLUMNS,
    RULES,
    SEVERITIES,
    TEXT_FIELDS,
    columns_table,
    new_columns,
)
from warpscope.occupancy.advice import what_would_help

_RANK = {s: i for i, s in enumerate(SEVERITIES)}
#: the fewest launches a forked worker evaluates, and slices per worker (progress is heard per slice)
MIN_SLICE = 5000
SLICES_PER_WORKER = 2
Progress = Callable[[int, int], None]
_COUNT_COLUMNS = ("block_size", "grid_size", "sm_count")


def routable(rows: pl.DataFrame) -> pl.Series:
    """Which launches of ``rows`` (``candidacy.launch_rows``) the arrays read as their views do:
    counts that are whole numbers, launch columns that are finite, stated values (not the
    emulator's modelled ones), and a stated CPI wherever there are stall reasons (a CPI summed
    from them depends on their order)."""
    whole = [
        (pl.col(c).is_null() | (pl.col(c) < 1) | (pl.col(c) >= 2.0**53) | (pl.col(c) == pl.col(c).floor()))
        for c in _COUNT_COLUMNS
        if c in rows.columns
    ]
    stalls = [c for c in rows.columns if c.startswith("stalls.")]
    cpi_ok = pl.lit(True)
    if stalls:
        no_stalls = pl.all_horizontal(pl.col(stalls).is_null())
        stated = "warp_cycles_per_issued_instruction"
        cpi_ok = pl.col(stated).is_not_null() | no_stalls if stated in rows.columns else no_stalls
    return rows.select(
        (
            pl.all_horizontal(*whole, cpi_ok)
            & ~pl.col("_odd")
            & (pl.col("_format").fill_null("") != "emulator")
        )
        .fill_null(False)
        .alias("routable")
    ).to_series()


def _grades(L: Launches, rows: _Rows) -> np.ndarray:
    """``evidence.grade`` of each evidence value (a code into ``GRADES``), on a profile that is
    not the emulator's: the launch row's values and the exact counters exact, a stall reason's
    cycles inferred (no canonical value), any other value hardware where the profile states it
    and inferred where the rule worked it out."""
    grade = rows.ev_grade.copy()
    for code, metric in enumerate(rows.metrics):
        where = (rows.ev_code == code) & (grade < 0)
        if not where.any():
            continue
        if metric in EXACT_METRICS:
            grade[where] = 0
        elif metric.startswith("stalls."):
            grade[where] = 2
        else:
            stated = ~np.isnan(L.get(metric))[rows.pos[rows.ev_finding[where]]]
            grade[where] = np.where(stated, 1, 2)
    return grade


def evaluate(
    L: Launches, total_ns: float, kernel_ns: dict[str, float], per_launch: PerLaunch | None = None
) -> pa.Table:
    """The graded findings of the launches of ``L`` (each rule of ``COLUMNAR`` on all of them,
    and ``per_launch``'s rules on the views of the launches that need them), as
    ``finding.columns_table`` makes them: launch order, each launch's best first."""
    # a damaged file's values overflow to inf as Python's floats do, without numpy's warnings
    with np.errstate(all="ignore"):
        found = [f for f in (rule(L) for rule in COLUMNAR.values()) if len(f.rows)]
        listed = per_launch.run(L.launch_id) if per_launch is not None else Listed()
        if not found and not len(listed):
            return columns_table(new_columns())
        return _table(L, _graded(L, _ordered(found, listed), total_ns, kernel_ns))


def evaluate_forked(
    L: Launches,
    total_ns: float,
    kernel_ns: dict[str, float],
    per_launch: PerLaunch | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    total: int | None = None,
) -> list[pa.Table]:
    """``evaluate`` of ``L`` in slices, by forked workers where the profile is long (their
    tables in launch order: the same findings as one call)."""
    from warpscope.analysis import workers as forks  # read at call time: tests lower its threshold

    workers = forks.default_workers() if workers is None else workers
    for occ in L.configs:  # what the fixes ask of each configuration: once, before the fork
        what_would_help(occ)
    if workers <= 1 or L.n < forks.PARALLEL_FROM:
        if progress is not None:
            progress(0, L.n if total is None else total)
        return [evaluate(L, total_ns, kernel_ns, per_launch)]
    size = max(MIN_SLICE, -(-L.n // (workers * SLICES_PER_WORKER)))

    def part(start: int) -> Callable[[], Iterator[pa.Table]]:
        return lambda: iter([evaluate(L.take(slice(start, start + size)), total_ns, kernel_ns, per_launch)])

    jobs = [forks.Job(part(start), min(size, L.n - start)) for start in range(0, L.n, size)]
    return forks.run_forked(jobs, workers, progress, total)


def _texts(value: list[str] | str, n: int) -> list[str]:
    return value if isinstance(value, list) else [value] * n


def launch_rule_ids() -> list[str]:
    """Every launch rule, in registry order: the rule codes of the findings here."""
    return [r.id for r in RULES.values() if r.scope == "launch"]


class _Rows:
    """Every finding of every rule, one entry each, as arrays and lists: the columnar rules'
    (``found``) and the per-launch rules' (``listed``)."""

    def __init__(self, found: list[Found], listed: Listed) -> None:
        names = launch_rule_ids()
        code = {name: i for i, name in enumerate(names)}
        sizes = [len(f.rows) for f in found]
        self.pos = np.concatenate([*(f.rows for f in found), np.array(listed.pos, dtype=np.int64)])
        self.rule = np.concatenate(
            [
                *(np.full(n, code[f.rule]) for f, n in zip(found, sizes, strict=True)),
                np.array([code[r] for r in listed.rule], dtype=np.int64),
            ]
        ).astype(np.int64)
        self.key = [
            k for f, n in zip(found, sizes, strict=True) for k in (f.keys or [f.rule] * n)
        ] + listed.key
        self.severity = [s for f in found for s in f.severity] + listed.severity
        self.estimate = np.concatenate(
            [*(f.estimate for f in found), np.array(listed.estimate, dtype=np.float64)]
        )
        self.title = [t for f, n in zip(found, sizes, strict=True) for t in _texts(f.title, n)] + listed.title
        self.message = [t for f in found for t in f.message] + listed.message
        self.why = [t for f, n in zip(found, sizes, strict=True) for t in _texts(f.why, n)] + listed.why
        self.fix = [t for f, n in zip(found, sizes, strict=True) for t in _texts(f.fix, n)] + listed.fix
        self.threshold = [
            t for f, n in zip(found, sizes, strict=True) for t in _texts(f.threshold, n)
        ] + listed.threshold
        unset: list[str | None] = [None] * sum(sizes)
        self.confidence = unset + listed.confidence
        formulas = [RULES[name].speedup_formula for name in names]
        self.formula = [formulas[code[f.rule]] for f, n in zip(found, sizes, strict=True) for _ in range(n)]
        self.formula += listed.formula
        # evidence: one entry per value present, (finding, order, metric, value, grade: -1 where
        # the columnar grading works it out)
        starts = np.cumsum([0, *sizes])[:-1]
        self.metrics: list[str] = []
        metric_code: dict[str, int] = {}
        finding, slot, codes, value, grades = [], [], [], [], []
        for f, start in zip(found, starts.tolist(), strict=True):
            for s, (metric, values, present) in enumerate(f.evidence):
                if metric not in metric_code:
                    metric_code[metric] = len(self.metrics)
                    self.metrics.append(metric)
                where = np.flatnonzero(present)
                finding.append(where + start)
                slot.append(np.full(len(where), s))
                codes.append(np.full(len(where), metric_code[metric]))
                value.append(values[where].astype(np.float64))
                grades.append(np.full(len(where), -1))
        if len(listed):
            for metric in listed.ev_metric:
                if metric not in metric_code:
                    metric_code[metric] = len(self.metrics)
                    self.metrics.append(metric)
            finding.append(np.array(listed.ev_finding, dtype=np.int64) + sum(sizes))
            slot.append(np.arange(len(listed.ev_finding)))  # in the order each finding lists them
            codes.append(np.array([metric_code[m] for m in listed.ev_metric], dtype=np.int64))
            value.append(np.array(listed.ev_value, dtype=np.float64))
            grades.append(np.array(listed.ev_grade, dtype=np.int64))
        self.ev_finding = np.concatenate(finding).astype(np.int64)
        self.ev_slot = np.concatenate(slot).astype(np.int64)
        self.ev_code = np.concatenate(codes).astype(np.int64)
        self.ev_value = np.concatenate(value).astype(np.float64)
        self.ev_grade = np.concatenate(grades).astype(np.int64)

    def reorder(self, order: np.ndarray) -> None:
        """Put the findings in ``order`` (a permutation)."""
        self.pos, self.rule, self.estimate = self.pos[order], self.rule[order], self.estimate[order]
        pick = order.tolist()
        take = itemgetter(*pick) if len(pick) > 1 else (lambda column: tuple(column[i] for i in pick))
        for name in (
            "key",
            "severity",
            "title",
            "message",
            "why",
            "fix",
            "threshold",
            "confidence",
            "formula",
        ):
            setattr(self, name, list(take(getattr(self, name))))
        new_place = np.empty(len(order), dtype=np.int64)
        new_place[order] = np.arange(len(order))
        self.ev_finding = new_place[self.ev_finding]
        ev = np.lexsort((self.ev_slot, self.ev_finding))
        self.ev_finding, self.ev_slot = self.ev_finding[ev], self.ev_slot[ev]
        self.ev_code, self.ev_value, self.ev_grade = self.ev_code[ev], self.ev_value[ev], self.ev_grade[ev]


def _ordered(found: list[Found], listed: Listed) -> _Rows:
    """The findings in launch order, each launch's as ``findings_for`` sorts them (``rank_key``)."""
    rows = _Rows(found, listed)
    severity = np.array([_RANK[s] for s in rows.severity], dtype=np.int64)
    names = np.array(launch_rule_ids())
    by_name = np.argsort(np.argsort(names, kind="stable"), kind="stable")  # rule code -> place in name order
    gain = np.where(np.isnan(rows.estimate), 0.0, rows.estimate)
    rows.reorder(np.lexsort((by_name[rows.rule], -gain, severity, rows.pos)))
    return rows


def _folded(rows: _Rows, n_launches: int) -> np.ndarray:
    """``impact.fold_symptoms``: for each finding, the index of the finding (same launch) that
    explains it, or -1: the first of its causes (``impact.FOLLOWS_FROM``) that is a root (not
    info; of a rule's several, the last) and explains it (``impact._explains``)."""
    names = launch_rule_ids()
    code = {name: i for i, name in enumerate(names)}
    at = np.full((n_launches, len(names)), -1, dtype=np.int64)
    is_root = np.array([s != "info" for s in rows.severity], dtype=bool)
    roots = np.flatnonzero(is_root)
    np.maximum.at(at, (rows.pos[roots], rows.rule[roots]), roots)  # the last of a rule's roots
    cause = np.full(len(rows.pos), -1, dtype=np.int64)
    keys = np.array(rows.key, dtype=object)
    for key in dict.fromkeys(rows.key):
        causes = impact.FOLLOWS_FROM.get(key)
        if not causes:
            continue
        mine = np.flatnonzero(keys == key)
        own_fix = np.isin(rows.rule[mine], [code[r] for r in impact.OWN_FIX if r in code])
        for r in causes:
            if r not in code:
                continue
            candidate = at[rows.pos[mine], code[r]]
            cause_gain = rows.estimate[np.maximum(candidate, 0)]
            symptom_gain = rows.estimate[mine]
            explains = ~own_fix | np.isnan(cause_gain) | np.isnan(symptom_gain) | (cause_gain >= symptom_gain)
            take = (cause[mine] < 0) & (candidate >= 0) & explains
            cause[mine[take]] = candidate[take]
    return cause


class _Graded:
    def __init__(self, rows: _Rows, n: int) -> None:
        self.rows = rows
        self.n = n
        self.rank = np.empty(0, dtype=np.int64)  # severity, a code into SEVERITIES
        self.confidence: list[str] = []
        self.fix: list[str] = []
        self.message: list[str] = []
        self.estimate = np.empty(0)
        self.saved = np.empty(0)
        self.share = np.empty(0)
        self.grades = np.empty(0, dtype=np.int64)


def _graded(L: Launches, rows: _Rows, total_ns: float, kernel_ns: dict[str, float]) -> _Graded:
    """``impact.assess`` of every launch's findings."""
    n = len(rows.pos)
    cause = _folded(rows, L.n)
    folded = cause >= 0
    severity, message = list(rows.severity), list(rows.message)
    for i, c in zip(np.flatnonzero(folded).tolist(), cause[folded].tolist(), strict=True):
        severity[i] = "info"
        message[i] = f"Follows from “{rows.title[c]}” (fix that first). {message[i]}"
    estimate = np.where(folded, np.nan, rows.estimate)
    ceiling = L.floor_ceiling[rows.pos]
    estimate = np.where(np.isnan(estimate) | (estimate <= 100 * ceiling), estimate, 100 * ceiling)
    gains = np.where(np.isnan(estimate), 0.0, np.minimum(1.0, np.maximum(0.0, estimate / 100)))
    # the launch's gains combined in its findings' order, as the per-launch loop does
    product = np.ones(L.n)
    total = np.zeros(L.n)
    place = np.arange(n) - np.searchsorted(rows.pos, rows.pos)  # place within its launch
    for k in range(int(place.max()) + 1 if n else 0):
        layer = np.flatnonzero(place == k)
        product[rows.pos[layer]] *= 1.0 - gains[layer]
        total[rows.pos[layer]] += gains[layer]
    combined = np.minimum(1.0 - product, L.floor_ceiling)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(total > 0, combined / total, 0.0)
    duration = L.get("duration_ns")[rows.pos]
    saved = np.where(np.isnan(duration) | np.isnan(estimate), np.nan, duration * gains * scale[rows.pos])
    share = 100.0 * saved / total_ns if total_ns > 0 else np.full(n, np.nan)
    # severity caps: confidence, the kernel's share of the profile, the estimate, the library
    grades = _grades(L, rows)
    not_exact = np.bincount(rows.ev_finding, weights=grades != 0, minlength=n) > 0
    has_evidence = np.bincount(rows.ev_finding, minlength=n) > 0
    computed = np.where(has_evidence & ~not_exact, "high", "medium").tolist()
    confidence = [c or d for c, d in zip(rows.confidence, computed, strict=True)]
    # severity: capped by confidence and the kernel's share, then graded by the estimate
    rank = np.array([_RANK[s] for s in severity], dtype=np.int64)
    share_low = {
        k: total_ns > 0 and 100.0 * ns / total_ns < impact.MIN_SHARE_FOR_HIGH_PCT
        for k, ns in kernel_ns.items()
    }
    launch_share_low = np.array([share_low.get(k, False) for k in L.kernel_short], dtype=bool)
    stated_confidence = np.array(confidence)
    low = stated_confidence == "low"
    medium = ~low & ((stated_confidence == "medium") | launch_share_low[rows.pos])
    rank = np.where(low, np.maximum(rank, _RANK["low"]), np.where(medium, np.maximum(rank, 1), rank))
    has = ~np.isnan(estimate)
    with np.errstate(invalid="ignore"):
        high = has & (rank <= 0) & (estimate >= impact.MIN_GAIN_FOR["high"])
        med = has & ~high & (rank <= 1) & (estimate >= impact.MIN_GAIN_FOR["medium"])
    rank = np.where(high, 0, np.where(med, 1, np.where(has, np.maximum(rank, 2), rank)))
    # a bookkeeping launch, and advice about a library's kernel: about the call
    categories = [RULES[name].category for name in launch_rule_ids()]
    in_category = {
        name: np.array([c in group for c in categories])[rows.rule]
        for name, group in (
            ("launch", impact.LAUNCH_CATEGORIES),
            ("call", impact.CALL_LEVEL_CATEGORIES),
            ("info", impact.LIBRARY_INFO_CATEGORIES),
            ("tensor", {"tensor_cores"}),
        )
    }
    threads = (np.nan_to_num(L.grid_size) * np.nan_to_num(L.block_size)).astype(np.int64)[rows.pos]
    library = np.array([x is not None for x in L.library], dtype=bool)[rows.pos]
    bookkeeping = (threads > 0) & (threads <= impact.ONE_WARP) & in_category["launch"]
    tensor = ~bookkeeping & library & in_category["tensor"]  # its fix is the call's already
    with np.errstate(invalid="ignore"):
        call_level = ~bookkeeping & ~tensor & library & in_category["call"] & has & (estimate != 0)
    library_info = ~bookkeeping & ~tensor & ~call_level & library & in_category["info"]
    library_other = ~bookkeeping & ~tensor & ~call_level & library & ~in_category["info"]
    rank = np.where(bookkeeping | library_info, _RANK["info"], rank)
    rank = np.where(call_level, np.maximum(rank, _RANK["low"]), rank)
    rank = np.where(library_other, np.maximum(rank, _RANK["medium"]), rank)
    for i in np.flatnonzero(call_level).tolist():
        confidence[i] = "low"
    fixes = list(rows.fix)
    kinds = {"call": call_level, "info": library_info, "other": library_other, "tensor": tensor}
    _call_fixes(fixes, rows, L, threads, bookkeeping, kinds)
    graded = _Graded(rows, n)
    graded.rank = rank
    graded.confidence, graded.fix, graded.message = confidence, fixes, message
    graded.estimate, graded.saved, graded.share = estimate, saved, share
    graded.grades = grades
    return graded


def _call_fixes(
    fixes: list[str],
    rows: _Rows,
    L: Launches,
    threads: np.ndarray,
    bookkeeping: np.ndarray,
    kinds: dict[str, np.ndarray],
) -> None:
    """``impact.assess``'s fixes for bookkeeping launches and library kernels (``kinds``: the
    findings of each kind ``impact.library_fix`` knows), each text made once."""
    made: dict[tuple[str | int | None, ...], str] = {}
    libraries = L.library
    for i in np.flatnonzero(bookkeeping).tolist():
        library, t = libraries[rows.pos[i]], int(threads[i])
        key: tuple[str | int | None, ...] = ("bookkeeping", library, t)
        if key not in made:
            made[key] = impact.bookkeeping_fix(library, t)
        fixes[i] = made[key]
    for kind, mask in kinds.items():
        for i in np.flatnonzero(mask).tolist():
            library, fix = libraries[rows.pos[i]], fixes[i]
            key = (kind, library, fix)
            if key not in made:
                made[key] = impact.library_fix(library or "", kind, fix)
            fixes[i] = made[key]


def _text(name: str, values: Sequence[str | None]) -> pa.Array:
    """A text column: each distinct text once (a long profile's texts repeat: the same fix, the
    same rounded numbers), a dictionary where the table keeps it categorical."""
    distinct = list(dict.fromkeys(values))
    index = {v: i for i, v in enumerate(distinct)}
    codes = pa.array(np.fromiter(map(index.__getitem__, values), np.int32, len(values)))
    uniques = pa.array(distinct, pa.string())
    if name in CATEGORICAL_COLUMNS:
        return pa.DictionaryArray.from_arrays(codes, uniques)
    return pc.take(uniques, codes)


def _coded(name: str, codes: np.ndarray, uniques: list[str | None]) -> pa.Array:
    """A text column from codes into a few ``uniques`` (None: null), made without a Python
    string per finding."""
    nulls = [i for i, u in enumerate(uniques) if u is None]
    mask = np.isin(codes, nulls) if nulls else None
    codes_ = pa.array(codes.astype(np.int32), mask=mask)
    values = pa.array([u or "" for u in uniques], pa.string())
    if name in CATEGORICAL_COLUMNS:
        return pa.DictionaryArray.from_arrays(codes_, values)
    return pc.take(values, codes_)


def _table(L: Launches, g: _Graded) -> pa.Table:
    """The findings as ``finding.columns_table`` writes them (same columns, types and values)."""
    rows = g.rows
    n = g.n
    names = launch_rule_ids()
    estimates = [None if e != e else round(e, 2) for e in g.estimate.tolist()]
    categories = sorted({RULES[r].category for r in names})
    category_of = np.array([categories.index(RULES[r].category) for r in names], dtype=np.int64)
    has = ~np.isnan(g.estimate)
    coded = {
        "rule_id": _coded("rule_id", rows.rule, list(names)),
        "category": _coded("category", category_of[rows.rule], list(categories)),
        "severity": _coded("severity", g.rank, list(SEVERITIES)),
    }
    per_rule = {
        "confidence": g.confidence,
        "title": rows.title,
        "message": g.message,
        "why": rows.why,
        "fix": g.fix,
        "threshold": rows.threshold,
    }
    offsets = pa.array(
        np.concatenate([[0], np.cumsum(np.bincount(rows.ev_finding, minlength=n))]).astype(np.int32)
    )
    metric_names = pa.array(rows.metrics, pa.string())
    codes = pa.array(rows.ev_code.astype(np.int32))
    grade_names = pa.array(GRADES, pa.string())
    lengths = np.bincount(rows.ev_finding, minlength=n)
    column = {
        "launch_id": pa.array(L.launch_id[rows.pos].astype(np.int64)),
        "origin": _coded("origin", np.zeros(n, dtype=np.int64), ["warpscope"]),
        **{
            name: coded[name] if name in coded else _text(name, per_rule[field])
            for name, field in TEXT_FIELDS.items()
        },
        "estimated_speedup_pct": pa.array(estimates, pa.float64()),
        "speedup_type": _coded("speedup_type", np.where(has, 0, 1), ["global", None]),
        "speedup_formula": _text(
            "speedup_formula",
            [None if e is None else f for e, f in zip(estimates, rows.formula, strict=True)],
        ),
        "evidence": pa.ListArray.from_arrays(
            offsets,
            pa.StructArray.from_arrays(
                [pc.take(metric_names, codes), pa.array(rows.ev_value, pa.float64())],
                names=["metric", "value"],
            ),
        ),
        "evidence_grade": pa.ListArray.from_arrays(
            offsets, pc.take(grade_names, pa.array(g.grades)), mask=pa.array(lengths == 0)
        ),
        "est_saved_ns": pa.array(g.saved, pa.float64(), from_pandas=True),
        "program_share_pct": pa.array(g.share, pa.float64(), from_pandas=True),
    }
    return pa.table(column)
