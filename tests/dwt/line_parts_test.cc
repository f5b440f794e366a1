// LineInverse::next_rows, each level's rows of a batch made in parts by
// ranges of columns (dwt/line_parts.h), against next_row() row by row, bit
// for bit, 5/3 and 9/7: widths from one sample to several spans of the
// kernels, heights that leave a level one row, every parity of origin,
// several levels, batch sizes and part counts; the parts run on a pool of
// several threads and, one after the other, last first.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "dwt/geometry.h"
#include "dwt/line_inverse.h"

namespace mallat::dwt {
namespace {

template <typename T>
std::vector<T> random_samples(size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  std::uniform_int_distribution<int32_t> d(-2000, 2000);
  for (T& s : v) s = std::is_same_v<T, float> ? static_cast<T>(static_cast<float>(d(rng)) / 7.0f) : static_cast<T>(d(rng));
  return v;
}

// The rows of a LineInverse over random subbands in the packed layout, one
// at a time, or `asked` at once with `split`. Each band's row lies in a
// buffer of its own that the next call for the band overwrites, as a
// source's rows may be; a band row asked for out of order, or twice, fails.
template <typename T>
std::vector<T> inverse_rows(const std::vector<T>& packed, const Rect& tc, int levels, int64_t asked,
                            const LineParts* split, bool fused) {
  const int64_t w = tc.width(), h = tc.height();
  std::map<int, std::vector<T>> buffers;
  std::map<int, int64_t> next_row;
  BandRowSource<T> source = [&](int nb, Band band, int64_t row) -> T* {
    const Rect at = levels == 0 ? Rect{0, 0, w, h} : packed_subband_rect(tc, levels, nb, band);
    const int key = nb * 4 + static_cast<int>(band);
    EXPECT_EQ(row, next_row[key]++) << "level " << nb << " band " << static_cast<int>(band);
    std::vector<T>& b = buffers[key];
    b.assign(static_cast<size_t>(at.width()), T{});
    std::memcpy(b.data(), packed.data() + (at.y0 + row) * w + at.x0, static_cast<size_t>(at.width()) * sizeof(T));
    return b.data();
  };
  LineInverse<T> inverse(tc, levels, source, cpu::Isa::kBest, fused);
  std::vector<T> out(static_cast<size_t>(w * h));
  for (int64_t y = 0; y < h; y += asked) {
    if (!split) {
      std::memcpy(out.data() + y * w, inverse.next_row(), static_cast<size_t>(w) * sizeof(T));
      continue;
    }
    inverse.next_rows(asked, out.data() + y * w, w, *split);
  }
  return out;
}

template <typename T>
void inverse_on(const Rect& tc, int levels, int64_t asked, const LineParts& split, bool fused, std::mt19937& rng) {
  const std::vector<T> packed = random_samples<T>(static_cast<size_t>(tc.width() * tc.height()), rng);
  const std::vector<T> whole = inverse_rows(packed, tc, levels, 1, nullptr, fused);
  const std::vector<T> parted = inverse_rows(packed, tc, levels, asked, &split, fused);
  EXPECT_EQ(std::memcmp(whole.data(), parted.data(), whole.size() * sizeof(T)), 0)
      << (std::is_same_v<T, float> ? "9/7 " : "5/3 ") << tc.width() << "x" << tc.height() << " at " << tc.x0 << ","
      << tc.y0 << ", " << levels << " levels, " << asked << " rows asked, " << split.rows << " a batch, "
      << split.parts << " parts" << (fused ? "" : ", HOR_SR apart");
}

template <typename T>
void every_shape(const LineParts& base, bool fused = true) {
  std::mt19937 rng(97);
  const int64_t widths[] = {1, 2, 3, 17, 511, 513, 1100, 2100};
  const int64_t heights[] = {1, 2, 5, 37, 70};
  for (int64_t w : widths)
    for (int64_t h : heights)
      for (int64_t x0 : {0, 1})
        for (int64_t y0 : {0, 3})
          for (int levels : {0, 1, 3, 5})
            for (int64_t asked : {1, 8})
              for (int64_t rows : {1, 16})
                for (int parts : {1, 3, 16}) {
                  LineParts split = base;
                  split.rows = rows;
                  split.parts = parts;
                  split.least_samples = 1;  // the most parts the spans allow
                  inverse_on<T>({x0, y0, x0 + w, y0 + h}, levels, asked, split, fused, rng);
                }
}

TEST(DwtLineParts, OnAPool53) {
  ThreadPool pool(4);
  every_shape<int32_t>({[&pool](int64_t n, const std::function<void(int64_t)>& fn) { pool.parallel_for_nested(n, fn); }});
}

TEST(DwtLineParts, OnAPool97) {
  ThreadPool pool(4);
  every_shape<float>({[&pool](int64_t n, const std::function<void(int64_t)>& fn) { pool.parallel_for_nested(n, fn); }});
}

// HOR_SR before the vertical steps, by rows (the 9/7's way), on the 5/3.
TEST(DwtLineParts, OnAPool53Apart) {
  ThreadPool pool(4);
  every_shape<int32_t>({[&pool](int64_t n, const std::function<void(int64_t)>& fn) { pool.parallel_for_nested(n, fn); }},
                       false);
}

// The parts one after the other, last first: a part that read another's
// columns would see them not yet made.
TEST(DwtLineParts, LastFirst) {
  const RunParts last_first = [](int64_t n, const std::function<void(int64_t)>& fn) {
    for (int64_t j = n - 1; j >= 0; --j) fn(j);
  };
  every_shape<float>({last_first});
  every_shape<int32_t>({last_first});
  every_shape<int32_t>({last_first}, false);
}

}  // namespace
}  // namespace mallat::dwt
