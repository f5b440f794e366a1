#!/usr/bin/env bash
# Many small files, whole commands: N (default 216) crops of 768x512 cut from IN (a binary PPM, e.g. the 3840x2048
# mosaic) in one folder, HT lossless and Part 1 lossless encoded and decoded as one batch (`mallat encode|decode -i
# DIR`, every core, --device cpu unless DEVICE says otherwise), against OpenJPH (`ojph_compress`/`ojph_expand`) run
# as one process per core over the same files (`xargs -P`), and Grok (`grk_compress`/`grk_decompress`, Part 1
# lossless) both as its own batch (`-y DIR -H CORES`) and as one process per core, where those are on PATH (or
# carried in .gpu/ojph and .gpu/grok). ROUNDS (default 3) rounds, the commands taking turns; ms per batch and per
# image; every mallat decode compared with its original.
# Usage: OUT=DIR bash bench/small_batch.sh MALLAT IN.ppm
set -uo pipefail
M=$1; IN=$2; N=${N:-216}; ROUNDS=${ROUNDS:-3}; DEVICE=${DEVICE:-cpu}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; W=$(mktemp -d)
[ -d "$PWD/.gpu/ojph" ] && export PATH=$PWD/.gpu/ojph/usr/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpu/ojph/lib
[ -d "$PWD/.gpu/grok" ] && export PATH=$PWD/.gpu/grok/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpu/grok/lib:${LD_LIBRARY_PATH:-}
CORES=$(nproc)
python3 - "$IN" "$W/in" "$N" <<'PY'
import os, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
# P6 header: magic, width, height, maxval, then one whitespace byte.
fields, pos = [], 0
while len(fields) < 4:
    while data[pos:pos + 1].isspace(): pos += 1
    start = pos
    while not data[pos:pos + 1].isspace(): pos += 1
    fields.append(data[start:pos])
pos += 1
assert fields[0] == b'P6' and fields[3] == b'255', 'an 8-bit binary PPM'
w, h = int(fields[1]), int(fields[2])
cw, ch = 768, 512
assert w >= cw and h >= ch, 'the image must hold a 768x512 crop'
os.makedirs(out, exist_ok=True)
cols, rows = w // cw, h // ch
for k in range(n):
    x0, y0 = (k % cols) * cw, ((k // cols) % rows) * ch
    crop = b''.join(data[pos + ((y0 + y) * w + x0) * 3: pos + ((y0 + y) * w + x0 + cw) * 3] for y in range(ch))
    open(os.path.join(out, 'c%03d.ppm' % k), 'wb').write(b'P6\n%d %d\n255\n' % (cw, ch) + crop)
PY
ms() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; local rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) $rc"; }
row() { awk -v l="$1" -v m="$2" -v n="$N" -v rc="$3" 'BEGIN {printf "%-44s %6d ms %8.2f ms/image rc=%s\n", l, m, m / n, rc}'; }
for r in $(seq 1 "$ROUNDS"); do
  for kind in ht part1; do
    opt=; ext=j2k; [ $kind = ht ] && { opt=--ht; ext=jph; }
    rm -rf "$W/e_$kind" "$W/d_$kind"
    read -r e rc1 < <(ms "$M" encode -i "$W/in" -o "$W/e_$kind" -OutFor $ext $opt -quiet --device "$DEVICE")
    read -r d rc2 < <(ms "$M" decode -i "$W/e_$kind" -o "$W/d_$kind" -OutFor ppm -quiet --device "$DEVICE")
    row "round $r mallat $kind encode ($DEVICE)" "$e" "$rc1"; row "round $r mallat $kind decode ($DEVICE)" "$d" "$rc2"
  done
  if command -v ojph_compress > /dev/null; then
    rm -rf "$W/oj"; mkdir -p "$W/oj"
    read -r e rc1 < <(ms sh -c "ls $W/in/*.ppm | xargs -P $CORES -I{} sh -c 'ojph_compress -i {} -o $W/oj/\$(basename {} .ppm).j2c -reversible true'")
    read -r d rc2 < <(ms sh -c "ls $W/oj/*.j2c | xargs -P $CORES -I{} sh -c 'ojph_expand -i {} -o {}.ppm'")
    row "round $r OpenJPH encode ($CORES processes)" "$e" "$rc1"; row "round $r OpenJPH decode ($CORES processes)" "$d" "$rc2"
  fi
  if command -v grk_compress > /dev/null; then
    rm -rf "$W/gk" "$W/gd"; mkdir -p "$W/gk" "$W/gd"
    read -r e rc1 < <(ms grk_compress -y "$W/in" -a "$W/gk" -O J2K -H "$CORES")
    read -r d rc2 < <(ms grk_decompress -y "$W/gk" -a "$W/gd" -O PPM -H "$CORES")
    row "round $r Grok encode (-y, -H $CORES)" "$e" "$rc1"; row "round $r Grok decode (-y, -H $CORES)" "$d" "$rc2"
    rm -rf "$W/gk" "$W/gd"; mkdir -p "$W/gk" "$W/gd"
    read -r e rc1 < <(ms sh -c "ls $W/in/*.ppm | xargs -P $CORES -I{} sh -c 'grk_compress -H 1 -i {} -o $W/gk/\$(basename {} .ppm).j2k'")
    read -r d rc2 < <(ms sh -c "ls $W/gk/*.j2k | xargs -P $CORES -I{} sh -c 'grk_decompress -H 1 -i {} -o $W/gd/\$(basename {} .j2k).ppm'")
    row "round $r Grok encode ($CORES processes)" "$e" "$rc1"; row "round $r Grok decode ($CORES processes)" "$d" "$rc2"
    echo "Grok files written: $(ls "$W/gk" | wc -l) codestreams, $(ls "$W/gd" | wc -l) images"
  fi
done | tee "$OUT/small_batch.txt"
bad=0
for kind in ht part1; do
  for f in "$W"/in/*.ppm; do cmp -s "$f" "$W/d_$kind/$(basename "$f")" || bad=$((bad + 1)); done
done
echo "decodes differing from their originals: $bad" | tee -a "$OUT/small_batch.txt"
rm -rf "$W"
