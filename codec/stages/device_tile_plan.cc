#include "codec/stages/device_tile_plan.h"

#include <algorithm>

#include "codec/stages/block_coding.h"
#include "codec/stages/stored_samples.h"

namespace mallat::codec {

DevicePlaneLayout lay_out_device_planes(std::span<const TilePlane> planes, std::span<const int> stored_bytes) {
  DevicePlaneLayout plan;
  constexpr int64_t kRowAlign = 32;    // samples: 128-byte rows
  constexpr uint64_t kPlaneAlign = 64;  // samples: 256-byte planes
  const auto round_up = [](int64_t v, int64_t a) { return (std::max<int64_t>(v, 1) + a - 1) / a * a; };
  for (size_t c = 0; c < planes.size(); ++c) {
    const TilePlane& plane = planes[c];
    plan.stored_offset.push_back(plan.stored_size);
    const uint64_t stored = static_cast<uint64_t>(plane.width() * plane.height()) * static_cast<uint64_t>(stored_bytes[c]);
    plan.stored_size += (stored + 255) / 256 * 256;
    plan.plane_offset.push_back(plan.plane_samples);
    plan.plane_pitch.push_back(round_up(plane.width(), kRowAlign));
    const uint64_t samples = static_cast<uint64_t>(plan.plane_pitch.back() * plane.height());
    plan.plane_samples += (samples + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign;
    plan.scratch_pitch.push_back(round_up((plane.width() + 1) / 2, kRowAlign));
    const uint64_t half_h = static_cast<uint64_t>((plane.height() + 1) / 2);
    plan.scratch_samples = std::max(plan.scratch_samples, static_cast<uint64_t>(plan.scratch_pitch.back()) * half_h);
  }
  return plan;
}

Result<DeviceTilePlan> plan_device_tile(const EncodeTile& tile) {
  const std::string why = device_tile_unsupported(tile);
  if (!why.empty()) return invalid_argument("the device runner cannot take this tile: " + why);
  std::vector<int> bytes;
  for (size_t c = 0; c < tile.planes.size(); ++c) bytes.push_back(stored_bytes(tile.image->components[c].precision));
  DeviceTilePlan plan;
  static_cast<DevicePlaneLayout&>(plan) = lay_out_device_planes(tile.planes, bytes);
  // Tier-1's jobs from the blocks' shapes and coding parameters; the
  // samples are the device's, so the views hold no data.
  std::vector<entropy::BlockToEncode> shapes(tile.blocks.size());
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    const EncodeBlock& b = tile.blocks[i];
    entropy::BlockToEncode& s = shapes[i];
    s.coefficients = PlaneView<const int32_t>{nullptr, b.place.width, b.place.height, b.place.width};
    s.orientation = b.orientation;
    s.num_bitplanes = b.num_bitplanes;
    s.style = b.style;
    s.fraction_bits = b.fraction_bits;
    s.ht_cleanup_plane = tile.ht_cleanup_plane;
    s.ht_refinement = tile.ht_refinement;
    s.distortions = tile.distortions;
  }
  MALLAT_ASSIGN_OR_RETURN(plan.t1, entropy::lay_out_t1_batch(shapes));
  plan.t1.coefficients = 2 * plan.plane_samples;
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    const EncodeBlock& b = tile.blocks[i];
    const BlockPlace& at = b.place;
    const size_t c = static_cast<size_t>(at.component);
    const int64_t pitch = plan.plane_pitch[c];
    const uint64_t place = plan.plane_offset[c] + static_cast<uint64_t>(at.y0 * pitch + at.x0);
    entropy::T1DeviceJob& job = plan.t1.jobs[i];
    job.stride = static_cast<uint32_t>(pitch);
    if (tile.planes[c].wavelet == dwt::Wavelet::k53) {
      job.coefficient_offset = plan.plane_samples + place;
      continue;
    }
    job.coefficient_offset = place;
    // quantise_block's call of quantize_dead_zone (no ROI here).
    QuantiseJob q;
    q.source = place;
    q.target = place;
    q.pitch = static_cast<uint32_t>(pitch);
    q.width = job.width;
    q.height = job.height;
    q.rule = quant::dead_zone_rule(b.step, b.num_bitplanes, b.fraction_bits);
    q.block = static_cast<uint32_t>(i);
    plan.quantise.push_back(q);
  }
  return plan;
}

Result<DeviceHtRound> plan_ht_round(const EncodeTile& tile, const DeviceTilePlan& plan) {
  const size_t n = tile.blocks.size();
  if (plan.t1.jobs.size() != n) return internal_error("a round of a tile that is not the plan's");
  if (!tile.ht_block_planes.empty() && tile.ht_block_planes.size() != n)
    return invalid_argument("a round's planes are not one a code-block");
  DeviceHtRound round;
  for (size_t i = 0; i < n; ++i) {
    const int plane = tile.ht_block_planes.empty() ? tile.ht_cleanup_plane : tile.ht_block_planes[i];
    const EncodeBlock& b = tile.blocks[i];
    if (!block_coded_at(b, plane)) continue;
    round.block.push_back(i);
    round.shapes.push_back(block_to_encode(
        tile, i, PlaneView<const int32_t>{nullptr, b.place.width, b.place.height, b.place.width}, plane,
        tile.ht_refinement));
  }
  if (round.block.empty()) return round;
  MALLAT_ASSIGN_OR_RETURN(round.t1, entropy::lay_out_t1_batch(round.shapes));
  round.t1.coefficients = plan.t1.coefficients;
  for (size_t k = 0; k < round.block.size(); ++k) {
    const entropy::T1DeviceJob& kept = plan.t1.jobs[round.block[k]];
    round.t1.jobs[k].coefficient_offset = kept.coefficient_offset;
    round.t1.jobs[k].stride = kept.stride;
  }
  return round;
}

quant::QuantizationError quantise_on_host(const QuantiseJob& job, const float* planes, int32_t* out) {
  quant::QuantizationError e;
  double total = 0;
  for (uint32_t y = 0; y < job.height; ++y) {
    const float* row = planes + job.source + uint64_t{y} * job.pitch;
    int32_t* to = out + job.target + uint64_t{y} * job.pitch;
    for (uint32_t x = 0; x < job.width; ++x) {
      const float scaled = quant::dead_zone_scaled(job.rule, row[x]);
      const int32_t over = quant::dead_zone_over(job.rule, scaled);
      to[x] = quant::dead_zone_value(job.rule, row[x], scaled, over);
      e.clipped -= over;
    }
    float lanes[8];
    quant::dead_zone_energy_lanes(job.width, [&](int64_t x) { return quant::dead_zone_scaled(job.rule, row[x]); },
                                  lanes);
    for (float l : lanes) total += l;
  }
  e.energy = total;
  return e;
}

}  // namespace mallat::codec
