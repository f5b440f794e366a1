// The block coder as one interface (docs/ARCHITECTURE.md): per code-block,
// plain data in and out, in batches, so that Part 1's EBCOT (Annex D), the
// HT block coder of 15444-15 and device versions of either are
// interchangeable behind it. The tile pipeline (codec/stages/block_coding.h)
// collects a tile's code-blocks into one batch and calls encode or decode;
// the factory picks the coder from the code-block style.
//
// A CPU coder spreads a batch over the thread pool, one block per item; a
// device coder may take the whole batch at once. Either way the results do
// not depend on how the work was spread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/plane_view.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "entropy/code_block_style.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::entropy {

// One code-block to encode: what encode_code_block takes (entropy/ebcot/ebcot.h).
struct BlockToEncode {
  // The quantisation indices as two's-complement integers, with
  // `fraction_bits` bits of their coefficient's fraction below them.
  PlaneView<const int32_t> coefficients;
  BandOrientation orientation = BandOrientation::kLL;
  int num_bitplanes = 0;  // Mb (E-2), with any ROI shift (H.1) added
  CodeBlockStyle style;
  int fraction_bits = 0;
  // HT code-blocks only (style.ht): the plane of the cleanup pass, which
  // codes every magnitude bit at and above it, and whether SigProp and
  // MagRef follow for the plane below (entropy/ht/code_block.h). The defaults code
  // the whole block losslessly in one cleanup pass; rate control may code
  // a block at several planes and choose.
  int ht_cleanup_plane = 0;
  bool ht_refinement = false;
  // false: the HT coder leaves every pass's distortion_decrease 0, for a
  // caller that sends every pass whatever they are worth (no rate target);
  // so does the Part 1 coder on the CPU, for its MQ-coded passes.
  bool distortions = true;
  // HT only: the share of its exponent bounds' lowering, as
  // HtEncodeSettings::lowering_share (negative: the default). The CPU coder
  // alone takes another (a device job has no field for it).
  int ht_lowering_share = -1;
  // Part 1 only: code at most this many passes (0: all; encode_code_block's
  // pass_limit, T1DeviceJob::pass_limit).
  int pass_limit = 0;
};

// One code-block to decode: what Tier-2 gathered for it (B.10) and the
// subband's Mb, orientation and style.
struct BlockToDecode {
  // The block's codeword bytes as Tier-2 found them: one piece per packet
  // that contributed (B.10.7: a codeword segment may span packets). The
  // coder joins them; a device coder may gather them while uploading.
  std::span<const std::span<const uint8_t>> pieces;
  // Length of each codeword segment in order (CodeBlockToDecode, entropy/ebcot/ebcot.h).
  std::span<const uint32_t> segment_lengths;
  int num_passes = 0;
  int zero_bitplanes = 0;  // P of B.10.5
  int num_bitplanes = 0;   // Mb
  BandOrientation orientation = BandOrientation::kLL;
  CodeBlockStyle style;
};

// Where one decoded block goes, and what came of it.
struct DecodedBlock {
  // The caller's: the block's size. The coder writes every sample: the
  // decoded values at their true weight, as decode_code_block returns them.
  PlaneView<int32_t> samples;
  // The coder's: how far the passes reached. With the decoded values it
  // tells reconstruction the plane each sample is known to (E.1.1.2,
  // quant::known_plane), so no plane of those is handed over.
  DecodedCodeBlockInfo info;
  // The coder's: why this block was not decoded (impossible parameters);
  // a corrupt segment decodes to whatever it says and is not an error.
  Status status;
};

// The caller's own work that a batch runs on the pool beside the blocks.
// (The pool's parallel_for is not re-entrant, so work that should overlap
// the block coding, or follow each block while its samples are in cache,
// can only share the pool through the coder.)
struct BatchWork {
  // Runs once per block, on the thread that codes it: just before a block
  // is encoded (the encoder quantises it there), just after a block has
  // decoded without error (the decoder dequantises it there). A coder that
  // codes the whole batch at once runs each before or after it instead.
  std::function<void(size_t block)> each;
  // `items` independent pieces of work run beside the blocks and started
  // before them (the decoder zero-fills its output image there), for a
  // device coder while the device works.
  int64_t items = 0;
  std::function<void(int64_t item)> item;
};

// A device coder's wall time per step, summed over its calls, for
// benchmarks (`mallat bench codec`): the caller's per-block work (the
// encoder's quantisation) with the blocks gathered into one buffer, the
// copy to the device, the launch until it ends, the copy back, and the
// slots turned into EncodedCodeBlocks.
struct DeviceCodingTimes {
  double prepare_ms = 0;
  double upload_ms = 0;
  double kernel_ms = 0;
  double download_ms = 0;
  double finish_ms = 0;
  // A hybrid coder (make_device_block_encoder): the blocks each side coded,
  // the CPU's wall time on its share while the device worked on its own, and
  // the time the CPU then waited for the device.
  uint64_t device_blocks = 0;
  uint64_t cpu_blocks = 0;
  double cpu_ms = 0;
  double wait_ms = 0;

  DeviceCodingTimes& operator+=(const DeviceCodingTimes& o) {
    prepare_ms += o.prepare_ms;
    upload_ms += o.upload_ms;
    kernel_ms += o.kernel_ms;
    download_ms += o.download_ms;
    finish_ms += o.finish_ms;
    device_blocks += o.device_blocks;
    cpu_blocks += o.cpu_blocks;
    cpu_ms += o.cpu_ms;
    wait_ms += o.wait_ms;
    return *this;
  }
};

// How the device coder shares each batch of Part 1 blocks with the CPU's
// threads (entropy/hybrid/hybrid_block_encoder.h): the device takes one launch of
// blocks from the front of the batch while the pool codes the rest from the
// back, and both give encode_code_block's bytes.
struct DeviceCoderOptions {
  // The part of a batch's samples the device takes, 0..1, at first; with
  // `adapt`, each later batch takes the part at which the last batch's two
  // sides would have finished together (their measured rates).
  double device_share = 0.5;
  bool adapt = true;
  // The device starts on a thread of its own as the coder is made. false: a
  // batch that comes before it is ready is coded on the CPU alone (so a
  // single small file never waits for CUDA's start-up); true: the first
  // batch waits for it.
  bool wait_for_device = false;
  // A batch of fewer Part 1 blocks stays on the CPU: a launch's fixed cost
  // (a few ms) is more than the CPU takes for a few hundred blocks.
  size_t min_device_blocks = 256;
  // A launch's device memory grows with its blocks (a working state of about
  // 40 KB and an output slot each): at most this many go to the device in a
  // batch, the rest to the CPU (an 8K RGB tile of 64x64 blocks, 23040, fits).
  size_t max_blocks_per_launch = 32768;
  // The samples of an image the coder will see, when the caller knows (a
  // command's first input): the start-up then allocates the device's share
  // of host and device buffers in the background. 0: at the first launch.
  uint64_t expected_samples = 0;
  // Concurrent calls (a batch coding several files at once) put their
  // device shares in rounds of at most this many callers, one launch each;
  // by window (kWindow below) a round waits for this many, or
  // `coalesce_window_ms` after the first (entropy/hybrid/coalesced_launch.h). 1:
  // each call launches alone.
  int coalesce_callers = 1;
  double coalesce_window_ms = 20;
  // When a round closes (entropy/hybrid/coalesced_launch.h): kWindow as above;
  // kSlotFree as soon as the device has a free slot (device_slots), with the
  // callers that joined while it had none (at most coalesce_callers), so
  // launches of different rounds run side by side; kDeviceIdle as soon as a
  // slot is free and no other round is between its close and the end of its
  // launch, so the callers that come while the GPU works go together in the
  // next launch, whose gathering overlaps the last round's finishing. The
  // window is not used by the last two.
  enum class RoundClose { kWindow, kSlotFree, kDeviceIdle };
  RoundClose coalesce_close = RoundClose::kWindow;
  // Rounds that may hold the device at once, each with buffers and a stream
  // of its own (a device made per slot): with 2, one round's blocks are
  // gathered or finished on the CPU while another's launch runs, and two
  // launches run side by side on the GPU (one image's blocks fill few of
  // its warps).
  int device_slots = 1;
};

class BlockEncoder {
 public:
  virtual ~BlockEncoder() = default;
  virtual std::string name() const = 0;
  // A device coder's times so far; zeros for a CPU coder.
  virtual DeviceCodingTimes device_times() const { return {}; }
  // A device coder whose device could not be started says why here (its
  // batches are then coded on the CPU, with the same bytes); OK otherwise.
  virtual Status device_status() const { return Status::Ok(); }

  // Codes blocks[i] into out[i] for every i (out.size() == blocks.size()).
  // Returns the first failure in block order: only parameters out of range
  // (a caller's bug) make a block fail.
  virtual Status encode(std::span<const BlockToEncode> blocks, std::span<EncodedCodeBlock> out, ThreadPool& pool,
                        const BatchWork& work = {}) = 0;
};

class BlockDecoder {
 public:
  virtual ~BlockDecoder() = default;
  virtual std::string name() const = 0;
  // As BlockEncoder's: a device decoder's times so far (zeros for a CPU
  // decoder), and why its device could not be started (OK otherwise).
  virtual DeviceCodingTimes device_times() const { return {}; }
  virtual Status device_status() const { return Status::Ok(); }

  // Decodes blocks[i] into out[i] for every i (out.size() == blocks.size()).
  // A block that cannot be decoded has its own status and the others go on;
  // an error return means the batch as a whole could not run.
  virtual Status decode(std::span<const BlockToDecode> blocks, std::span<DecodedBlock> out, ThreadPool& pool,
                        const BatchWork& work = {}) = 0;
};

// Which block coder a code-block style asks for.
enum class BlockCoderKind {
  kEbcot,  // Part 1, Annex D: MQ-coded bit-plane passes
  kHt,     // 15444-15: the HT block coder
};
BlockCoderKind block_coder_kind(const CodeBlockStyle& style);

// The coder for blocks of this style: EBCOT for every Part 1 style, the HT
// coder for HT code-blocks (style bit 6).
Result<std::unique_ptr<BlockEncoder>> make_block_encoder(const CodeBlockStyle& style);
Result<std::unique_ptr<BlockDecoder>> make_block_decoder(const CodeBlockStyle& style);

// One block coded on the calling thread by the CPU coder its style picks
// (the coder make_block_encoder's CPU coders run for each block): for a
// caller that spreads blocks over its own pool items.
Result<EncodedCodeBlock> encode_block_here(const BlockToEncode& block);

// The instruction set the CPU HT coder's cleanup pass runs with: "generic",
// "avx2" or "avx512" (chosen once from the CPU, or the environment variable
// MALLAT_HT_ISA; entropy/ht/cpu/cleanup_kernels.h).
const char* ht_cpu_isa_name();

// The block coders on the GPU and the CPU together
// (entropy/hybrid/hybrid_block_encoder.h over entropy/cuda/device_block_encoder.h):
// each batch (one coder's blocks, EBCOT's or HT's) split between one launch
// and the pool, byte for byte the CPU coder's output.
// The device starts on a background thread now; its memory is allocated
// once and reused by every call, so a caller coding many images makes one.
// An error when this build has no CUDA; a device that fails to start leaves
// every batch to the CPU and says why in device_status().
Result<std::unique_ptr<BlockEncoder>> make_device_block_encoder(const DeviceCoderOptions& options = {});
// OK when this build can make a device coder; else the error
// make_device_block_encoder gives. Starts nothing.
Status device_block_encoder_built();

// The block decoders on the GPU and the CPU together
// (entropy/hybrid/hybrid_block_decoder.h over entropy/cuda/device_block_decoder.h):
// each batch (one coder's blocks) split between one launch and the pool, the
// samples and info the CPU decoder gives. As make_device_block_encoder: the device starts in the
// background now, its memory is kept for later calls, an error when this
// build has no CUDA (device_block_encoder_built), every batch on the CPU
// when the device fails to start (device_status says why).
Result<std::unique_ptr<BlockDecoder>> make_device_block_decoder(const DeviceCoderOptions& options = {});

// The Part 1 coders themselves (entropy/ebcot/block_coder.cc): encode_code_block
// and decode_code_block, one block per item of the pool.
std::unique_ptr<BlockEncoder> make_ebcot_block_encoder();
std::unique_ptr<BlockDecoder> make_ebcot_block_decoder();

// The HT coders (entropy/ht/block_coder.cc): encode_ht_code_block and
// decode_ht_code_block, one block per item of the pool.
std::unique_ptr<BlockEncoder> make_ht_block_encoder();
std::unique_ptr<BlockDecoder> make_ht_block_decoder();

}  // namespace mallat::entropy
