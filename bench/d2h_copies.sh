#!/usr/bin/env bash
# How fast a tile's samples cross between the device and host memory when several slots copy at once
# (codec/stages/cuda/staged_copy.h): a small program made with nvcc copies a 3840x2048 RGB raster (23.6 MB) down from
# the device 8 times on each of 1, 4, 8 and 12 threads at once, each with its own stream, into fresh pageable memory
# (malloc'd per copy), pageable memory already touched, pinned memory, and pinned memory then memcpy'd into touched
# pageable memory; it prints the time to pin 12 such buffers and, per case, GB/s for all the threads together and ms
# a copy. Usage, on the GPU machine: bash bench/d2h_copies.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
W=$(mktemp -d)
cat > "$W/d2h.cu" <<'CEOF'
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "d2h_copies: no CUDA device\n");
    return 1;
  }
  const size_t n = 3840ull * 2048 * 3;
  const int kMost = 12, kCopies = 8;
  std::vector<void*> dev(kMost);
  std::vector<cudaStream_t> st(kMost);
  for (int i = 0; i < kMost; ++i) { cudaMalloc(&dev[i], n); cudaMemset(dev[i], i, n); cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking); }
  std::vector<void*> pinned(kMost);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kMost; ++i) cudaHostAlloc(&pinned[i], n, cudaHostAllocDefault);
  double pin_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("pinning %d x %.1f MB: %.1f ms\n", kMost, n / 1e6, pin_ms);
  std::vector<void*> reused(kMost);
  for (int i = 0; i < kMost; ++i) { reused[i] = std::malloc(n); std::memset(reused[i], 0, n); }
  cudaDeviceSynchronize();
  for (int mode = 0; mode < 4; ++mode) {  // 0 fresh malloc, 1 reused pageable, 2 pinned, 3 pinned + memcpy to reused
    for (int threads : {1, 4, 8, 12}) {
      auto s = std::chrono::steady_clock::now();
      std::vector<std::thread> ts;
      std::vector<double> each(threads);
      for (int t = 0; t < threads; ++t) ts.emplace_back([&, t] {
        for (int c = 0; c < kCopies; ++c) {
          auto a = std::chrono::steady_clock::now();
          void* to = mode == 0 ? std::malloc(n) : mode == 1 ? reused[t] : pinned[t];
          cudaMemcpyAsync(to, dev[t], n, cudaMemcpyDeviceToHost, st[t]);
          cudaStreamSynchronize(st[t]);
          if (mode == 3) std::memcpy(reused[t], pinned[t], n);
          if (mode == 0) std::free(to);
          each[t] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
        }
      });
      for (auto& t : ts) t.join();
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
      double per = 0; for (double e : each) per += e; per /= threads * kCopies;
      std::printf("mode %s threads %2d: %.1f GB/s overall, %.2f ms a copy\n",
                  mode == 0 ? "fresh-pageable" : mode == 1 ? "reused-pageable" : mode == 2 ? "pinned" : "pinned+memcpy",
                  threads, threads * kCopies * n / ms / 1e6, per);
    }
  }
  return 0;
}
CEOF
nvcc -O2 -arch=sm_90 -o "$W/d2h" "$W/d2h.cu" || exit 1
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; "$W/d2h"; } | tee "$OUT/d2h_copies.txt"
rm -rf "$W"
