// A coder's launch on the device for the hybrid coder (entropy/hybrid/hybrid_block_encoder.h),
// EBCOT's or HT's (one batch is one coder's):
// the pool gathers each block into one pinned buffer, then one upload, one
// launch, one download, and each block's slot becomes its EncodedCodeBlock.
// The bytes are the CPU coder's (entropy/ebcot/shared_encoder.h,
// entropy/ht/shared_code_block.h), so the rate
// allocator sees the same passes and the codestream is the CPU path's.
#include "entropy/cuda/device_block_encoder.h"

#include <cuda_runtime_api.h>

#include <span>
#include <string>

#include "entropy/cuda/cuda_memory.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/t1_encode_batch.h"

namespace mallat::entropy::cuda {
namespace {

class CudaT1BlockEncoder final : public DeviceBlockEncoder {
 public:
  explicit CudaT1BlockEncoder(std::unique_ptr<T1DeviceEncoder> device) : device_(std::move(device)) {}

  std::string name() const override { return t1_device_name(); }

  Status prepare(std::span<const BlockToEncode> blocks) override {
    blocks_ = blocks;
    MALLAT_ASSIGN_OR_RETURN(layout_, lay_out_t1_batch(blocks));
    return pinned_.reserve(layout_.coefficients);
  }

  void gather(size_t k) override { gather_t1_block(blocks_[k], layout_.jobs[k], pinned_.data()); }

  Status run(DeviceCodingTimes& times) override {
    {
      StepClock clock(&times.upload_ms);
      MALLAT_RETURN_IF_ERROR(device_->upload(
          layout_.jobs, std::span<const int32_t>(pinned_.data(), layout_.coefficients), layout_.slot_capacity));
    }
    {
      StepClock clock(&times.kernel_ms);
      MALLAT_RETURN_IF_ERROR(device_->encode());
    }
    StepClock clock(&times.download_ms);
    return device_->download(result_);
  }

  Status reserve(size_t coefficients, size_t blocks) override {
    MALLAT_RETURN_IF_ERROR(pinned_.reserve(coefficients));
    // Slots for 64x64 blocks of 16 coded planes (ebcot_slot_capacity).
    return device_->reserve(blocks, coefficients, ebcot_slot_capacity(4096, 16));
  }

  Result<EncodedCodeBlock> finish(size_t k) override {
    return finish_device_block(blocks_[k], result_.results[k], result_.passes.data() + k * kMaxCodingPasses,
                               result_.slots.data() + k * result_.slot_capacity, result_.slot_capacity);
  }

 private:
  std::unique_ptr<T1DeviceEncoder> device_;
  std::span<const BlockToEncode> blocks_;
  T1DeviceBatchLayout layout_;
  // Page-locked: the copy to the device runs at the bus's speed and needs
  // no staging copy.
  PinnedBuffer<int32_t> pinned_;
  T1DeviceBatchResult result_;  // kept, so its buffers are reused
};

}  // namespace

Result<std::unique_ptr<DeviceBlockEncoder>> make_t1_device_block_encoder() {
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<T1DeviceEncoder> device, T1DeviceEncoder::create());
  return std::unique_ptr<DeviceBlockEncoder>(new CudaT1BlockEncoder(std::move(device)));
}

}  // namespace mallat::entropy::cuda
