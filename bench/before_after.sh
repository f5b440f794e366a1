#!/usr/bin/env bash
# This tree's GPU batches against another tree's, fairly, on one host: the four rows (lossless and
# -I -r 20 encode, decode of each), 64 copies of the mosaic (N), ROUNDS (3) rounds; per row the CPU path, then a GPU
# run that is not counted (the first GPU run after a long CPU run is slower), then
# this tree's and the other's GPU runs in an order that alternates by round. Per run the wall time, the first and
# last output's rename from the start and the time after the last (as batch_edges.sh); outputs of the first round
# compared with the CPU path's. Both mallat binaries are built here (Release, CUDA, sm_90; this tree with -Werror).
# Usage, from the repository root on the GPU machine with .gpu/mosaic.ppm:
#   bash bench/before_after.sh OLD.tgz [ROUNDS]   (OLD.tgz: `git archive --format=tar.gz REV`)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; W=$OUT
OLD_TGZ=${1:?usage: before_after.sh OLD.tgz [ROUNDS]}
ROUNDS=${2:-3}
B=${BUILD:-build-gpu}
. bench/timing.sh
{ nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader; nproc; date -u; } > $W/env.txt
rm -rf /tmp/old; mkdir -p /tmp/old; tar -xzf "$OLD_TGZ" -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF -DMALLAT_TIFF=OFF"
( cmake -S . -B $B $F -DMALLAT_WERROR=ON > $W/cfg.log 2>&1 && cmake --build $B -j8 --target mallat > $W/build.log 2>&1 ) &
( cmake -S /tmp/old -B /tmp/old/b $F > $W/old_cfg.log 2>&1 && cmake --build /tmp/old/b -j8 --target mallat > $W/old_build.log 2>&1 ) &
wait
NEW=$PWD/$B/tools/mallat; OLD=/tmp/old/b/tools/mallat
[ -x $NEW ] && [ -x $OLD ] || { echo build failed; grep -E "error" -A3 $W/build.log $W/old_build.log | head -40; exit 1; }
rm -rf /tmp/in; mkdir -p /tmp/in; for i in $(seq -f %03g 1 "${N:-64}"); do cp ${IMG:-.gpu/mosaic.ppm} /tmp/in/m$i.ppm; done
$NEW encode -i /tmp/in -o /tmp/ref_e -OutFor j2k -threads 16 -quiet --device cuda
$NEW encode -i /tmp/in -o /tmp/ref_l -OutFor j2k -I -r 20 -threads 16 -quiet --device cuda
E=$W/edges.txt; : > "$E"; S=$W/same.txt; : > "$S"
run1() {  # round label kind binary options...
  local round=$1 label=$2 kind=$3 m=$4 s e ext bad f
  shift 4
  rm -rf /tmp/o; mkdir -p /tmp/o; sync
  s=$(date +%s%N)
  case $kind in
    e) $m encode -i /tmp/in -o /tmp/o -OutFor j2k -threads 16 -quiet "$@"; ext=j2k ;;
    l) $m encode -i /tmp/in -o /tmp/o -OutFor j2k -I -r 20 -threads 16 -quiet "$@"; ext=j2k ;;
    d) $m decode -i /tmp/ref_e -o /tmp/o -OutFor ppm -threads 16 -quiet "$@"; ext=ppm ;;
    y) $m decode -i /tmp/ref_l -o /tmp/o -OutFor ppm -threads 16 -quiet "$@"; ext=ppm ;;
  esac
  e=$(date +%s%N)
  [ "$label" = warm ] && return
  edges_line "$label" "$s" "$e" /tmp/o >> "$E"
  if [ "$label" = "${kind}_cpu" ] && [ "$round" = 1 ]; then rm -rf /tmp/ref_$kind.out; cp -r /tmp/o /tmp/ref_$kind.out; fi
  if [ "$round" = 1 ] && [ "$label" != "${kind}_cpu" ]; then
    bad=0; for f in /tmp/ref_$kind.out/*.$ext; do cmp -s "$f" "/tmp/o/$(basename "$f")" || bad=$((bad + 1)); done
    echo "$label: differing from cpu: $bad" >> "$S"
  fi
}
for r in $(seq 1 "$ROUNDS"); do
  for k in e l d y; do
    run1 $r ${k}_cpu $k $NEW --device cpu
    run1 $r warm $k $NEW --device cuda
    if [ $((r % 2)) = 1 ]; then run1 $r ${k}_new $k $NEW --device cuda; run1 $r ${k}_old $k $OLD --device cuda
    else run1 $r ${k}_old $k $OLD --device cuda; run1 $r ${k}_new $k $NEW --device cuda; fi
  done
done
echo "wall ms, first and last rename from the start, exit after the last rename:" > $W/table.txt
edges_table "$E" >> $W/table.txt
cat $S $W/table.txt
