// The line inverse DWT (line_inverse.h) of several rows at once split into
// parts that run at once: each level's rows of a batch, HOR_SR and the
// vertical steps together, by ranges of columns. A sample of HOR_SR reads
// only its row's two halves, and a vertical step at a column only that
// column (F.3.4 HOR_SR, F.3.2 VER_SR), so each sample sees the operations of
// the unsplit transform in the same order and the results are the same bit
// for bit. The caller brings the threads: a function that runs n parts and
// waits, so this library depends on no thread pool.
#pragma once

#include <cstdint>
#include <functional>

namespace mallat::dwt {

// Runs fn(0) .. fn(n - 1), possibly at once on several threads, and returns
// when all are done.
using RunParts = std::function<void(int64_t n, const std::function<void(int64_t)>& fn)>;

struct LineParts {
  RunParts run;   // empty: every part on the caller's thread
  int parts = 1;  // the most parts one level's rows are split into
  // The fewest rows of the tile-component one batch makes: the rows beyond
  // those asked for wait in the finest level's ring for the next call.
  int64_t rows = 1;
  // The fewest samples worth a part of their own: fewer cost more to hand
  // to another thread than they take to lift.
  int64_t least_samples = 16384;
};

inline void run_parts(const LineParts& split, int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 1 || !split.run) {
    for (int64_t j = 0; j < n; ++j) fn(j);
    return;
  }
  split.run(n, fn);
}

}  // namespace mallat::dwt
