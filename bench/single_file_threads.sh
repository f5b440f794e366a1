#!/usr/bin/env bash
# One file on many threads: HT lossless encode and decode (to PPM) of one image by two builds, per thread count,
# and where each build's time goes.
#
# usage: OUT=DIR bash bench/single_file_threads.sh OLD_MALLAT NEW_MALLAT IN.ppm [ROUNDS] [THREADS...]
#
# For each thread count N (default 1 2 4 8 16), under `taskset -c 0-(N-1)`, ROUNDS rounds (default 7) in which the
# two builds take turns (the order alternating by round): `encode --ht -threads N` of IN, then `decode -threads N`
# of the old build's file, each the default path, `--whole-image` and (decode) `--streamed`. Prints the median wall
# seconds of each and its speed-up over the same build's one thread; checks that every file and decode equals the
# old build's default one. Then one run of each build with MALLAT_TIMELINE at 1 thread and at the largest N, summed
# per span (strip_rows: the encode's strip reading; strip_dwt: a component's DWT of a strip; strip_blocks: a step's
# blocks with its beside work; tier2; row_blocks: a decode's batch of blocks; blocks_wait: the decode's inverse DWT
# waiting for blocks), in $OUT/stages.txt.
set -uo pipefail
[ $# -ge 3 ] && [ -x "$1" ] && [ -x "$2" ] && [ -r "$3" ] ||
  { echo "usage: OUT=DIR bash bench/single_file_threads.sh OLD_MALLAT NEW_MALLAT IN.ppm [ROUNDS] [THREADS...]" >&2; exit 2; }
OLD=$1
NEW=$2
IN=$3
ROUNDS=${4:-7}
shift $(($# < 4 ? $# : 4))
THREADS=${*:-1 2 4 8 16}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
W=$(mktemp -d)
. "$(dirname "$0")/timing.sh"
: > "$OUT/errors.log"
T=$OUT/times.txt
: > "$T"
"$OLD" encode -i "$IN" -o "$W/ref.jhc" --ht -quiet || exit 1
"$OLD" decode -i "$W/ref.jhc" -o "$W/ref.ppm" -quiet || exit 1
bad=0
check() { cmp -s "$1" "$2" || { echo "differs: $3" >&2; bad=$((bad + 1)); }; }
for n in $THREADS; do
  cpus=0-$((n - 1))
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for b in $order; do
      if [ "$b" = old ]; then M=$OLD; else M=$NEW; fi
      for path in default whole-image; do
        flag=; [ "$path" = default ] || flag=--$path
        rm -f "$W/e.jhc"
        s=$(t taskset -c "$cpus" "$M" encode -i "$IN" -o "$W/e.jhc" --ht -threads "$n" -quiet $flag)
        echo "$b encode $path $n $s" >> "$T"
        check "$W/e.jhc" "$W/ref.jhc" "$b encode $path $n"
      done
      for path in default whole-image streamed; do
        flag=; [ "$path" = default ] || flag=--$path
        rm -f "$W/d.ppm"
        s=$(t taskset -c "$cpus" "$M" decode -i "$W/ref.jhc" -o "$W/d.ppm" -threads "$n" -quiet $flag)
        echo "$b decode $path $n $s" >> "$T"
        check "$W/d.ppm" "$W/ref.ppm" "$b decode $path $n"
      done
    done
  done
done
echo "median wall seconds (speed-up over the build's own one thread, same path)"
for b in old new; do
  for what in "encode default" "encode whole-image" "decode default" "decode whole-image" "decode streamed"; do
    line="$b $what:"
    one=
    for n in $THREADS; do
      m=$(awk -v k="$b $what $n" '$1" "$2" "$3" "$4 == k {print $5}' "$T" | med)
      [ -z "$one" ] && one=$m
      line="$line  $n: $(awk -v m="$m" -v o="$one" 'BEGIN {printf "%.3f (%.1fx)", m, o / m}')"
    done
    echo "$line"
  done
done
S=$OUT/stages.txt
: > "$S"
last=${THREADS##* }
for b in old new; do
  if [ "$b" = old ]; then M=$OLD; else M=$NEW; fi
  for n in 1 "$last"; do
    rm -f "$W/e.jhc" "$W/d.ppm"
    MALLAT_TIMELINE=$W/enc.csv taskset -c "0-$((n - 1))" "$M" encode -i "$IN" -o "$W/e.jhc" --ht -threads "$n" -quiet
    MALLAT_TIMELINE=$W/dec.csv taskset -c "0-$((n - 1))" "$M" decode -i "$W/ref.jhc" -o "$W/d.ppm" -threads "$n" -quiet
    for what in enc dec; do
      awk -F, -v l="$b $what $n threads:" 'NR > 1 {s[$3] += $5 - $4; if (!f || $4 < f) f = $4; if ($5 > e) e = $5}
        END {printf "%s first span to last %.1f ms;", l, e - f; for (k in s) printf " %s %.1f", k, s[k]; print ""}' \
        "$W/$what.csv" >> "$S"
    done
  done
done
cat "$S"
echo "outputs that differ from the old build's: $bad"
rm -rf "$W"
