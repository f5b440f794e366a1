// Part 1 Tier-1 on a device and the CPU at once, behind the BlockEncoder
// interface (block_coder.h). Plain C++: the device is reached through
// T1Device, which entropy/cuda/ implements with CUDA and the CPU tests
// implement with the shared encoder on the host, so the scheduler is tested
// in CI without a GPU (tests/entropy/hybrid_block_encoder_test.cc).
//
// A batch: the device's share of blocks, from the front, is quantised (the
// caller's BatchWork::each) and gathered by the pool's threads first; the
// last gatherer hands it to a thread of the coder's own, which uploads,
// launches and downloads while the pool codes the remaining blocks with
// encode_code_block from the back; then the device's slots are finished on
// the pool. Both sides give encode_code_block's bytes, passes and
// distortions (entropy/ebcot/shared_encoder.h), so the split never changes the
// codestream. A launch that fails leaves its blocks to the CPU (the same
// bytes) and every later batch too; device_status() then says why. The
// share follows the two sides' measured rates from batch to
// batch (DeviceCoderOptions::adapt): the device kernel codes a block per
// thread, so its time grows slowly with its share while the CPU's grows in
// proportion, and where they meet depends on the image and the machine.
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
class T1Device {
 public:
  virtual ~T1Device() = default;
  virtual std::string name() const = 0;
  // Lays out `blocks` (all Part 1) for one launch and makes room for them;
  // they stay alive and unchanged until the last finish(). An error for a
  // block the device cannot take (lay_out_t1_batch) or memory it cannot get.
  virtual Status prepare(std::span<const BlockToEncode> blocks) = 0;
  // Copies prepared block k's coefficients into the upload buffer; called
  // once per block, from any pool thread, after its quantisation.
  virtual void gather(size_t k) = 0;
  // Uploads, codes and downloads the prepared blocks, on the calling thread,
  // adding each step's time to `times`.
  virtual Status run(DeviceCodingTimes& times) = 0;
  // Prepared block k as encode_code_block returns it (finish_device_block).
  virtual Result<EncodedCodeBlock> finish(size_t k) = 0;
  // Makes room now, on the start-up thread, for a launch of about
  // `coefficients` in `blocks` blocks (DeviceCoderOptions::expected_samples),
  // so that the first batch does not pay for page-locking and allocating.
  virtual Status reserve(size_t coefficients, size_t blocks) = 0;
};

// Makes the device; run once, on a background thread of its own.
using T1DeviceStart = std::function<Result<std::unique_ptr<T1Device>>()>;

// A hybrid coder over the device that `start` makes (started now, in the
// background) and encode_code_block on the pool. name() says "ebcot on <the
// device> + CPU", or why the device is not used.
std::unique_ptr<BlockEncoder> make_hybrid_block_encoder(T1DeviceStart start, const DeviceCoderOptions& options);

// How many device start-ups are still running (make_hybrid_block_encoder).
// A process that finishes its work before its device is up must not wait
// for it, nor tear down the device runtime under it: tools/main.cc then
// leaves with std::_Exit once its files are written.
int device_starts_in_flight();

}  // namespace mallat::entropy
