// Wall-clock timing for the Tier-1 device benchmarks (t1_cuda_bench.cc,
// t1_cuda_decode_bench.cc): the median of `runs` calls.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace mallat::entropy {

template <class F>
double median_seconds(int runs, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace mallat::entropy
