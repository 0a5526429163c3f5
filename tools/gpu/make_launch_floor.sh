#!/usr/bin/env bash
# The launch floor on a machine with an NVIDIA GPU, nvcc and ncu: tools/gpu/launch_floor.cu timed
# with CUDA events and profiled with ncu (gpu__time_duration.sum), into $OUT/launch_floor.txt.
set -u
OUT=${OUT:-$PWD/launch_floor_out}; mkdir -p "$OUT"
W=$(mktemp -d); here=$(cd "$(dirname "$0")" && pwd)
nvcc -O3 -arch=sm_90 -o "$W/floor" "$here/launch_floor.cu"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "## CUDA events"; "$W/floor" time
  echo "## ncu"; ncu --metrics gpu__time_duration.sum --csv "$W/floor" 2>&1 | grep -v '^==PROF=='
} >"$OUT/launch_floor.txt" 2>&1
cat "$OUT/launch_floor.txt"
