// The launcher of ht_statistics_kernel (ht_statistics_launch.h); built
// with the runner's other kernels (-fmad=false: the deep blocks' double
// sums are rounded as the host's, as the kernel's own intrinsics ask too).
#include "codec/stages/cuda/ht_statistics_launch.h"
#include "dwt/cuda/check.h"
#include "entropy/cuda/ht/statistics_kernel.cuh"

namespace mallat::codec::cuda {

Status launch_ht_statistics(const entropy::T1DeviceJob* jobs, size_t count, const int32_t* coefficients,
                            uint64_t coefficient_count, entropy::HtCompactLayout layout, unsigned char* out,
                            uint32_t* refused, cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  if (count > 0x7FFFFFFFu) return invalid_argument("more code-blocks than one launch's grid holds");
  entropy::cuda::ht_statistics_kernel<<<static_cast<unsigned>(count), entropy::cuda::kHtStatisticsThreads, 0,
                                        stream>>>(jobs, static_cast<uint32_t>(count), coefficients,
                                                  coefficient_count, layout, out, refused);
  return dwt::cuda::check_launch("ht_statistics_kernel");
}

}  // namespace mallat::codec::cuda
