#include <gtest/gtest.h>

#include "dwt/dwt.h"

namespace mallat::dwt {
namespace {

TEST(DwtBackendFactory, ParsesNames) {
  EXPECT_EQ(*parse_backend_kind("auto"), BackendKind::kAuto);
  EXPECT_EQ(*parse_backend_kind("cpu"), BackendKind::kCpu);
  EXPECT_EQ(*parse_backend_kind("cuda"), BackendKind::kCuda);
  EXPECT_EQ(*parse_backend_kind("reference"), BackendKind::kReference);
  EXPECT_EQ(parse_backend_kind("gpu").status().code(), ErrorCode::kInvalidArgument);
}

TEST(DwtBackendFactory, MakesBackends) {
  for (BackendKind k : {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kReference}) {
    auto b = make_backend(k, 2);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    EXPECT_FALSE((*b)->name().empty());
  }
  auto cuda = make_backend(BackendKind::kCuda);
  if (!cuda_compiled()) {
    ASSERT_FALSE(cuda.ok());
    EXPECT_EQ(cuda.status().message(), "this build has no CUDA backend");
  } else if (!cuda.ok()) {
    EXPECT_EQ(cuda.status().code(), ErrorCode::kDeviceError);
  }
  EXPECT_FALSE(cuda_status().empty());
}

TEST(DwtBackendFactory, ValidateRejectsBadJobs) {
  int32_t data[4] = {};
  PlaneJob job;
  job.samples53 = PlaneView<int32_t>{data, 2, 2, 2};
  job.levels = 2;
  EXPECT_TRUE(validate(job).ok());
  job.levels = 33;
  EXPECT_FALSE(validate(job).ok());
  job.levels = -1;
  EXPECT_FALSE(validate(job).ok());
  job.levels = 1;
  job.samples53.stride = 1;
  EXPECT_FALSE(validate(job).ok());
  job.samples53.stride = 2;
  job.wavelet = Wavelet::k97;  // the float view is empty: nothing to do, valid
  EXPECT_TRUE(validate(job).ok());
  job.samples97 = PlaneView<float>{nullptr, 3, 3, 3};
  EXPECT_FALSE(validate(job).ok());
  auto cpu = make_backend(BackendKind::kCpu);
  ASSERT_TRUE(cpu.ok());
  EXPECT_FALSE((*cpu)->run(job).ok());
}

}  // namespace
}  // namespace mallat::dwt
