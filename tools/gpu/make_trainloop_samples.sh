#!/usr/bin/env bash
# Profile whole training runs (tools/gpu/trainloop.py, several steps) for warpscope's run-level
# advice, and time the same loop unprofiled with each optimizer, on a machine with a GPU and ncu.
# Writes to $OUT: the raw (base units) and details pages of each profile, gzipped, and a log.
# TIME=0 skips the timing runs; OPTS="loop fused" picks the optimizers profiled; LIMIT caps each
# ncu run in seconds (the samples: fused with the Occupancy section too, all 3 steps; loop with
# LIMIT=200, which stopped it during step 2).
set -u
OUT=${OUT:-$PWD/trainloop_out}; mkdir -p "$OUT"
repo=$(cd "$(dirname "$0")/../.." && pwd); W=$(mktemp -d)
log="$OUT/trainloop_log.txt"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ncu --version; python3 -c "import torch; print('torch', torch.__version__)"; } >>"$log" 2>&1
[ "${TIME:-1}" = 1 ] && for opt in loop foreach fused; do
  python3 "$repo/tools/gpu/trainloop.py" --optimizer $opt --steps 50 --time >>"$log" 2>&1
done
# few replay passes per launch (the full sections take ten passes, 0.4 s a launch, and a step of
# the per-parameter optimizer is over 400 launches); OPTS picks the optimizers
for opt in ${OPTS:-loop fused}; do
  timeout ${LIMIT:-240} ncu --section LaunchStats \
    --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed \
    -f -o "$W/trainloop_$opt" python3 "$repo/tools/gpu/trainloop.py" --optimizer $opt --steps 3 >>"$log" 2>&1
  ncu --import "$W/trainloop_$opt.ncu-rep" --csv --page raw --print-units base | gzip -9 >"$OUT/trainloop_${opt}_raw_base.csv.gz"
  ncu --import "$W/trainloop_$opt.ncu-rep" --csv --page details | gzip -9 >"$OUT/trainloop_${opt}_details.csv.gz"
done
ls -la "$W" "$OUT" >>"$log"
