// Sample-wise comparison of two images: MSE, PSNR and peak absolute error,
// per component and over all samples. Used by `mallat compare`, the codec
// tests and the conformance checks.
#pragma once

#include <cstdint>
#include <vector>

#include "common/image.h"
#include "common/status.h"

namespace mallat {

struct ErrorStats {
  double mse = 0;
  double psnr = 0;        // dB against the peak 2^precision - 1; +inf when identical
  int64_t peak_error = 0; // largest |a - b|
  int64_t samples = 0;
};

struct ImageComparison {
  std::vector<ErrorStats> components;
  ErrorStats overall;  // over every sample of every component
};

// Fails with kInvalidArgument when the component counts or sizes differ.
Result<ImageComparison> compare_images(const Image& a, const Image& b);

// PSNR in dB of an MSE against a peak value; +inf for mse == 0.
double psnr_from_mse(double mse, double peak);

}  // namespace mallat
