#!/usr/bin/env bash
# CUDA's start-up while the process's other threads work: a small program made with nvcc starts THREADS threads
# that either do nothing (idle), compute (spin), map, touch and unmap 32 MB again and again (fault: page faults and
# unmaps, what fresh buffers cost), or make and free 24 MB vectors (vec: glibc's heap), then times
# cudaGetDeviceCount (the driver's initialisation), the context (cudaFree(0)) and 256 MB of device memory with 4 MB
# pinned, ROUNDS (3) rounds of each mode. Usage: bash bench/cuda_start_contention.sh [ROUNDS] [THREADS]
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ROUNDS=${1:-3}; THREADS=${2:-16}
W=$(mktemp -d)
cat > "$W/t.cu" <<'CEOF'
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
static std::atomic<bool> stop{false};
static std::atomic<long> work{0};
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "idle";
  const int n = argc > 2 ? std::atoi(argv[2]) : 16;
  std::vector<std::thread> threads;
  for (int i = 0; i < n && std::strcmp(mode, "idle") != 0; ++i) {
    threads.emplace_back([mode] {
      volatile double x = 1;
      while (!stop.load(std::memory_order_relaxed)) {
        if (!std::strcmp(mode, "spin")) {
          for (int k = 0; k < 100000; ++k) x = x * 1.0000001 + 1e-9;
        } else if (!std::strcmp(mode, "fault")) {
          const size_t size = size_t{32} << 20;
          char* p = static_cast<char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
          for (size_t o = 0; o < size; o += 4096) p[o] = 1;
          munmap(p, size);
        } else {
          std::vector<unsigned char> v(size_t{24} << 20);
          v[12345] = 3;
          x = x + v[12345];
        }
        work.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  int count = 0;
  cudaGetDeviceCount(&count);
  const auto t1 = clock::now();
  cudaFree(0);
  const auto t2 = clock::now();
  void* d = nullptr;
  void* h = nullptr;
  cudaMalloc(&d, size_t{256} << 20);
  cudaMallocHost(&h, size_t{4} << 20);
  const auto t3 = clock::now();
  const long items = work.load();
  stop = true;
  for (std::thread& t : threads) t.join();
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("%s %d: driver %.1f ms, context %.1f ms, memory %.1f ms, total %.1f ms; %ld work items\n", mode, n,
              ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t0, t3), items);
  return 0;
}
CEOF
nvcc -O2 -o "$W/t" "$W/t.cu" || exit 1
for r in $(seq "$ROUNDS"); do
  for mode in idle spin fault vec; do "$W/t" "$mode" "$THREADS"; done
done | tee "$OUT/cuda_start_contention.txt"
rm -rf "$W"
