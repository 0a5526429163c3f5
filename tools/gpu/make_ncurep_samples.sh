#!/usr/bin/env bash
# Make the .ncu-rep reports warpscope's report reader is tested against, on a machine with an
# NVIDIA GPU, nvcc and ncu, and export each one's raw (base units), details and source pages
# with the same ncu, so the reader can be compared with Nsight Compute's own export.
# Everything lands in $OUT (or ./ncurep_samples_out) as a few tarballs (reports, exports) and a log.
set -u
OUT=${OUT:-$PWD/ncurep_samples_out}; mkdir -p "$OUT"
W=$(mktemp -d); repo=$(cd "$(dirname "$0")/../.." && pwd)
log="$OUT/ncurep_make_log.txt"
step() { echo "### $*" >>"$log"; "$@" >>"$log" 2>&1; echo "### rc=$?" >>"$log"; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ncu --version; nvcc --version; } >"$W/versions.txt" 2>&1
cp "$W/versions.txt" "$OUT/"
mkdir -p "$W/rep" "$W/csv"
step nvcc -O3 -arch=sm_90 -lineinfo -o "$W/seed" "$repo/sample_traces/h100/seedkernels.cu"
# 1. every section of every seed launch, with the CUDA source
step ncu --set full --import-source yes -f -o "$W/rep/seed_full" "$W/seed"
# 2. two processes in one report (the transposes of each), the basic set
step ncu --target-processes all -k regex:transpose --set basic -f -o "$W/rep/two_processes" sh -c "$W/seed; $W/seed"
# 3. several sections and metrics chosen one by one, the first 8 launches
step ncu --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section WarpStateStats \
  --section SourceCounters --metrics smsp__sass_inst_executed.sum,dram__bytes_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
  -c 8 -f -o "$W/rep/several_sections" "$W/seed"
# 4. a PyTorch step: library kernels, repeated launches, the first 12 launches, full set
if [ -f "$repo/tools/gpu/cnnstep.py" ]; then
  step ncu --set full -c 12 -f -o "$W/rep/cnn_first12" python3 "$repo/tools/gpu/cnnstep.py"
fi
for R in "$W"/rep/*.ncu-rep; do
  b=$(basename "$R" .ncu-rep)
  step sh -c "ncu --import $R --csv --page raw --print-units base > $W/csv/${b}_raw_base.csv"
  step sh -c "ncu --import $R --csv --page details > $W/csv/${b}_details.csv"
  step sh -c "ncu --import $R --csv --page session > $W/csv/${b}_session.csv"
done
step sh -c "ncu --import $W/rep/seed_full.ncu-rep --csv --page source --print-source cuda,sass > $W/csv/seed_full_source_cuda_sass.csv"
step sh -c "ncu --import $W/rep/seed_full.ncu-rep --csv --page source --print-source sass > $W/csv/seed_full_source_sass.csv"
ls -la "$W/rep" "$W/csv" >>"$log"
# The report format's message definitions, for reading field names and numbers (not shipped).
d=$(find / -xdev -type d -path "*extras/FileFormat" 2>/dev/null | head -1)
[ -n "$d" ] && tar czf "$OUT/fileformat.tgz" -C "$(dirname "$d")" FileFormat
tar cf - -C "$W" rep csv | gzip -9 | split -b 15m - "$OUT/samples.tgz.part-"
ls -la "$OUT" >>"$log"
tail -60 "$log"
