// Tier-1 decoding on a device and the CPU at once, behind the BlockDecoder
// interface (block_coder.h), as entropy/hybrid/hybrid_block_encoder.h is
// for encoding, for every block coder that has a device decoder
// (DeviceBlockDecoders, entropy/hybrid/device_block_coder.h; today EBCOT's,
// entropy/device_coders.h). Plain C++: the device is reached through
// DeviceBlockDecoder, which entropy/cuda/ implements with CUDA and the CPU
// tests implement with the shared decoder on the host, so the scheduler is
// tested in CI without a GPU (tests/entropy/hybrid_block_decoder_test.cc).
//
// A batch of a coder with a device: the beside items first, then the
// device's share of blocks, from the front, gathered by the pool's threads
// into one buffer; the last gatherer hands it to a thread of the coder's
// own, which uploads, launches and downloads while the pool decodes the
// remaining blocks with the coder's CPU decoder from the back (each
// followed by the caller's BatchWork::each); then the device's blocks are
// copied into their places and their `each` run on the pool. Both sides
// give the CPU decoder's samples and info (for EBCOT,
// entropy/ebcot/shared_decoder.h), so the split never changes the image. A
// launch that fails leaves its blocks to the CPU (the same samples) and
// every later batch too; device_status() then says why. The share follows
// the two sides' measured rates from batch to batch
// (DeviceCoderOptions::adapt). A batch of a coder without a device goes to
// its CPU decoder whole.
#pragma once

#include <memory>

#include "entropy/block_coder.h"
#include "entropy/hybrid/device_block_coder.h"

namespace mallat::entropy {

// A hybrid decoder over the devices that `devices` makes (started now, in
// the background) and the CPU decoders on the pool. name() says "<coder>
// decoding on <the device> + CPU" per coder with a device, or why the
// device is not used. Options as the encoder's (DeviceCoderOptions):
// expected_samples makes room for that many samples' share.
std::unique_ptr<BlockDecoder> make_hybrid_block_decoder(DeviceBlockDecoders devices,
                                                        const DeviceCoderOptions& options);

}  // namespace mallat::entropy
