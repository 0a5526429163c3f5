#!/usr/bin/env bash
# The TF32 calibration pairs (tools/gpu/tf32_pairs.cu) on a machine with an NVIDIA GPU, nvcc, cuBLAS
# and ncu: time every call with CUDA events outside the profiler (tf32_timings.csv), then profile
# one call of each with `ncu --set full` and export the raw page (base units) and the details page,
# gzip-compressed, into $OUT, with versions and a log.
set -u
OUT=${OUT:-$PWD/tf32_out}; mkdir -p "$OUT"
W=$(mktemp -d); here=$(cd "$(dirname "$0")" && pwd)
log="$OUT/tf32_make_log.txt"
step() { echo "### $*" >>"$log"; "$@" >>"$log" 2>&1; echo "### rc=$?" >>"$log"; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv; ncu --version; nvcc --version; } >"$OUT/tf32_versions.txt" 2>&1
step nvcc -O3 -arch=sm_90 -lineinfo -o "$W/tf32" "$here/tf32_pairs.cu" -lcublas
"$W/tf32" time >"$OUT/tf32_timings.csv" 2>>"$log"; echo "### time rc=$?" >>"$log"
step ncu --set full -f -o "$W/tf32" "$W/tf32" once
R="$W/tf32.ncu-rep"
step sh -c "ncu --import $R --csv --page raw --print-units base | gzip -9 > $OUT/tf32_raw_base.csv.gz"
step sh -c "ncu --import $R --csv --page details | gzip -9 > $OUT/tf32_details.csv.gz"
ls -la "$OUT" >>"$log"
tail -40 "$log"
