// Part 1 Tier-1 decoding on a device and the CPU at once, behind the
// BlockDecoder interface (block_coder.h), as entropy/hybrid/hybrid_block_encoder.h is for
// encoding. Plain C++: the device is reached through T1DecodeDevice, which
// entropy/cuda/ implements with CUDA and the CPU tests implement with the
// shared decoder on the host, so the scheduler is tested in CI without a GPU
// (tests/entropy/hybrid_block_decoder_test.cc).
//
// A batch: the beside items first, then the device's share of blocks, from
// the front, gathered by the pool's threads into one buffer; the last
// gatherer hands it to a thread of the coder's own, which uploads, launches
// and downloads while the pool decodes the remaining blocks with
// decode_code_block from the back (each followed by the caller's
// BatchWork::each); then the device's blocks are copied into their places
// and their `each` run on the pool. Both sides give decode_code_block's
// samples and info (entropy/ebcot/shared_decoder.h), so the split never changes the
// image. A launch that fails leaves its blocks to the CPU (the same
// samples) and every later batch too; device_status() then says why. The
// share follows the two sides' measured rates from batch to
// batch (DeviceCoderOptions::adapt).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/status.h"
#include "entropy/block_coder.h"

namespace mallat::entropy {

// The device side: one launch at a time over the blocks last prepared.
class T1DecodeDevice {
 public:
  virtual ~T1DecodeDevice() = default;
  virtual std::string name() const = 0;
  // Lays out `blocks` (all Part 1, decoding into `out`'s sizes) for one
  // launch and makes room for them; both stay alive and unchanged until
  // the last finish(). An error for a block the device cannot take
  // (lay_out_t1_decode_batch) or memory it cannot get.
  virtual Status prepare(std::span<const BlockToDecode> blocks, std::span<const DecodedBlock> out) = 0;
  // Copies prepared block k's bytes and segment lengths into the upload
  // buffers; called once per block, from any pool thread.
  virtual void gather(size_t k) = 0;
  // Uploads, decodes and downloads the prepared blocks, on the calling
  // thread, adding each step's time to `times`.
  virtual Status run(DeviceCodingTimes& times) = 0;
  // Prepared block k into `out` as decode_code_block gives it
  // (finish_device_decoded_block).
  virtual void finish(size_t k, DecodedBlock& out) = 0;
  // Makes room now, on the start-up thread, for a launch of about
  // `bytes` codeword bytes and `samples` samples in `blocks` blocks.
  virtual Status reserve(size_t bytes, size_t samples, size_t blocks) = 0;
};

using T1DecodeDeviceStart = std::function<Result<std::unique_ptr<T1DecodeDevice>>()>;

// A hybrid decoder over the device that `start` makes (started now, in the
// background) and decode_code_block on the pool; HT batches go to the CPU's
// HT decoder. name() says "ebcot decoding on <the device> + CPU", or why
// the device is not used. Options as the encoder's (DeviceCoderOptions):
// expected_samples makes room for that many samples' share.
std::unique_ptr<BlockDecoder> make_hybrid_block_decoder(T1DecodeDeviceStart start, const DeviceCoderOptions& options);


}  // namespace mallat::entropy
