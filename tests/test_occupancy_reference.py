"""The calculator against CUDA's own: tests/data/occupancy_reference.csv.gz is the output of
cudaOccMaxActiveBlocksPerMultiprocessor (cuda_occupancy.h, CUDA 13.0) over 8,030 launch
configurations on 20 architectures (made by tools/occupancy_reference/generate.cpp)."""

from __future__ import annotations

import gzip

import polars as pl
import pytest

from tests.conftest import ROOT
from warpscope.occupancy.arch import ARCHS
from warpscope.occupancy.calculator import OccupancyError, calculate, evaluate

FLAGS = {"warps": 1, "registers": 2, "shared_mem": 4, "blocks": 8, "barriers": 16}
LIMITS = ("warps", "registers", "shared_mem", "blocks", "barriers")


def _reference() -> pl.DataFrame:
    with gzip.open(ROOT / "tests" / "data" / "occupancy_reference.csv.gz") as f:
        return pl.read_csv(f.read())


REFERENCE = _reference()


def _args(row: dict) -> dict:
    return dict(
        arch=row["arch"],
        block_size=row["block_size"],
        registers_per_thread=row["registers_per_thread"],
        static_smem=row["static_smem"],
        dynamic_smem=row["dynamic_smem"],
        carveout=None if row["carveout"] < 0 else row["carveout"],
        barriers=row["barriers"],
    )


def test_every_architecture_is_covered():
    assert sorted(REFERENCE["arch"].unique()) == sorted(ARCHS)
    assert REFERENCE.height == 8030


@pytest.mark.parametrize("arch", sorted(ARCHS))
def test_equals_cuda_occupancy_h(arch):
    rows = REFERENCE.filter(pl.col("arch") == arch)
    assert rows.height >= 310
    for row in rows.iter_rows(named=True):
        occ = evaluate(**_args(row))
        ours = {k: (-1 if v is None else v) for k, v in occ.limits.items()}
        assert occ.active_blocks_per_sm == row["active_blocks"], row
        assert ours == {k: row[f"limit_{k}"] for k in LIMITS}, row
        assert occ.allocated_registers_per_block == row["allocated_registers_per_block"], row
        assert occ.allocated_shared_mem_per_block == row["allocated_shared_mem_per_block"], row
        # CUDA flags the limits that bound before it applies the barrier limit too; ours are
        # exactly the limits equal to the result, always among CUDA's flags
        assert set(occ.limiters) == {k for k in LIMITS if row[f"limit_{k}"] == row["active_blocks"]}
        assert all(row["limiting_factors"] & FLAGS[k] for k in occ.limiters), row


def test_launches_that_cannot_run_raise_with_the_reason():
    dead = REFERENCE.filter(pl.col("active_blocks") == 0)
    assert dead.height > 300
    reasons = set()
    for row in dead.iter_rows(named=True):
        with pytest.raises(OccupancyError) as err:
            calculate(**_args(row))
        reasons.add(str(err.value))
    text = " | ".join(sorted(reasons))
    assert "1056 threads per block: sm_90 allows at most 1024" in text
    assert "registers per block" in text and "B shared memory per block" in text


def test_seed_errata_example():
    """Seed errata (docs/checklist.md): 40 registers x 256 threads on sm_90 is 75%, not 79.7%."""
    occ = calculate("sm_90", 256, 40)
    assert (occ.active_blocks_per_sm, occ.active_warps_per_sm, occ.occupancy_pct) == (6, 48, 75.0)
    assert occ.limiter == "registers" and occ.block_limit_registers == 6
    assert occ.allocated_registers_per_warp == 1280


@pytest.mark.parametrize(
    "args, kwargs, blocks, limiter",
    [
        (("sm_90", 256, 33), {}, 6, "registers"),  # naive 65536/(33*256) = 7
        (("sm_90", 32, 200), {}, 8, "registers"),  # naive 65536/6400 = 10
        (("sm_90", 640, 32), {}, 3, "warps"),  # 20 warps: 3 blocks = 93.75%
        (("sm_90", 128, 16, 20480), {}, 10, "shared_mem"),  # 20 KB + 1 KB reserve: 10, not 11
        (("sm_90", 128, 16, 20480), {"carveout": 50}, 6, "shared_mem"),  # 114 KB -> 132 KB
        (("sm_90", 64, 16), {"barriers": 16}, 4, "barriers"),  # 64 barriers per SM / 16
        (("sm_86", 128, 16, 0, 0), {}, 12, "warps"),
        (("sm_75", 128, 16, 0, 0), {"carveout": 0}, 8, "warps"),  # Turing: 0% still gets 32 KB
        (("sm_80", 256, 16, 0, 49152), {"carveout": 25}, 1, "shared_mem"),  # 41 KB -> 64 KB
        (("sm_80", 256, 16, 0, 49152), {"carveout": 0}, 1, "shared_mem"),  # 0 KB grown to fit a block
    ],
)
def test_granularity_reserve_carveout_and_barrier_cases(args, kwargs, blocks, limiter):
    occ = calculate(*args, **kwargs)
    assert occ.active_blocks_per_sm == blocks
    assert occ.limiter == limiter


def test_shared_memory_opt_in_ceiling():
    assert calculate("sm_90", 256, 16, 0, 227 * 1024).active_blocks_per_sm == 1
    with pytest.raises(OccupancyError, match="232449 B shared memory per block"):
        calculate("sm_90", 256, 16, 0, 227 * 1024 + 1)
    with pytest.raises(OccupancyError, match="per block"):
        calculate("sm_61", 256, 16, 0, 48 * 1024 + 1)  # Pascal has no opt-in
    with pytest.raises(OccupancyError, match="at most 255"):
        calculate("sm_90", 32, 256)


def test_equals_the_h100_driver():
    """17,024 answers of cudaOccupancyMaxActiveBlocksPerMultiprocessor on a real H100 (driver
    580.159.04): 7 kernels of 8 to 127 registers and 0 to 20 KB static shared memory, every
    block size, dynamic shared memory up to the opt-in ceiling, carveouts 0..100%
    (tools/gpu/occupancy_driver.cu). The tiled kernels use one barrier (ptxas -v)."""
    with gzip.open(ROOT / "tests" / "data" / "h100_driver_occupancy.csv.gz") as f:
        driver = pl.read_csv(f.read())
    assert driver.height == 17024 and driver["error"].is_null().all()
    assert sorted(driver["registers_per_thread"].unique()) == [8, 12, 16, 32, 56, 127]
    for row in driver.iter_rows(named=True):
        occ = evaluate(
            "sm_90",
            row["block_size"],
            row["registers_per_thread"],
            row["static_smem"],
            row["dynamic_smem"],
            None if row["carveout"] < 0 else row["carveout"],
            barriers=1 if row["kernel"].startswith("tiled") else 0,
        )
        assert occ.active_blocks_per_sm == row["active_blocks"], row
