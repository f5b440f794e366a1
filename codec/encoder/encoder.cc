// The encoder pipeline: Image -> tiles -> DC shift + RCT -> forward DWT ->
// Tier-1 code-blocks (in parallel) -> Tier-2 packets -> codestream or JP2;
// the irreversible path has ICT, 9/7 and dead-zone quantisation instead, and
// rate targets truncate the code-blocks into quality layers (PCRD-opt).
// This file runs the steps; the main header (main_header.h), what the tiles
// share (coding_setup.h), the layer targets (rate_targets.h) and the file's
// assembly (file_assembly.h) have files of their own.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codec/api/encode.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/jp2/jp2_colour.h"
#include "codec/encoder/coding_setup.h"
#include "codec/encoder/encode_call.h"
#include "codec/encoder/file_assembly.h"
#include "codec/encoder/finer_steps.h"
#include "codec/encoder/ht_rate.h"
#include "codec/encoder/part1_rate.h"
#include "codec/encoder/main_header.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/rate_targets.h"
#include "codec/encoder/step_search.h"
#include "codec/encoder/encode_tiles.h"
#include "codec/encoder/tile_encoder.h"
#include "common/thread_pool.h"
#include "common/timeline.h"

namespace mallat::codec {

Result<std::shared_ptr<entropy::BlockEncoder>> block_encoder_for(const CallResources& resources,
                                                                 const dwt::Backend& backend) {
  if (resources.block_encoder) return resources.block_encoder;
  if (backend.name().rfind("cuda", 0) != 0) return std::shared_ptr<entropy::BlockEncoder>();
  // The CUDA DWT has started the device already: the call waits for the
  // coder's start rather than coding its blocks on the CPU alone.
  entropy::DeviceCoderOptions coder;
  coder.wait_for_device = true;
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<entropy::BlockEncoder> made, entropy::make_device_block_encoder(coder));
  return std::shared_ptr<entropy::BlockEncoder>(std::move(made));
}

Result<std::vector<uint8_t>> encode_tiles(const Image& image, const EncodeOptions& given,
                                          const CallResources& resources, EncodeReport* report,
                                          const TileCoding& coding) {
  MALLAT_ASSIGN_OR_RETURN(const GridSize grid, check_image(image, given, coding.with_samples));
  // A profile's parameters that depend on the image, and its checks.
  MALLAT_ASSIGN_OR_RETURN(const EncodeOptions options, resolve_profile(image, given));
  if (!coding.with_samples && options.rate_kind == EncodeOptions::RateKind::kPsnr)
    return unsupported("PSNR targets (-q) decode what was written and compare it with the whole image");
  MALLAT_ASSIGN_OR_RETURN(MainHeader main, main_header_for(image, grid, options, report));
  MALLAT_ASSIGN_OR_RETURN(const std::vector<LayerTarget> targets, layer_targets(image, grid, options));
  MALLAT_ASSIGN_OR_RETURN(TileCodingSetup setup, coding_setup(image, main, options));
  // Under a size target rate control by estimates may take finer steps
  // (finer_steps.h), whose main header this holds.
  MainHeader finer_main;
  if (!targets.empty() && targets.back().kind == LayerTarget::Kind::kBytes)
    MALLAT_RETURN_IF_ERROR(offer_finer_steps(image, grid, options, main, setup, finer_main));
  setup.stage_times = resources.stage_times;
  MALLAT_ASSIGN_OR_RETURN(const std::shared_ptr<dwt::Backend> backend,
                          dwt::given_or_made_backend(resources.dwt, options.dwt_backend, options.threads));
  MALLAT_ASSIGN_OR_RETURN(const std::shared_ptr<entropy::BlockEncoder> hybrid_coder,
                          block_encoder_for(resources, *backend));
  setup.hybrid_coder = hybrid_coder.get();
  setup.device_tiles = resources.device_tiles.get();
  // Pass limits by estimates are the CPU coder's: a device codes every pass.
  setup.part1_estimated =
      part1_limits_wanted(options, image, targets, setup.hybrid_coder != nullptr || setup.device_tiles != nullptr);
  if (report) setup.notes = &report->notes;
  std::optional<ThreadPool> own_pool;
  if (!resources.pool) own_pool.emplace(options.threads);
  ThreadPool& pool = resources.pool ? *resources.pool : *own_pool;
  // A streamed encode on several threads frees each tile's buffers and, once
  // the file is written, its coded blocks on a thread of their own: the
  // caller's (CallResources::release) or one made here (then waited for as
  // this returns); on one thread (a batch's lane, -threads 1) where it
  // codes.
  JobThread own_release;
  if (coding.sink && pool.size() > 1) {
    setup.release = resources.release ? resources.release : &own_release;
    // What an earlier call left there is freed before this one allocates:
    // one call's buffers at most wait on the thread.
    (void)setup.release->wait();
  }
  const int count = static_cast<int>(main.siz.tiles_x() * main.siz.tiles_y());
  const bool every_pass = options.max_component_bytes == 0 &&
                          std::all_of(targets.begin(), targets.end(), [](const LayerTarget& t) {
                            return t.kind == LayerTarget::Kind::kEverything;
                          });
  // When every pass is sent the allocator reads no pass table, so a
  // streamed encode may keep its coded blocks on disk (coded_spill.h).
  CodedSpill spill;
  if (coding.sink && every_pass && !setup.distortions && !setup.ht_candidates) {
    setup.spill = &spill;
    setup.spill_budget = options.coded_memory_budget;
  }
  // A streamed encode's HT blocks under rate control by estimates keep
  // their indices until every block's estimate is in (kept_indices.h).
  KeptIndexStore kept_store(options.coded_memory_budget, resources.kept_indices.get());
  if (coding.sink && (setup.ht_estimated || setup.part1_estimated)) setup.kept_store = &kept_store;

  // Every tile is transformed and Tier-1 coded first, so the allocator sees
  // all code-blocks of the image at once.
  std::vector<std::unique_ptr<TileEncoder>> tiles;
  std::vector<size_t> first_block;
  size_t blocks = 0;
  for (int t = 0; t < count; ++t) {
    tiles.push_back(std::make_unique<TileEncoder>(setup, pool, *backend));
    MALLAT_RETURN_IF_ERROR(coding.code(*tiles.back(), t, count));
    first_block.push_back(blocks);
    blocks += tiles.back()->blocks().size();
  }
  Jp2Description jp2 = describe_for_jp2(image);
  if (options.container == Container::kJph) jp2.brand = box::kBrandJph;
  FileAssembler assembler(main, options, setup, jp2, tiles, first_block, pool);

  LayerPasses layers;
  if (every_pass) {
    std::vector<int> all;
    for (const auto& tile : tiles)
      for (const CodedBlock& b : tile->blocks()) all.push_back(b.coded.num_passes);
    layers.assign(targets.size(), all);
  } else {
    // The decoded image is rounded to integers: about 1/12 of a squared
    // sample value more per sample on the irreversible path.
    double initial = main.cod.component.reversible ? 0.0 : sample_count(image) / 12.0;
    for (const auto& tile : tiles)
      for (const CodedBlock& b : tile->blocks()) initial += b.initial_distortion;
    if (setup.ht_estimated) {
      if (setup.finer_main && finer_steps_better(tiles, targets.back(), initial, pool)) {
        // The assembler and the tiles read the main header and the steps
        // from here: the finer QCD is written.
        main = finer_main;
        setup.step = setup.finer_step;
        for (const auto& tile : tiles) tile->take_finer_steps();
      }
      MALLAT_RETURN_IF_ERROR(code_chosen_ht_planes(tiles, targets.back(), initial, pool));
      // -q: the decode's error exceeds the allocator's estimate a little
      // (meet_psnr_targets corrects the target), so the planes for 0.5 dB
      // more are coded too.
      if (targets.back().kind == LayerTarget::Kind::kDistortion) {
        const LayerTarget more{LayerTarget::Kind::kDistortion, targets.back().value * std::pow(10.0, -0.05)};
        MALLAT_RETURN_IF_ERROR(code_chosen_ht_planes(tiles, more, initial, pool));
      }
    }
    if (setup.part1_estimated) {
      MALLAT_RETURN_IF_ERROR(code_limited_part1(tiles, targets.back(), initial, pool));
      if (report)
        for (const auto& tile : tiles)
          for (const CodedBlock& b : tile->blocks()) report->limited_blocks += b.coded.cut ? 1 : 0;
    }
    // Each block's hull on its own: in pieces on the pool, the tiles'
    // blocks in order.
    std::vector<const CodedBlock*> all_blocks;
    all_blocks.reserve(blocks);
    for (const auto& tile : tiles)
      for (const CodedBlock& b : tile->blocks()) all_blocks.push_back(&b);
    std::vector<CodeBlockHull> hulls;
    auto list_hulls = [&] {
      const timeline::Span span("pcrd_hulls");  // with MALLAT_TIMELINE
      release_hulls(hulls, &pool);
      hulls.resize(blocks);
      constexpr int64_t kHullsAtOnce = 1024;
      pool.parallel_for_in_pieces(static_cast<int64_t>(blocks), kHullsAtOnce, [&](int64_t i) {
        hulls[i] = convex_hull(all_blocks[i]->truncation_points(), all_blocks[i]->weight);
      });
    };
    list_hulls();
    StageClock clock(stage_sink(resources.stage_times, &StageTimes::rate_allocation_ms), "pcrd");
    ComponentCaps caps;
    if (options.max_component_bytes > 0) {
      caps.max_bytes.assign(image.num_components(), static_cast<double>(options.max_component_bytes));
      for (const auto& tile : tiles)
        for (size_t slot = 0; slot < tile->blocks().size(); ++slot)
          caps.block_component.push_back(tile->component_of(slot));
    }
    // (The assembler keeps its last sizings: the allocator sized its
    // answer already, and the rounds below ask for it again.)
    auto bytes_of = [&](const LayerPasses& l) { return assembler.bytes(l, !caps.max_bytes.empty()); };
    MALLAT_ASSIGN_OR_RETURN(layers, allocate_layers(hulls, targets, initial, bytes_of, caps, &pool));
    // HT blocks coded by estimates: while a byte target is missed by more
    // than its last half per cent (or a distortion target at all), the
    // blocks the allocation took whole are coded one plane finer and it
    // runs again (ht_rate.h).
    for (int round = 0; setup.ht_estimated && round < 3; ++round) {
      if (targets.back().kind == LayerTarget::Kind::kBytes) {
        MALLAT_ASSIGN_OR_RETURN(const LayerBytes now, bytes_of(layers));
        if (static_cast<double>(now.file) >= 0.995 * targets.back().value) break;
      }
      MALLAT_ASSIGN_OR_RETURN(const size_t more, code_further_ht_planes(tiles, layers.back()));
      if (more == 0) break;
      list_hulls();
      MALLAT_ASSIGN_OR_RETURN(layers, allocate_layers(hulls, targets, initial, bytes_of, caps, &pool));
    }
    // Part 1 blocks cut by pass limits: those whose choice the rule does
    // not prove are coded whole and PCRD runs again, until none is left
    // (after a few rounds, every cut block at once), so the file is the
    // one coding every pass gives (part1_rate.h).
    constexpr int kProvingRounds = 4;
    for (int round = 0; setup.part1_estimated; ++round) {
      MALLAT_ASSIGN_OR_RETURN(const size_t whole,
                              code_unproved_part1(tiles, hulls, layers.back(), round == kProvingRounds));
      if (whole == 0) break;
      if (report) report->limited_blocks_coded_again += whole;
      list_hulls();
      MALLAT_ASSIGN_OR_RETURN(layers, allocate_layers(hulls, targets, initial, bytes_of, caps, &pool));
    }
    for (const auto& tile : tiles) tile->release_kept_tile();
    if (options.rate_kind == EncodeOptions::RateKind::kPsnr) {
      return meet_psnr_targets(image, options, assembler, hulls, targets, initial, layers);
    }
    release_hulls(hulls, &pool);
  }
  StageClock clock(stage_sink(resources.stage_times, &StageTimes::tier2_ms), "tier2");
  if (coding.sink) {
    if (setup.release) {
      // The packets sized first (write() takes this sizing), while the last
      // tile's buffers are freed beside it; then that freeing is waited
      // for, so that the data's chunks are not allocated while the buffers
      // are still held (the peak stays the strips').
      MALLAT_RETURN_IF_ERROR(assembler.bytes(layers, false).status());
      (void)setup.release->wait();
    }
    MALLAT_RETURN_IF_ERROR(assembler.write(layers, *coding.sink, coding.size_hint));
    if (report) {
      report->spilled_blocks = spill.blocks();
      report->spilled_bytes = spill.bytes();
    }
    if (setup.release)
      for (const auto& tile : tiles) tile->release_coded_on(*setup.release);
    return std::vector<uint8_t>();
  }
  return assembler.file(layers);
}

Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& given, const CallResources& resources,
                                    EncodeReport* report) {
  TileCoding coding;
  coding.code = [](TileEncoder& tile, int index, int) { return tile.code(index); };
  MALLAT_ASSIGN_OR_RETURN(const bool search, step_search_wanted(given));
  // The tile stages read samples in either form (Component::stored); the
  // PSNR targets' and the step search's comparisons read int32 samples.
  if (has_stored_samples(image) && (search || given.rate_kind == EncodeOptions::RateKind::kPsnr)) {
    const Image widened = with_int32_samples(image);
    return encode(widened, given, resources, report);
  }
  if (search) {
    return encode_searching_steps(image, given, resources, [&](const EncodeOptions& o, bool first) {
      return encode_tiles(image, o, resources, first ? report : nullptr, coding);
    });
  }
  return encode_tiles(image, given, resources, report, coding);
}

Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& options, EncodeReport* report) {
  CallResources resources;
  if (options.time_stages && report) resources.stage_times = &report->stage_times;
  return encode(image, options, resources, report);
}

}  // namespace mallat::codec
