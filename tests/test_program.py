"""The whole run (issue 22, item 6): the repeated step, time by family of work, and the
program-level advice, on real profiles of training loops made on the H100
(``sample_traces/h100/trainloop``), the cnn_step program, public exports and the seed export."""

from __future__ import annotations

import gzip
import io

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import warpscope
from tests.conftest import ROOT, UNSHIPPED, needs_shared
from warpscope.analysis import analyze
from warpscope.analysis.program import idle_share
from warpscope.analysis.steps import find_steps, summarize
from warpscope.analysis.views import run_views
from warpscope.model.families import family_of
from warpscope.report.json_report import report_dict
from warpscope.report.markdown import render
from warpscope.report.opportunities import opportunities

TRAINLOOP = ROOT / "sample_traces" / "h100" / "trainloop"
FUSED = [TRAINLOOP / "trainloop_fused_raw_base.csv.gz", TRAINLOOP / "trainloop_fused_details.csv.gz"]
LOOP = [TRAINLOOP / "trainloop_loop_raw_base.csv.gz", TRAINLOOP / "trainloop_loop_details.csv.gz"]
SEED = ROOT / "sample_traces" / "h100" / "seed_details_all.csv.gz"
PROBE = ROOT / "sample_traces" / "h100" / "advice_full_raw_base.csv.gz"


def _raw_page(path) -> pl.DataFrame:
    """The raw page as ncu wrote it, read with Polars alone (names and times, in order)."""
    frame = pl.read_csv(io.BytesIO(gzip.decompress(path.read_bytes())), infer_schema=False)
    frame = frame.filter(pl.col("ID").str.contains(r"^\d+$"))  # the units row
    return frame.select(
        "Kernel Name", pl.col("gpu__time_duration.sum").str.replace_all(",", "").cast(pl.Float64).alias("ns")
    )


def _run_findings(profile) -> dict[str, dict]:
    return {
        r["rule_id"]: r for r in profile.findings.filter(pl.col("launch_id").is_null()).iter_rows(named=True)
    }


def test_a_profiled_training_loop_is_one_step_repeated_after_a_warm_up():
    profile = warpscope.load(FUSED)
    summary = summarize(profile.launches)
    # 3 steps of tools/gpu/trainloop.py: the first one (making the data, the optimizer's
    # state, library heuristics) is longer; steps 2 and 3 are the same 141 launches
    assert summary.launches == 511
    assert (summary.steps.period, summary.steps.count, summary.steps.first) == (141, 2, 229)
    page = _raw_page(FUSED[0])
    names = page["Kernel Name"].to_list()
    assert names[229:370] == names[370:511]
    # the step starts where the loop body does: the top of the forward pass, as in step 1
    assert names[229:232] == names[1:4]
    assert summary.step_ns == page["ns"][229:511].sum() / 2
    assert summary.warmup_ns == page["ns"][:229].sum()
    families = summary.families
    assert families["launches"].sum() == 141
    assert abs(families["share_pct"].sum() - 100) < 1e-9
    assert families["time_ns"].to_list() == sorted(families["time_ns"].to_list(), reverse=True)
    by_family = dict(zip(families["family"], families["launches"], strict=True))
    # the two products of each linear layer's backward and forward, and the attention kernels
    assert by_family["GEMM and attention"] == 35
    assert by_family["optimizer"] == 2  # the fused AdamW kernel and the step counter's increment


def test_families_follow_what_the_kernels_do():
    cases = {
        "nvjet_sm90_tst_64x64_64x13_2x1_v_bz_NNT": "GEMM and attention",
        "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_cga1x1x1_kernel0_0": "GEMM and attention",
        "cudnn::convert_dq_to_16bits<1>": "GEMM and attention",
        "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize256x64x32_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn": "convolution",
        "at::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>": "normalisation",
        "cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, 1, 1, 1>": "normalisation",
        "at::vectorized_elementwise_kernel<8, at::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, 2>>": "casts and copies",
        "at::unrolled_elementwise_kernel<at::CUDAFunctor_add<float>, std::array<char *, 3>, 4, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, memory::LoadWithCast<2>, memory::StoreWithCast<1>>": "elementwise",
        "at::<unnamed>::multi_tensor_apply_kernel<at::<unnamed>::FusedOptimizerTensorListMetadata<4>, at::<unnamed>::FusedAdamMathFunctor<float, 4, 1, 0>>": "optimizer",
        "at::reduce_kernel<128, 4, at::ReduceOp<float>>": "reductions",
        "at::<unnamed>::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>": "softmax and loss",
        "transposeNaive": "casts and copies",
        "vecAdd": "other",
    }
    assert {name: family_of(name) for name in cases} == cases


@settings(max_examples=200, deadline=None)
@given(
    step=st.integers(2, 40).flatmap(lambda n: st.permutations(list(range(n)))),
    repeats=st.integers(2, 6),
    warmup=st.lists(st.integers(1000, 1010), max_size=30),
    cut=st.integers(0, 100),
)
def test_a_step_repeated_after_any_warm_up_is_found(step, repeats, warmup, cut):
    """A step of distinct launches repeated, after launches that never recur, possibly cut
    off mid-step at the end (ncu -c): the period, the first step and the full steps. (A
    repetition is the run's step only where it covers at least half the launches.)"""
    assume(len(warmup) <= len(step) * repeats)
    tail = step[: cut % len(step)]
    codes = np.array(warmup + step * repeats + tail)
    found = find_steps(codes)
    assert found is not None
    assert (found.period, found.first, found.count) == (len(step), len(warmup), repeats)


def test_runs_that_do_not_repeat_have_no_step():
    assert find_steps(np.arange(100)) is None
    assert find_steps(np.array([7] * 50)) is None  # one kernel over and over: no step of work
    seed = summarize(warpscope.load(SEED).launches)
    assert seed.steps is None and seed.step_launches == 22


def test_many_short_launches_on_a_training_loop():
    profile = analyze(warpscope.load(FUSED))
    found = _run_findings(profile)["many_short_launches"]
    assert found["severity"] == "medium" and found["confidence"] == "medium"
    evidence = {e["metric"]: e["value"] for e in found["evidence"]}
    page = _raw_page(FUSED[0])["ns"][229:370]
    assert evidence["launches_per_step"] == 141
    assert evidence["median_launch_ns"] == float(np.median(page.to_numpy()))
    assert "CUDA Graph" in found["fix"] and found["estimated_speedup_pct"] is None
    # the measured truth behind the claim (sample README): 6.11 ms a step on the wall clock
    # for 1.16 ms of kernel time per step
    assert evidence["kernel_ns_per_step"] < 6.113e6 / 4


def test_the_per_parameter_optimizer_is_named_and_the_fused_one_is_not():
    loop = _run_findings(analyze(warpscope.load(LOOP)))
    fused = _run_findings(analyze(warpscope.load(FUSED)))
    assert "per_tensor_optimizer" not in fused
    found = loop["per_tensor_optimizer"]
    names = _raw_page(LOOP[0])["Kernel Name"]
    math = names.str.contains(r"lerp_|addcmul|addcdiv").sum()
    evidence = {e["metric"]: e["value"] for e in found["evidence"]}
    assert evidence["per_tensor_launches_per_step"] == math > 29  # 29 parameter tensors in the model
    assert "foreach=True" in found["fix"] and "fused=True" in found["fix"]


def test_a_kernel_with_most_of_the_time_tops_the_fix_first_list():
    """The probe export's cuBLAS SGEMM holds half the time; its opportunity, FP32 on the SIMT
    cores where TF32 tensor cores would run it, leads the list."""
    profile = analyze(warpscope.load(PROBE))
    entries = opportunities(profile)
    top = entries[0]
    assert top["library"] == "cuBLAS" and top["rule"] == "fp32_matrix_on_simt_cores"
    assert top["time_ns"] / profile.launches["duration_ns"].sum() > 0.5
    assert "TF32" in top["fix"]
    assert sum(e["kernel_short"] == top["kernel_short"] for e in entries) == 1


@needs_shared
def test_a_public_solver_loop_is_found_and_its_main_kernel_leads():
    """Rodinia's CFD solver profiled on a V100 (public export): 100 launches of a 7-kernel
    iteration; cuda_compute_flux holds 72% of the time."""
    path = UNSHIPPED / "ncu" / "xplacer_v100_cfd_details_thousands_sep.log"
    profile = analyze(warpscope.load(path))
    summary = summarize(profile.launches)
    assert (summary.steps.period, summary.steps.count) == (7, 14)
    assert opportunities(profile)[0]["kernel_short"] == "cuda_compute_flux"
    assert "dominant_kernel" in _run_findings(profile)


@needs_shared
def test_nvprof_timestamps_measure_the_idle_time_between_kernels():
    """A GPU trace has each kernel's and copy's start: the repeated Jacobi step (copy in, four
    kernels, copy out) is found, and the time the GPU neither computes nor copies is measured."""
    path = UNSHIPPED / "nvprof" / "ieee2017_k20c_jacobi_gputrace.csv"
    profile = warpscope.load(path)
    (run,) = run_views(profile)
    assert (run.summary.steps.period, run.summary.steps.count) == (4, 3)
    # the trace's own rows: start (s) and duration (ms), kernels and copies alike
    rows = [line.split(",")[:2] for line in path.read_text().splitlines() if line[:1].isdigit()]
    spans = sorted((float(a) * 1e9, float(a) * 1e9 + float(d) * 1e6) for a, d in rows)
    kernels = [
        s for s, (_, d) in zip(spans, sorted(rows, key=lambda r: float(r[0])), strict=True) if float(d) < 20
    ]
    begin, finish = kernels[0][0], kernels[-1][1]
    busy = sum(min(b, finish) - max(a, begin) for a, b in spans if b > begin and a < finish)
    assert idle_share(run) == pytest.approx(100 * (1 - busy / (finish - begin)))
    assert idle_share(run) > 50  # the host works between iterations: the GPU waits


def test_the_reports_show_the_step():
    profile = analyze(warpscope.load(FUSED))
    runs = report_dict(profile)["runs"]
    assert len(runs) == 1
    assert runs[0]["steps"] == {
        "count": 2,
        "launches_per_step": 141,
        "first_launch": 229,
        "warmup_launches": 229,
        "warmup_ns": summarize(profile.launches).warmup_ns,
    }
    text = render(profile)
    assert "a step of 141 launches repeated 2 times" in text
    assert "| GEMM and attention | 35 |" in text


def test_fix_first_never_pools_two_programs(emulated_seed):
    """The H100 export and the emulated seed workload open together (the demo): a kernel of both
    has an entry per file, each a share of its own file's kernel time."""
    from warpscope.report.opportunities import opportunities

    profile = analyze(
        warpscope.load([ROOT / "sample_traces" / "h100" / "seed_full_raw.csv", emulated_seed[0]])
    )
    entries = opportunities(profile)
    files = {e["source_file"] for e in entries}
    assert len(files) == 2
    both = [
        e
        for e in entries
        if e["kernel_short"] == "transposeShared<0>" and e["rule"] == "shared_bank_conflicts"
    ]
    assert (
        len(both) == 2 and {e["source_file"] for e in both} == files and all(e["launches"] == 1 for e in both)
    )
    for source in files:
        kernel_ns = profile.launches.filter(pl.col("source_file") == source)["duration_ns"].sum()
        mine = [e for e in entries if e["source_file"] == source and e["est_saved_ns"] is not None]
        assert sum(e["est_saved_ns"] for e in mine) <= kernel_ns
        for e in mine:
            assert e["program_share_pct"] == pytest.approx(100 * e["est_saved_ns"] / kernel_ns)
