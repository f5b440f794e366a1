#include "codec/encoder/tile_encoder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "codec/stages/tile_stages.h"
#include "codec/tier2/progression.h"
#include "common/release_job.h"
#include "quant/step_size.h"

namespace mallat::codec {

Result<std::vector<EncodeBlock>> TileEncoder::prepare(int index) {
  const MainHeader& main = *setup_.main;
  index_ = index;
  irreversible_ = !main.cod.component.reversible;
  std::vector<ComponentCoding> coding(main.siz.components.size(), main.cod.component);
  MALLAT_ASSIGN_OR_RETURN(layout_, build_tile_layout(main.siz, index, coding));
  MALLAT_ASSIGN_OR_RETURN(precincts_, TilePrecincts::create(layout_, coding));
  // blocks_ and the result are both indexed by slot (tile_precincts.h).
  const size_t count = precincts_.code_blocks();
  blocks_.clear();
  blocks_.resize(count);
  finer_.assign(setup_.finer_main && irreversible_ ? count : 0, {});
  finer_taken_ = false;
  std::vector<EncodeBlock> blocks;
  blocks.reserve(count);
  for (size_t slot = 0; slot < count; ++slot) {
    MALLAT_ASSIGN_OR_RETURN(const EncodeBlock block, code_one(slot));
    blocks.push_back(block);
  }
  return blocks;
}

Status TileEncoder::code(int index) {
  const MainHeader& main = *setup_.main;
  MALLAT_ASSIGN_OR_RETURN(std::vector<EncodeBlock> blocks, prepare(index));
  std::unique_ptr<TileStages> stages = setup_.device_tiles != nullptr
                                                 ? make_device_tile_stages(pool_, dwt_, *setup_.device_tiles)
                                                 : make_cpu_tile_stages(pool_, dwt_);
  EncodeTile tile = planes();
  tile.distortions = setup_.distortions;
  tile.hybrid_coder = setup_.hybrid_coder;
  tile.codes_blocks_again = setup_.ht_candidates && main.cod.component.style.ht;
  tile.image_tiles = static_cast<int64_t>(main.siz.tiles_x()) * main.siz.tiles_y();
  tile.blocks = std::move(blocks);
  const size_t count = tile.blocks.size();
  const bool estimated = setup_.estimated(main.cod.component.style.ht);
  if (estimated) {
    tile.ht_statistics = true;
    for (const FinerBlock& f : finer_) tile.ht_finer.push_back(f.step);
  }
  // A runner that keeps the tile on a device needs no host planes.
  if (!stages->keeps_whole(tile)) {
    for (TilePlane& plane : tile.planes) plane.allocate();
  }
  if (estimated) {
    // Rate control chooses the planes to code from every tile's estimates
    // (ht_rate.h): the indices wait until it has, in the host's planes or
    // where a device runner keeps them (device_rule.h,
    // device_codes_again_problem).
    MALLAT_RETURN_IF_ERROR(run_forward_stages(*stages, tile, ForwardStage::kQuantisation));
    note_device_failure(tile);
    for (size_t slot = 0; slot < count; ++slot) account_estimated(slot, tile, slot);
    kept_ = std::make_unique<EncodeTile>(std::move(tile));
    kept_stages_ = std::move(stages);
    return Status::Ok();
  }
  MALLAT_RETURN_IF_ERROR(run_forward_stages(*stages, tile));
  note_device_failure(tile);
  for (size_t slot = 0; slot < count; ++slot) account(slot, tile);
  if (setup_.ht_candidates && main.cod.component.style.ht) {
    StageClock clock(stage_sink(setup_.stage_times, &StageTimes::block_coding_ms), "ht_candidates");
    return code_ht_candidates(tile, *stages);
  }
  return Status::Ok();
}

void TileEncoder::note_device_failure(EncodeTile& tile) {
  if (tile.device_failure.empty()) return;
  if (setup_.notes) {
    setup_.notes->push_back("tile " + std::to_string(index_) + ": the device failed (" + tile.device_failure +
                            "); coded on the CPU instead, the same bytes");
  }
  tile.device_failure.clear();
}

// Every forward stage; timed one by one when the setup asks (the results
// are those of running them together, tile_stages.h).
Status TileEncoder::run_forward_stages(TileStages& stages, EncodeTile& tile, ForwardStage last) {
  StageTimes* times = setup_.stage_times;
  if (!times) return stages.forward(ForwardStage::kComponentTransform, last, tile);
  if (stages.keeps_whole(tile)) {
    // One call keeps the tile on the device; its time is the blocks'.
    StageClock clock(&times->block_coding_ms, "device_tile");
    return stages.forward(ForwardStage::kComponentTransform, last, tile);
  }
  {
    StageClock clock(&times->colour_transform_ms, "colour");
    MALLAT_RETURN_IF_ERROR(stages.forward(ForwardStage::kComponentTransform, ForwardStage::kComponentTransform, tile));
  }
  {
    StageClock clock(&times->dwt_ms, "dwt");
    MALLAT_RETURN_IF_ERROR(stages.forward(ForwardStage::kDwt, ForwardStage::kDwt, tile));
  }
  StageClock clock(&times->block_coding_ms, last == ForwardStage::kBlockCoding ? "quant_tier1" : "quant");
  return stages.forward(ForwardStage::kQuantisation, last, tile);
}

std::span<const entropy::HtPlaneEstimate> TileEncoder::ht_estimates() const {
  if (!kept_) return kept_estimates_;
  return kept_->ht_estimates;
}

Status TileEncoder::code_ht_planes(std::span<const int8_t> planes, std::span<const int8_t> cleanup_only) {
  if (!kept_ && kept_indices_.empty()) return Status::Ok();
  StageClock clock(stage_sink(setup_.stage_times, &StageTimes::block_coding_ms), "ht_planes");
  // A plane a block was coded at already is not coded again.
  auto fresh = [&](std::span<const int8_t> asked) {
    std::vector<int8_t> p(asked.begin(), asked.end());
    for (size_t slot = 0; slot < p.size(); ++slot) {
      const CodedBlock::HtTruncation& ht = *blocks_[slot].ht;
      if (std::find(ht.planes.begin(), ht.planes.end(), p[slot]) != ht.planes.end()) p[slot] = -1;
    }
    return p;
  };
  std::vector<std::vector<int8_t>> rounds{fresh(planes)};
  if (!cleanup_only.empty()) rounds.push_back(fresh(cleanup_only));
  if (!kept_) return code_kept_planes(rounds);
  EncodeTile& tile = *kept_;
  std::vector<size_t> slots(blocks_.size());
  for (size_t slot = 0; slot < slots.size(); ++slot) slots[slot] = slot;
  for (size_t r = 0; r < rounds.size(); ++r) {
    tile.ht_block_planes = rounds[r];
    tile.ht_refinement = r == 0;
    MALLAT_RETURN_IF_ERROR(kept_stages_->forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, tile));
    note_device_failure(tile);
    add_ht_candidates(slots, rounds[r], tile.coded);
  }
  list_ht_points(slots, rounds);
  return Status::Ok();
}

Status TileEncoder::code_limited(std::span<const int> limits) {
  if (!kept_ && kept_indices_.empty()) return Status::Ok();
  StageClock clock(stage_sink(setup_.stage_times, &StageTimes::block_coding_ms), "part1_limited");
  if (!kept_) return code_kept_limited(limits);
  EncodeTile& tile = *kept_;
  tile.pass_limits.assign(limits.begin(), limits.end());
  // (On the CPU stages: part1_limits_wanted leaves a device out.)
  MALLAT_RETURN_IF_ERROR(kept_stages_->forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, tile));
  for (size_t slot = 0; slot < limits.size() && slot < blocks_.size(); ++slot)
    if (limits[slot] >= 0) blocks_[slot].coded = std::move(tile.coded[slot]);
  return Status::Ok();
}

namespace {

// Runs fn(k) for every k in [0, n) on the pool, in pieces of blocks large
// enough that the pool's hand-over costs little beside them.
void for_blocks_on(ThreadPool& pool, size_t n, const std::function<void(size_t)>& fn) {
  constexpr int64_t kBlocksAtOnce = 256;
  pool.parallel_for_in_pieces(static_cast<int64_t>(n), kBlocksAtOnce, [&](int64_t k) { fn(static_cast<size_t>(k)); });
}

// Where every plane is coded (--ht-rate full, the step search's mode), each
// plane above 0 is coded a second time with its exponent bounds lowered at
// this share, in tenths of a step^2 a bit (entropy/ht/exponent_bounds.h;
// the default with SigProp and MagRef is 1): a second candidate for PCRD to
// take per block, where the target's slope ends the block steeper than its
// plane's usual one and more lowered quads pay.
constexpr int kLoweringShareSecondSet = 2;

// Whether two codings of a block give the same truncation points.
bool same_points(const entropy::EncodedCodeBlock& a, const entropy::EncodedCodeBlock& b) {
  if (a.passes.size() != b.passes.size()) return false;
  for (size_t k = 0; k < a.passes.size(); ++k) {
    if (a.passes[k].cumulative_length != b.passes[k].cumulative_length ||
        a.passes[k].distortion_decrease != b.passes[k].distortion_decrease)
      return false;
  }
  return true;
}

}  // namespace

void TileEncoder::add_ht_candidate(size_t slot, int8_t plane, entropy::EncodedCodeBlock& coded) {
  if (plane < 0 || coded.num_passes == 0) return;
  CodedBlock::HtTruncation& ht = *blocks_[slot].ht;
  ht.candidates.push_back(std::move(coded));
  ht.planes.push_back(plane);
}

void TileEncoder::list_ht_points_of(size_t slot, std::span<const std::vector<int8_t>> planes) {
  for (const std::vector<int8_t>& p : planes) {
    if (p[slot] < 0) continue;
    blocks_[slot].list_ht_points();
    return;
  }
}

void TileEncoder::add_ht_candidates(std::span<const size_t> slots, std::span<const int8_t> planes,
                                    std::span<entropy::EncodedCodeBlock> coded) {
  for_blocks_on(pool_, slots.size(), [&](size_t k) { add_ht_candidate(slots[k], planes[slots[k]], coded[k]); });
}

void TileEncoder::list_ht_points(std::span<const size_t> slots, std::span<const std::vector<int8_t>> planes) {
  ++points_listed_;
  for_blocks_on(pool_, slots.size(), [&](size_t k) { list_ht_points_of(slots[k], planes); });
}

void TileEncoder::release_kept_tile() {
  kept_.reset();
  kept_stages_.reset();
  std::vector<EncodeBlock>().swap(kept_blocks_);
  std::vector<entropy::HtPlaneEstimate>().swap(kept_estimates_);
  std::vector<KeptIndices>().swap(kept_indices_);
  std::vector<entropy::HtPlaneEstimate>().swap(kept_finer_estimates_);
}

void TileEncoder::release_coded_on(JobThread& release) {
  struct Coded {
    std::vector<CodedBlock> blocks;
    TilePrecincts precincts;
  };
  release_on(release, std::make_shared<Coded>(Coded{std::move(blocks_), std::move(precincts_)}));
  blocks_.clear();
}

Status TileEncoder::code_ht_candidates(EncodeTile& tile, TileStages& stages, std::span<const size_t> slots) {
  const auto slot_of = [&](size_t i) { return slots.empty() ? i : slots[i]; };
  int top = 0;
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    CodedBlock& b = blocks_[slot_of(i)];
    if (!b.ht) b.ht = std::make_unique<CodedBlock::HtTruncation>();
    b.ht->candidates.push_back(b.coded);
    b.ht->planes.push_back(0);
    top = std::max(top, tile.blocks[i].num_bitplanes);
  }
  // A block's planes end where its cleanup has nothing left to code; every
  // block is coded again until all have ended.
  // Above plane 0 SigProp and MagRef follow the cleanup: their passes
  // are truncation points between two planes' cleanups.
  // Each plane is coded a second time at another share of the exponent
  // bounds' lowering (entropy/ht/exponent_bounds.h): a candidate only where
  // its points differ from the first's.
  tile.ht_refinement = true;
  for (int p = 1; p < top; ++p) {
    tile.ht_cleanup_plane = p;
    tile.ht_lowering_share = -1;
    MALLAT_RETURN_IF_ERROR(stages.forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, tile));
    std::vector<entropy::EncodedCodeBlock> first = std::move(tile.coded);
    tile.ht_lowering_share = kLoweringShareSecondSet;
    const Status second = stages.forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, tile);
    tile.ht_lowering_share = -1;
    MALLAT_RETURN_IF_ERROR(second);
    bool any = false;
    for (size_t i = 0; i < tile.blocks.size(); ++i) {
      if (first[i].num_passes == 0) continue;
      CodedBlock::HtTruncation& ht = *blocks_[slot_of(i)].ht;
      const bool differs = !same_points(first[i], tile.coded[i]);
      ht.candidates.push_back(std::move(first[i]));
      ht.planes.push_back(static_cast<int8_t>(p));
      if (differs) {
        ht.candidates.push_back(std::move(tile.coded[i]));
        ht.planes.push_back(static_cast<int8_t>(p));
      }
      any = true;
    }
    if (!any) break;
  }
  for (size_t i = 0; i < tile.blocks.size(); ++i) blocks_[slot_of(i)].list_ht_points();
  ++points_listed_;
  return Status::Ok();
}

void CodedBlock::list_ht_points() {
  struct Point {
    uint32_t bytes;
    double gain;
    HtChoice choice;
  };
  std::vector<Point> points;
  for (size_t c = 0; c < ht->candidates.size(); ++c) {
    double gain = 0;
    const std::vector<entropy::CodingPass>& passes = ht->candidates[c].passes;
    for (size_t k = 0; k < passes.size(); ++k) {
      gain += passes[k].distortion_decrease;
      points.push_back({passes[k].cumulative_length, gain, {static_cast<int>(c), static_cast<int>(k) + 1}});
    }
  }
  std::sort(points.begin(), points.end(), [](const Point& x, const Point& y) {
    return x.bytes != y.bytes ? x.bytes < y.bytes : x.gain > y.gain;
  });
  ht->points.clear();
  ht->truncation.clear();
  double before = 0;
  for (const Point& pt : points) {
    ht->points.push_back(pt.choice);
    ht->truncation.push_back({pt.bytes, true, pt.gain - before});
    before = pt.gain;
  }
}

EncodeTile TileEncoder::planes() const {
  const MainHeader& main = *setup_.main;
  EncodeTile tile;
  tile.image = setup_.image;
  // G.2 / G.3 on components 0..2, which have one size (encode checks it).
  tile.colour_transform = main.cod.multiple_component_transform;
  // A component's samples start at ceil(XOsiz / XRsiz) on its own grid (B-2).
  const Rect origin{main.siz.xosiz, main.siz.yosiz, main.siz.xosiz, main.siz.yosiz};
  for (const TileComponent& tc : layout_.components) {
    const Rect image_start = tile_component_rect(origin, tc.dx, tc.dy);
    TilePlane plane;
    plane.rect = tc.rect;
    plane.levels = tc.levels;
    plane.wavelet = irreversible_ ? dwt::Wavelet::k97 : dwt::Wavelet::k53;
    tile.planes.push_back(std::move(plane));
    tile.source_x.push_back(tc.rect.x0 - image_start.x0);
    tile.source_y.push_back(tc.rect.y0 - image_start.y0);
  }
  return tile;
}

Result<EncodeBlock> TileEncoder::code_one(size_t slot) {
  const MainHeader& main = *setup_.main;
  const CodeBlockPlace& at = precincts_.place(slot);
  const int c = at.component;
  const TileComponent& tc = layout_.components[c];
  const PrecinctBand& pb = precinct_band_at(layout_, at);
  const CodeBlock& cb = pb.blocks[at.index];
  const Quantization& q = main.qcc.count(c) ? main.qcc.at(c) : main.qcd;
  const int band = quant::subband_step_index(at.resolution, static_cast<int>(pb.band));
  MALLAT_ASSIGN_OR_RETURN(const quant::StepSize step, q.subband_step(tc.levels, band));
  EncodeBlock block;
  block.place = {c, cb.packed.x0, cb.packed.y0, cb.rect.width(), cb.rect.height()};
  block.orientation = static_cast<entropy::BandOrientation>(pb.band);
  block.style = main.cod.component.style;
  // H.1: the region's coefficients are shifted up by s, above every
  // background plane; with the whole component as the region, all of them.
  block.roi_shift = setup_.roi_shift.empty() ? 0 : setup_.roi_shift[c];
  block.num_bitplanes = quant::magnitude_bitplanes(q.guard_bits, step.exponent) + block.roi_shift;
  block.step = setup_.step[c][band];
  // Irreversible: the indices carry up to 8 bits of their coefficient's
  // fraction below them (within Tier-1's 31 magnitude bits), so Tier-1
  // measures each pass against the unquantised coefficients.
  block.fraction_bits = irreversible_ ? std::clamp(31 - block.num_bitplanes, 0, setup_.fraction_bits) : 0;
  // Tier-1 measures distortion on the shifted integers: 2^(2s) times larger.
  const double delta = block.step;
  blocks_[slot].weight = std::ldexp(delta * delta * setup_.energy[c][band] * setup_.colour_weight[c],
                                        -2 * block.roi_shift);
  if (!finer_.empty()) {
    MALLAT_ASSIGN_OR_RETURN(finer_[slot], finer_block(block, c, tc.levels, band));
  }
  return block;
}

void TileEncoder::account(size_t slot, EncodeTile& tile) { account(slot, tile, slot); }

Status TileEncoder::keep_or_spill(size_t slot) {
  CodedBlock& b = blocks_[slot];
  if (!setup_.spill || b.coded.data.empty()) return Status::Ok();
  const uint64_t bytes = b.coded.data.size() + b.coded.passes.size() * sizeof(entropy::CodingPass);
  if (setup_.spill->keep_in_memory(bytes, setup_.spill_budget)) return Status::Ok();
  MALLAT_ASSIGN_OR_RETURN(b.spilled, setup_.spill->put(b.coded));
  b.on_disk = true;
  return Status::Ok();
}

void TileEncoder::take_quantisation_error(CodedBlock& out, const EncodeTile& tile, size_t i) const {
  // The error with nothing sent, in units of Delta^2; Tier-1's units are
  // those of the shifted indices, which `weight` takes back.
  const quant::QuantizationError& e = tile.quantisation[i];
  out.clipped = e.clipped;
  out.initial_distortion = std::ldexp(e.energy, 2 * tile.blocks[i].roi_shift) * out.weight;
}

void TileEncoder::account_estimated(size_t slot, const EncodeTile& tile, size_t i) {
  CodedBlock& out = blocks_[slot];
  const EncodeBlock& block = tile.blocks[i];
  out.coded = {};
  out.coded.zero_bitplanes = block.num_bitplanes;
  const entropy::HtPlaneEstimate& e = tile.ht_estimates[i];
  // (A Part 1 block's coding under its pass limit replaces `coded`.)
  if (block.style.ht) {
    out.ht = std::make_unique<CodedBlock::HtTruncation>();
    out.ht->top_plane = std::min(e.planes, block.num_bitplanes) - 1;
  }
  if (irreversible_) {
    take_quantisation_error(out, tile, i);
    return;
  }
  // Reversible: the indices are the coefficients, and their energy is what
  // every pass together removes.
  out.initial_distortion = e.energy * out.weight;
}

void TileEncoder::account(size_t slot, EncodeTile& tile, size_t i) {
  CodedBlock& out = blocks_[slot];
  out.coded = std::move(tile.coded[i]);
  if (irreversible_) {
    take_quantisation_error(out, tile, i);
    return;
  }
  // Reversible: the coefficients are the integers Tier-1 measured against;
  // with no pass sent the error is the sum of what all the passes remove.
  double all = 0;
  for (const entropy::CodingPass& pass : out.coded.passes) all += pass.distortion_decrease;
  out.initial_distortion = all * out.weight;
}

// The packets' sequence, the layers' passes and each block's coding, held
// while write_packets reads them.
struct TileEncoder::PacketSource {
  std::vector<PacketId> sequence;
  TilePacketsToWrite what;
  // A spilled block is read back when asked for, the last one kept.
  entropy::EncodedCodeBlock loaded;
  size_t loaded_slot = SIZE_MAX;
  // HT blocks under rate control: the allocator's point is a candidate and
  // its passes (one layer: encode() allows no more).
  LayerPasses chosen_passes;
  std::vector<int> candidate;
};

Result<std::unique_ptr<TileEncoder::PacketSource>> TileEncoder::packet_source(const LayerPasses& layers,
                                                                              size_t first_block,
                                                                              ThreadPool* pool) const {
  // A small tile's packets are written on one thread (PacketPoolSplit), its
  // blocks' points chosen so too.
  if (blocks_.size() < PacketPoolSplit::kLeastCodeBlocks) pool = nullptr;
  const MainHeader& main = *setup_.main;
  const auto own = setup_.tile_progression_changes.find(index_);
  auto source = std::make_unique<PacketSource>();
  PacketSource& s = *source;
  MALLAT_ASSIGN_OR_RETURN(s.sequence,
                          packet_order(layout_, static_cast<int>(layers.size()), main.cod.order,
                                       own != setup_.tile_progression_changes.end() ? own->second : main.poc));
  TilePacketsToWrite& what = s.what;
  what.sequence = s.sequence;
  what.layers = &layers;
  what.first_block = first_block;
  what.block = [this, &s](size_t slot) -> Result<const entropy::EncodedCodeBlock*> {
    const CodedBlock& b = blocks_[slot];
    if (!b.on_disk) return &b.coded;
    if (s.loaded_slot != slot) {
      s.loaded_slot = SIZE_MAX;
      s.loaded.zero_bitplanes = b.coded.zero_bitplanes;
      s.loaded.num_passes = b.coded.num_passes;
      MALLAT_RETURN_IF_ERROR(setup_.spill->get(b.spilled, s.loaded));
      s.loaded_slot = slot;
    }
    return &s.loaded;
  };
  if (!blocks_.empty() && blocks_[0].ht) {
    s.chosen_passes.assign(layers.size(), std::vector<int>(blocks_.size(), 0));
    s.candidate.assign(blocks_.size(), 0);
    // Each block's own, on the pool where there is one.
    const auto choose = [&](size_t slot) {
      for (size_t l = 0; l < layers.size(); ++l) {
        const int point = layers[l][first_block + slot];
        if (point == 0) continue;
        const HtChoice& c = blocks_[slot].ht->points[static_cast<size_t>(point) - 1];
        s.chosen_passes[l][slot] = c.passes;
        s.candidate[slot] = c.candidate;
      }
    };
    if (pool) {
      for_blocks_on(*pool, blocks_.size(), choose);
    } else {
      for (size_t slot = 0; slot < blocks_.size(); ++slot) choose(slot);
    }
    what.layers = &s.chosen_passes;
    what.first_block = 0;
    what.block = [this, &s](size_t slot) -> Result<const entropy::EncodedCodeBlock*> {
      const CodedBlock& b = blocks_[slot];
      // A block without candidates (nothing to code, or none chosen) sends
      // no pass.
      if (b.ht->candidates.empty()) return &b.coded;
      return &b.ht->candidates[static_cast<size_t>(s.candidate[slot])];
    };
  }
  what.sop = main.cod.sop;
  what.eph = main.cod.eph;
  // A spilled block is read into the one `loaded`: one thread only.
  const bool on_disk = setup_.spill != nullptr &&
                       std::any_of(blocks_.begin(), blocks_.end(), [](const CodedBlock& b) { return b.on_disk; });
  if (!on_disk) what.pool = pool;
  return source;
}

Result<uint64_t> TileEncoder::packets(const LayerPasses& layers, size_t first_block, const PacketOutput& out,
                                      ThreadPool* pool) const {
  MALLAT_ASSIGN_OR_RETURN(const std::unique_ptr<PacketSource> source, packet_source(layers, first_block, pool));
  // A fresh copy: the precincts' tag trees depend on this allocation.
  TilePrecincts precincts = TilePrecincts::copy_of(precincts_, source->what.pool);
  return write_packets(precincts, source->what, out);
}

Status TileEncoder::packet_data(const LayerPasses& layers, size_t first_block, std::span<const PacketBytes> packets,
                                const KeptHeaders* kept, const PacketOutput& out, ThreadPool* pool) const {
  MALLAT_ASSIGN_OR_RETURN(const std::unique_ptr<PacketSource> source, packet_source(layers, first_block, pool));
  return write_packet_data(precincts_, source->what, packets, kept, out);
}

}  // namespace mallat::codec
