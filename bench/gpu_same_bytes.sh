#!/usr/bin/env bash
# --device cuda against --device cpu, byte for byte: each PPM of DIR encoded alone (with --device-share 1, so that one
# file uses the device) and the folder as a batch, with each of several option sets (lossless, -I -r 20, HT lossless,
# lossy and vertically causal, every mode switch, a PSNR target), then the batch's files decoded both ways; and HT
# under size and quality targets with the tiles on the device whole (--device-stages all). Prints one
# line per option set and the number of files that differ (0 expected: the GPU path gives the CPU path's bytes);
# timings are not taken.
# Usage, on a machine with a GPU:  bash bench/gpu_same_bytes.sh MALLAT DIR
set -uo pipefail
M=${1:?usage: gpu_same_bytes.sh MALLAT DIR}
IN=${2:?usage: gpu_same_bytes.sh MALLAT DIR}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t=$(mktemp -d)
bad=0
for o in "" "-I -r 20" "--ht" "--ht -I -r 20" "--ht -M 8" "-M 63" "-I -q 40"; do
  # shellcheck disable=SC2086
  for f in "$IN"/*.ppm; do
    b=$(basename "$f" .ppm)
    $M encode -i "$f" -o "$t/$b.cpu.j2k" $o -quiet --device cpu
    $M encode -i "$f" -o "$t/$b.gpu.j2k" $o -quiet --device cuda --device-share 1
    cmp -s "$t/$b.cpu.j2k" "$t/$b.gpu.j2k" || { echo "differs: one-file encode of $b [$o]"; bad=$((bad + 1)); }
  done
  rm -rf "$t/ec" "$t/eg" "$t/dc" "$t/dg"
  # shellcheck disable=SC2086
  $M encode -i "$IN" -o "$t/ec" -OutFor j2k $o -quiet --device cpu
  # shellcheck disable=SC2086
  $M encode -i "$IN" -o "$t/eg" -OutFor j2k $o -quiet --device cuda
  for f in "$t"/ec/*.j2k; do
    cmp -s "$f" "$t/eg/$(basename "$f")" || { echo "differs: batch encode of $(basename "$f") [$o]"; bad=$((bad + 1)); }
  done
  $M decode -i "$t/ec" -o "$t/dc" -OutFor ppm -quiet --device cpu
  $M decode -i "$t/ec" -o "$t/dg" -OutFor ppm -quiet --device cuda
  for f in "$t"/dc/*.ppm; do
    cmp -s "$f" "$t/dg/$(basename "$f")" || { echo "differs: batch decode of $(basename "$f") [$o]"; bad=$((bad + 1)); }
  done
  echo "options [$o]: $(find "$t/eg" -name '*.j2k' | wc -l) files encoded, $(find "$t/dg" -name '*.ppm' | wc -l) decoded with --device cuda"
done
# HT under a target with the tiles on the device whole (--device-stages all: the default placement keeps these on
# the CPU): rate control by estimates keeps each one-tile image's indices on the device through its rounds. One file
# (read whole for the runner: codec::streamed_encode_feeds_device) and the folder as a batch.
for o in "--ht -I -r 20" "--ht -I --bpp 1" "--ht -I -q 40" "--ht -r 8"; do
  for f in "$IN"/*.ppm; do
    b=$(basename "$f" .ppm)
    # shellcheck disable=SC2086
    $M encode -i "$f" -o "$t/$b.cpu.j2k" $o -quiet --device cpu
    # shellcheck disable=SC2086
    $M encode -i "$f" -o "$t/$b.gpu.j2k" $o -quiet --device cuda --device-stages all
    cmp -s "$t/$b.cpu.j2k" "$t/$b.gpu.j2k" || { echo "differs: whole-tile encode of $b [$o]"; bad=$((bad + 1)); }
  done
  rm -rf "$t/ec" "$t/eg"
  # shellcheck disable=SC2086
  $M encode -i "$IN" -o "$t/ec" -OutFor j2k $o -quiet --device cpu
  # shellcheck disable=SC2086
  $M encode -i "$IN" -o "$t/eg" -OutFor j2k $o -quiet --device cuda --device-stages all
  for f in "$t"/ec/*.j2k; do
    cmp -s "$f" "$t/eg/$(basename "$f")" || { echo "differs: whole-tile batch of $(basename "$f") [$o]"; bad=$((bad + 1)); }
  done
  echo "options [$o --device-stages all]: $(find "$t/eg" -name '*.j2k' | wc -l) files encoded with --device cuda"
done
echo "--device cuda against --device cpu: $bad differing" | tee "$OUT/same.txt"
rm -rf "$t"
[ "$bad" = 0 ]
