// A streamed tile's HT blocks coded from their kept indices
// (kept_indices.h): during the strips at the planes predicted for them
// (ht_plane_prediction.h), then, once rate control has chosen, at the
// chosen planes that no kept prediction already coded
// (TileEncoder::code_kept_planes).
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "codec/encoder/tile_encoder.h"
#include "codec/stages/block_coding.h"
#include "common/large_buffer.h"

namespace mallat::codec {
namespace {

// Samples of kept blocks read back and coded in one batch.
constexpr int64_t kKeptBatchSamples = int64_t{1} << 22;

}  // namespace

void TileEncoder::code_predicted(size_t slot, const EncodeBlock& block, const KeptIndices& kept,
                                 const CodeBlockHull& hull, int planes, double slope) {
  HtPlanePrediction& prediction = *setup_.ht_prediction;
  const HtRounds rounds = ht_rounds(ht_plane_pair(hull, planes, slope, prediction.sure_ratio()));
  const int8_t round_planes[2] = {rounds.refined, rounds.cleanup_only};
  entropy::EncodedCodeBlock coded[2];
  if (round_planes[0] >= 0 || round_planes[1] >= 0) {
    // The indices as code_kept_planes reads them back (those below 2^F as
    // 0), so that a coding is the one it would make.
    thread_local std::vector<int32_t> indices;
    const auto samples = static_cast<size_t>(block.place.width * block.place.height);
    if (indices.size() < samples) indices.resize(samples);
    const PlaneView<int32_t> view{indices.data(), block.place.width, block.place.height, block.place.width};
    // A block that does not read back, or whose coding fails, is coded
    // after the choice, which meets its error.
    if (!setup_.kept_store->read(kept, view).ok()) return;
    for (int r = 0; r < 2; ++r) {
      const int plane = round_planes[r];
      // encode_blocks leaves a block out of a plane it does not have.
      if (plane < 0 || (plane > 0 && plane >= block.num_bitplanes)) continue;
      Result<entropy::EncodedCodeBlock> made =
          entropy::encode_block_here(block_to_encode(block, view, plane, r == 0, setup_.distortions));
      if (!made.ok()) return;
      coded[r] = std::move(made).value();
    }
  }
  predicted_[slot] = prediction.keep(rounds, coded);
}

void TileEncoder::keep_predicted(std::span<const std::vector<int8_t>> rounds,
                                 std::vector<std::vector<int8_t>>& coding) {
  if (predicted_.empty() || !setup_.ht_prediction) return;
  std::atomic<uint64_t> blocks = 0, right = 0, made = 0, kept = 0, asked = 0;
  for_blocks(predicted_.size(), [&](size_t slot) {
    for (const std::vector<int8_t>& r : rounds) {
      if (r[slot] >= 0) asked.fetch_add(1, std::memory_order_relaxed);
    }
    if (!predicted_[slot]) return;
    PredictedHtBlock& p = *predicted_[slot];
    bool used[2] = {false, false};
    bool all_kept = true;
    for (size_t r = 0; r < rounds.size(); ++r) {
      const int8_t plane = rounds[r][slot];
      if (const PredictedHtBlock::Coding* c = p.find(plane, r == 0 && plane > 0)) {
        used[c - p.coded] = true;
        coding[r][slot] = -1;
      } else if (plane >= 0) {
        all_kept = false;
      }
    }
    const int codings = (p.rounds.refined >= 0 ? 1 : 0) + (p.rounds.cleanup_only >= 0 ? 1 : 0);
    const int kept_here = (used[0] ? 1 : 0) + (used[1] ? 1 : 0);
    blocks.fetch_add(1, std::memory_order_relaxed);
    made.fetch_add(static_cast<uint64_t>(codings), std::memory_order_relaxed);
    kept.fetch_add(static_cast<uint64_t>(kept_here), std::memory_order_relaxed);
    if (all_kept && kept_here == codings) right.fetch_add(1, std::memory_order_relaxed);
    // What the choice does not ask for is not found again.
    if (!used[0]) p.rounds.refined = -1;
    if (!used[1]) p.rounds.cleanup_only = -1;
  });
  setup_.ht_prediction->count({blocks.load(), right.load(), made.load(), kept.load(), asked.load()});
}

Status TileEncoder::code_kept_planes(std::span<const std::vector<int8_t>> rounds) {
  // The rounds as coded: without the planes a block has kept from its
  // prediction.
  std::vector<std::vector<int8_t>> coding(rounds.begin(), rounds.end());
  keep_predicted(rounds, coding);
  // Every block with a plane to take, coded or kept, in batches as without
  // prediction: its candidates and points are then made in the same order,
  // near those of the blocks beside it, which PCRD and the sizings read.
  std::vector<size_t> wanted;
  for (size_t slot = 0; slot < kept_indices_.size(); ++slot) {
    for (const std::vector<int8_t>& r : rounds) {
      if (r[slot] < 0) continue;
      wanted.push_back(slot);
      break;
    }
  }
  // One plane for every batch, reused.
  std::shared_ptr<std::byte[]> storage;
  uint64_t capacity = 0;
  for (size_t first = 0; first < wanted.size();) {
    // The batch's blocks one below the other in a plane of their widest.
    EncodeTile batch;
    batch.distortions = setup_.distortions;
    batch.hybrid_coder = setup_.hybrid_coder;
    int64_t width = 0, height = 0, samples = 0;
    size_t end = first;
    for (; end < wanted.size() && (end == first || samples < kKeptBatchSamples); ++end) {
      EncodeBlock b = kept_blocks_[wanted[end]];
      b.place = {0, 0, height, b.place.width, b.place.height};
      width = std::max(width, b.place.width);
      height += b.place.height;
      samples += b.place.width * b.place.height;
      batch.blocks.push_back(b);
    }
    if (static_cast<uint64_t>(width * height) > capacity) {
      capacity = static_cast<uint64_t>(width * height);
      storage = allocate_large(capacity * 4);
    }
    TilePlane plane;
    plane.rect = dwt::Rect{0, 0, width, height};
    plane.wavelet = irreversible_ ? dwt::Wavelet::k97 : dwt::Wavelet::k53;
    plane.storage = storage;
    batch.planes.push_back(std::move(plane));
    // Each block's indices are unpacked on the thread that codes it, just
    // before its first coding (BatchWork::each), so the coder reads them
    // from that core's cache rather than from a plane written in a pass of
    // its own.
    std::vector<Status> unpacked(end - first);
    std::vector<uint8_t> in_plane(end - first, 0);
    entropy::BatchWork unpack;
    unpack.each = [&](size_t i) {
      if (in_plane[i] != 0) return;
      in_plane[i] = 1;
      unpacked[i] = setup_.kept_store->read(kept_indices_[wanted[first + i]],
                                            batch.blocks[i].place.in(batch.planes[0].ints()));
    };
    for (size_t r = 0; r < rounds.size(); ++r) {
      batch.ht_block_planes.clear();
      for (size_t k = first; k < end; ++k) batch.ht_block_planes.push_back(coding[r][wanted[k]]);
      batch.ht_refinement = r == 0;
      const Status coded = encode_blocks(batch, pool_, false, unpack);
      // A block that did not unpack was coded from what the plane held: its
      // error first.
      for (const Status& u : unpacked) MALLAT_RETURN_IF_ERROR(u);
      MALLAT_RETURN_IF_ERROR(coded);
      add_ht_candidates(std::span<const size_t>(wanted).subspan(first, end - first), rounds[r], batch.coded, r == 0);
    }
    list_ht_points(std::span<const size_t>(wanted).subspan(first, end - first), rounds);
    first = end;
  }
  // Each kept coding has joined its block (its bytes go with the
  // prediction's pieces, HtPlanePrediction::release).
  std::vector<PredictedHtBlock*>().swap(predicted_);
  return Status::Ok();
}

}  // namespace mallat::codec
