#!/usr/bin/env bash
# What a CUDA process costs before and after its work (a batch's fixed part): a small program made with
# nvcc creates the context, pins host memory, allocates device memory and streams, optionally tears them down
# itself, and leaves with _exit; its own clocks (context, pinning, device allocation, teardown) against the whole
# process's wall time, ROUNDS (3) rounds of each case. Usage: bash bench/cuda_process_cost.sh [ROUNDS]
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
W=$(mktemp -d)
cat > "$W/t.cu" <<'CEOF'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <unistd.h>
static double ms(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}
// t PINNED_MB DEVICE_MB STREAMS TEARDOWN (0: none, 1: cudaDeviceReset, 2: each buffer freed), then _exit.
int main(int argc, char** argv) {
  if (argc < 5) return 2;
  const size_t pinned = std::atoi(argv[1]), device = std::atoi(argv[2]);
  const int streams = std::atoi(argv[3]), teardown = std::atoi(argv[4]);
  auto t = std::chrono::steady_clock::now();
  cudaFree(0);
  const double context = ms(t);
  t = std::chrono::steady_clock::now();
  void* h[8] = {};
  void* d[8] = {};
  cudaStream_t s[64];
  for (int i = 0; i < 8 && pinned; ++i) cudaHostAlloc(&h[i], (pinned << 20) / 8, cudaHostAllocDefault);
  const double pin = ms(t);
  t = std::chrono::steady_clock::now();
  for (int i = 0; i < 8 && device; ++i) {
    cudaMalloc(&d[i], (device << 20) / 8);
    cudaMemset(d[i], 0, (device << 20) / 8);
  }
  for (int i = 0; i < streams && i < 64; ++i) cudaStreamCreate(&s[i]);
  cudaDeviceSynchronize();
  const double dev = ms(t);
  t = std::chrono::steady_clock::now();
  if (teardown == 1) cudaDeviceReset();
  if (teardown == 2)
    for (int i = 0; i < 8; ++i) {
      if (h[i]) cudaFreeHost(h[i]);
      if (d[i]) cudaFree(d[i]);
    }
  std::printf("pinned %zu MB, device %zu MB, %d streams, teardown %d: context %.1f ms, pinning %.1f, device %.1f, "
              "teardown %.1f", pinned, device, streams, teardown, context, pin, dev, ms(t));
  std::fflush(stdout);
  _exit(0);
}
CEOF
nvcc -O2 -arch=sm_90 -o "$W/t" "$W/t.cu" || exit 1
R=$OUT/cuda_process_cost.txt; : > "$R"
for r in $(seq 1 "${1:-3}"); do
  for args in "0 0 0 0" "128 0 0 0" "512 0 0 0" "0 2048 0 0" "0 8192 0 0" "128 2048 16 0" "128 2048 16 1" \
              "128 2048 16 2" "512 8192 16 2"; do
    s=$(date +%s%N); "$W/t" $args >> "$R"; e=$(date +%s%N)
    echo ", process $(( (e - s) / 1000000 )) ms" >> "$R"
  done
done
sort "$R"
rm -rf "$W"
