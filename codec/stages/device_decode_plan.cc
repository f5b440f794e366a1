#include "codec/stages/device_decode_plan.h"

#include <algorithm>

#include "codec/stages/stored_samples.h"

namespace mallat::codec {

namespace {

// The raster's layout for the output (DeviceDecodePlan::interleaved), where
// every plane is stored a byte a sample at plane 0's size and place.
void interleave_output(DeviceDecodePlan& plan) {
  const OutputPlane& first = plan.output[0];
  const size_t n = plan.output.size();
  if (n > 255) return;
  for (size_t c = 0; c < n; ++c) {
    const OutputPlane& p = plan.output[c];
    if (p.bytes != 1 || p.width != first.width || p.height != first.height || plan.image_x[c] != plan.image_x[0] ||
        plan.image_y[c] != plan.image_y[0]) {
      return;
    }
  }
  for (size_t c = 0; c < n; ++c) {
    plan.output[c].stored = c;
    plan.output[c].interleave = static_cast<uint8_t>(n);
  }
  plan.interleaved = true;
}

}  // namespace

Result<DeviceDecodePlan> plan_device_decode(const DecodeTile& tile) {
  const std::string why = device_decode_unsupported(tile);
  if (!why.empty()) return invalid_argument("the device runner cannot take this tile: " + why);
  std::vector<int> bytes;
  for (const Component& comp : tile.image->components) bytes.push_back(stored_bytes(comp.precision));
  DeviceDecodePlan plan;
  static_cast<DevicePlaneLayout&>(plan) = lay_out_device_planes(tile.planes, bytes);

  // Tier-1's batch: the blocks with passes; their samples are the device's,
  // so the views hold no data.
  std::vector<entropy::BlockToDecode> batch;
  std::vector<entropy::DecodedBlock> shapes;
  std::vector<int64_t> covered(tile.planes.size(), 0);
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    const DecodeBlock& b = tile.blocks[i];
    covered[static_cast<size_t>(b.place.component)] += b.place.width * b.place.height;
    if (b.coded.num_passes == 0) continue;
    plan.batched.push_back(i);
    batch.push_back(b.coded);
    shapes.push_back({PlaneView<int32_t>{nullptr, b.place.width, b.place.height, b.place.width}, {}, Status::Ok()});
  }
  MALLAT_ASSIGN_OR_RETURN(plan.t1, entropy::lay_out_t1_decode_batch(batch, shapes));
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    if (covered[c] != static_cast<int64_t>(tile.planes[c].count())) plan.zero_filled.push_back(c);
  }

  size_t k = 0;  // the next batched block
  for (size_t i = 0; i < tile.blocks.size(); ++i) {
    const DecodeBlock& b = tile.blocks[i];
    const size_t c = static_cast<size_t>(b.place.component);
    if (b.place.width == 0 || b.place.height == 0) {
      if (k < plan.batched.size() && plan.batched[k] == i) ++k;
      continue;
    }
    DequantiseJob job;
    job.target = plan.plane_offset[c] + static_cast<uint64_t>(b.place.y0 * plan.plane_pitch[c] + b.place.x0);
    job.pitch = static_cast<uint32_t>(plan.plane_pitch[c]);
    job.width = static_cast<uint16_t>(b.place.width);
    job.height = static_cast<uint16_t>(b.place.height);
    job.roi_shift = b.roi_shift;
    job.half_step = 0.5f * b.step;  // reconstruct_irreversible's
    job.irreversible = tile.planes[c].wavelet == dwt::Wavelet::k97;
    if (k < plan.batched.size() && plan.batched[k] == i) {
      job.source = plan.t1.jobs[k].sample_offset;
      job.result = static_cast<uint32_t>(k);
      ++k;
    } else {
      job.zero = 1;
    }
    plan.dequantise.push_back(job);
  }

  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const TilePlane& plane = tile.planes[c];
    const Component& comp = tile.image->components[c];
    OutputPlane out;
    out.offset = plan.plane_offset[c];
    out.stored = plan.stored_offset[c];
    out.pitch = plan.plane_pitch[c];
    out.width = plane.width();
    out.height = plane.height();
    out.range = {dc_shift_of(comp.precision, comp.is_signed), comp.min_value(), comp.max_value()};
    out.bytes = static_cast<uint8_t>(bytes[c]);
    out.is_signed = comp.is_signed;
    out.irreversible = plane.wavelet == dwt::Wavelet::k97;
    out.colour = tile.colour_transform && c < 3;
    plan.output.push_back(out);
    plan.image_x.push_back(plane.rect.x0 - tile.origin_x[c]);
    plan.image_y.push_back(plane.rect.y0 - tile.origin_y[c]);
  }
  if (tile.raster != nullptr) interleave_output(plan);
  return plan;
}

void dequantise_on_host(const DequantiseJob& job, const int32_t* t1_samples,
                        const entropy::SharedT1DecodeResult* results, int32_t* planes) {
  quant::KnownPlanes known;
  if (!job.zero) known = {results[job.result].lowest_plane, results[job.result].ended_in_significance_pass};
  for (uint32_t y = 0; y < job.height; ++y) {
    for (uint32_t x = 0; x < job.width; ++x) {
      const int32_t v = job.zero ? 0 : t1_samples[job.source + uint64_t{y} * job.width + x];
      planes[job.target + uint64_t{y} * job.pitch + x] = dequantised(job, v, known);
    }
  }
}

void output_on_host(const DeviceDecodePlan& plan, size_t c, const int32_t* planes, void* stored) {
  const OutputPlane& p = plan.output[c];
  for (int64_t y = 0; y < p.height; ++y) {
    for (int64_t x = 0; x < p.width; ++x) {
      int32_t v = 0;
      if (p.colour) {
        int32_t pixel[3];
        output_pixel(plan.output.data(), x, y, planes, pixel);
        v = pixel[c];
      } else {
        v = output_value(p, x, y, planes);
      }
      store_sample(v, p, y * p.width + x, stored);
    }
  }
}

}  // namespace mallat::codec
