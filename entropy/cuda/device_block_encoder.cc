// A batch on the device: the caller's per-block work (the encoder quantises
// there) and the gathering of each block into one pinned buffer run
// together on the pool, then one upload, one launch, one download, and each
// block's slot becomes its EncodedCodeBlock on the pool. The bytes are
// encode_code_block's (t1_shared_encoder.h), so the rate allocator sees the
// same passes and the codestream is the CPU path's.
#include "entropy/cuda/device_block_encoder.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "entropy/cpu_block_coder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/t1_device_batch.h"

namespace mallat::entropy::cuda {
namespace {

// Page-locked host memory for the coefficients, grown as needed: the copy
// to the device runs at the bus's speed and needs no staging copy.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  Status reserve(size_t count) {
    if (count <= capacity_) return Status::Ok();
    if (data_ != nullptr) cudaFreeHost(data_);
    data_ = nullptr;
    capacity_ = 0;
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, count * sizeof(int32_t), cudaHostAllocDefault);
    if (err != cudaSuccess) {
      return device_error("allocating " + std::to_string(count * sizeof(int32_t)) +
                          " bytes of pinned host memory for Tier-1: " + cudaGetErrorString(err));
    }
    data_ = static_cast<int32_t*>(p);
    capacity_ = count;
    return Status::Ok();
  }
  int32_t* data() const { return data_; }

 private:
  int32_t* data_ = nullptr;
  size_t capacity_ = 0;
};

// Adds the wall time from here to the end of its scope to `*sink`.
class StepClock {
 public:
  explicit StepClock(double* sink) : sink_(sink), start_(std::chrono::steady_clock::now()) {}
  ~StepClock() {
    *sink_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  StepClock(const StepClock&) = delete;
  StepClock& operator=(const StepClock&) = delete;

 private:
  double* sink_;
  std::chrono::steady_clock::time_point start_;
};

class DeviceBlockEncoder final : public BlockEncoder {
 public:
  DeviceBlockEncoder(std::unique_ptr<T1DeviceEncoder> device, size_t max_blocks_per_launch)
      : device_(std::move(device)), ht_(make_ht_block_encoder()), max_blocks_(max_blocks_per_launch) {}

  std::string name() const override { return "ebcot on " + t1_device_name(); }
  DeviceCodingTimes device_times() const override { return times_; }

  Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) override {
    if (out.size() != blocks.size()) return invalid_argument("a Tier-1 batch and its outputs differ in size");
    // 15444-15 blocks stay on the CPU's HT coder (one kind per batch,
    // codec/stages/block_coding.cc).
    if (!blocks.empty() && block_coder_kind(blocks[0].style) == BlockCoderKind::kHt) {
      return ht_->encode(blocks, out, pool, work);
    }
    // A launch's device memory grows with its blocks (a working state of
    // about 40 KB and an output slot each), so a large tile goes in parts.
    size_t first = 0;
    do {
      const size_t count = std::min(max_blocks_, blocks.size() - first);
      BatchWork part;
      if (work.each) part.each = [&work, first](size_t k) { work.each(first + k); };
      if (first == 0) {
        part.items = work.items;
        part.item = work.item;
      }
      const Status s = launch(blocks.subspan(first, count), out.subspan(first, count), pool, part);
      if (!s.ok()) return first == 0 ? s : s.with_context("blocks from " + std::to_string(first));
      first += count;
    } while (first < blocks.size());
    return Status::Ok();
  }

 private:
  // One launch over `blocks` (at most max_blocks_).
  Status launch(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                const BatchWork& work) {
    MALLAT_ASSIGN_OR_RETURN(const T1DeviceBatchLayout layout, lay_out_t1_batch(blocks));
    MALLAT_RETURN_IF_ERROR(pinned_.reserve(layout.coefficients));
    int32_t* buffer = pinned_.data();
    {
      StepClock clock(&times_.prepare_ms);
      detail::for_blocks_and_items(pool, blocks.size(), work, [&](size_t k) {
        if (work.each) work.each(k);
        gather_t1_block(blocks[k], layout.jobs[k], buffer);
      });
    }
    if (blocks.empty()) return Status::Ok();
    const auto on_device = [](const Status& s) { return s.with_context("Tier-1 on the GPU"); };
    {
      StepClock clock(&times_.upload_ms);
      MALLAT_RETURN_IF_ERROR(on_device(device_->upload(
          layout.jobs, std::span<const int32_t>(buffer, layout.coefficients), layout.slot_capacity)));
    }
    {
      StepClock clock(&times_.kernel_ms);
      MALLAT_RETURN_IF_ERROR(on_device(device_->encode()));
    }
    {
      StepClock clock(&times_.download_ms);
      MALLAT_RETURN_IF_ERROR(on_device(device_->download(result_)));
    }
    StepClock clock(&times_.finish_ms);
    return pool.parallel_for_status(static_cast<int64_t>(blocks.size()), [&](int64_t i) -> Status {
      const auto k = static_cast<size_t>(i);
      MALLAT_ASSIGN_OR_RETURN(out[k], finish_device_block(blocks[k], result_.results[k],
                                                          result_.passes.data() + k * kMaxCodingPasses,
                                                          result_.slots.data() + k * result_.slot_capacity,
                                                          result_.slot_capacity));
      return Status::Ok();
    });
  }

  std::unique_ptr<T1DeviceEncoder> device_;
  std::unique_ptr<BlockEncoder> ht_;
  size_t max_blocks_;
  PinnedBuffer pinned_;
  T1DeviceBatchResult result_;  // kept, so its buffers are reused
  DeviceCodingTimes times_;
};

}  // namespace

Result<std::unique_ptr<BlockEncoder>> make_t1_device_block_encoder(size_t max_blocks_per_launch) {
  if (max_blocks_per_launch == 0) return invalid_argument("Tier-1 on the GPU: 0 code-blocks per launch");
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<T1DeviceEncoder> device, T1DeviceEncoder::create());
  return std::unique_ptr<BlockEncoder>(new DeviceBlockEncoder(std::move(device), max_blocks_per_launch));
}

}  // namespace mallat::entropy::cuda
