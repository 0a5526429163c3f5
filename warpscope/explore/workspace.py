"""What the UI has open: the profile (several files merged), a baseline, the kernel table.

Headless and testable: the Textual app holds one ``Workspace`` and renders what it says.
Analysis (every rule on every launch) can take seconds on 100k launches, so it is a
separate step the UI runs in a worker after the first frame; until then the table has
no findings column and the kernel view analyses just the kernel it opens.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from warpscope.analysis import analyze
from warpscope.explore.compare import PairDetail, compare, pair_detail, split_by_source
from warpscope.explore.kernel import KernelDetail, kernel_detail
from warpscope.explore.table import KernelTable
from warpscope.explore.view import TableView
from warpscope.model.profile import Profile


@dataclass
class Workspace:
    profile: Profile
    baseline: Profile | None = None
    analysed: bool = False
    #: the dataset the profile is the newest run of (``warpscope open DATASET``), for its trend
    dataset: Path | None = None
    #: launches analysed so far, of how many, while ``analyse`` runs (in another thread)
    analysis_progress: tuple[int, int] = (0, 0)
    table: KernelTable = field(init=False)
    view: TableView = field(init=False)
    _compared: tuple[Profile, Profile] | None = field(default=None, init=False, repr=False)
    #: held while the profile and its table change: the analysis (a thread) and launches
    #: arriving (the UI's thread) must not interleave their updates
    _changing: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self.table = KernelTable.of(self.profile)
        self.view = TableView(self.table)

    # -- changes -----------------------------------------------------------------
    def analyse(self, give_way: Callable[[], None] | None = None) -> None:
        """Run every rule over every launch and put each launch's worst finding in the table
        (``analysis_progress`` says how far it got, for screens that wait for it).
        ``give_way`` is called between launches: a UI pauses the rules there while someone types."""

        def progress(done: int, total: int) -> None:
            self.analysis_progress = (done, total)
            if give_way is not None:
                give_way()

        profile = self.profile
        self.analysis_progress = (0, profile.launches.height)
        analysed = analyze(profile, progress=progress)
        with self._changing:
            if self.profile is not profile:  # launches arrived meanwhile: their analysis follows
                return
            self.profile = analysed
            self.table = self.table.with_findings(analysed.findings)
            self.view.set_table(self.table)
            self.analysed = True

    def add(self, profile: Profile) -> None:
        """Merge another profile in (e.g. emulated launches arriving); the view keeps its state.
        An analysis still running on the profile before drops its result (``analyse`` again)."""
        with self._changing:
            self.profile = Profile.concat([self.profile, profile])
            state = self.view
            self.table = KernelTable.of(self.profile)
            self.view = TableView(
                self.table, state.mode, state.sort, state.descending, state.name_filter, state.expression
            )
            self.analysed = False

    # -- questions ---------------------------------------------------------------
    def launches_of(self, group: int) -> list[int]:
        return self.table.launches.filter(pl.col("group") == group)["launch_id"].to_list()

    def group_of(self, launch_id: int) -> int:
        return int(self.table.launches.filter(pl.col("launch_id") == launch_id)["group"][0])

    def detail(self, launch_ids: list[int]) -> KernelDetail:
        part = self.profile.subset(launch_ids)
        detail = kernel_detail(part if self.analysed else analyze(part), launch_ids)
        durations = self.table.launches["duration_ns"]
        total = float(durations.sum() or 0.0)
        if total and detail.kernel.total_ns is not None:
            detail.time_share_pct = 100 * detail.kernel.total_ns / total
        return detail

    def has_timeline(self, launch_ids: list[int]) -> bool:
        return not self.profile.timeline.filter(pl.col("launch_id").is_in(launch_ids)).is_empty()

    def can_compare(self) -> bool:
        return self.baseline is not None or self.profile.launches["source_file"].n_unique() >= 2

    def comparison(self) -> tuple[str, str, pl.DataFrame] | None:
        """(base name, new name, compare frame), or None when there is nothing to compare."""
        if self.baseline is not None:
            base, new = self.baseline, self.profile
        else:
            pair = split_by_source(self.profile)
            if pair is None:
                return None
            base, new = pair
        names = [
            ", ".join(p.launches["source_file"].unique(maintain_order=True).to_list()) for p in (base, new)
        ]
        self._compared = (analyze(base), new if self.analysed else analyze(new))
        return names[0], names[1], compare(*self._compared)

    def compare_pair(self, base_launch: int | None, new_launch: int | None) -> PairDetail:
        """One row of the last ``comparison`` on both sides: configuration, every metric,
        the findings that appeared, went or stayed."""
        if self._compared is None:
            raise ValueError("nothing compared yet")
        return pair_detail(*self._compared, base_launch, new_launch)

    def opportunities(self) -> list[dict]:
        """The fix-first list (``warpscope.report.opportunities``) of everything open."""
        from warpscope.report.opportunities import opportunities

        return opportunities(self.profile if self.analysed else analyze(self.profile))

    def run(self) -> tuple[list[dict], pl.DataFrame, pl.DataFrame]:
        """The whole run: its steps and families (``report.runs``), its findings about the whole
        program (no launch: launch overhead, transfers, a dominant kernel), and its host-device
        copies by kind (count, bytes, time)."""
        from warpscope.analysis import run_findings
        from warpscope.report.runs import run_records

        profile = self.profile  # the run's own findings need no launch analysed
        findings = (
            profile.findings.filter(pl.col("launch_id").is_null()) if self.analysed else run_findings(profile)
        )
        copies = (
            profile.transfers.group_by("kind")
            .agg(
                pl.col("count").fill_null(1).sum().alias("copies"),
                pl.col("bytes").sum(),
                pl.col("duration_ns").sum(),
            )
            .sort("duration_ns", descending=True)
        )
        return run_records(profile, min_launches=0), findings, copies

    def launches_of_kernel(self, kernel_short: str, source_file: str | None = None) -> list[int]:
        """The launches of the kernel-table row that holds ``kernel_short``'s first launch (in
        ``source_file``, where given)."""
        named = pl.col("kernel_short") == kernel_short
        if source_file is not None:
            named &= pl.col("source_file") == source_file
        ids = self.profile.launches.filter(named)["launch_id"]
        return self.launches_of(self.group_of(int(ids[0]))) if len(ids) else []

    def markdown_report(self) -> str:
        """The report of what the kernel table shows: everything open, or the launches that
        pass its name filter and expression when one is set."""
        from warpscope.report.markdown import render

        profile = self.profile if self.analysed else analyze(self.profile)
        if self.view.name_filter or self.view.expression:
            profile = profile.subset(self.view.filtered()["launch_id"].to_list())
        return render(profile)
