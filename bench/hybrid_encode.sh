#!/usr/bin/env bash
# Device run for the hybrid Tier-1 encoder (bench/README.md): builds with CUDA,
# runs the GPU tests and the hybrid coder's tests, then times whole processes (median of 5, wall and
# user+sys seconds): one file encoded and decoded with --device cpu and cuda, `mallat bench codec` with
# the DWT on the CPU and on the device, a batch of 32 copies, and opj_compress -ImgDir on 8 copies.
# Usage, from the repository root on the GPU machine: bash bench/hybrid_encode.sh [quick|single]
# ("quick": the tests and the single-file and bench codec timings only; "single": the tests, then one file of
# the mosaic and of the mosaic stacked 4 and 8 times, cpu, cuda and cuda with --device-share 0).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=$OUT/hybrid.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; uptime; } > "$R"
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
  -DMALLAT_TIFF=OFF > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
cmake --build $B -j16 --target mallat encode_cuda_test entropy_cuda_test hybrid_block_encoder_test batch_cli_test \
  > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
(cd $B && ctest -L gpu -j4 2>&1 | tail -3; ctest -R 'Hybrid|BatchCli' -j8 2>&1 | tail -3) >> "$R"
M=$PWD/$B/tools/mallat
IMG=.gpu/mosaic.ppm
# median N LABEL COMMAND...: N whole processes; the median wall, user and sys seconds.
median() {
  local runs=$1 label=$2; shift 2
  local rows=""
  for _ in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    ( TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>> "$OUT/errors.log" ) 2> "$OUT/t.tmp"
    t1=$(date +%s.%N)
    rows+="$(awk -v a="$t0" -v b="$t1" '{printf "%.3f %.3f\n", b-a, $1+$2}' "$OUT/t.tmp")"$'\n'
  done
  printf "%s" "$rows" | sort -n | awk -v l="$label" -v n="$runs" -v c="$*" 'NR==int((n+1)/2){printf "%-34s median wall %.3f s, user+sys %.2f s  (%s)\n", l, $1, $2, c}' >> "$R"
  printf "%s" "$rows" | awk -v l="$label" '{w=w" "$1} END{print "  " l " walls:" w}' >> "$R"
}
if [ "${1:-}" = single ]; then
  # One file, larger: the mosaic stacked 4 and 8 times (3840x8192, 3840x16384); cuda with --device-share 0
  # starts CUDA and codes every block on the CPU (what the start-up alone costs the CPU path).
  for n in 4 8; do
    printf 'P6\n3840 %d\n255\n' $((2048 * n)) > /tmp/stack$n.ppm
    for _ in $(seq 1 $n); do tail -c $((3840 * 2048 * 3)) $IMG >> /tmp/stack$n.ppm; done
  done
  for img in $IMG /tmp/stack4.ppm /tmp/stack8.ppm; do
    runs=5; [ $img = /tmp/stack8.ppm ] && runs=3
    for dev in "cpu" "cuda" "cuda --device-share 0"; do
      median $runs "$(basename $img) $dev" $M encode -i $img -o /tmp/e.j2k --device $dev -threads 16
    done
    $M encode -i $img -o /tmp/c.j2k --device cpu -threads 16 && $M encode -i $img -o /tmp/g.j2k --device cuda \
      -threads 16 && cmp /tmp/c.j2k /tmp/g.j2k && echo "$(basename $img): cuda == cpu" >> "$R"
  done
  for dev in cuda cpu; do $M bench codec /tmp/stack4.ppm --runs 3 --device $dev -threads 16 >> "$OUT/bench4.txt" 2>&1; done
  cat "$R"; exit 0
fi
for opts in "" "-I -r 20"; do
  for dev in cpu cuda; do
    median 5 "encode $dev ${opts:-lossless}" $M encode -i $IMG -o /tmp/s_$dev.j2k $opts --device $dev -threads 16
  done
  cmp /tmp/s_cpu.j2k /tmp/s_cuda.j2k && echo "single file: cuda == cpu (${opts:-lossless})" >> "$R"
  for dev in cpu cuda; do
    median 5 "decode $dev ${opts:-lossless}" $M decode -i /tmp/s_cpu.j2k -o /tmp/d_$dev.ppm --device $dev -threads 16
  done
done
# A small image: the process must not pay CUDA's start-up (it was 257-381 ms against 7 ms before).
{ printf 'P6\n64 64\n255\n'; head -c 12288 /dev/urandom; } > /tmp/small.ppm
for dev in cpu cuda; do
  median 5 "encode $dev 64x64" $M encode -i /tmp/small.ppm -o /tmp/small_$dev.j2k --device $dev -threads 16
done
cmp /tmp/small_cpu.j2k /tmp/small_cuda.j2k && echo "64x64: cuda == cpu" >> "$R"
for dev in "--device cpu" "--device cuda" "--device cuda --dwt-device cuda" "--device cpu --dwt-device cuda"; do
  echo "== bench codec $dev" >> "$OUT/bench.txt"
  $M bench codec $IMG --runs 5 $dev -threads 16 >> "$OUT/bench.txt" 2>&1
  echo "== bench codec -I -r 20 $dev" >> "$OUT/bench.txt"
  $M bench codec $IMG --runs 5 -I -r 20 $dev -threads 16 >> "$OUT/bench.txt" 2>&1
done
[ "${1:-}" = quick ] && { cat "$R"; exit 0; }
export LD_LIBRARY_PATH=$PWD/.gpu/opj/lib; OPJ=$PWD/.gpu/opj/bin
mkdir -p /tmp/in /tmp/in8; for i in $(seq -f %02g 1 32); do cp $IMG /tmp/in/m$i.ppm; done
for i in $(seq -f %02g 1 8); do ln -f /tmp/in/m$i.ppm /tmp/in8/m$i.ppm; done
once() {
  local label=$1; shift
  local t0 t1; t0=$(date +%s.%N)
  ( TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>> "$OUT/errors.log" ) 2> "$OUT/t.tmp"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v l="$label" -v c="$*" '{printf "%-34s wall %.2f s, user+sys %.1f s  (%s)\n", l, b-a, $1+$2, c}' "$OUT/t.tmp" >> "$R"
}
for opts in "" "-I -r 20"; do
  for dev in cpu cuda; do
    rm -rf /tmp/o_$dev; once "batch 32 encode $dev ${opts:-lossless}" $M encode -i /tmp/in -o /tmp/o_$dev $opts --device $dev -threads 16 -quiet
  done
  cmp /tmp/o_cpu/m07.j2k /tmp/o_cuda/m07.j2k && cmp /tmp/o_cpu/m32.j2k /tmp/o_cuda/m32.j2k && echo "batch: cuda == cpu (${opts:-lossless})" >> "$R"
  once "opj_compress 8 ${opts:-lossless}" $OPJ/opj_compress -ImgDir /tmp/in8 -OutFor j2k -threads 16 $opts
  rm -f /tmp/in8/*.j2k
done
cat "$R"
