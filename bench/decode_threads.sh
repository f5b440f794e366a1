#!/usr/bin/env bash
# Whole-image against streamed decode by thread count: where `mallat decode`'s
# rule (tools/decode_streamed.cc, kStreamFromSamples) should switch.
#
# usage: OUT=DIR bash bench/decode_threads.sh MALLAT IN.ppm [ROUNDS] [THREADS...]
#
# Encodes IN five ways (HT lossless --ht, Part 1 lossless, Part 1 -I -r 20,
# HT --ht -I -r 20, and the 5/3 truncated: Part 1 -r 20),
# then for each thread count N decodes each file with `-threads N --whole-image`
# and `-threads N --streamed` under `taskset -c 0-(N-1)` (a machine of N
# cores), ROUNDS rounds (default 7), the two in an order that alternates by
# round, each output a fresh file (the old one removed untimed: replacing a
# large file costs its pages). Prints the median wall seconds per file, thread
# count and path; checks every output against the CPU path's first.
set -uo pipefail
[ $# -ge 2 ] && [ -x "$1" ] && [ -r "$2" ] || { echo "usage: OUT=DIR bash bench/decode_threads.sh MALLAT IN.ppm [ROUNDS] [THREADS...] (MALLAT an executable, IN a readable image)" >&2; exit 2; }
M=$1
IN=$2
ROUNDS=${3:-7}
shift $(($# < 3 ? $# : 3))
THREADS=${*:-1 2 3 4 6 8 12 16}
OUT=${OUT:-$(mktemp -d)}
W=$(mktemp -d)
. "$(dirname "$0")/timing.sh"
: > "$OUT/errors.log"
R=$OUT/decode_threads.txt
: > "$R"
"$M" encode -i "$IN" -o "$W/ht.jhc" --ht -quiet || exit 1
"$M" encode -i "$IN" -o "$W/p1.j2k" -quiet || exit 1
"$M" encode -i "$IN" -o "$W/lossy.j2k" -I -r 20 -quiet || exit 1
"$M" encode -i "$IN" -o "$W/htlossy.jhc" --ht -I -r 20 -quiet || exit 1
"$M" encode -i "$IN" -o "$W/lossy53.j2k" -r 20 -quiet || exit 1
FILES="ht.jhc p1.j2k lossy.j2k htlossy.jhc lossy53.j2k"
for f in $FILES; do "$M" decode -i "$W/$f" -o "$W/ref_$f.ppm" -quiet --whole-image || exit 1; done
bad=0
for n in $THREADS; do
  cpus=0-$((n - 1))
  for r in $(seq "$ROUNDS"); do
    for f in $FILES; do
      if [ $((r % 2)) -eq 1 ]; then order="whole streamed"; else order="streamed whole"; fi
      for path in $order; do
        rm -f "$W/o.ppm"
        once "$R" "${f%%.*}_t${n}_$path" taskset -c "$cpus" "$M" decode -i "$W/$f" -o "$W/o.ppm" -threads "$n" \
          -quiet "--$([ "$path" = whole ] && echo whole-image || echo streamed)"
        cmp -s "$W/o.ppm" "$W/ref_$f.ppm" || bad=$((bad + 1))
      done
    done
  done
done
medians_table "$R" 1 | sed 's/ms\/image/ms/' | sort -t_ -k1,1 -k2.2n
echo "outputs different from the whole-image decode: $bad"
rm -rf "$W"
