// Tier-1 on a device and the CPU at once, behind the BlockEncoder interface
// (block_coder.h), for every block coder that has a device coder
// (DeviceBlockEncoders, entropy/hybrid/device_block_coder.h; today EBCOT's,
// entropy/device_coders.h). Plain C++: the device is reached through
// DeviceBlockEncoder, which entropy/cuda/ implements with CUDA and the CPU
// tests implement with the shared encoder on the host, so the scheduler is
// tested in CI without a GPU (tests/entropy/hybrid_block_encoder_test.cc).
//
// A batch (one coder's blocks, codec/stages/block_coding.cc) of a coder
// with a device: the device's share of blocks, from the front, is
// quantised (the caller's BatchWork::each) and gathered by the pool's
// threads first; the last gatherer hands it to a thread of the coder's own,
// which uploads, launches and downloads while the pool codes the remaining
// blocks with the coder's CPU coder from the back; then the device's slots
// are finished on the pool. Both sides give the CPU coder's bytes, passes
// and distortions (for EBCOT, entropy/ebcot/shared_encoder.h), so the split
// never changes the codestream. A launch that fails leaves its blocks to
// the CPU (the same bytes) and every later batch too; device_status() then
// says why. The share follows the two sides' measured rates from batch to
// batch (DeviceCoderOptions::adapt): a device kernel codes a block per
// thread, so its time grows slowly with its share while the CPU's grows in
// proportion, and where they meet depends on the image and the machine. A
// batch of a coder without a device goes to its CPU coder whole.
#pragma once

#include <memory>

#include "entropy/block_coder.h"
#include "entropy/hybrid/device_block_coder.h"

namespace mallat::entropy {

// A hybrid coder over the devices that `devices` makes (started now, in the
// background, one per coder and device slot) and the CPU coders on the
// pool. name() says "<coder> on <the device> + CPU" per coder with a
// device, or why the device is not used.
std::unique_ptr<BlockEncoder> make_hybrid_block_encoder(DeviceBlockEncoders devices,
                                                        const DeviceCoderOptions& options);

// How many device start-ups are still running (make_hybrid_block_encoder).
// A process that finishes its work before its device is up must not tear
// down the device runtime under it: one that returns from main or calls
// exit waits for the start-ups (a handler registered with atexit at the
// first one); tools/main.cc, which need not wait, leaves with std::_Exit
// once its files are written.
int device_starts_in_flight();

}  // namespace mallat::entropy
