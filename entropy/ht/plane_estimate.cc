#include "entropy/ht/plane_estimate.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace mallat::entropy {
namespace {

// Bits of the cleanup segment (15444-15 B.3) per unit of each count, fitted
// on the code-blocks of photographs coded at every plane: MagSgn bits are
// about the estimate of them, each significant quad adds its VLC codeword
// and exponent residual (B.3.5), each insignificant quad a MEL or VLC
// symbol; a segment has a few bytes of its own (Scup, the streams' ends).
constexpr double kPerMagSgnBit = 1.11;
constexpr double kPerSignificantQuad = 6.5;
constexpr double kPerInsignificantQuad = 0.05;
constexpr double kSegmentBytes = 11.0;

}  // namespace

void gather_ht_plane_statistics(PlaneView<const int32_t> indices, int fraction_bits, HtPlaneStatistics& out) {
  out = HtPlaneStatistics{};
  const auto magnitude = [](int32_t q) { return q < 0 ? 0u - static_cast<uint32_t>(q) : static_cast<uint32_t>(q); };
  // One quad: its samples' magnitudes (0 where the block's edge cuts it).
  // The largest bit length is the OR's.
  const auto quad = [&](uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3) {
    const uint32_t any = (m0 | m1 | m2 | m3) >> fraction_bits;
    const int top = std::bit_width(any);
    ++out.quads[top];
    if (top == 0) return;
    for (const uint32_t m : {m0, m1, m2, m3}) {
      const int l = std::bit_width(m >> fraction_bits);
      if (l == 0) continue;
      ++out.samples[top][l];
      out.energy[l] += static_cast<double>(m) * static_cast<double>(m);
    }
  };
  for (int64_t y = 0; y < indices.height; y += 2) {
    const int32_t* r0 = indices.row(y);
    const int32_t* r1 = y + 1 < indices.height ? indices.row(y + 1) : nullptr;
    int64_t x = 0;
    if (r1 != nullptr) {
      for (; x + 1 < indices.width; x += 2)
        quad(magnitude(r0[x]), magnitude(r1[x]), magnitude(r0[x + 1]), magnitude(r1[x + 1]));
    }
    for (; x < indices.width; x += 2) {
      const bool right = x + 1 < indices.width;
      quad(magnitude(r0[x]), r1 ? magnitude(r1[x]) : 0u, right ? magnitude(r0[x + 1]) : 0u,
           r1 && right ? magnitude(r1[x + 1]) : 0u);
    }
  }
  const double unit = std::ldexp(1.0, -2 * fraction_bits);
  for (double& e : out.energy) e *= unit;
}

HtPlaneEstimate estimate_ht_planes(const HtPlaneStatistics& s, int fraction_bits) {
  HtPlaneEstimate out;
  double quads = 0;
  for (int b = 0; b < kHtPlanes; ++b) {
    quads += s.quads[b];
    if (s.quads[b] > 0) out.planes = b;
    out.energy += s.energy[b];
  }
  for (int p = 0; p < out.planes; ++p) {
    double magsgn = 0, significant_quads = 0, significant = 0, removed = 0;
    for (int b = p + 1; b <= out.planes; ++b) {
      significant_quads += s.quads[b];
      double in_quad = 0;
      for (int l = p + 1; l <= b; ++l) in_quad += s.samples[b][l];
      magsgn += in_quad * (b - p);
      significant += in_quad;
      removed += s.energy[b];
    }
    const double bits = kPerMagSgnBit * magsgn + kPerSignificantQuad * significant_quads +
                        kPerInsignificantQuad * (quads - significant_quads);
    out.bytes[p] = static_cast<float>(bits / 8.0 + kSegmentBytes);
    // E.1.1.2: a significant sample is reconstructed at the middle of its
    // interval of 2^p index units, 2^(p + F) values apart by 2^-F: with its
    // value uniform over them the error left is (4^p + 2 x 4^-F) / 12;
    // none where the interval is one value (the reversible path's plane 0).
    const double left =
        p + fraction_bits > 0 ? (std::ldexp(1.0, 2 * p) + 2 * std::ldexp(1.0, -2 * fraction_bits)) / 12.0 : 0.0;
    out.decrease[p] = static_cast<float>(std::max(0.0, removed - significant * left));
  }
  return out;
}

}  // namespace mallat::entropy
