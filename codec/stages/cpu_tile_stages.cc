// The CPU runner of the tile stages (tile_stages.h): each stage in turn,
// its sample loops on the thread pool, the DWT through the backend given.
#include <string>
#include <utility>
#include <vector>

#include "codec/stages/block_coding.h"
#include "codec/stages/quantisation.h"
#include "codec/stages/region_dwt.h"
#include "codec/stages/tile_input.h"
#include "codec/stages/tile_output.h"
#include "codec/stages/tile_stages.h"
#include "common/large_buffer.h"

namespace mallat::codec {
namespace {

// Annex F, every non-empty plane in one batch of the backend's.
Status transform(const std::vector<TilePlane>& planes, dwt::Direction direction, dwt::Backend& dwt) {
  std::vector<dwt::PlaneJob> jobs;
  for (const TilePlane& plane : planes) {
    if (plane.rect.empty()) continue;
    dwt::PlaneJob job;
    job.wavelet = plane.wavelet;
    job.direction = direction;
    job.levels = plane.levels;
    job.x0 = plane.rect.x0;
    job.y0 = plane.rect.y0;
    if (plane.wavelet == dwt::Wavelet::k53) {
      job.samples53 = plane.ints();
    } else {
      job.samples97 = plane.floats();
    }
    jobs.push_back(job);
  }
  return dwt.run(jobs);
}

// Annex F over each plane's window alone (region_dwt.h), from the
// coefficients in the tile's band buffers; each plane is left holding its
// window.
Status transform_windows(DecodeTile& tile, dwt::Backend& dwt) {
  const TilePlane none;
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    TilePlane& plane = tile.planes[c];
    const dwt::Rect& window = tile.windows[c];
    TilePlane out;
    out.rect = window;
    out.wavelet = plane.wavelet;
    if (!window.empty()) {
      const PlaneRegion region = plane_region(plane.rect, plane.levels, plane.wavelet, window);
      const auto bands = [&](int r, dwt::Band band) -> const TilePlane& {
        for (const RegionBand& b : tile.bands)
          if (b.plane == static_cast<int>(c) && b.resolution == r && b.band == band) return b.coefficients;
        return none;  // no block there: the band's window is empty
      };
      MALLAT_RETURN_IF_ERROR(inverse_dwt_region(region, plane.wavelet, bands, dwt, out));
    }
    plane = std::move(out);
  }
  return Status::Ok();
}

// The output image's components that no tile has written yet: allocated,
// zero-filled, one item each (the pages cost as much to fault in as to
// fill, so the decoder overlaps them with block decoding).
std::vector<size_t> unallocated(const Image& image) {
  std::vector<size_t> components;
  for (size_t c = 0; c < image.components.size(); ++c) {
    const Component& comp = image.components[c];
    if (comp.samples.empty() && comp.width > 0 && comp.height > 0) components.push_back(c);
  }
  return components;
}

void allocate(Image& image, size_t c) {
  Component& comp = image.components[c];
  assign_large(comp.samples, static_cast<size_t>(comp.width * comp.height));
}

// G.2 / G.3 need components 0..2 of one size and one wavelet; then
// write_tile: inverse colour transform, DC level shift, clamp, and the
// samples' place in the image.
Status output(DecodeTile& tile, ThreadPool& pool) {
  if (tile.colour_transform) {
    const auto size = [&](int c) { return std::pair(tile.planes[c].width(), tile.planes[c].height()); };
    if (tile.planes.size() < 3 || size(0) != size(1) || size(0) != size(2)) {
      return corrupt_data("the colour transform needs components 0..2 of equal size");
    }
    const dwt::Wavelet w0 = tile.planes[0].wavelet;
    if (tile.planes[1].wavelet != w0 || tile.planes[2].wavelet != w0) {
      return corrupt_data("the colour transform needs components 0..2 of one wavelet");
    }
  }
  std::vector<DecodedTileComponent> decoded(tile.planes.size());
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const TilePlane& plane = tile.planes[c];
    decoded[c].rect = plane.rect;
    if (plane.wavelet == dwt::Wavelet::k53) {
      decoded[c].samples53 = plane.ints();
    } else {
      decoded[c].samples97 = plane.floats();
    }
  }
  if (tile.raster) {
    write_tile_bytes(decoded, tile.colour_transform, tile.origin_x, tile.origin_y, *tile.image, tile.raster, pool);
  } else {
    write_tile(decoded, tile.colour_transform, tile.origin_x, tile.origin_y, *tile.image, pool);
  }
  return Status::Ok();
}

class CpuTileStages final : public TileStages {
 public:
  CpuTileStages(ThreadPool& pool, dwt::Backend& dwt) : pool_(pool), dwt_(dwt) {}

  std::string name() const override { return "cpu, dwt " + dwt_.name(); }

  Status forward(ForwardStage first, ForwardStage last, EncodeTile& tile) override {
    if (first > last) return invalid_argument("forward stages out of order");
    const auto runs = [&](ForwardStage s) { return first <= s && s <= last; };
    if (runs(ForwardStage::kComponentTransform)) read_tile(tile, pool_);
    if (runs(ForwardStage::kDwt)) MALLAT_RETURN_IF_ERROR(transform(tile.planes, dwt::Direction::kForward, dwt_));
    if (runs(ForwardStage::kBlockCoding)) return encode_blocks(tile, pool_, runs(ForwardStage::kQuantisation));
    if (runs(ForwardStage::kQuantisation)) quantise_blocks(tile, pool_);
    return Status::Ok();
  }

  Status inverse(InverseStage first, InverseStage last, DecodeTile& tile) override {
    if (first > last) return invalid_argument("inverse stages out of order");
    const auto runs = [&](InverseStage s) { return first <= s && s <= last; };
    const bool output_runs = runs(InverseStage::kOutput);
    // A raster (tile.raster) takes the samples in place of the components.
    const std::vector<size_t> allocations =
        output_runs && !tile.raster ? unallocated(*tile.image) : std::vector<size_t>{};
    if (runs(InverseStage::kBlockDecoding)) {
      entropy::BatchWork beside;
      beside.items = static_cast<int64_t>(allocations.size());
      beside.item = [&](int64_t i) { allocate(*tile.image, allocations[i]); };
      MALLAT_RETURN_IF_ERROR(decode_blocks(tile, pool_, runs(InverseStage::kDequantisation), beside));
    } else {
      if (runs(InverseStage::kDequantisation)) dequantise_blocks(tile, pool_);
      if (output_runs) {
        pool_.parallel_for(static_cast<int64_t>(allocations.size()),
                           [&](int64_t i) { allocate(*tile.image, allocations[i]); });
      }
    }
    if (runs(InverseStage::kInverseDwt)) {
      MALLAT_RETURN_IF_ERROR(tile.windows.empty() ? transform(tile.planes, dwt::Direction::kInverse, dwt_)
                                                  : transform_windows(tile, dwt_));
    }
    if (output_runs) return output(tile, pool_);
    return Status::Ok();
  }

 private:
  ThreadPool& pool_;
  dwt::Backend& dwt_;
};

}  // namespace

std::unique_ptr<TileStages> make_cpu_tile_stages(ThreadPool& pool, dwt::Backend& dwt) {
  return std::make_unique<CpuTileStages>(pool, dwt);
}

}  // namespace mallat::codec
