#!/usr/bin/env bash
# Build, test and benchmark the CUDA DWT on the lent GPU machine in one go
# (the device tool runs it from the repository root; results go to $OUT).
#   tests/dwt_cuda/run_on_device.sh [tests] [bench] [tool] [cputests] [sanitize] [ncu] [targets]...
# e.g. from the device tool: cd .devtree && tests/dwt_cuda/run_on_device.sh tests bench sanitize
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv | tee "$OUT/device.txt"
cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=90 -DMALLAT_TIFF=OFF -DCMAKE_BUILD_TYPE=Release \
  > "$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build build -j16 --target dwt_cuda_test dwt_cuda_bench mallat dwt_test > "$OUT/build.log" 2>&1 \
  || { grep -E "error|Error" -A3 "$OUT/build.log" | head -60; exit 1; }
T=build/tests/dwt_cuda/dwt_cuda_test
B=build/tests/dwt_cuda/dwt_cuda_bench
for step in "$@"; do
  case $step in
    tests)
      $T 2>&1 | tee "$OUT/gpu-tests.log" | grep -E "FAILED|Failure|PASSED|SKIPPED|error|^\[  FAILED|tests ran" | head -40 ;;
    sanitize)
      F='*MixedBatch*:*RoundTrip*:*TimeLeaves*:*Cuda_W53_x1y1:*Cuda_W53_x3y7:*Cuda_W97_x3y7:*Cuda_W97_x1y0'
      compute-sanitizer --tool memcheck --leak-check full $T --gtest_filter="$F" > "$OUT/memcheck.log" 2>&1
      tail -4 "$OUT/memcheck.log"
      R='*MixedBatch*:*Cuda_W53_x1y1:*Cuda_W97_x3y7'
      compute-sanitizer --tool racecheck --racecheck-report all $T --gtest_filter="$R" > "$OUT/racecheck.log" 2>&1
      tail -4 "$OUT/racecheck.log" ;;
    bench)
      $B 100 10 2>&1 | tee "$OUT/bench.txt" ;;
    tool)  # the dwt helper's `mallat bench dwt`, CUDA backend, full matrix
      build/tools/mallat bench dwt --backend cuda --runs 100 --warmup 10 --csv "$OUT/bench_tool.csv" \
        > "$OUT/bench_tool.txt" 2>&1; tail -5 "$OUT/bench_tool.txt" ;;
    cputests)  # the dwt helper's suite, which may also exercise the CUDA backend
      (cd build && ctest -R Dwt --output-on-failure > "$OUT/dwt-tests.log" 2>&1; tail -3 "$OUT/dwt-tests.log") ;;
    ncu)  # one level of each wavelet and direction at 7680x4320
      ncu --clock-control none --graph-profiling node -k regex:level_kernel --launch-count 4 \
        --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
        --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis \
        $B 1 0 profile > "$OUT/ncu.txt" 2>&1; grep -E "Duration|Throughput|Stall|Occupancy|Registers|Warp Cycles|Issued|Eligible|Bank|L1/TEX Hit|L2 Hit|forward_level" "$OUT/ncu.txt" | head -80 ;;
    targets)  # only the configurations with targets
      $B 100 10 targets 2>&1 | tee "$OUT/targets.txt" ;;
  esac
done
