// A coder's launch on the device for the hybrid decoder (entropy/hybrid/hybrid_block_decoder.h),
// EBCOT's or HT's:
// the pool gathers each block's bytes and segment lengths into pinned
// buffers, then one upload, one launch, one download of the samples into a
// pinned buffer, and each block's samples are copied to their place. The
// samples are the CPU decoder's (entropy/ebcot/shared_decoder.h,
// entropy/ht/shared_code_block.h).
#include "entropy/cuda/device_block_decoder.h"

#include <span>
#include <string>
#include <vector>

#include "entropy/cuda/cuda_memory.h"
#include "entropy/cuda/t1_device_decoder.h"
#include "entropy/cuda/t1_device_encoder.h"
#include "entropy/t1_decode_batch.h"

namespace mallat::entropy::cuda {
namespace {

class CudaT1BlockDecoder final : public DeviceBlockDecoder {
 public:
  explicit CudaT1BlockDecoder(std::unique_ptr<T1DeviceDecoder> device) : device_(std::move(device)) {}

  std::string name() const override { return t1_device_name(); }

  Status prepare(std::span<const BlockToDecode> blocks, std::span<const DecodedBlock> out) override {
    blocks_ = blocks;
    MALLAT_ASSIGN_OR_RETURN(layout_, lay_out_t1_decode_batch(blocks, out));
    MALLAT_RETURN_IF_ERROR(bytes_.reserve(layout_.bytes));
    MALLAT_RETURN_IF_ERROR(segments_.reserve(layout_.segments));
    return samples_.reserve(layout_.samples);
  }

  void gather(size_t k) override {
    gather_t1_decode_block(blocks_[k], layout_.jobs[k], bytes_.data(), segments_.data());
  }

  Status run(DeviceCodingTimes& times) override {
    {
      StepClock clock(&times.upload_ms);
      MALLAT_RETURN_IF_ERROR(device_->upload(layout_.jobs, std::span<const uint8_t>(bytes_.data(), layout_.bytes),
                                             std::span<const uint32_t>(segments_.data(), layout_.segments),
                                             layout_.samples));
    }
    {
      StepClock clock(&times.kernel_ms);
      MALLAT_RETURN_IF_ERROR(device_->decode());
    }
    StepClock clock(&times.download_ms);
    results_.resize(layout_.jobs.size());
    return device_->download(results_, std::span<int32_t>(samples_.data(), layout_.samples));
  }

  void finish(size_t k, DecodedBlock& out) override {
    finish_device_decoded_block(blocks_[k], results_[k], samples_.data() + layout_.jobs[k].sample_offset, out);
  }

  Status reserve(size_t bytes, size_t samples, size_t blocks) override {
    MALLAT_RETURN_IF_ERROR(bytes_.reserve(bytes));
    MALLAT_RETURN_IF_ERROR(segments_.reserve(blocks * 4));
    MALLAT_RETURN_IF_ERROR(samples_.reserve(samples));
    return device_->reserve(blocks, bytes, blocks * 4, samples);
  }

 private:
  std::unique_ptr<T1DeviceDecoder> device_;
  std::span<const BlockToDecode> blocks_;
  T1DecodeBatchLayout layout_;
  // Page-locked: the copies run at the bus's speed with no staging copy.
  PinnedBuffer<uint8_t> bytes_;
  PinnedBuffer<uint32_t> segments_;
  PinnedBuffer<int32_t> samples_;
  std::vector<SharedT1DecodeResult> results_;
};

}  // namespace

Result<std::unique_ptr<DeviceBlockDecoder>> make_t1_device_block_decoder() {
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<T1DeviceDecoder> device, T1DeviceDecoder::create());
  return std::unique_ptr<DeviceBlockDecoder>(new CudaT1BlockDecoder(std::move(device)));
}

}  // namespace mallat::entropy::cuda
