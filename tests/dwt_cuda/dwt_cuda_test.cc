// The CUDA backend runs the backend suite every backend runs
// (tests/dwt/backend_suite.h): against the reference of Annex F, 5/3
// bit-exact, 9/7 within 1e-5 of the largest reference magnitude, forward,
// inverse and round trip, every size 1..70 in both axes at origins of every
// parity, large and odd sizes, mixed batches. Device buffers are poisoned
// before each batch so unwritten samples show. Labelled gpu: without a
// device every instance skips and says why.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dwt/cuda/cuda_backend.h"
#include "dwt/dwt.h"
#include "tests/dwt/backend_suite.h"

namespace mallat::dwt::testing {
namespace {

// Skips only where there is no device; a device that cannot make the
// backend is a failure.
BackendCase cuda_case() {
  BackendCase c;
  c.name = "Cuda";
  c.unavailable = []() -> std::string {
    Result<int> n = cuda::device_count();
    if (!n.ok()) return n.status().message();  // "no CUDA device: cudaGetDeviceCount returned ..."
    if (*n <= 0) return "no CUDA device: cudaGetDeviceCount found none";
    return "";
  };
  c.make = []() { return cuda::make_cuda_backend({.poison_device_buffers = true}); };
  c.reports_transfers = true;
  return c;
}

std::vector<BackendCase> cuda_backends() { return {cuda_case()}; }

}  // namespace

MALLAT_INSTANTIATE_DWT_BACKEND_SUITE(Gpu, cuda_backends);

namespace {

TEST(CudaDevice, StatusNamesDeviceOrReason) {
  const std::string s = cuda::device_status();
  EXPECT_FALSE(s.empty());
  Result<int> n = cuda::device_count();
  if (!n.ok()) {
    EXPECT_NE(n.status().message().find("no CUDA device"), std::string::npos) << n.status().message();
  } else {
    EXPECT_NE(s.find("SMs"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace mallat::dwt::testing
