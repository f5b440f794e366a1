// The CUDA backend runs the backend suite every backend runs
// (tests/dwt/backend_suite.h): against the reference of Annex F, 5/3
// bit-exact, 9/7 within 1e-5 of the largest reference magnitude, forward,
// inverse and round trip, every size 1..70 in both axes at origins of every
// parity, large and odd sizes, mixed batches. Device buffers are poisoned
// before each batch so unwritten samples show. Labelled gpu: without a
// device every instance skips and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dwt/cpu/cpu_backend.h"
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

// The 9/7 on the device is the CPU backend's bit for bit (AVX2 + FMA
// kernels, whose lifting steps are fused multiply-adds as Lift97's), forward
// and inverse: each axis scaled where the CPU scales it (level_kernels.cuh)
// and no other multiply fused with an add (-fmad=false), so that the
// encoder's device runner writes the CPU path's bytes. Odd sizes, lone rows
// and columns, origins of every parity, several levels.
TEST(CudaDevice, The97IsTheCpuBackendsBitForBit) {
  Result<int> n = cuda::device_count();
  if (!n.ok() || *n <= 0) GTEST_SKIP() << (n.ok() ? "no CUDA device" : n.status().message());
  if (!cpu::isa_available(cpu::Isa::kAvx2)) GTEST_SKIP() << "this CPU has no AVX2 + FMA kernels to compare with";
  auto gpu = cuda::make_cuda_backend({});
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  const auto host = cpu::make_cpu_backend(2, cpu::Isa::kAvx2);
  std::mt19937 rng(97);
  std::uniform_real_distribution<float> sample(-300.0f, 300.0f);
  struct Shape {
    int64_t w, h, x0, y0;
    int levels;
  };
  const std::vector<Shape> shapes = {{301, 177, 0, 0, 5}, {64, 33, 1, 0, 3}, {1, 40, 3, 2, 2}, {57, 1, 0, 1, 2},
                                     {1, 1, 1, 1, 1},     {129, 130, 5, 3, 6}, {1920, 1080, 0, 0, 5}};
  for (Direction d : {Direction::kForward, Direction::kInverse}) {
    for (const Shape& sh : shapes) {
      std::vector<float> on_gpu(static_cast<size_t>(sh.w * sh.h));
      for (float& v : on_gpu) v = sample(rng);
      std::vector<float> on_cpu = on_gpu;
      const auto job = [&](std::vector<float>& samples) {
        PlaneJob j;
        j.wavelet = Wavelet::k97;
        j.direction = d;
        j.levels = sh.levels;
        j.x0 = sh.x0;
        j.y0 = sh.y0;
        j.samples97 = PlaneView<float>{samples.data(), sh.w, sh.h, sh.w};
        return std::vector<PlaneJob>{j};
      };
      ASSERT_TRUE((*gpu)->run(job(on_gpu)).ok());
      ASSERT_TRUE(host->run(job(on_cpu)).ok());
      size_t differ = 0, first = SIZE_MAX;
      for (size_t i = 0; i < on_cpu.size(); ++i) {
        if (std::memcmp(&on_cpu[i], &on_gpu[i], sizeof(float)) != 0) {
          ++differ;
          first = std::min(first, i);
        }
      }
      EXPECT_EQ(differ, 0u) << (d == Direction::kForward ? "forward " : "inverse ") << sh.w << "x" << sh.h << " at ("
                            << sh.x0 << "," << sh.y0 << "), " << sh.levels << " levels: first at sample " << first
                            << " (" << on_cpu[first == SIZE_MAX ? 0 : first] << " on the CPU, "
                            << on_gpu[first == SIZE_MAX ? 0 : first] << " on the device)";
    }
  }
}

}  // namespace
}  // namespace mallat::dwt::testing
