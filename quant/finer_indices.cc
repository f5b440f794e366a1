#include "quant/finer_indices.h"

namespace mallat::quant {

namespace {

// finer_indices' body, inlined into each instruction set's copy below:
// without branches (the signs and the zero chosen by selects), so that the
// compiler runs it in that set's lanes, with finer_index's own operations
// (the conversions and one multiply, no fused multiply-add), so its result.
[[gnu::always_inline]] inline void finer_region(PlaneView<const int32_t> in, float factor, int32_t limit,
                                                PlaneView<int32_t> out) {
  const auto most = static_cast<float>(limit);
  for (int64_t y = 0; y < in.height; ++y) {
    const int32_t* from = in.row(y);
    int32_t* to = out.row(y);
    for (int64_t x = 0; x < in.width; ++x) {
      const int32_t q = from[x];
      const int32_t a = q < 0 ? -q : q;
      const float m = (static_cast<float>(a) + 0.5f) * factor;
      int32_t v = m >= most ? limit : static_cast<int32_t>(m);
      v = q == 0 ? 0 : v;
      to[x] = q < 0 ? -v : v;
    }
  }
}

void finer_plain(PlaneView<const int32_t> in, float factor, int32_t limit, PlaneView<int32_t> out) {
  finer_region(in, factor, limit, out);
}

[[gnu::target("avx2")]] void finer_avx2(PlaneView<const int32_t> in, float factor, int32_t limit,
                                        PlaneView<int32_t> out) {
  finer_region(in, factor, limit, out);
}

}  // namespace

void finer_indices(PlaneView<const int32_t> in, double factor, int magnitude_bits, PlaneView<int32_t> out) {
  const auto limit = static_cast<int32_t>((int64_t{1} << magnitude_bits) - 1);
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const auto f = static_cast<float>(factor);
  if (avx2) {
    finer_avx2(in, f, limit, out);
  } else {
    finer_plain(in, f, limit, out);
  }
}

void finer_indices_reference(PlaneView<const int32_t> in, double factor, int magnitude_bits,
                             PlaneView<int32_t> out) {
  const auto limit = static_cast<int32_t>((int64_t{1} << magnitude_bits) - 1);
  for (int64_t y = 0; y < in.height; ++y) {
    const int32_t* from = in.row(y);
    int32_t* to = out.row(y);
    for (int64_t x = 0; x < in.width; ++x) to[x] = finer_index(from[x], static_cast<float>(factor), limit);
  }
}

}  // namespace mallat::quant
