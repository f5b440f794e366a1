#!/usr/bin/env bash
# Device run for one file through --device cuda (issue 15; conformance/device_bench/README.md): builds with CUDA,
# runs the GPU tests, then times whole processes, median of 5 (wall and user+sys seconds): the 3840x2048 mosaic
# and the mosaic stacked 4 and 8 times (3840x8192, 3840x16384), with --device cpu, cuda, and cuda with
# --device-share 0 (CUDA started, every block on the CPU: what the start-up alone costs the CPU path).
# Usage, from the repository root on the GPU machine: bash conformance/device_bench/hybrid_single.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=$OUT/single.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; uptime; } > "$R"
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
  -DMALLAT_TIFF=OFF > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
cmake --build $B -j16 --target mallat encode_cuda_test entropy_cuda_test hybrid_block_encoder_test batch_cli_test \
  > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
(cd $B && ctest -L gpu -j4 2>&1 | tail -3; ctest -R 'Hybrid|BatchCli' -j8 2>&1 | tail -3) >> "$R"
M=$PWD/$B/tools/mallat
# stack N: the mosaic N times one under the other, as one PPM.
stack() {
  local n=$1 out=/tmp/stack$1.ppm
  printf 'P6\n3840 %d\n255\n' $((2048 * n)) > $out
  for _ in $(seq 1 "$n"); do tail -c $((3840 * 2048 * 3)) .gpu/mosaic.ppm >> $out; done
}
stack 4; stack 8
median() {  # median N LABEL COMMAND...
  local runs=$1 label=$2; shift 2
  local rows=""
  for _ in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    ( TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>> "$OUT/errors.log" ) 2> "$OUT/t.tmp"
    t1=$(date +%s.%N)
    rows+="$(awk -v a="$t0" -v b="$t1" '{printf "%.3f %.3f\n", b-a, $1+$2}' "$OUT/t.tmp")"$'\n'
  done
  printf "%s" "$rows" | sort -n | awk -v l="$label" -v n="$runs" -v c="$*" 'NR==int((n+1)/2){printf "%-30s median wall %.3f s, user+sys %.2f s  (%s)\n", l, $1, $2, c}' >> "$R"
  printf "%s" "$rows" | awk -v l="$label" '{w=w" "$1} END{print "  " l " walls:" w}' >> "$R"
}
for img in .gpu/mosaic.ppm /tmp/stack4.ppm /tmp/stack8.ppm; do
  n=5; [ $img = /tmp/stack8.ppm ] && n=3
  for dev in "cpu" "cuda" "cuda --device-share 0"; do
    median $n "$(basename $img) $dev" $M encode -i $img -o /tmp/e.j2k --device $dev -threads 16
  done
  $M encode -i $img -o /tmp/c.j2k --device cpu -threads 16 && $M encode -i $img -o /tmp/g.j2k --device cuda -threads 16 \
    && cmp /tmp/c.j2k /tmp/g.j2k && echo "$(basename $img): cuda == cpu" >> "$R"
done
$M bench codec /tmp/stack4.ppm --runs 3 --device cuda -threads 16 > "$OUT/bench4.txt" 2>&1
$M bench codec /tmp/stack4.ppm --runs 3 --device cpu -threads 16 >> "$OUT/bench4.txt" 2>&1
cat "$R"
