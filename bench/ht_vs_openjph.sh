#!/usr/bin/env bash
# HT lossless, whole processes, mallat against OpenJPH in one run, the commands taking turns round by round:
# mallat --ht on 1 thread and on every core, ojph_compress -reversible true / ojph_expand (1 thread: it has no
# others). Prints the median wall and user+sys seconds of each and checks both round trips.
#
# usage: OUT=DIR bash bench/ht_vs_openjph.sh MALLAT IN.ppm [ROUNDS]
# (OpenJPH from PATH, or from .gpu/ojph as the lent GPU machine has it: .gpu/README)
set -uo pipefail
[ $# -ge 2 ] && [ -x "$1" ] && [ -r "$2" ] || { echo "usage: OUT=DIR bash bench/ht_vs_openjph.sh MALLAT IN.ppm [ROUNDS] (MALLAT an executable, IN a readable image)" >&2; exit 2; }
M=$1
IN=$2
ROUNDS=${3:-7}
OUT=${OUT:-$(mktemp -d)}
[ -d .gpu/ojph ] && export PATH=$PWD/.gpu/ojph/usr/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpu/ojph/lib
command -v ojph_compress > /dev/null || { echo "ojph_compress not found (Debian: apt-get install openjph-tools)"; exit 1; }
W=$(mktemp -d)
. "$(dirname "$0")/timing.sh"
: > "$OUT/errors.log"
R=$OUT/ht_vs_openjph.txt
: > "$R"
for i in $(seq "$ROUNDS"); do
  rm -f "$W"/*; once "$R" mallat_encode_1t "$M" encode -i "$IN" -o "$W/m.jhc" --ht -threads 1
  once "$R" ojph_encode ojph_compress -i "$IN" -o "$W/o.j2c" -reversible true
  once "$R" mallat_decode_1t "$M" decode -i "$W/m.jhc" -o "$W/m.ppm" -threads 1
  once "$R" ojph_decode ojph_expand -i "$W/o.j2c" -o "$W/o.ppm"
  rm -f "$W/m.ppm"; once "$R" mallat_encode_all "$M" encode -i "$IN" -o "$W/a.jhc" --ht
  once "$R" mallat_decode_all "$M" decode -i "$W/a.jhc" -o "$W/m.ppm"
done
echo "$(nproc) cores; $(basename "$IN"): mallat $(stat -c %s "$W/m.jhc") bytes, OpenJPH $(stat -c %s "$W/o.j2c")"
cmp -s "$W/m.ppm" "$IN" && echo "mallat round trip exact" || echo "mallat round trip DIFFERS"
cmp -s "$W/o.ppm" "$IN" && echo "OpenJPH round trip exact" || echo "OpenJPH round trip DIFFERS"
for label in mallat_encode_1t ojph_encode mallat_decode_1t ojph_decode mallat_encode_all mallat_decode_all; do
  printf "%-18s wall %.3f s, user+sys %.2f s (medians of %s)\n" "$label" \
    "$(awk -v l=$label '$1 == l {print $2}' "$R" | med)" "$(awk -v l=$label '$1 == l {print $3}' "$R" | med)" "$ROUNDS"
done
rm -rf "$W"
