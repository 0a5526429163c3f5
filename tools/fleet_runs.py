"""Runs made from one real profile, for the fleet benchmark and tests: per-run noise on every
duration and counter, and a planted change at a chosen run.

The noise is multiplicative and Gaussian (``sigma`` of each value); the plant is a profile
variant (``regressed``) that the runs from ``regress_at`` on are made from instead.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from warpscope.model.profile import Profile


def jittered(profile: Profile, rng: np.random.Generator, sigma: float = 0.02) -> Profile:
    """``profile`` with each launch's duration and each metric value scaled by 1 + N(0, sigma)
    (percentages kept within 0-100); launch and device attributes stay as they are."""
    launches = profile.launches.with_columns(
        pl.col("duration_ns") * pl.Series(1 + rng.normal(0, sigma, profile.launches.height))
    )
    scale = pl.Series(1 + rng.normal(0, sigma / 2, profile.metrics.height))
    attribute = pl.col("name").cast(pl.String).str.starts_with("launch__") | pl.col("name").cast(
        pl.String
    ).str.starts_with("device__")
    value = pl.when(attribute).then(pl.col("value")).otherwise(pl.col("value") * scale)
    capped = pl.when(pl.col("base_unit") == "%").then(value.clip(0, 100)).otherwise(value)
    metrics = profile.metrics.with_columns(capped.alias("value"))
    return replace(profile, launches=launches, metrics=metrics)


def with_register_regression(profile: Profile, kernel_short: str, slower: float = 1.3) -> Profile:
    """A compiler regression planted on ``kernel_short``: 32 more registers per thread, its
    occupancy down by a third, and each launch ``slower`` times longer."""
    hit = pl.col("launch_id").is_in(
        profile.launches.filter(pl.col("kernel_short") == kernel_short)["launch_id"].implode()
    )
    launches = profile.launches.with_columns(
        pl.when(hit).then(pl.col("registers_per_thread") + 32).otherwise(pl.col("registers_per_thread")),
        pl.when(hit).then(pl.col("duration_ns") * slower).otherwise(pl.col("duration_ns")),
    )
    metric = pl.col("metric").cast(pl.String)
    occupancy = metric.is_in(["achieved_occupancy_pct", "theoretical_occupancy_pct"])
    metrics = profile.metrics.with_columns(
        pl.when(hit & occupancy)
        .then(pl.col("value") * 2 / 3)
        .when(hit & (metric == "registers_per_thread"))
        .then(pl.col("value") + 32)
        .otherwise(pl.col("value"))
        .alias("value")
    )
    return replace(profile, launches=launches, metrics=metrics)


def build_dataset(
    base: Profile, dataset: str, runs: int, regress_at: int, kernel_short: str, *, seed: int = 0
) -> list[str]:
    """``runs`` runs of ``base`` (analysed once per variant) appended to ``dataset``, labelled
    ``commit=c0000``…; from ``regress_at`` on, ``kernel_short`` carries the planted regression.
    The run ids, oldest first (import times one second apart)."""
    from datetime import UTC, datetime, timedelta

    from warpscope.analysis import analyze
    from warpscope.model import store

    variants = [analyze(base), analyze(with_register_regression(base, kernel_short))]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ids = []
    for i in range(runs):
        # a stream of its own per run: a catalog with one metric more does not move the next
        # run's durations
        profile = jittered(variants[i >= regress_at], np.random.default_rng((seed, i)))
        run_id = f"{start + timedelta(seconds=i):%Y%m%dT%H%M%S%f}Z-{i:06x}"  # reproducible
        labels = {"commit": f"c{i:04d}", "branch": "main"}
        ids.append(store.append_run(store.with_run(profile, run_id=run_id, labels=labels), dataset))
    return ids
