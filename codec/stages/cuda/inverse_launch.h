// Launchers of the device runner's inverse sample kernels
// (inverse_kernels.cu): Tier-1's decoded values into the planes'
// coefficients, and the planes' samples after the inverse DWT into their
// components' stored samples. Host declarations only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "codec/stages/inverse_jobs.h"
#include "common/status.h"
#include "entropy/ebcot/shared_decoder.h"

namespace mallat::codec::cuda {

// dequantise_on_host (device_decode_plan.h) for `count` jobs at once: a
// CUDA block per code-block.
Status launch_dequantise(const DequantiseJob* jobs, size_t count, const int32_t* t1_samples,
                         const entropy::SharedT1DecodeResult* results, int32_t* planes, cudaStream_t stream);

// output_on_host for one plane outside the colour transform, into
// `stored` (the plan's stored buffer on the device).
Status launch_output(const OutputPlane& plane, const int32_t* planes, void* stored, cudaStream_t stream);

// The same for the colour transform's planes 0..2 together, a thread per
// pixel (output_pixel).
Status launch_output_colour(const OutputPlane planes[3], const int32_t* buffer, void* stored, cudaStream_t stream);

// Loads the kernels above now (CUDA loads a kernel at its first launch
// otherwise), on a runner's start-up thread.
Status load_inverse_kernels();

}  // namespace mallat::codec::cuda
