#include "common/metrics.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace mallat {

double psnr_from_mse(double mse, double peak) {
  if (mse <= 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(peak * peak / mse);
}

Result<ImageComparison> compare_images(const Image& a, const Image& b) {
  if (a.num_components() != b.num_components()) {
    return invalid_argument("component counts differ: " + std::to_string(a.num_components()) +
                            " vs " + std::to_string(b.num_components()));
  }
  ImageComparison result;
  double total_squared = 0;
  double peak_value = 0;
  for (int c = 0; c < a.num_components(); ++c) {
    const Component& ca = a.components[c];
    const Component& cb = b.components[c];
    if (ca.width != cb.width || ca.height != cb.height) {
      return invalid_argument("component " + std::to_string(c) + " sizes differ: " +
                              std::to_string(ca.width) + "x" + std::to_string(ca.height) +
                              " vs " + std::to_string(cb.width) + "x" + std::to_string(cb.height));
    }
    ErrorStats stats;
    double squared = 0;
    for (size_t i = 0; i < ca.samples.size(); ++i) {
      int64_t d = int64_t{ca.samples[i]} - int64_t{cb.samples[i]};
      squared += static_cast<double>(d) * static_cast<double>(d);
      stats.peak_error = std::max<int64_t>(stats.peak_error, std::llabs(d));
    }
    stats.samples = static_cast<int64_t>(ca.samples.size());
    stats.mse = stats.samples ? squared / static_cast<double>(stats.samples) : 0;
    const double peak = std::ldexp(1.0, ca.precision) - 1;
    stats.psnr = psnr_from_mse(stats.mse, peak);
    peak_value = std::max(peak_value, peak);
    total_squared += squared;
    result.overall.samples += stats.samples;
    result.overall.peak_error = std::max(result.overall.peak_error, stats.peak_error);
    result.components.push_back(stats);
  }
  if (result.overall.samples) {
    result.overall.mse = total_squared / static_cast<double>(result.overall.samples);
  }
  result.overall.psnr = psnr_from_mse(result.overall.mse, peak_value);
  return result;
}

}  // namespace mallat
