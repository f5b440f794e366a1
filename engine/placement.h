// The placement rule: what an engine (codec/api/engine.h) runs where, and
// the batch's lanes, slots and rounds when the options leave them to it.
// One place for every default; the command line only parses its flags
// into EngineOptions. The figures behind the defaults are in
// docs/HISTORY.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "codec/api/engine.h"
#include "entropy/block_coder.h"

namespace mallat::engine {

// Items coded at once when EngineOptions::files_at_once is 0 and the
// device's Tier-1 shares the batch's blocks (DeviceStages::kTier1): a lane
// spends about half of each file waiting for its launch, so a third lane
// keeps the device fed; more lanes gain nothing.
inline constexpr int kDefaultBatchFiles = 3;

// A batch on the CPU alone codes one item per thread the engine has, each
// lane on one thread: a lane of many threads hands each stage's work out
// and back, which a small image's stages cannot pay for, while lanes of one
// thread share nothing but the memory bus. The lanes are fewer where the
// items would not fit in memory together: an item is taken to hold this
// many bytes per sample while it is coded (its samples, coefficients and
// code-blocks' bytes, or the stream, coefficients, samples and raster),
// and the lanes' items together at most kBatchMemoryShare of the memory
// the process may use (common/memory_limit.h).
inline constexpr uint64_t kBatchItemBytesPerSample = 16;
inline constexpr double kBatchMemoryShare = 0.5;

// The threads an engine uses: EngineOptions::threads, or one per hardware
// thread.
int engine_threads(const EngineOptions& options);

// A batch's lanes and each lane's threads.
struct BatchLanes {
  int lanes = 1;
  int threads_each = 1;
};

// A CPU batch's lanes for items of about `item_samples` samples (0:
// unknown, not limited by memory): EngineOptions::files_at_once where above
// 0, else one per engine thread up to what memory holds; the engine's
// threads shared among them (at least one each). The same items come out
// whatever the split.
BatchLanes cpu_batch_lanes(const EngineOptions& options, uint64_t item_samples);

// The same for a batch encode whose tiles go to the device whole: more
// lanes than the device's slots (kWholeTileSlots), so that the other lanes
// run their CPU stages (reading, narrowing, rate allocation, Tier-2) while
// the slots' tiles are on the device.
inline constexpr int kWholeTileBatchFiles = 12;

// The same for a batch decode whose tiles go to the device whole, on
// kWholeTileDecodeSlots slots (more slots hold more device memory for
// little gain).
inline constexpr int kWholeTileDecodeBatchFiles = 8;

// The device's slots that a batch's lanes share when tiles go to the
// device whole (at most this many tiles on the device at once; a lane
// holds a slot only while its tile is there): K lanes get min(K, 8) for an
// encode and min(K, 6) for a decode, unless EngineOptions::device_tile_slots.
inline constexpr int kWholeTileSlots = 8;
inline constexpr int kWholeTileDecodeSlots = 6;

// Each lane's threads in a batch whose tiles go to the device whole: the
// engine's threads shared among its `lanes`, or among its `items` where
// fewer and known (0: unknown), at least one each, as a CPU batch's are.
// Such a lane's CPU work is short steps (reading, gathering codeword bytes,
// finishing the blocks, Tier-2), and a pool of every thread a lane would
// wake more threads than there are cores at each step.
int whole_tile_lane_threads(const EngineOptions& options, int lanes, uint64_t items = 0);

// A batch's tiles go to the device whole unless DeviceStages::kTier1.
inline constexpr bool kBatchWholeTiles = true;

// A batch's device share when EngineOptions::device_share is not given:
// every Part 1 block on the device, fixed. In a batch the CPU's threads have
// other files' stages to run, so the device's share of one file's blocks is
// worth more than the adapted split (which balances one file's two sides).
inline constexpr double kBatchDeviceShare = 1.0;

// A batch's rounds: 2 slots, each round closing as soon as a slot is free.
// One file's blocks fill few of the device's warps, so two files' launches
// side by side cost little more than one, and no file waits for company.
inline constexpr int kBatchDeviceSlots = 2;

// Whether a workload's tiles go to the device whole: as asked, else for a
// batch (kBatchWholeTiles) and not for one item.
bool whole_tiles(DeviceStages stages, bool batch);

// A Part 1 batch decode whose items have fewer samples than this (a
// 1536x1024 RGB image has 4.7 M) decodes its Tier-1 blocks on the device in
// rounds that kSmallItemDecodeFiles lanes share, each round launched as
// soon as the device is idle, the rest of each file on its lane: such a
// file's tile holds too few code-blocks to fill the device, so whole tiles
// (one launch each) leave the device waiting on each small launch, while
// rounds gather several files' blocks into one (docs/PERFORMANCE.md,
// "Small images on the device"). Unless DeviceStages or --batch-files say
// otherwise.
inline constexpr uint64_t kSmallItemDecodeSamples = uint64_t{3} << 20;
inline constexpr int kSmallItemDecodeFiles = 8;

// Whether a decode batch (`work`, its first item's samples) holds small
// items (under kSmallItemDecodeSamples) with the stages left to the
// placement: its Tier-1 then goes in rounds, not whole tiles.
bool small_decode_items(DeviceStages stages, const Workload& work);

// Whether a decode puts its tiles on the device whole: whole_tiles, except
// for small_decode_items.
bool decode_whole_tiles(DeviceStages stages, const Workload& work);

// A batch of HT items goes to the device only from this many samples in
// all (its first item's samples times its items): the CPU's HT coders,
// a lane of one thread per core, code a smaller batch before CUDA's
// start-up (its context and the tile slots' buffers, paid once a process)
// and the device's launches pay for themselves. The thresholds are where
// the two paths' measured times cross, a line each through a batch of
// 64 3840x2048 RGB images and one of about 300 M samples (23 and 46 such
// images; docs/PERFORMANCE.md, "Small images on the device"). Part 1's coders are slower per sample on the
// CPU, so a Part 1 batch goes to the device whatever its count of items,
// unless its items are small encodes (kPart1EncodeItemDeviceSamples).
inline constexpr uint64_t kHtEncodeBatchDeviceSamples = uint64_t{1} << 29;
inline constexpr uint64_t kHtDecodeBatchDeviceSamples = uint64_t{1} << 30;

// A Part 1 batch encode of items under this many samples (the first item's)
// stays on the CPU: a lane of one thread per core codes such images as fast
// as the device's whole tiles, whose copies, launches and CUDA's start-up
// are paid per image. Where the measured times cross, between 768x512 and
// 1280x720 RGB images (docs/PERFORMANCE.md, "Part 1 batches by image size").
inline constexpr uint64_t kPart1EncodeItemDeviceSamples = uint64_t{7} << 18;

// An HT batch encode under a size or quality target whose tiles the
// device's runner keeps whole through rate control (HtTarget::kKeptWhole)
// gains from this many samples in all. Its lanes do little on the CPU
// (about a seventh of the CPU path's CPU time), but the device's path
// pays CUDA's start-up and each image's upload and rounds: against the
// CPU's streamed encode it is level at 32 3840x2048 RGB images at -r 20
// and behind at --bpp 1, ahead at 64 images at both (docs/PERFORMANCE.md,
// "HT under a target, the whole tile on the device"): the crossing lies
// between, about 46 such images.
inline constexpr uint64_t kHtTargetEncodeBatchDeviceSamples = uint64_t{1} << 30;

// An HT encode under a size or quality target (EncodeOptions::ht_under_target)
// codes its blocks again at the planes rate control chooses: where the
// device's runner keeps the tile whole for that (rate control by estimates
// at the nominal steps in an image of one tile, codec/stages/device_rule.h:
// device_codes_again_problem), or where the lanes would transform whole
// images on the CPU for a share of the blocks on the device, slower than
// the CPU's streamed encode (docs/PERFORMANCE.md, "HT under a target on the
// device").
enum class HtTarget { kNone, kKeptWhole, kCodedAgainOnHost };
HtTarget ht_target_of(const codec::EncodeOptions& options);

// Whether a batch (`work`) gains from the device: a Part 1 batch (of items
// from kPart1EncodeItemDeviceSamples, or of unknown size, for an encode),
// an HT batch of unknown size, or one of kHt*BatchDeviceSamples or more; an
// HT encode under a target (`target`) kept whole on the device from
// kHtTargetEncodeBatchDeviceSamples (its size known), and never one whose
// blocks would be coded again from the host's indices; whole tiles named
// (--device-stages all) send either there. A batch that does not gain is
// coded on the CPU alone, CUDA never started, unless device_asked says
// otherwise.
bool device_pays_for_batch(const Workload& work, bool ht, bool decode, HtTarget target = HtTarget::kNone);

// Whether the options ask for the device whatever a batch's size, or for
// one item: a device share, whole tiles or Tier-1 named, or
// device_for_one_item.
bool device_asked(const EngineOptions& options);

// K for an encode or decode with a device: EngineOptions::files_at_once
// where above 0, else the default of its path (whole tiles or Tier-1);
// each of its lanes has every engine thread (they spend most of a file
// waiting for the device), except where the tiles go whole
// (whole_tile_lane_threads).
int encode_files_at_once(const EngineOptions& options);
// A decode's default is kSmallItemDecodeFiles for a batch of small items of
// `item_samples` (small_decode_items).
int decode_files_at_once(const EngineOptions& options, uint64_t item_samples = 0);

// Items a batch reads ahead of its lanes: 2, or 4 where the device takes
// whole tiles, whose lanes finish a file faster than one is read; or
// EngineOptions::files_ahead where above 0.
int files_ahead(const EngineOptions& options, bool whole_tiles_on_device);

// One item of fewer samples than this is coded on the CPU alone, CUDA never
// started: CUDA's start-up on its background thread slows the CPU stages
// of the same process even when no block goes to the device, and the
// device's share of Tier-1 pays for that only on large images.
inline constexpr uint64_t kOneItemDeviceSamples = uint64_t{1} << 27;

// Whether one image to encode (`work`, not a batch; its expected_samples 0
// when unknown, taken as small) gains from the device's Tier-1: a Part 1
// image from kOneItemDeviceSamples. Not an HT image, streamed or whole: the
// CPU's HT coder keeps up with the strips' serial work (reading, colour
// transform, line DWT), so the device's rounds add their copies and CUDA's
// context to the same time (docs/PERFORMANCE.md, "Large images and memory").
// Nor is one file decoded with the device (prepare_decode): its rows of
// code-blocks make rounds too small to pay for their copies. Either goes to
// the device when EngineOptions::device_for_one_item asks (the streamed
// encode and decode then hand their rows of code-blocks to the hybrid
// coders).
bool device_pays_for_one_item(const Workload& work, bool ht);

// One Part 1 item of kOneItemDeviceSamples or more goes to the device
// whole, as a batch's tiles do (its tile through the runner: colour, DWT
// and Tier-1 there, rather than strips whose rows of code-blocks the hybrid
// coder shares; an encode of one tile fed its rows strip by strip,
// codec::streamed_encode_feeds_device, others read whole), where that fits: at most
// kOneItemWholeSamples (the runner's device memory grows with the tile) and
// kOneItemWholeBytesPerSample a sample within kBatchMemoryShare of the
// memory limit (default_memory_limit). Measured on a 15360x8192 RGB file
// with 16 threads (docs/PERFORMANCE.md, "One large Part 1 file" and "One
// large file fed to the device"): the encode and the lossless decode about
// twice the CPU path's speed, within 512 MB of host memory. A decode of a region, a
// reduced resolution, a tile or some components, or an encode whose tiles
// the runner does not take (an ROI: device_encode_options_problem), keeps
// its own path (`whole` false), as does one whose options name the device's part (stages, a
// share, EngineOptions::device_for_one_item) or whose caller asks for strips
// (Workload::strips_asked). A decode on the 9/7 path (Workload::irreversible)
// does not gain: 0.64 s against the CPU's 0.66 to PPM, 1.18 against 1.07 to
// raw planes, at twice the memory (the CPU's output stage in row kernels on
// a pool of its own), so it keeps the strips.
inline constexpr uint64_t kOneItemWholeSamples = uint64_t{1} << 30;
inline constexpr uint64_t kOneItemWholeBytesPerSample = 8;
bool one_item_whole_on_device(const EngineOptions& options, const Workload& work, bool ht, bool whole = true);
// Whether a decode with `options` decodes the whole image (`whole` above):
// no region, reduced resolution, layers, tile or components chosen.
bool decodes_whole_image(const codec::DecodeOptions& options);

// The samples the device coder makes room for as it starts
// (DeviceCoderOptions::expected_samples): the item's, whose blocks a
// whole-image encode hands over at once; none for a streamed item, whose
// launches are a strip's rows of code-blocks (its buffers grow to them at
// the first launches), so that the room stays a strip's, not the image's.
uint64_t device_room_samples(const Workload& work);

// About the samples of the file at `path`, or of the first file by name in
// it when it is a folder: its size in bytes (about its samples for 8-bit
// PNM and raw, more for 16-bit, less for PNG); 0 when there is none.
uint64_t expected_samples_of(const std::string& path);

// The samples a JPEG 2000 file (codestream or JP2) decodes to, from its
// SIZ (B.2, every component), and whether its main header's COD names HT
// code-blocks (15444-15 A.2); 0 and false where its header cannot be read.
// For a folder, its first file by name, as expected_samples_of.
struct DecodedItem {
  uint64_t samples = 0;
  bool ht = false;
  bool irreversible = false;  // the 9/7 path (COD's transformation)
};
DecodedItem decoded_item_of(std::span<const uint8_t> file);
DecodedItem decoded_item_of(const std::string& path);
inline uint64_t decoded_samples_of(std::span<const uint8_t> file) { return decoded_item_of(file).samples; }
inline uint64_t decoded_samples_of(const std::string& path) { return decoded_item_of(path).samples; }

// The device coder's options for a workload coding `files_at_once` items
// at a time; `batch`: a batch of items, whose defaults differ;
// `small_items`: a batch decode of small items (small_decode_items), whose
// rounds close as soon as the device is idle.
entropy::DeviceCoderOptions device_coder_options(const EngineOptions& options, bool batch, int files_at_once,
                                                 bool small_items = false);

}  // namespace mallat::engine
