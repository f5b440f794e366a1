#!/usr/bin/env bash
# What fsync and the raster decode change in a batch: N (64) copies of the mosaic,
# the four rows of batch_rows.txt (lossless and -I -r 20, encode and decode) with --device cpu and cuda as
# they run by default (no fsync), the decodes again with --fsync, and, where OLD names another build's mallat (one
# that fsynced every file, such as 203b0b0's), its decodes with an LD_PRELOAD library whose fsync and
# sync_file_range return at once; ROUNDS (3) alternated rounds, wall ms of the 64 files, every output of the first
# round compared with the CPU path's; then a MALLAT_TIMELINE pass of the lossy decodes (timeline_summary.py).
# Usage, from the repository root on the GPU machine with .gpu/mosaic.ppm:
#   [OLD=/path/to/old/mallat] bash bench/batch_fsync.sh [ROUNDS]
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ROUNDS=${1:-3}
B=${BUILD:-build-gpu}
. bench/timing.sh
ensure_mallat "$B" || exit 1
M=$PWD/$B/tools/mallat
O=${OLD:-}
W=$(mktemp -d)
printf '#include <sys/types.h>\nint fsync(int fd) { (void)fd; return 0; }\nint sync_file_range(int fd, off_t a, off_t b, unsigned f) { (void)fd; (void)a; (void)b; (void)f; return 0; }\n' > "$W/nofsync.c"
gcc -O2 -shared -fPIC -o "$W/nofsync.so" "$W/nofsync.c"
P="LD_PRELOAD=$W/nofsync.so"
rm -rf /tmp/in; mkdir -p /tmp/in; for i in $(seq -f %03g 1 "${N:-64}"); do cp ${IMG:-.gpu/mosaic.ppm} /tmp/in/m$i.ppm; done
$M encode -i /tmp/in -o /tmp/ref_e -OutFor j2k -threads 16 -quiet --device cpu
$M encode -i /tmp/in -o /tmp/ref_l -OutFor j2k -I -r 20 -threads 16 -quiet --device cpu
$M decode -i /tmp/ref_e -o /tmp/ref_d -OutFor ppm -threads 16 -quiet --device cpu
$M decode -i /tmp/ref_l -o /tmp/ref_y -OutFor ppm -threads 16 -quiet --device cpu
sync
T=$OUT/fsync_times.txt; : > "$T"; S=$OUT/fsync_same.txt; : > "$S"
run() {  # round label kind mallat device environment extra
  local round=$1 label=$2 kind=$3 exe=$4 d=$5 env_=$6 extra=$7 s e ext bad f
  rm -rf /tmp/o; sync
  s=$(date +%s%N)
  case $kind in
    e) env $env_ $exe encode -i /tmp/in -o /tmp/o -OutFor j2k -threads 16 -quiet --device $d $extra ;;
    l) env $env_ $exe encode -i /tmp/in -o /tmp/o -OutFor j2k -I -r 20 -threads 16 -quiet --device $d $extra ;;
    d) env $env_ $exe decode -i /tmp/ref_e -o /tmp/o -OutFor ppm -threads 16 -quiet --device $d $extra ;;
    y) env $env_ $exe decode -i /tmp/ref_l -o /tmp/o -OutFor ppm -threads 16 -quiet --device $d $extra ;;
  esac
  e=$(date +%s%N)
  echo "$label $(( (e - s) / 1000000 ))" >> "$T"
  ext=j2k; case $kind in d|y) ext=ppm ;; esac
  if [ "$round" = 1 ]; then
    bad=0; for f in /tmp/ref_$kind/*.$ext; do cmp -s "$f" "/tmp/o/$(basename "$f")" || bad=$((bad + 1)); done
    echo "$label: outputs differing from the CPU path's: $bad" >> "$S"
  fi
}
for r in $(seq 1 "$ROUNDS"); do
  for k in e l d y; do for d in cpu cuda; do run $r ${k}_$d $k $M $d X=1 ""; done; done
  for k in d y; do for d in cpu cuda; do
    run $r ${k}_${d}_fsync $k $M $d X=1 --fsync
    [ -n "$O" ] && run $r ${k}_${d}_old $k $O $d "$P" ""
  done; done
done
mkdir -p /tmp/tl; rm -f /tmp/tl/*
for d in cpu cuda; do
  rm -rf /tmp/o; MALLAT_TIMELINE=/tmp/tl/y_$d.csv $M decode -i /tmp/ref_l -o /tmp/o -OutFor ppm -threads 16 -quiet --device $d
  if [ -n "$O" ]; then
    rm -rf /tmp/o; env $P MALLAT_TIMELINE=/tmp/tl/y_${d}_old.csv $O decode -i /tmp/ref_l -o /tmp/o -OutFor ppm -threads 16 -quiet --device $d
  fi
done
python3 bench/timeline_summary.py /tmp/tl/*.csv > "$OUT/fsync_timeline_summary.txt" 2>&1
echo "wall ms of the batch, each round:" > "$OUT/fsync_table.txt"
awk '{a[$1]=a[$1]" "$2} END {for (k in a) print k, a[k]}' "$T" | sort >> "$OUT/fsync_table.txt"
rm -rf "$W"
cat "$S" "$OUT/fsync_table.txt"
