// Launchers of the fused level kernels (level_launch.cu). Host-only header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/status.h"
#include "dwt/cuda/level_args.h"

namespace mallat::dwt::cuda {

// Enqueue one level on `stream`; the error is the launch's own (configuration,
// missing kernel image). Nothing waits.
Status forward_level_async(const LevelArgs<int32_t>& args, cudaStream_t stream);
Status forward_level_async(const LevelArgs<float>& args, cudaStream_t stream);
Status inverse_level_async(const LevelArgs<int32_t>& args, cudaStream_t stream);
Status inverse_level_async(const LevelArgs<float>& args, cudaStream_t stream);

}  // namespace mallat::dwt::cuda
