// The device side of a block coder, any coder's: what the hybrid coders
// (hybrid_block_encoder.h, hybrid_block_decoder.h) drive, one launch at a
// time over the blocks last prepared. entropy/cuda/ implements EBCOT's with
// CUDA and registers it by coder (entropy/cuda/device_block_coders.h); the
// CPU tests implement it with the shared coders on the host, so the
// scheduling is tested in CI without a GPU. A device coder for another
// block coder implements the same interface and registers beside it.
//
// Plain C++.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/status.h"
#include "entropy/block_coder.h"
#include "entropy/device_coders.h"

namespace mallat::entropy {

// Encoding: the device's blocks of one batch (or one round of batches,
// entropy/hybrid/coalesced_launch.h), all of the coder the device codes.
class DeviceBlockEncoder {
 public:
  virtual ~DeviceBlockEncoder() = default;
  virtual std::string name() const = 0;
  // Lays out `blocks` for one launch and makes room for them; they stay
  // alive and unchanged until the last finish(). An error for a block the
  // device cannot take or memory it cannot get.
  virtual Status prepare(std::span<const BlockToEncode> blocks) = 0;
  // Copies prepared block k's coefficients into the upload buffer; called
  // once per block, from any pool thread, after its quantisation.
  virtual void gather(size_t k) = 0;
  // Uploads, codes and downloads the prepared blocks, on the calling thread,
  // adding each step's time to `times`.
  virtual Status run(DeviceCodingTimes& times) = 0;
  // Prepared block k as the coder's CPU coder returns it, bytes, passes and
  // distortions alike.
  virtual Result<EncodedCodeBlock> finish(size_t k) = 0;
  // Makes room now, on the start-up thread, for a launch of about
  // `coefficients` in `blocks` blocks (DeviceCoderOptions::expected_samples),
  // so that the first batch does not pay for page-locking and allocating.
  virtual Status reserve(size_t coefficients, size_t blocks) = 0;
};

// Decoding, as DeviceBlockEncoder.
class DeviceBlockDecoder {
 public:
  virtual ~DeviceBlockDecoder() = default;
  virtual std::string name() const = 0;
  // Lays out `blocks` (decoding into `out`'s sizes) for one launch and
  // makes room for them; both stay alive and unchanged until the last
  // finish(). An error for a block the device cannot take or memory it
  // cannot get.
  virtual Status prepare(std::span<const BlockToDecode> blocks, std::span<const DecodedBlock> out) = 0;
  // Copies prepared block k's bytes and segment lengths into the upload
  // buffers; called once per block, from any pool thread.
  virtual void gather(size_t k) = 0;
  // Uploads, decodes and downloads the prepared blocks, on the calling
  // thread, adding each step's time to `times`.
  virtual Status run(DeviceCodingTimes& times) = 0;
  // Prepared block k into `out` as the coder's CPU decoder gives it.
  virtual void finish(size_t k, DecodedBlock& out) = 0;
  // Makes room now, on the start-up thread, for a launch of about
  // `bytes` codeword bytes and `samples` samples in `blocks` blocks.
  virtual Status reserve(size_t bytes, size_t samples, size_t blocks) = 0;
};

// Makes a device; run once per device slot, on a background thread of its own.
using DeviceBlockEncoderStart = std::function<Result<std::unique_ptr<DeviceBlockEncoder>>()>;
using DeviceBlockDecoderStart = std::function<Result<std::unique_ptr<DeviceBlockDecoder>>()>;

// A hybrid coder's devices by block coder (indexed by BlockCoderKind): an
// empty start, or a coder whose row in entropy/device_coders.h is off,
// leaves that coder's blocks to its CPU coder.
struct DeviceBlockEncoders {
  std::array<DeviceBlockEncoderStart, kBlockCoderKinds> start;
};
struct DeviceBlockDecoders {
  std::array<DeviceBlockDecoderStart, kBlockCoderKinds> start;
};

// `start` for `coder`'s blocks alone.
inline DeviceBlockEncoders device_block_encoders(BlockCoderKind coder, DeviceBlockEncoderStart start) {
  DeviceBlockEncoders d;
  d.start[static_cast<size_t>(coder)] = std::move(start);
  return d;
}
inline DeviceBlockDecoders device_block_decoders(BlockCoderKind coder, DeviceBlockDecoderStart start) {
  DeviceBlockDecoders d;
  d.start[static_cast<size_t>(coder)] = std::move(start);
  return d;
}

}  // namespace mallat::entropy
