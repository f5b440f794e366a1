// The HT plane statistics' gather on the device (rate control by
// estimates, codec/stages/cuda/device_ht_rate.h): one CUDA block a
// code-block, its threads striding over the block's quads, each quad
// counted by the shared ht_count_quad (entropy/ht/shared_plane_statistics.h)
// into counts in shared memory, then the block's statistics written cut at
// the tile's bit lengths (entropy/ht/compact_plane_statistics.h) entry by
// entry, the counts' energies or, for a block of
// magnitudes from 2^20, the reference's double sums taken again in its
// order on one thread. Device code only; launched by
// codec/stages/cuda/ht_statistics_kernel.cu.
#pragma once

#include <cstdint>

#include "entropy/ht/compact_plane_statistics.h"
#include "entropy/ht/shared_plane_statistics.h"
#include "entropy/t1_device_job.h"

namespace mallat::entropy::cuda {

inline constexpr int kHtStatisticsThreads = 128;

// What the gather could not take: kHtStatistics* (compact_plane_statistics.h).

// A thread's tally over the block's shared counts: its quads of bit
// length 0 and its OR of the magnitudes kept in registers and added once
// (most quads are insignificant; one address for every thread would
// serialise their adds), the rest added atomically as they come.
struct HtSharedTally {
  HtPlaneCounts& c;
  uint32_t zeros = 0;
  uint32_t all = 0;
  __device__ void any(uint32_t m) { all |= m; }
  __device__ void quad(int top) {
    if (top == 0) {
      ++zeros;
      return;
    }
    atomicAdd(&c.quads[top], 1u);
  }
  __device__ void sample(int top, int l, unsigned long long square) {
    atomicAdd(&c.samples[top][l], 1u);
    atomicAdd(&c.energy[l], square);
  }
};

// Job j of `count`: its samples within the `coefficient_count` values at
// `coefficients`, its statistics to out + j x layout.stride(); a job it
// cannot take sets a bit of *refused and leaves its statistics as they
// were.
__global__ void __launch_bounds__(kHtStatisticsThreads)
    ht_statistics_kernel(const T1DeviceJob* jobs, uint32_t count, const int32_t* coefficients,
                         uint64_t coefficient_count, HtCompactLayout layout, unsigned char* out,
                         uint32_t* refused) {
  __shared__ HtPlaneCounts counts;
  __shared__ double deep[kHtPlanes];
  __shared__ uint32_t problem;
  const uint32_t j = blockIdx.x;
  if (j >= count) return;
  const T1DeviceJob job = jobs[j];
  const uint64_t stride = job_stride(job);
  const bool inside = stride >= job.width && job.coefficient_offset <= coefficient_count &&
                      job_span(job) <= coefficient_count - job.coefficient_offset;
  const HtBlockIndices block{coefficients + (inside ? job.coefficient_offset : 0), job.width, job.height, stride};
  uint32_t* samples = &counts.samples[0][0];
  for (int k = threadIdx.x; k < kHtPlanes * kHtPlanes; k += blockDim.x) samples[k] = 0;
  if (threadIdx.x < kHtPlanes) {
    counts.quads[threadIdx.x] = 0;
    counts.energy[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) {
    counts.any = 0;
    problem = inside ? 0u : kHtStatisticsOutside;
  }
  __syncthreads();
  if (inside) {
    HtSharedTally tally{counts};
    const uint32_t quads = ht_quad_count(block);
    bool deep_quad = false;
    for (uint32_t q = threadIdx.x; q < quads; q += blockDim.x) {
      uint32_t m[4];
      ht_quad_magnitudes(block, q, m);
      if (!ht_count_quad(tally, job.fraction_bits, m)) deep_quad = true;
    }
    if (tally.zeros > 0) atomicAdd(&counts.quads[0], tally.zeros);
    if (tally.all != 0) atomicOr(&counts.any, tally.all);
    if (deep_quad) atomicOr(&problem, kHtStatisticsTooDeep);
  }
  __syncthreads();
  if (threadIdx.x == 0 && problem == 0 && layout.cuts(counts)) problem = kHtStatisticsCut;
  __syncthreads();
  // Read by every thread after the barrier: they all leave together.
  if (problem != 0) {
    if (threadIdx.x == 0) atomicOr(refused, problem);
    return;
  }
  if (threadIdx.x == 0 && !ht_energy_exact(counts)) ht_energy_in_quad_order(block, job.fraction_bits, deep);
  __syncthreads();
  unsigned char* o = out + j * layout.stride();
  const uint32_t planes = layout.planes;
  uint16_t* o_samples = layout.samples(o);
  for (uint32_t k = threadIdx.x; k < planes * planes; k += blockDim.x)
    o_samples[k] = ht_sample_statistic(counts, static_cast<int>(k / planes), static_cast<int>(k % planes));
  if (threadIdx.x < planes) {
    layout.quads(o)[threadIdx.x] = counts.quads[threadIdx.x];
    layout.energy(o)[threadIdx.x] =
        ht_energy_statistic(counts, deep, static_cast<int>(threadIdx.x), job.fraction_bits);
  }
}

}  // namespace mallat::entropy::cuda
