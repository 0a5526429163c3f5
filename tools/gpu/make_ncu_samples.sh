#!/usr/bin/env bash
# Produce the Nsight Compute export formats that no shared sample covers, from the
# seed kernels, on a machine with an NVIDIA GPU, nvcc and ncu. Writes one tarball to
# $OUT (or ./ncu_samples_out). Each step logs its command line and its stderr, and a
# failing step does not stop the others: the log says which formats could be made.
set -u
OUT=${OUT:-$PWD/ncu_samples_out}; mkdir -p "$OUT"
W=$(mktemp -d); S="$W/samples"; mkdir -p "$S"
src=$(cd "$(dirname "$0")/../../sample_traces/h100" && pwd)/seedkernels.cu
log="$S/make_log.txt"
step() { echo "### $*" >>"$log"; "$@" 2>>"$log"; echo "### rc=$?" >>"$log"; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ncu --version; nvcc --version; } >"$S/versions.txt" 2>&1
ncu --help >"$S/ncu_help.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$W/seedkernels" "$src" 2>>"$log" || { echo "nvcc failed" >>"$log"; }
# one full report: everything else is exported from it
step ncu --set full --import-source yes -f -o "$W/seed" "$W/seedkernels"
R="$W/seed.ncu-rep"
step sh -c "ncu --import $R --csv --page details --print-details all > $S/seed_details_all.csv"
step sh -c "ncu --import $R --csv --page details --print-metric-name name > $S/seed_details_names.csv"
step sh -c "ncu --import $R --csv --page raw --print-units base > $S/seed_raw_base.csv"
step sh -c "ncu --import $R --csv --page raw --print-units auto > $S/seed_raw_auto.csv"
step sh -c "ncu --import $R --csv --print-summary per-kernel > $S/seed_summary_per_kernel.csv"
step sh -c "ncu --import $R --csv --print-summary per-gpu > $S/seed_summary_per_gpu.csv"
step sh -c "ncu --import $R --page details > $S/seed_details.txt"
step sh -c "ncu --import $R --page details --print-details all > $S/seed_details_all.txt"
step sh -c "ncu --import $R --csv --page source --print-source sass > $S/seed_source_sass.csv"
step sh -c "ncu --import $R --csv --page source --print-source cuda,sass -k regex:transposeShared > $S/seed_source_cuda_sass.csv"
step sh -c "ncu --import $R --csv --page details --print-metric-instances values --metrics smsp__warps_active.sum > $S/seed_instances.csv"
# live runs: stdout captures with the program's own output around the CSV
step sh -c "ncu --csv --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters --print-details all $W/seedkernels > $S/seed_live_stdout.log"
step sh -c "ncu --csv --page raw --target-processes all --section LaunchStats --section Occupancy sh -c '$W/seedkernels; $W/seedkernels' > $S/seed_two_processes_raw.log"
tar -C "$W" -czf "$OUT/ncu_samples.tar.gz" samples
ls -la "$S" >>"$log"; cp "$log" "$OUT/"
tail -60 "$log"
