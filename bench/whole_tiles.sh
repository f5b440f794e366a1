#!/usr/bin/env bash
# Whole tiles on the device (codec/stages/device_tile_stages.h) against the CPU path and the
# hybrid coder (--device-stages tier1): a batch of N (default 64) copies of the 3840x2048 mosaic, lossless encode,
# -threads 16, the three alternated for ROUNDS rounds (default 2), every output compared with --device cpu's; then
# one timeline pass of each cuda variant (MALLAT_TIMELINE, timeline_summary.py). Needs .gpu/mosaic.ppm and a build
# with CUDA. Usage, from the repository root: [N=64] [ROUNDS=2] bash .../whole_tiles.sh MALLAT [EXTRA ENCODE OPTIONS]
set -uo pipefail
M=$1; shift
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
N=${N:-64}; ROUNDS=${ROUNDS:-2}
. bench/timing.sh
W=/tmp/wt; rm -rf $W; mkdir -p $W/in
for i in $(seq -f %02g 1 $N); do cp .gpu/mosaic.ppm $W/in/m$i.ppm; done
run() {  # run VARIANT: one whole batch into $W/VARIANT
  local v=$1 args
  shift
  case $v in
    cpu) args="--device cpu" ;;
    all) args="--device cuda --device-stages all" ;;
    tier1) args="--device cuda --device-stages tier1" ;;
  esac
  rm -rf $W/$v
  timed $M encode -i $W/in -o $W/$v -OutFor j2k "$@" $args -threads 16 -quiet
  awk -v l="$v" -v w="$WALL" -v c="$CPU" -v n="$N" \
    'BEGIN {printf "%-6s wall %.2f s (%.1f ms/image), user+sys %.1f s\n", l, w, w * 1000 / n, c}'
}
echo "== $N files, lossless encode $*, -threads 16, $ROUNDS rounds alternated"
for r in $(seq 1 $ROUNDS); do for v in cpu all tier1; do run $v "$@"; done; done
for v in all tier1; do echo "$v == cpu: $([ "$(same $W/$v $W/cpu j2k)" = 0 ] && echo yes || echo no)"; done
for v in all tier1; do
  rm -rf $W/$v
  MALLAT_TIMELINE=$OUT/timeline_$v.csv run $v "$@" > /dev/null
  echo "== timeline, $v"
  python3 bench/timeline_summary.py $OUT/timeline_$v.csv 2>&1 | head -40
done
rm -rf $W
