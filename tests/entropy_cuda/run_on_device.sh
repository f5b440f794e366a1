#!/usr/bin/env bash
# Build, test and benchmark Tier-1 encoding on the GPU (entropy/cuda) on the
# lent GPU machine in one go (the device tool runs it from the repository
# root; results go to $OUT).
#   tests/entropy_cuda/run_on_device.sh [tests] [bench] [cpubench] [memcheck]
#   tests    entropy_cuda_test (label gpu) and the CPU Tier1Shared tests
#   bench    entropy_cuda_bench: 1 and 8 images, default style and 0x3F
#   cpubench entropy_benchmark: today's CPU coder against the shared one
#   memcheck compute-sanitizer on the GPU tests
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv | tee "$OUT/device.txt"
B=build-entropy-cuda
cmake -S . -B $B -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_CUDA=ON -DMALLAT_TIFF=OFF -DCMAKE_BUILD_TYPE=Release \
  > "$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build $B -j16 --target entropy_cuda_test entropy_cuda_bench entropy_test entropy_benchmark \
  > "$OUT/build.log" 2>&1 || { grep -E "error|Error" -A3 "$OUT/build.log" | head -60; exit 1; }
T=$B/tests/entropy_cuda/entropy_cuda_test
for step in "$@"; do
  case $step in
    tests)
      $T 2>&1 | tee "$OUT/gpu-tests.log" | grep -E "OK|FAILED|Failure|PASSED|SKIPPED|error|tests ran" | head -40
      $B/tests/entropy/entropy_test --gtest_filter='Tier1Shared*' 2>&1 | tail -3 ;;
    bench)
      for images in 1 8; do
        for style in 0 0x3F; do
          $B/tests/entropy_cuda/entropy_cuda_bench 20 3 $images $style 2>&1 | tee -a "$OUT/bench.txt"
        done
      done ;;
    cpubench)
      $B/tests/entropy/entropy_benchmark --benchmark_filter='BM_Encode' --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true 2>&1 | tee "$OUT/cpubench.txt" | grep median ;;
    memcheck)
      compute-sanitizer --tool memcheck $T --gtest_filter='*SmallSlots*:*EveryCase*' > "$OUT/memcheck.log" 2>&1
      tail -4 "$OUT/memcheck.log" ;;
  esac
done
