#include "codec/encoder/pass_limits.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace mallat::codec {

bool cut_keeps_choice(std::span<const entropy::CodingPass> passes, int exact_passes, double weight,
                      double error_bound, double slope) {
  const int exact = std::clamp(exact_passes, 0, static_cast<int>(passes.size()));
  // The worth gain - slope * bytes of sending the first n exact passes,
  // the best of them (n = 0: nothing sent, worth 0).
  double gain = 0.0, best = 0.0, bytes = 0.0;
  for (int i = 0; i < exact; ++i) {
    gain += passes[static_cast<size_t>(i)].distortion_decrease * weight;
    bytes = passes[static_cast<size_t>(i)].cumulative_length;
    best = std::max(best, gain - slope * bytes);
  }
  // Any later pass: gain at most error_bound, bytes at least the last
  // exact pass's. Strictly below the best, with room for the rounding of
  // the sums (convex_hull adds the gains in the same order).
  const double later = error_bound - slope * bytes;
  const double room = 1e-9 * (std::abs(error_bound) + std::abs(slope * bytes)) + 1e-300;
  return best > later + room;
}

double steepest_left_out(std::span<const CodeBlockHull> hulls, std::span<const int> chosen) {
  double steepest = 0.0;
  for (size_t b = 0; b < hulls.size() && b < chosen.size(); ++b) {
    const CodeBlockHull& h = hulls[b];
    // The block's first hull point past what it sends.
    const auto next = std::upper_bound(h.passes.begin(), h.passes.end(), chosen[b]);
    if (next != h.passes.end()) steepest = std::max(steepest, h.slope[static_cast<size_t>(next - h.passes.begin())]);
  }
  return steepest;
}

}  // namespace mallat::codec
