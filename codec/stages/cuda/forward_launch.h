// Launchers of the device runner's sample kernels (forward_kernels.cu):
// the stored samples widened, DC shift and RCT in place on int32 planes (or
// into floats and ICT for the 9/7), and the 9/7's code-blocks quantised
// where they lie. Host declarations only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "codec/stages/quantise_job.h"
#include "common/status.h"

namespace mallat::codec::cuda {

// A plane's samples as stored (stored_samples.h: `precision` bits in
// stored_bytes(precision) bytes, signed or not), packed rows of `width`,
// widened into `height` rows of `pitch` int32 samples at `plane`.
Status launch_widen(const void* stored, int precision, bool is_signed, int64_t width, int64_t height, int32_t* plane,
                    int64_t pitch, cudaStream_t stream);

// G.1.2 on `count` samples: each minus `shift`.
Status launch_dc_shift(int32_t* samples, size_t count, int32_t shift, cudaStream_t stream);

// G.1.2 then G.2 on three planes of `count` samples (colour_rules.h), each
// shifted by its own shift first.
Status launch_rct_forward(int32_t* c0, int32_t* c1, int32_t* c2, size_t count, const int32_t shift[3],
                          cudaStream_t stream);

// G.1.2 for a 9/7 plane, in place: each of `count` int32 samples minus
// `shift`, stored as a float.
Status launch_to_float(int32_t* samples, size_t count, int32_t shift, cudaStream_t stream);

// G.3 on three float planes of `count` samples (colour_rules.h).
Status launch_ict_forward(float* c0, float* c1, float* c2, size_t count, cudaStream_t stream);

// quantise_on_host (device_tile_plan.h) for `count` jobs at once: a CUDA
// block per code-block; job k's findings go to found[jobs[k].block].
Status launch_quantise(const QuantiseJob* jobs, size_t count, const float* planes, int32_t* out,
                       quant::QuantizationError* found, cudaStream_t stream);

}  // namespace mallat::codec::cuda
