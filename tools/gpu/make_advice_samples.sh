#!/usr/bin/env bash
# Profile tools/gpu/advice_kernels.cu on a machine with an NVIDIA GPU, nvcc and ncu: one
# `--set full` report, exported as the raw page (base units) and the details page, both
# gzip-compressed, into $OUT (or ./advice_samples_out), with the versions and a log.
set -u
OUT=${OUT:-$PWD/advice_samples_out}; mkdir -p "$OUT"
W=$(mktemp -d); here=$(cd "$(dirname "$0")" && pwd)
log="$OUT/advice_make_log.txt"
step() { echo "### $*" >>"$log"; "$@" >>"$log" 2>&1; echo "### rc=$?" >>"$log"; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ncu --version; nvcc --version; } >"$OUT/advice_versions.txt" 2>&1
if ! step nvcc -O3 -arch=sm_90 -lineinfo -DWITH_CUBLAS -o "$W/advice" "$here/advice_kernels.cu" -lcublas; then
  step nvcc -O3 -arch=sm_90 -lineinfo -o "$W/advice" "$here/advice_kernels.cu"
fi
step "$W/advice"
step ncu --set full --import-source yes -f -o "$W/advice" "$W/advice"
R="$W/advice.ncu-rep"
step sh -c "ncu --import $R --csv --page raw --print-units base | gzip -9 > $OUT/advice_full_raw_base.csv.gz"
step sh -c "ncu --import $R --csv --page details | gzip -9 > $OUT/advice_full_details.csv.gz"
gzip -9 -c "$R" > "$OUT/advice_full.ncu-rep.gz"
ls -la "$OUT" >>"$log"
tail -40 "$log"
