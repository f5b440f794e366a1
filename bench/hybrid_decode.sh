#!/usr/bin/env bash
# Device run for Tier-1 decoding on the GPU (bench/README.md): builds with CUDA,
# runs the GPU tests and the hybrid decoder's tests, compute-sanitizer on the GPU decoding test, the decoding
# kernel alone (entropy_cuda_decode_bench: CUDA events, median after warm-up), `mallat bench codec` with
# --device cpu and cuda (the decode stage's times), and a batch of 32 copies of the mosaic decoded with
# --device cpu and cuda (lossless and -I -r 20, whole commands, alternated twice), with the outputs compared.
# Usage, from the repository root on the GPU machine: bash bench/hybrid_decode.sh [quick]
# ("quick": the GPU tests only, no sanitizer; the kernel at auto blocks per warp, bench codec and the lossless batch.)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=$OUT/hybrid_decode.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; uptime; } > "$R"
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
  -DMALLAT_TIFF=OFF > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
cmake --build $B -j16 --target mallat entropy_cuda_test entropy_cuda_decode_test entropy_cuda_decode_bench \
  encode_cuda_test hybrid_block_decoder_test hybrid_block_encoder_test batch_cli_test t1_shared_decoder_test entropy_test \
  > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "built at $(date +%T)" >> "$R"
Q=${1:-}
(cd $B && ctest -L gpu -j4 2>&1 | tail -4; [ "$Q" = quick ] || ctest -R 'Hybrid|BatchCli|Tier1Shared' -j8 2>&1 | tail -3) >> "$R"
T=$B/tests/entropy_cuda/entropy_cuda_decode_test
if [ "$Q" != quick ]; then
  timeout 200 compute-sanitizer --tool memcheck $T > "$OUT/memcheck.log" 2>&1
  echo "compute-sanitizer memcheck entropy_cuda_decode_test: rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$OUT/memcheck.log" | tr '\n' ' ')" >> "$R"
fi
for args in "20 3 1 0" "10 2 8 0" "20 3 1 0x3F"; do
  $B/tests/entropy_cuda/entropy_cuda_decode_bench $args >> "$OUT/kernel.txt" 2>&1
done
M=$PWD/$B/tools/mallat
IMG=.gpu/mosaic.ppm
for dev in cpu cuda cpu cuda; do
  echo "== bench codec --device $dev" >> "$OUT/bench.txt"
  $M bench codec $IMG --runs 5 --device $dev -threads 16 >> "$OUT/bench.txt" 2>&1
done
echo "== bench codec -I -r 20 --device cuda" >> "$OUT/bench.txt"
$M bench codec $IMG --runs 5 -I -r 20 --device cuda -threads 16 >> "$OUT/bench.txt" 2>&1
once() {
  local label=$1; shift
  local t0 t1; t0=$(date +%s.%N)
  ( TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>> "$OUT/errors.log" ) 2> "$OUT/t.tmp"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v l="$label" -v c="$*" '{printf "%-36s wall %.2f s, user+sys %.1f s  (%s)\n", l, b-a, $1+$2, c}' "$OUT/t.tmp" >> "$R"
}
mkdir -p /tmp/in; for i in $(seq -f %02g 1 32); do cp $IMG /tmp/in/m$i.ppm; done
OPTS=("" "-I -r 20"); [ "$Q" = quick ] && OPTS=("")
for opts in "${OPTS[@]}"; do
  name=${opts:-lossless}
  rm -rf /tmp/c; $M encode -i /tmp/in -o /tmp/c $opts -OutFor j2k -threads 16 -quiet
  for dev in cpu cuda cpu cuda; do
    rm -rf /tmp/d_$dev; once "batch 32 decode $dev $name" $M decode -i /tmp/c -o /tmp/d_$dev -OutFor ppm --device $dev -threads 16 -quiet
  done
  same=yes; for f in m01 m17 m32; do cmp -s /tmp/d_cpu/$f.ppm /tmp/d_cuda/$f.ppm || same=no; done
  echo "batch decode $name: cuda == cpu: $same" >> "$R"
done
uptime >> "$R"
cat "$R"; cat "$OUT/kernel.txt"; grep -E "^decode|Tier-1|^  (Tier-1|lay|upload|download|CPU|samples)|==" "$OUT/bench.txt"
