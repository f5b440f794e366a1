// MALLAT_HD marks a function that both the host compiler and nvcc compile
// (a rule the CPU's loops and a CUDA kernel share, so that CI's CPU tests
// check what the GPU runs); elsewhere it is nothing.
#pragma once

#if defined(__CUDACC__)
#define MALLAT_HD __host__ __device__
#else
#define MALLAT_HD
#endif
