"""nvprof exports: the public samples of ../shared (Maxwell, Pascal, Kepler; CSV and text),
hand-made fixtures for the layouts no public sample covers, and malformed files."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import polars as pl
import pytest

import warpscope
from tests.conftest import H100, ROOT, needs_shared, public_params, public_sample, run_cli

FIXTURES = ROOT / "tests" / "data" / "nvprof"


def nvprof(name: str) -> Path:
    return public_sample("nvprof", name)


# nvprof name -> canonical id, and the factor from the file's number (% suffix stripped)
CHECKED = {
    "branch_efficiency": ("branch_efficiency_pct", 1.0),
    "achieved_occupancy": ("achieved_occupancy_pct", 100.0),
    "warp_execution_efficiency": ("warp_execution_efficiency_pct", 1.0),
    "warp_nonpred_execution_efficiency": ("warp_nonpred_execution_efficiency_pct", 1.0),
    "gld_efficiency": ("global_load_efficiency_pct", 1.0),
    "gst_efficiency": ("global_store_efficiency_pct", 1.0),
    "gld_transactions_per_request": ("global_load_sectors_per_request", 1.0),
    "gst_transactions_per_request": ("global_store_sectors_per_request", 1.0),
    "shared_efficiency": ("shared_efficiency_pct", 1.0),
    "shared_load_transactions_per_request": ("shared_load_transactions_per_request", 1.0),
    "sm_efficiency": ("sm_efficiency_pct", 1.0),
    "issue_slot_utilization": ("issue_slot_utilization_pct", 1.0),
    "ipc": ("ipc_active", 1.0),
    "executed_ipc": ("ipc_active", 1.0),
    "gld_transactions": ("global_load_sectors", 1.0),
    "local_load_transactions": ("local_load_sectors", 1.0),
    "local_store_transactions": ("local_store_sectors", 1.0),
}


def _file_metrics(path) -> dict[str, dict[str, str]]:
    """kernel -> {nvprof metric: Avg as printed}, read independently of the importer."""
    out: dict[str, dict[str, str]] = {}
    lines = path.read_text().splitlines()
    if any(l.startswith('"Device","Kernel"') for l in lines):
        body = [l for l in lines if not l.startswith("==")]
        for row in csv.DictReader(body):
            out.setdefault(row["Kernel"], {})[row["Metric Name"]] = row["Avg"]
        return out
    kernel = None
    for line in lines:
        if line.strip().startswith("Kernel: "):
            kernel = line.split("Kernel: ", 1)[1].strip()
        elif kernel and (m := re.match(r"^\s+\d+\s+(\w+)\s.*\s(\S+)$", line)):
            out.setdefault(kernel, {})[m[1]] = m[2]
    return out


METRIC_SAMPLES = [
    "ieee2017_k20c_jacobi_metrics.csv",
    "magus_heartwall_metrics_gtx1080ti.csv",
    "magus_interval_metrics_gtx950.csv",
    "thrust2d_gtx1070_metrics_text_noncsv.txt",
]


@pytest.mark.parametrize("name", public_params("nvprof", METRIC_SAMPLES))
def test_report_json_states_every_kernels_values(name):
    out = run_cli("report", str(nvprof(name)), "--format", "json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    expected = _file_metrics(nvprof(name))
    by_kernel = {l["kernel"]: l for l in report["launches"]}
    assert set(by_kernel) == set(expected)
    for kernel, stated in expected.items():
        got = by_kernel[kernel]["metrics"]
        checked = 0
        for nv, (canonical, factor) in CHECKED.items():
            if nv not in stated:
                continue
            assert got[canonical] == pytest.approx(float(stated[nv].rstrip("%")) * factor, rel=1e-9), (
                kernel,
                nv,
            )
            checked += 1
        assert checked >= 4, (kernel, checked)
        for must in ("branch_efficiency", "achieved_occupancy"):
            if must in stated:
                assert CHECKED[must][0] in got


def test_min_max_avg_all_kept_with_per_cell_units():
    profile = warpscope.load(nvprof("magus_interval_metrics_gtx950.csv"))
    dram = profile.metrics.filter(pl.col("name") == "dram_read_throughput").sort("stat")
    rows = {r["stat"]: r for r in dram.iter_rows(named=True)}
    assert set(rows) == {"min", "max", "avg"}
    for row in rows.values():  # each cell keeps its own unit, converted with 1024-based prefixes
        number, unit = re.match(r"([\d.]+)([KMG]?B/s)", row["text"]).groups()
        scale = {"B/s": 1, "KB/s": 1024, "MB/s": 1024**2, "GB/s": 1024**3}[unit]
        assert row["value"] == pytest.approx(float(number) * scale)
        assert row["metric"] == "dram_read_bytes_per_second" and row["base_unit"] == "byte/s"
    level = profile.metrics.filter(pl.col("name") == "dram_utilization", pl.col("stat") == "avg").row(
        0, named=True
    )
    assert re.fullmatch(r"\w+ \((\d+)\)", level["text"])
    assert level["value"] == float(re.search(r"\((\d+)\)", level["text"])[1])


def test_stall_reasons_map_onto_ncu_taxonomy():
    profile = warpscope.load(nvprof("magus_heartwall_metrics_gtx1080ti.csv"))
    reasons = dict(profile.stalls.select("reason", "share_pct").iter_rows())
    assert {"long_scoreboard", "no_instruction", "not_selected", "tex_throttle", "imc_miss"} <= set(reasons)
    assert {"exec_dependency", "sync", "pipe_busy", "memory_throttle", "other"} <= set(reasons)
    stated = _file_metrics(nvprof("magus_heartwall_metrics_gtx1080ti.csv"))["kernel(void)"]
    assert reasons["long_scoreboard"] == pytest.approx(float(stated["stall_memory_dependency"].rstrip("%")))


@pytest.mark.parametrize(
    "name, kernels, copies",
    [
        pytest.param("ieee2017_k20c_jacobi_gputrace.csv", 12, 6, marks=needs_shared),
        ("magus_cpp11cuda_gputrace.csv", 2, 3),
        ("magus_vectorAdd_gputrace.csv", 1, 3),
        pytest.param("ieee2017_p100_gputrace_text_noncsv.txt", 1, 2, marks=needs_shared),
    ],
)
def test_gpu_trace_lists_every_kernel_and_copy(name, kernels, copies):
    profile = warpscope.load(nvprof(name))
    launches = profile.launches
    assert launches.height == kernels
    for col in (
        "grid_x",
        "grid_y",
        "grid_z",
        "block_x",
        "block_y",
        "block_z",
        "registers_per_thread",
        "static_shared_bytes",
        "dynamic_shared_bytes",
        "duration_ns",
    ):
        assert launches[col].is_not_null().all(), col
    assert profile.transfers.height == copies
    copies_only = profile.transfers.filter(pl.col("kind") != "memset")
    assert (
        copies_only["bytes"].is_not_null().all() and copies_only["throughput_bytes_per_s"].is_not_null().all()
    )


def test_vector_add_trace_in_bytes_and_per_second():
    """The CUDA sample's vectorAdd copies 50,000 floats: nvprof's "195.3125 KB" is 1024-based."""
    profile = warpscope.load(nvprof("magus_vectorAdd_gputrace.csv"))
    h2d = profile.transfers.filter(pl.col("kind") == "HtoD")
    assert h2d.height == 2 and (h2d["bytes"] == 200_000).all()
    first = h2d.row(0, named=True)
    assert first["duration_ns"] == pytest.approx(511_803.0)
    assert first["throughput_bytes_per_s"] == pytest.approx(372.672421 * 1024**2)
    kernel = profile.launches.row(0, named=True)
    assert (kernel["kernel"], kernel["profiler_launch_id"]) == (
        "vectorAdd(float const *, float const *, float*, int)",
        "1168",
    )
    assert (kernel["grid_x"], kernel["block_x"], kernel["registers_per_thread"]) == (196, 256, 8)
    assert kernel["duration_ns"] == pytest.approx(2208.0)
    assert kernel["compute_capability"] == "6.1"  # GeForce GTX 1080 Ti


@needs_shared
def test_text_trace_memory_types_and_calculated_occupancy():
    profile = warpscope.load(nvprof("ieee2017_p100_gputrace_text_noncsv.txt"))
    assert profile.transfers.select("kind", "src_mem", "dst_mem").rows() == [
        ("HtoD", "Pageable", "Device"),
        ("DtoH", "Device", "Pageable"),
    ]
    assert profile.transfers["bytes"].to_list() == [256 * 1024**2] * 2
    values = {
        r["metric"]: r["value"]
        for r in profile.metrics.filter(pl.col("section") == "derived").iter_rows(named=True)
    }
    # P100 (sm_60): 128 threads x 34 registers -> 1280 per warp, 2 sub-partitions of 32768
    assert values["theoretical_occupancy_pct"] == 75.0 and values["block_limit_registers"] == 12


@needs_shared
def test_summaries_with_and_without_type_and_unified_memory():
    old = warpscope.load(nvprof("ieee2017_k20c_jacobi_summary_old.csv"))
    assert old.launches.height == 5 and old.api_calls.height == 17
    assert old.api_calls.filter(pl.col("name") == "cudaLaunch")["min_ns"].item() == pytest.approx(
        6678.0
    )  # 6.678000e-03 ms
    flux = old.launches.filter(pl.col("kernel").str.starts_with("__kernel___forma_kernel__0__")).row(
        0, named=True
    )
    assert (flux["invocations"], flux["duration_ns"]) == (3, pytest.approx(21.296766e6))
    new = warpscope.load(nvprof("nvprofresult_titanxp_summary_api_um.csv"))
    flux = new.launches.filter(pl.col("kernel_short") == "cuda_compute_flux")
    assert flux["invocations"].item() == 6000
    mx = new.metrics.filter((pl.col("launch_id") == flux["launch_id"].item()) & (pl.col("stat") == "max"))
    assert mx["value"].item() == pytest.approx(1.963533e6)  # Max in ms while Avg is in us
    um = new.transfers.filter(pl.col("kind") == "um_HtoD").row(0, named=True)
    assert (um["count"], um["bytes"]) == (133, pytest.approx(6.304688 * 1024**2))
    src = new.sources.row(0, named=True)
    assert src["lines_set_aside"] == 1  # "Total CPU Page faults: 49"
    assert new.api_calls.height == 19


def test_nvprof_and_ncu_in_one_report():
    out = run_cli(
        "report",
        str(nvprof("magus_interval_metrics_gtx950.csv")),
        str(H100 / "seed_full_raw.csv"),
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert len(report["launches"]) == 23
    for launch in (report["launches"][0], report["launches"][3]):
        assert "branch_efficiency_pct" in launch["metrics"] and "achieved_occupancy_pct" in launch["metrics"]
    assert [s["format"] for s in report["sources"]] == ["nvprof-metrics", "ncu-raw"]


def test_hand_made_events_and_newer_trace():
    events = warpscope.load(FIXTURES / "events_handmade.csv")
    conflicts = events.metrics.filter(
        pl.col("metric") == "shared_load_bank_conflicts", pl.col("stat") == "avg"
    )
    assert conflicts["value"].to_list() == [31744.0]
    total = events.metrics.filter(pl.col("name") == "shared_ld_bank_conflict", pl.col("stat") == "total")
    assert total["value"].to_list() == [317440.0]
    trace = warpscope.load(FIXTURES / "gputrace_20col_handmade.csv")
    assert trace.transfers.select("kind", "src_mem", "dst_mem", "correlation_id").rows() == [
        ("HtoD", "Pinned", "Device", "117"),
        ("memset", "Device", None, "118"),
    ]
    assert trace.transfers["bytes"].to_list() == [4 * 1024**2, 1024.0]
    assert trace.launches.select("profiler_launch_id", "kernel").rows() == [
        ("121", "transposeNaive(float*, float const*, int)")
    ]


def test_hand_made_text_summary():
    profile = warpscope.load(FIXTURES / "summary_text_handmade.txt")
    assert profile.launches.select("kernel_short", "invocations").rows() == [
        ("matmulTiled", 10),
        ("reduce", 10),
    ]
    assert profile.launches["duration_ns"].to_list() == [pytest.approx(1.2345e6), pytest.approx(45.6e3)]
    assert profile.api_calls.select("name", "calls").rows() == [("cudaMalloc", 3), ("cudaMemcpy", 4)]
    assert profile.transfers.select("kind", "count").rows() == [("HtoD", 2)]


@pytest.mark.parametrize(
    "content, line, message",
    [
        (
            "==12== NVPROF is profiling process 12, command: ./a\n==12== Profiling application: ./a\n"
            "==12== Profiling result:\nNo kernels were profiled.\n",
            1,
            "no nvprof result table found",
        ),
        ('==7== Profiling result:\n"Alpha","Beta","Gamma"\n1,2,3\n', 2, "unknown nvprof table"),
        ("==7== Error: unified memory profiling failed.\n", 1, "nvprof said: Error: unified memory"),
    ],
)
def test_malformed_files_are_one_line_exit_2(tmp_path, content, line, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    out = run_cli("report", str(path))
    assert out.returncode == 2
    assert out.stderr.startswith(f"warpscope: {path}:{line}: ") and message in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_a_bad_row_is_rejected_and_counted(tmp_path):
    good = (FIXTURES / "events_handmade.csv").read_text()
    broken = good.replace(
        '"Tesla V100-SXM2-16GB (0)","transposeShared(float*, float const*, int)",10,"shared_st',
        '"Tesla V100-SXM2-16GB (0)","transposeShared(float*, float const*, int),10,"shared_st',
    )
    path = tmp_path / "events.csv"
    path.write_text(broken)
    profile = warpscope.load(path)
    src = profile.sources.row(0, named=True)
    assert src["rows_in"] == src["rows_imported"] + src["rows_rejected"] and src["rows_rejected"] == 1
    bad_line = broken.splitlines().index(next(l for l in broken.splitlines() if "int),10" in l)) + 1
    assert profile.rejected["line"].to_list() == [bad_line]


@needs_shared
def test_kepler_trace_says_why_occupancy_is_missing():
    profile = warpscope.load(nvprof("ieee2017_k20c_jacobi_gputrace.csv"))
    assert profile.sources["notes"].to_list() == [
        ["occupancy: not calculated for compute capability 3.5: the calculator covers sm_50 to sm_121"]
    ]
    assert profile.metrics.filter(pl.col("metric") == "theoretical_occupancy_pct").is_empty()


def test_hand_made_api_trace_from_a_log_file():
    profile = warpscope.load(FIXTURES / "apitrace_logfile_handmade.csv")
    assert profile.api_calls.select("name", "calls", "start_ns", "total_ns").rows() == [
        ("cudaMalloc", 1, 101_250.0, pytest.approx(150_321_700.0)),
        ("cudaMemcpy", 1, pytest.approx(150_430_100.0), 812_500.0),
        ("cudaLaunchKernel", 1, pytest.approx(151_250_900.0), 9_250.0),
    ]
    src = profile.sources.row(0, named=True)
    assert src["format"] == "nvprof-api-trace" and src["launches"] == 0
    assert any("invalid timestamps" in m for m in src["messages"])
