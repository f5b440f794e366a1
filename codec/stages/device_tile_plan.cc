#include "codec/stages/device_tile_plan.h"

#include <algorithm>

#include "codec/stages/stored_samples.h"

namespace mallat::codec {

std::string device_tile_unsupported(const EncodeTile& tile) {
  if (tile.image == nullptr) return "no image to read the tile from";
  if (tile.planes.size() > tile.image->components.size()) return "more planes than the image has components";
  for (const TilePlane& plane : tile.planes) {
    if (plane.wavelet != dwt::Wavelet::k53) return "the 9/7 path (irreversible) is coded on the CPU";
  }
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const Component& comp = tile.image->components[c];
    const TilePlane& plane = tile.planes[c];
    if (tile.source_x[c] < 0 || tile.source_y[c] < 0 || tile.source_x[c] + plane.width() > comp.width ||
        tile.source_y[c] + plane.height() > comp.height ||
        comp.samples.size() < static_cast<size_t>(comp.width * comp.height)) {
      return "component " + std::to_string(c) + " does not hold the tile's samples";
    }
  }
  for (const EncodeBlock& b : tile.blocks) {
    if (b.style.ht) return "HT code-blocks are coded on the CPU";
    if (b.roi_shift != 0) return "ROI (Annex H) is coded on the CPU";
    if (b.place.component < 0 || static_cast<size_t>(b.place.component) >= tile.planes.size() ||
        !b.place.inside(tile.planes[static_cast<size_t>(b.place.component)])) {
      return "a code-block outside its plane";
    }
  }
  return "";
}

Result<DeviceTilePlan> plan_device_tile(const EncodeTile& tile) {
  const std::string why = device_tile_unsupported(tile);
  if (!why.empty()) return invalid_argument("the device runner cannot take this tile: " + why);
  DeviceTilePlan plan;
  constexpr int64_t kRowAlign = 32;    // samples: 128-byte rows
  constexpr uint64_t kPlaneAlign = 64;  // samples: 256-byte planes
  const auto round_up = [](int64_t v, int64_t a) { return (std::max<int64_t>(v, 1) + a - 1) / a * a; };
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const TilePlane& plane = tile.planes[c];
    plan.stored_offset.push_back(plan.stored_size);
    const uint64_t stored = static_cast<uint64_t>(plane.width() * plane.height()) *
                            static_cast<uint64_t>(stored_bytes(tile.image->components[c].precision));
    plan.stored_size += (stored + 255) / 256 * 256;
    plan.plane_offset.push_back(plan.plane_samples);
    plan.plane_pitch.push_back(round_up(plane.width(), kRowAlign));
    const uint64_t samples = static_cast<uint64_t>(plan.plane_pitch.back() * plane.height());
    plan.plane_samples += (samples + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign;
    plan.scratch_pitch.push_back(round_up((plane.width() + 1) / 2, kRowAlign));
    const uint64_t half_h = static_cast<uint64_t>((plane.height() + 1) / 2);
    plan.scratch_samples = std::max(plan.scratch_samples, static_cast<uint64_t>(plan.scratch_pitch.back()) * half_h);
  }
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
  }
  MALLAT_ASSIGN_OR_RETURN(plan.t1, entropy::lay_out_t1_batch(shapes));
  plan.gather.resize(tile.blocks.size());
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    const BlockPlace& at = tile.blocks[i].place;
    GatherJob& g = plan.gather[i];
    const int64_t pitch = plan.plane_pitch[static_cast<size_t>(at.component)];
    g.source = plan.plane_offset[static_cast<size_t>(at.component)] + static_cast<uint64_t>(at.y0 * pitch + at.x0);
    g.target = plan.t1.jobs[i].coefficient_offset;
    g.pitch = static_cast<uint32_t>(pitch);
    g.width = plan.t1.jobs[i].width;
    g.height = plan.t1.jobs[i].height;
  }
  return plan;
}

void gather_on_host(const GatherJob& job, const int32_t* planes, int32_t* out) {
  for (uint32_t y = 0; y < job.height; ++y) {
    const int32_t* row = planes + job.source + uint64_t{y} * job.pitch;
    std::copy(row, row + job.width, out + job.target + uint64_t{y} * job.width);
  }
}

}  // namespace mallat::codec
