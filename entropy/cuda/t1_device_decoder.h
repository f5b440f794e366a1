// Host side of Tier-1 decoding on the GPU: uploads a batch of code-blocks
// (T1DecodeJob, entropy/t1_decode_batch.h; all EBCOT's or all HT's), runs
// that coder's decoding kernel over it in one launch, times it, and brings back each block's result and the samples.
// The decoder reaches it through the device block decoder
// (device_block_decoder.h); the GPU tests and the benchmark
// (tests/entropy_cuda) use it directly.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "common/status.h"
#include "entropy/cuda/t1_decode_launch.h"
#include "entropy/t1_device_job.h"
#include "entropy/ebcot/shared_decoder.h"

namespace mallat::entropy::cuda {

// The walk of marked columns lets a warp's lanes code their blocks' columns
// side by side, which pays where a warp holds many blocks; with few, the
// marking costs more than the lanes' waits it saves (entropy_cuda_decode_bench
// with BENCH_MARKED measures both).
inline constexpr uint32_t kMarkedFromBlocksPerWarp = 8;

class T1DeviceDecoder {
 public:
  // `blocks_per_warp`: 1..32 code-blocks decoded by each warp's first
  // lanes, or 0 to choose by batch size (auto_blocks_per_warp,
  // entropy/cuda/t1_device_encoder.h).
  static Result<std::unique_ptr<T1DeviceDecoder>> create(int blocks_per_warp = 0);
  // The same choice for the batches uploaded from now on; a value outside
  // 0..32 is an error and changes nothing.
  Status set_blocks_per_warp(int blocks_per_warp);
  // Whether EBCOT's passes walk only the columns they have work in
  // (T1DecodeArgs::marked) for the batches uploaded from now on; unset, a
  // launch of kMarkedFromBlocksPerWarp blocks a warp or more does.
  void set_marked_columns(std::optional<bool> marked);
  ~T1DeviceDecoder();

  // Allocates now the device memory a batch of `jobs` blocks with `bytes`
  // codeword bytes, `segments` segment lengths and `samples` samples needs
  // (grown by half at least, kept for later batches).
  Status reserve(size_t jobs, size_t bytes, size_t segments, size_t samples);
  // Copies a batch to the device (from page-locked memory it runs at the
  // bus's speed): the jobs and the bytes and segment lengths they point
  // into; `samples` is the size of the sample buffer the jobs write. A job
  // reaching past any of them is an error naming it. `copy_bytes`, where
  // given, puts the bytes at its device address on the stream instead of
  // one copy (the device runner's staged copier, for pageable bytes).
  using BytesCopy = std::function<Status(uint8_t* device, cudaStream_t s)>;
  Status upload(std::span<const T1DecodeJob> jobs, std::span<const uint8_t> bytes,
                std::span<const uint32_t> segments, size_t samples, const BytesCopy& copy_bytes = {});
  // Decodes the uploaded batch in one launch and waits for it.
  Status decode();
  // The same launch, queued on stream() without waiting: a caller that
  // goes on with the samples on the device (the device runner's inverse
  // stages, codec/stages/cuda/device_decode_slot.h) queues its next steps
  // behind it.
  Status launch();
  cudaStream_t stream() const;
  // The uploaded batch's decoded samples and per-job results on the device,
  // valid once the launch has run.
  const int32_t* device_samples() const;
  const SharedT1DecodeResult* device_results() const;
  // Device time of one decode(), in ms: the median of `runs` launches timed
  // by CUDA events, after `warmup` untimed ones.
  Result<double> time_decode(int warmup, int runs);
  // Copies back each job's result (results.size() == jobs) and the samples
  // (samples.size() == the `samples` uploaded).
  Status download(std::span<SharedT1DecodeResult> results, std::span<int32_t> samples);

 private:
  struct Impl;
  explicit T1DeviceDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mallat::entropy::cuda
