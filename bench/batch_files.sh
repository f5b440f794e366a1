#!/usr/bin/env bash
# Device run for files coded at once (--batch-files K; bench/README.md): builds
# with CUDA, runs the GPU tests and the hybrid coders' and batch tests, then a batch of 32 copies of the
# 3840x2048 mosaic, lossless encode and decode, --device cpu and cuda at K = 1, 2, 4, whole command wall and
# user+sys seconds, in rounds that alternate the variants (median of ROUNDS), each output compared with
# --device cpu K=1's.
# Usage, from the repository root on the GPU machine: bash bench/batch_files.sh [ROUNDS]
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ROUNDS=${1:-3}
R=$OUT/batch_files.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"; uptime; } > "$R"
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_PYTHON=OFF \
  -DMALLAT_TIFF=OFF > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
cmake --build $B -j16 --target mallat encode_cuda_test entropy_cuda_test hybrid_block_encoder_test \
  hybrid_block_decoder_test batch_cli_test > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
(cd $B && ctest -L gpu -j4 2>&1 | tail -3; ctest -R 'Hybrid|BatchCli' -j8 2>&1 | tail -3) >> "$R"
M=$PWD/$B/tools/mallat
IMG=.gpu/mosaic.ppm
mkdir -p /tmp/in; for i in $(seq -f %02g 1 32); do cp $IMG /tmp/in/m$i.ppm; done
. bench/timing.sh
VARIANTS="cpu:1 cpu:2 cpu:4 cuda:1 cuda:2 cuda:4"
T=$OUT/times.txt; : > "$T"
$M encode -i /tmp/in -o /tmp/ref -OutFor j2k --device cpu -threads 16 -quiet
for round in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    dev=${v%:*}; k=${v#*:}
    rm -rf /tmp/e; once "$T" "encode_${dev}_K$k" $M encode -i /tmp/in -o /tmp/e -OutFor j2k --device $dev \
      --batch-files $k -threads 16 -quiet
    [ "$round" = 1 ] && echo "encode $dev K=$k: files differing from cpu K=1: $(same /tmp/e /tmp/ref j2k)" >> "$R"
  done
  [ "$round" = 1 ] && { rm -rf /tmp/dref; $M decode -i /tmp/ref -o /tmp/dref -OutFor ppm --device cpu -threads 16 -quiet; }
  for v in $VARIANTS; do
    dev=${v%:*}; k=${v#*:}
    rm -rf /tmp/d; once "$T" "decode_${dev}_K$k" $M decode -i /tmp/ref -o /tmp/d -OutFor ppm --device $dev \
      --batch-files $k -threads 16 -quiet
    [ "$round" = 1 ] && echo "decode $dev K=$k: files differing from cpu K=1: $(same /tmp/d /tmp/dref ppm)" >> "$R"
  done
done
echo "batch of 32, medians of $ROUNDS alternating rounds (wall s, user+sys s, all walls):" >> "$R"
medians_table "$T" 32 >> "$R"
uptime >> "$R"
cat "$R"
