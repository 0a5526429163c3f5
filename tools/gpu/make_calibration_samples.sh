#!/usr/bin/env bash
# The calibration suite on a machine with an NVIDIA GPU, nvcc and ncu: build
# tools/gpu/calibration_pairs.cu, time every kernel with CUDA events outside the profiler
# (two rounds of 25 launches after warm-up: calibration_timings.csv), then profile one launch
# of each with `ncu --set full --import-source yes` and export the raw page (base units), the
# details page and the source page (CUDA + SASS), gzip-compressed, into $OUT, with versions and
# a log. ncu locks the clocks to base and flushes the caches between passes: its durations and
# the event timings are both kept. `make_calibration_samples.sh validation` does the same for
# the held-out pairs of validation_pairs.cu.
set -u
name=${1:-calibration}
OUT=${OUT:-$PWD/${name}_out}; mkdir -p "$OUT"
W=$(mktemp -d); here=$(cd "$(dirname "$0")" && pwd)
log="$OUT/${name}_make_log.txt"
step() { echo "### $*" >>"$log"; "$@" >>"$log" 2>&1; echo "### rc=$?" >>"$log"; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv; ncu --version; nvcc --version; } >"$OUT/${name}_versions.txt" 2>&1
step nvcc -O3 -arch=sm_90 -lineinfo -o "$W/$name" "$here/${name}_pairs.cu"
"$W/$name" time >"$OUT/${name}_timings.csv" 2>>"$log"; echo "### time rc=$?" >>"$log"
step ncu --set full --import-source yes -f -o "$W/$name" "$W/$name" once
R="$W/$name.ncu-rep"
step sh -c "ncu --import $R --csv --page raw --print-units base | gzip -9 > $OUT/${name}_raw_base.csv.gz"
step sh -c "ncu --import $R --csv --page details | gzip -9 > $OUT/${name}_details.csv.gz"
step sh -c "ncu --import $R --csv --page source --print-source cuda,sass | gzip -9 > $OUT/${name}_source.csv.gz"
ls -la "$OUT" >>"$log"
tail -30 "$log"
