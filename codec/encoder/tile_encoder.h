// One tile through the encoder: the forward stages of codec/stages/
// tile_stages.h (DC shift and colour transform, forward DWT, quantisation,
// block coding of every code-block in parallel); then, once the rate
// allocator has chosen each block's passes per layer, the Tier-2 packets.
// The coded blocks stay in memory between the two steps so the allocator
// can see every tile before any packet is written.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codec/api/encode_streamed.h"
#include "codec/api/stage_times.h"
#include "codec/encoder/coded_spill.h"
#include "codec/encoder/kept_indices.h"
#include "codec/codestream/marker_writer.h"
#include "codec/tier2/packet_writer.h"
#include "codec/tier2/progression.h"
#include "codec/tier2/tile_precincts.h"
#include "codec/encoder/rate_control.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/tile_buffers.h"
#include "codec/stages/tile_stages.h"
#include "codec/tier2/tile_geometry.h"
#include "common/image.h"
#include "common/job_thread.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::codec {

// What every tile of one encode shares.
struct TileCodingSetup {
  const Image* image = nullptr;
  const MainHeader* main = nullptr;
  // Per component, per subband in A.6.4 order: the signalled step Delta_b
  // (1 on the reversible path) and the synthesis energy weight norm_b^2.
  std::vector<std::vector<double>> step;
  std::vector<std::vector<double>> energy;
  // Per component: the weight of its errors in the output components after
  // the inverse colour transform (1 without one), so that distortions add up
  // to the squared error of the decoded image.
  std::vector<double> colour_weight;
  // Per component: the ROI max-shift s of its RGN (0 without one, Annex H).
  std::vector<int> roi_shift;
  // Tiles whose packets follow progression changes of their own (written in
  // their first tile-part header); other tiles follow main->poc.
  std::map<int, std::vector<ProgressionChange>> tile_progression_changes;
  // HT code-blocks under rate control: code each at every plane it has
  // (CodedBlock::ht).
  bool ht_candidates = false;
  // With ht_candidates: estimate each block's planes while quantising and
  // code only those that rate control chooses (EncodeOptions::HtRate,
  // ht_rate.h), instead of every plane.
  bool ht_estimated = false;
  // Part 1 code-blocks coded down to pass limits (part1_limits_wanted,
  // part1_rate.h): estimated as ht_estimated's are, their indices kept,
  // then coded under the limits.
  bool part1_estimated = false;
  // Whether this tile's blocks wait for rate control's choice.
  bool estimated(bool ht) const { return ht ? ht_estimated : part1_estimated; }
  // With ht_estimated under a size target: the main header of a base step
  // 2^-1/2 times as large and its steps (as `step`), at which each block
  // is estimated too, for rate control to take instead where that leaves
  // less distortion (finer_steps.h); null where there is no such choice.
  const MainHeader* finer_main = nullptr;
  std::vector<std::vector<double>> finer_step;
  // The most bits of their coefficient's fraction kept below irreversible
  // indices (TileEncoder::code_one).
  int fraction_bits = 8;
  // Whether the passes' distortion decreases are needed: under a rate
  // target only (otherwise every pass is sent); HT coders skip them.
  bool distortions = true;
  // When set, the forward stages' times are added to it (stage_times.h).
  StageTimes* stage_times = nullptr;
  // When set, code-blocks are coded through it (EncodeTile::hybrid_coder).
  entropy::BlockEncoder* hybrid_coder = nullptr;
  // When set, tiles run their forward stages through the device runner
  // (codec/stages/device_tile_stages.h), which takes the tiles it covers
  // whole on the GPU and hands the others to the CPU runner.
  DeviceTileContext* device_tiles = nullptr;
  // When set (a streamed encode that sends every pass: the allocator reads
  // no pass table), the blocks coded once their bytes and pass tables in
  // memory pass `spill_budget` go to it (coded_spill.h).
  CodedSpill* spill = nullptr;
  uint64_t spill_budget = 0;
  // A streamed encode under ht_estimated: each block's indices wait here
  // for rate control's choice, in memory up to the store's budget
  // (kept_indices.h).
  KeptIndexStore* kept_store = nullptr;
  // When set, the last tile's strips and band buffers (one allocation of
  // many MB, and the batches' planes) are freed by a job on it once its
  // rows are coded, not on the coding thread: there the freeing held up the
  // file's assembly, which starts once the last tile is coded.
  JobThread* release = nullptr;
  // When set, a note for each tile that the device runner took, failed on
  // and ran on the CPU instead (EncodeTile::device_failure): the report's.
  std::vector<std::string>* notes = nullptr;
};

// One truncation point of an HT code-block under rate control: the first
// `passes` passes of candidate `candidate` (its cleanup at that plane).
struct HtChoice {
  int candidate = 0;
  int passes = 0;
};

// A coded code-block with what the rate allocator needs of it.
struct CodedBlock {
  entropy::EncodedCodeBlock coded;
  // Image-domain squared error per unit of Tier-1 distortion: Delta_b^2 x
  // norm_b^2 x the colour weight.
  double weight = 0;
  // Image-domain squared error when no pass is sent.
  double initial_distortion = 0;
  int64_t clipped = 0;   // coefficients clipped to M_b bit-planes

  // 15444-15: an HT cleanup pass cannot be cut short, so under rate control
  // an HT block is coded with its cleanup at each plane p it has
  // (candidates[p]; [0] is `coded`), and the allocator chooses among all
  // their passes: its truncation point i (pass count i + 1 in LayerPasses)
  // is points[i], the points in increasing bytes, whose bytes and
  // cumulative distortion decrease truncation[i] holds as passes would.
  struct HtTruncation {
    std::vector<entropy::EncodedCodeBlock> candidates;
    // candidates[c]'s cleanup plane.
    std::vector<int8_t> planes;
    // The highest plane at which the block's cleanup codes anything (-1:
    // none), for coding one plane coarser.
    int top_plane = -1;
    std::vector<HtChoice> points;
    std::vector<entropy::CodingPass> truncation;
  };
  // Null unless so coded: one pointer a block, not three vectors, since a
  // 50000x50000 image has 2.4 million blocks.
  std::unique_ptr<HtTruncation> ht;
  // The truncation points of ht's candidates (HtTruncation::points,
  // truncation), listed again after candidates are added.
  void list_ht_points();

  // Whether coded.data and coded.passes are in TileCodingSetup::spill, at
  // `spilled` (coded keeps its counts and zero bit-planes).
  bool on_disk = false;
  SpilledBlock spilled;

  // What the rate allocator truncates: the passes, or the HT points.
  std::span<const entropy::CodingPass> truncation_points() const {
    return !ht || ht->points.empty() ? std::span<const entropy::CodingPass>(coded.passes)
                                     : std::span<const entropy::CodingPass>(ht->truncation);
  }
};

// Rows of a tile's components for code_rows: the next `rows` rows of
// component c, rows x its tile-component width samples, into `out`.
using TileRowReader = std::function<Status(int c, int64_t rows, int32_t* out)>;
// The tile's rows of every component at once (RowSource::read_together),
// for a tile that is the whole image.
using TileRowsTogether = std::function<Result<RowConversion>(int64_t rows)>;

class TileEncoder {
 public:
  TileEncoder(const TileCodingSetup& setup, ThreadPool& pool, dwt::Backend& dwt)
      : setup_(setup), pool_(pool), dwt_(dwt) {}

  // Transforms tile `index` and codes all its code-blocks.
  Status code(int index);
  // The same blocks as code(index), the tile's rows (each component's
  // tile-component, B-12) read from `rows` top to bottom as the line-based
  // DWT needs them, each row of code-blocks coded once its subband rows are
  // in and then dropped (streamed_tile_encoder.cc); under ht_estimated
  // only quantised, its indices kept (setup's kept_store) for
  // code_ht_planes.
  // With `together` (not null; components of one size) the rows come from
  // it instead, converted on the pool.
  Status code_rows(int index, const TileRowReader& rows, const TileRowsTogether* together = nullptr);
  // The same blocks as code(index), the tile (the whole image, its
  // components of the image's size) fed to the setup's device runner from
  // `source`, its rows read once strip by strip into device memory
  // (EncodeTile::feed): true once coded; false, nothing read, where the
  // runner would not keep the tile whole (the caller codes it by rows) or
  // rate control codes its blocks again. A device failure is an error of
  // kDeviceError, after which the source's rows must be read again.
  Result<bool> code_fed(int index, const RowSource& source);
  const MainHeader& main_header() const { return *setup_.main; }

  // Under TileCodingSetup::ht_estimated, code() stops after quantisation
  // and keeps the tile's indices (code_rows each block's, as they are or packed:
  // kept_indices.h): each block's estimate (by slot, as blocks()) for rate
  // control to choose planes from, ...
  std::span<const entropy::HtPlaneEstimate> ht_estimates() const;
  // ... then the blocks coded at planes[slot] with SigProp and MagRef above
  // plane 0, and at cleanup_only[slot] (when given) with the cleanup alone
  // (none where negative, or where the block has that plane already),
  // added to each block's candidates; as often as rate control asks.
  Status code_ht_planes(std::span<const int8_t> planes, std::span<const int8_t> cleanup_only = {});
  // Under TileCodingSetup::part1_estimated: codes block `slot` under
  // limits[slot] (0: every pass; negative: left as it is), its coding
  // replacing the one it had.
  Status code_limited(std::span<const int> limits);
  // With TileCodingSetup::finer_main, before code_ht_planes: each block's
  // estimate at the finer steps (by slot) and the weight of its Tier-1
  // distortion there (CodedBlock::weight's) ...
  std::span<const entropy::HtPlaneEstimate> finer_ht_estimates() const;
  double finer_weight(size_t slot) const { return finer_[slot].weight; }
  // ... and the blocks moved to the finer steps: their steps, bit-planes,
  // weights and estimates, their indices taken there (quant/finer_indices.h)
  // before they are coded (finer_steps.cc).
  void take_finer_steps();
  // Frees the kept tile once rate control has what it needs.
  void release_kept_tile();
  // Hands the coded blocks and the precincts' state, no longer needed once
  // the tile's packets are written, to a job on `release` that frees them
  // (many allocations a block: TileCodingSetup::release).
  void release_coded_on(JobThread& release);

  std::vector<CodedBlock>& blocks() { return blocks_; }
  // The component of the code-block in `slot` (blocks() is indexed by slot).
  int component_of(size_t slot) const { return precincts_.place(slot).component; }
  const std::vector<CodedBlock>& blocks() const { return blocks_; }
  // How many times the blocks' HT truncation points were listed, once for
  // each batch of candidates added: the same layers (pass counts) make other
  // packets after it changes, so a sizing holds only while it does not
  // (FileAssembler's kept sizings).
  uint64_t points_listed() const { return points_listed_; }

  // The packets of layers 0..layers.size()-1, where layers[l][first_block +
  // i] is the cumulative pass count of this tile's block i, appended to what
  // `out` points at; returns their total size in bytes (headers included).
  // With `pool` (not one the caller runs on), the precincts are coded and
  // their data copied on it where no block lies on disk (write_packets).
  Result<uint64_t> packets(const LayerPasses& layers, size_t first_block, const PacketOutput& out,
                           ThreadPool* pool = nullptr) const;
  // The data of the same packets to out.data or out.data_sink, from a
  // sizing by packets() with out.kept_headers: `packets` and `kept` what it
  // gave (write_packet_data); copied on `pool` (not one the caller runs on)
  // where no block lies on disk.
  Status packet_data(const LayerPasses& layers, size_t first_block, std::span<const PacketBytes> packets,
                     const KeptHeaders* kept, const PacketOutput& out, ThreadPool* pool = nullptr) const;

 private:
  // What write_packets reads of this tile for some layers (packet_source).
  struct PacketSource;
  Result<std::unique_ptr<PacketSource>> packet_source(const LayerPasses& layers, size_t first_block,
                                                      ThreadPool* pool) const;
  // The tile's planes, sized and placed, for the stages (tile_buffers.h),
  // their samples not yet allocated (code() allocates them unless the
  // runner keeps the tile on a device, TileStages::keeps_whole).
  EncodeTile planes() const;
  // What the stages need to know of one code-block; sets the rate
  // allocator's weight of its coded block.
  Result<EncodeBlock> code_one(size_t slot);
  // Moves the block's bytes and passes to the setup's spill once those in
  // memory pass its budget (code_rows).
  Status keep_or_spill(size_t slot);
  // Takes the block's coding from `tile` with what the allocator needs.
  void account(size_t slot, EncodeTile& tile);
  // The same for block i of `tile` coded as slot `slot`.
  void account(size_t slot, EncodeTile& tile, size_t i);
  // The tile's layout, precincts and per-slot blocks for code() and code_rows().
  Result<std::vector<EncodeBlock>> prepare(int index);
  // Rate control's view of block i of `tile` (slot i) quantised and not
  // coded: no passes yet, its candidates to come (code_ht_planes).
  void account_estimated(size_t slot, const EncodeTile& tile, size_t i);
  // code_ht_planes for a tile coded by code_rows: the blocks read back
  // from their kept indices, a batch of them at a time, and coded at
  // rounds[r][slot], round 0 with SigProp and MagRef.
  Status code_kept_planes(std::span<const std::vector<int8_t>> rounds);
  // code_limited for a tile coded by code_rows.
  Status code_kept_limited(std::span<const int> limits);
  // The kept blocks wanted[first..end) one below the other in a plane of
  // their widest (batch's plane 0, on `storage`, grown to hold them), as
  // many as make a batch; returns end.
  Result<size_t> stack_kept_blocks(std::span<const size_t> wanted, size_t first, EncodeTile& batch,
                                   std::shared_ptr<std::byte[]>& storage, uint64_t& capacity) const;
  // Adds coded[k] (at planes[slots[k]]; none where that is negative or it
  // has no passes) to the candidates of block slots[k], on the pool: each
  // block's own. The blocks' points are listed again by list_ht_points.
  void add_ht_candidates(std::span<const size_t> slots, std::span<const int8_t> planes,
                         std::span<entropy::EncodedCodeBlock> coded);
  // CodedBlock::list_ht_points for each block of `slots` that `planes` gave
  // a candidate, on the pool.
  void list_ht_points(std::span<const size_t> slots, std::span<const std::vector<int8_t>> planes);
  // The same two for the one block of `slot`, on the calling thread.
  void add_ht_candidate(size_t slot, int8_t plane, entropy::EncodedCodeBlock& coded);
  void list_ht_points_of(size_t slot, std::span<const std::vector<int8_t>> planes);
  // The error with nothing sent of an irreversible block, from quantisation.
  void take_quantisation_error(CodedBlock& out, const EncodeTile& tile, size_t i) const;
  // A note (the setup's) where the device runner sent the tile to the CPU
  // (EncodeTile::device_failure), once: the failure is cleared.
  void note_device_failure(EncodeTile& tile);
  // The forward stages up to `last`, timed one by one when the setup asks.
  Status run_forward_stages(TileStages& stages, EncodeTile& tile, ForwardStage last = ForwardStage::kBlockCoding);
  // Codes the HT blocks again with the cleanup at planes 1, 2, ... and
  // lists their truncation points (CodedBlock::ht); tile.blocks[i]
  // is slot slots[i] (all slots in order when `slots` is empty).
  Status code_ht_candidates(EncodeTile& tile, TileStages& stages, std::span<const size_t> slots = {});

  // The tile after quantisation and its runner, kept for code_ht_planes.
  std::unique_ptr<EncodeTile> kept_;
  std::unique_ptr<TileStages> kept_stages_;
  // A tile coded by code_rows, for code_ht_planes: its blocks, their
  // estimates and their indices, by slot.
  std::vector<EncodeBlock> kept_blocks_;
  std::vector<entropy::HtPlaneEstimate> kept_estimates_;
  std::vector<KeptIndices> kept_indices_;
  // Per slot, with TileCodingSetup::finer_main: the block at the finer
  // steps (code_one), its estimate there (code_rows; code()'s are in
  // kept_), and whether they were taken (take_finer_steps).
  struct FinerBlock {
    FinerStep step;
    int num_bitplanes = 0;
    double delta = 0;
    double weight = 0;
  };
  std::vector<FinerBlock> finer_;
  std::vector<entropy::HtPlaneEstimate> kept_finer_estimates_;
  bool finer_taken_ = false;
  // The block at slot `slot` (tile.blocks[i]) moved to its finer step;
  // its indices as they are.
  void take_finer_step(size_t slot, EncodeBlock& block, const entropy::HtPlaneEstimate& finer);
  // code_one's FinerBlock for a block of component c (`levels` levels),
  // subband `band` (A.6.4 order).
  Result<FinerBlock> finer_block(const EncodeBlock& block, int c, int levels, int band) const;

  const TileCodingSetup& setup_;
  ThreadPool& pool_;
  dwt::Backend& dwt_;
  int index_ = 0;
  TileLayout layout_;
  bool irreversible_ = false;
  std::vector<CodedBlock> blocks_;
  uint64_t points_listed_ = 0;
  // The code-blocks by slot (blocks_ is indexed by it) and, fresh, the
  // precincts' packet-header state that each packets() call starts from.
  TilePrecincts precincts_;
};

}  // namespace mallat::codec
