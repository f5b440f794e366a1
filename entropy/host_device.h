// Code shared by the host compiler and nvcc (the Tier-1 encoder of
// entropy/ebcot/shared_encoder.h runs on both): MALLAT_HD marks a function for both
// sides, and MALLAT_T1_TABLE(name) names a look-up table where the code
// runs, the constexpr array itself on the host and its __device__ copy
// (name##Device, made from the same constexpr definition by
// MALLAT_DEVICE_TABLE) on the device.
#pragma once

#include "common/host_device.h"

#if defined(__CUDACC__)
// The copy lives in global memory (read through the L1 cache): threads of a
// warp index the tables at different places, which __constant__ memory
// serialises (the decoding kernel slowed by a seventh or more there:
// docs/PERFORMANCE.md, "The EBCOT tables in constant memory").
#define MALLAT_DEVICE_TABLE(name) static __device__ decltype(name) name##Device = name;
#else
#define MALLAT_DEVICE_TABLE(name)
#endif

#if defined(__CUDA_ARCH__)
#define MALLAT_T1_TABLE(name) name##Device
#else
#define MALLAT_T1_TABLE(name) name
#endif
