// std::sort on a pool's threads: the list cut into one run per thread,
// the runs sorted at once, then merged in pairs, the pairs of each round at
// once. Under a strict total order (no two elements equivalent) the result
// is std::sort's, element for element; with equivalent elements their order
// may differ from it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "common/thread_pool.h"

namespace mallat {

// Sorts `items` by `less` on `pool` (null, one thread or fewer than
// `min_parallel` items: std::sort on this thread).
template <typename T, typename Less>
void sort_on_pool(std::vector<T>& items, Less less, ThreadPool* pool, size_t min_parallel = size_t{1} << 15) {
  const size_t n = items.size();
  const size_t runs = pool ? std::min<size_t>(static_cast<size_t>(pool->size()), n / 4096) : 1;
  if (runs <= 1 || n < min_parallel) {
    std::sort(items.begin(), items.end(), less);
    return;
  }
  // Run r is [bounds[r], bounds[r + 1]).
  std::vector<size_t> bounds(runs + 1);
  for (size_t r = 0; r <= runs; ++r) bounds[r] = n * r / runs;
  pool->parallel_for(static_cast<int64_t>(runs), [&](int64_t r) {
    std::sort(items.begin() + static_cast<std::ptrdiff_t>(bounds[static_cast<size_t>(r)]),
              items.begin() + static_cast<std::ptrdiff_t>(bounds[static_cast<size_t>(r) + 1]), less);
  });
  std::vector<T> other(n);
  std::vector<T>* from = &items;
  std::vector<T>* to = &other;
  while (bounds.size() > 2) {
    const size_t pairs = (bounds.size() - 1) / 2;
    const bool odd = (bounds.size() - 1) % 2 != 0;
    pool->parallel_for(static_cast<int64_t>(pairs + (odd ? 1 : 0)), [&](int64_t p) {
      const size_t a = bounds[2 * static_cast<size_t>(p)];
      const size_t m = bounds[std::min(2 * static_cast<size_t>(p) + 1, bounds.size() - 1)];
      const size_t b = bounds[std::min(2 * static_cast<size_t>(p) + 2, bounds.size() - 1)];
      const auto at = [](std::vector<T>& v, size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
      std::merge(std::make_move_iterator(at(*from, a)), std::make_move_iterator(at(*from, m)),
                 std::make_move_iterator(at(*from, m)), std::make_move_iterator(at(*from, b)), at(*to, a), less);
    });
    std::vector<size_t> merged;
    for (size_t i = 0; i < bounds.size(); i += 2) merged.push_back(bounds[i]);
    if (merged.back() != n) merged.push_back(n);
    bounds = std::move(merged);
    std::swap(from, to);
  }
  if (from != &items) items = std::move(*from);
}

}  // namespace mallat
