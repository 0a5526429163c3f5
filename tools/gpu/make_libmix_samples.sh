#!/usr/bin/env bash
# The library-mix program (tools/gpu/libmix.cu: Thrust, CUB, cuFFT, cuBLAS and kernels of its own)
# on a machine with an NVIDIA GPU, nvcc and ncu: run it once (its checks), profile it with
# `ncu --set full --import-source yes`, and export the raw page (base units), the details page
# and the CUDA+SASS source page, gzip-compressed, into $OUT, with versions and a log.
set -u
OUT=${OUT:-$PWD/libmix_out}; mkdir -p "$OUT"
W=$(mktemp -d); here=$(cd "$(dirname "$0")" && pwd)
log="$OUT/libmix_make_log.txt"
step() { echo "### $*" >>"$log"; "$@" >>"$log" 2>&1; echo "### rc=$?" >>"$log"; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv; ncu --version; nvcc --version; } >"$OUT/libmix_versions.txt" 2>&1
step nvcc -O3 -arch=sm_90 -lineinfo --extended-lambda -o "$W/libmix" "$here/libmix.cu" -lcublas -lcufft
step "$W/libmix"
step ncu --set full --import-source yes -f -o "$W/libmix" "$W/libmix"
R="$W/libmix.ncu-rep"
step sh -c "ncu --import $R --csv --page raw --print-units base | gzip -9 > $OUT/libmix_raw_base.csv.gz"
step sh -c "ncu --import $R --csv --page details | gzip -9 > $OUT/libmix_details.csv.gz"
step sh -c "ncu --import $R --csv --page source --print-source cuda,sass | gzip -9 > $OUT/libmix_source.csv.gz"
ls -la "$OUT" >>"$log"
tail -40 "$log"
