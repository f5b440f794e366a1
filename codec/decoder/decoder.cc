// codec::decode: the container and codestream headers, the output image's
// geometry, each tile through decode_tile (tile_decoder.h), then for a JP2
// file its header (Annex I: jp2_colour.h, sycc.h).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "codec/api/decode.h"
#include "codec/decoder/decode_call.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/jp2/jp2_colour.h"
#include "codec/jp2/sycc.h"
#include "codec/codestream/memory_limit.h"
#include "codec/decoder/component_selection.h"
#include "codec/decoder/output_image.h"
#include "codec/decoder/tile_decoder.h"
#include "codec/stages/device_raster.h"
#include "codec/stages/tile_output.h"
#include "codec/tier2/tile_geometry.h"
#include "common/large_buffer.h"
#include "common/thread_pool.h"

namespace mallat::codec {

namespace {

// Whether a tile's area on the reference grid holds a sample of any
// component: B-12, tcx0 = ceil(tx0 / XRsiz) < tcx1 = ceil(tx1 / XRsiz), and
// likewise down.
bool holds_samples(const ImageAndTileSize& siz, const dwt::Rect& tile) {
  const auto up = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  for (const ComponentSize& c : siz.components)
    if (up(tile.x0, c.dx) < up(tile.x1, c.dx) && up(tile.y0, c.dy) < up(tile.y1, c.dy)) return true;
  return false;
}

std::string rect_text(const dwt::Rect& r) {
  return std::to_string(r.x0) + "," + std::to_string(r.y0) + "," + std::to_string(r.x1) + "," + std::to_string(r.y1);
}

bool meets(const dwt::Rect& a, const dwt::Rect& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// -d: the region on the reference grid, cut to `area` (the image, or one
// tile's with -t) with a warning as opj_decompress cuts it
// (opj_j2k_set_decode_area); empty or wholly outside is an error.
Result<dwt::Rect> region_in(const dwt::Rect& region, const dwt::Rect& area, DecodeReport* report) {
  if (region.x0 < 0 || region.y0 < 0)
    return invalid_argument("region " + rect_text(region) + " has a negative coordinate");
  if (region.empty())
    return invalid_argument("region " + rect_text(region) + " is empty (x0,y0,x1,y1 needs x0 < x1 and y0 < y1)");
  const dwt::Rect cut{std::max(region.x0, area.x0), std::max(region.y0, area.y0), std::min(region.x1, area.x1),
                      std::min(region.y1, area.y1)};
  if (cut.empty())
    return invalid_argument("region " + rect_text(region) + " lies outside the image area " + rect_text(area) +
                            " (x0,y0,x1,y1 on the reference grid)");
  if (cut != region && report)
    report->warnings.push_back("region " + rect_text(region) + " cut to the image area: " + rect_text(cut));
  return cut;
}

// Decodes a raw codestream; byte offsets in its messages count from its SOC.
// all_components: set to whether options.components asked for them all, in
// order. raster: where set, the samples go there when the image fits bytes
// (decode's raster overload), else it is left empty.
Result<Image> decode_codestream(std::span<const uint8_t> stream, ColorSpace color_space,
                                const DecodeOptions& options, const CallResources& resources, DecodeReport* report,
                                bool* all_components, std::vector<uint8_t>* raster) {
  Result<Codestream> parsed = [&] {
    StageClock clock(stage_sink(resources.stage_times, &StageTimes::tier2_ms), "headers");
    return parse_codestream(stream);
  }();
  MALLAT_ASSIGN_OR_RETURN(Codestream cs, std::move(parsed));
  if (report) report->warnings.insert(report->warnings.end(), cs.warnings.begin(), cs.warnings.end());
  MALLAT_RETURN_IF_ERROR(check_decoder_memory(cs, options.reduce, stream.size(), options.max_memory, options.region));
  const ImageAndTileSize& siz = cs.main.siz;
  const int reduce = options.reduce;
  MALLAT_ASSIGN_OR_RETURN(const ComponentSelection selection,
                          select_components(options.components, static_cast<int>(siz.components.size()),
                                            any_colour_transform(cs)));
  *all_components = selection.all;

  // The output: each component's image area at the reduced resolution (B-14
  // applied to the whole image), or one tile's area with -t.
  dwt::Rect area{siz.xosiz, siz.yosiz, siz.xsiz, siz.ysiz};
  if (options.tile >= 0) {
    if (options.tile >= static_cast<int>(cs.tiles.size()))
      return invalid_argument("tile " + std::to_string(options.tile) + " does not exist (the image has " +
                              std::to_string(cs.tiles.size()) + " tiles)");
    MALLAT_ASSIGN_OR_RETURN(area, tile_rect(siz, options.tile));
  }
  // -d: the region alone (B-14 below gives its part of each component).
  if (options.region) {
    MALLAT_ASSIGN_OR_RETURN(area, region_in(*options.region, area, report));
  }
  // The image holds the components decoded; the output keeps those asked.
  // Their samples are allocated by the first tile decoded (decode_tile),
  // beside its Tier-1 work on the thread pool, or below when none is.
  std::vector<int64_t> ox, oy;
  MALLAT_ASSIGN_OR_RETURN(Image image, output_image(siz, area, reduce, selection, color_space, ox, oy));
  // The raster, zero where no tile writes (as the components below). One
  // sub-sampling too, so that every component of a tile lies at one place
  // (the device runner interleaves its planes by plane 0's).
  TileRaster bytes;
  const bool one_grid = std::all_of(image.components.begin(), image.components.end(), [&](const Component& c) {
    return c.dx == image.components[0].dx && c.dy == image.components[0].dy;
  });
  // A raster in device memory: the host's, left untouched (and so never
  // paged in) by the tiles decoded on the device, holds the CPU's tiles on
  // their way up.
  std::unique_ptr<std::byte[]> host_part;
  if (raster && selection.all && one_grid && fits_bytes(image)) {
    const size_t n = static_cast<size_t>(image.width() * image.height() * image.num_components());
    if (resources.device_raster) {
      MALLAT_ASSIGN_OR_RETURN(*resources.device_raster, make_device_raster(n));
      host_part = allocate_large(n);
      bytes = {reinterpret_cast<uint8_t*>(host_part.get()), resources.device_raster->get()};
      raster->clear();
    } else {
      // Each tile decoded writes every output sample of its area, and the
      // tiles cover the output unless one is missing (B.3, -allow-partial
      // below): only then must the raster start at zero. So a raster whose
      // memory a caller gives back (its size kept) is written over as it is.
      const bool every_tile_present =
          std::all_of(cs.tiles.begin(), cs.tiles.end(), [](const Tile& t) { return !t.parts.empty(); });
      if (raster->capacity() < n) {
        assign_large(*raster, n);
      } else if (every_tile_present) {
        raster->resize(n);
      } else {
        raster->assign(n, 0);
      }
      bytes.host = raster->data();
    }
  } else if (raster) {
    raster->clear();
  }

  std::optional<ThreadPool> own_pool;
  if (!resources.pool) own_pool.emplace(options.threads);
  ThreadPool& pool = resources.pool ? *resources.pool : *own_pool;
  QuirkCounts quirks;
  MALLAT_ASSIGN_OR_RETURN(const std::shared_ptr<dwt::Backend> backend,
                          dwt::given_or_made_backend(resources.dwt, options.dwt_backend, options.threads));
  for (const Tile& tile : cs.tiles) {
    if (options.tile >= 0 && tile.index != options.tile) continue;
    // -d: a tile outside the region is not read past its tile-part headers.
    if (options.region) {
      MALLAT_ASSIGN_OR_RETURN(const dwt::Rect rect, tile_rect(siz, tile.index));
      if (!meets(rect, area)) continue;
    }
    if (tile.parts.empty()) {
      // B.3: a tile that holds no sample of any component (sub-sampling
      // at an odd origin can leave such tiles) has nothing to miss.
      MALLAT_ASSIGN_OR_RETURN(const dwt::Rect rect, tile_rect(siz, tile.index));
      if (!holds_samples(siz, rect)) continue;
      const std::string missing = "tile " + std::to_string(tile.index) + " is missing";
      if (!options.allow_partial) return corrupt_data(missing + " (a partial stream, refused without -allow-partial)");
      if (report) report->warnings.push_back(missing);
      continue;
    }
    MALLAT_RETURN_IF_ERROR(decode_tile(cs, tile, options, resources, selection.decoded, stream, pool, *backend, ox, oy, image,
                                           bytes, report, quirks)
                               .with_context("tile " + std::to_string(tile.index)));
  }
  if (bytes.device) MALLAT_RETURN_IF_ERROR(finish_device_raster());
  if (report) quirks.report(report->warnings);
  // No tile was decoded into these: all zero.
  for (Component& comp : image.components)
    if (!bytes.host && comp.samples.empty()) assign_large(comp.samples, static_cast<size_t>(comp.width * comp.height));
  keep_output_components(selection, image);
  return image;
}

// decode's body; `raster` as decode's raster overload, which empties it
// again where this fails.
Result<Image> decode_file(std::span<const uint8_t> data, const DecodeOptions& options,
                          const CallResources& resources, DecodeReport* report, std::vector<uint8_t>* raster) {
  bool all_components = true;
  if (detect_container(data) != Container::kJp2)
    return decode_codestream(data, ColorSpace::kUnknown, options, resources, report, &all_components, raster);
  MALLAT_ASSIGN_OR_RETURN(Jp2File parsed, parse_jp2(data, options.strict));
  const auto jp2 = std::make_shared<const Jp2File>(std::move(parsed));
  if (report) {
    report->jp2 = jp2;
    report->warnings.insert(report->warnings.end(), jp2->warnings.begin(), jp2->warnings.end());
  }
  // I.5.3.3: the first colr counts; an enumerated space names the samples'.
  const ColourSpecification* colr = first_colour_specification(*jp2);
  const ColorSpace color_space = colr && colr->method == 1 ? enumerated_colour_space(colr->enumerated).color_space
                                                           : ColorSpace::kUnknown;
  // The codestream's messages give offsets within it; say where it starts
  // in the file (its jp2c box's contents) so that they can be found.
  const std::string where = "codestream starting at byte " + std::to_string(jp2->codestream_offset);
  const size_t first_warning = report ? report->warnings.size() : 0;
  // Annex I's palette (I.5.3.4-5), channel definitions (I.5.3.6) and sYCC
  // change the samples after the decode: those stay in the components.
  const bool header_keeps_samples = !options.apply_jp2_header ||
                                    (!jp2->palette && jp2->component_mapping.empty() &&
                                     jp2->channel_definitions.empty() && color_space != ColorSpace::kYcc);
  auto image = decode_codestream(data.subspan(jp2->codestream_offset, jp2->codestream_length), color_space,
                                 options, resources, report, &all_components,
                                 header_keeps_samples ? raster : nullptr);
  if (!header_keeps_samples && raster) raster->clear();
  if (report)
    for (size_t i = first_warning; i < report->warnings.size(); ++i)
      report->warnings[i] = where + ": " + report->warnings[i];
  if (!image.ok()) return image.status().with_context(where);
  // Annex I's palette, cdef and colour space describe the codestream's
  // components together; with only some of them, or reordered, the samples
  // are left as decoded (opj_decompress -c bypasses pclr, cmap and cdef too).
  if (!options.apply_jp2_header || !all_components) return image;
  // Annex I on the decoded components; the warnings of a header that fails
  // are dropped with it.
  std::vector<std::string> warnings;
  MALLAT_RETURN_IF_ERROR(apply_jp2_header(*jp2, *image, &warnings, options.strict));
  if (image->color_space == ColorSpace::kYcc) MALLAT_RETURN_IF_ERROR(sycc_to_rgb(*image, options.reduce));
  if (report) report->warnings.insert(report->warnings.end(), warnings.begin(), warnings.end());
  return image;
}

}  // namespace

Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options, const CallResources& resources,
                     DecodeReport* report, std::vector<uint8_t>* raster) {
  // A raster given with samples is memory to reuse (decode_codestream);
  // every path that gives none empties it.
  if (resources.device_raster) resources.device_raster->reset();
  Result<Image> image = decode_file(data, options, resources, report, raster);
  if (!image.ok() && raster) raster->clear();
  if (!image.ok() && resources.device_raster && *resources.device_raster) {
    // Copies up may still be queued into it: they finish before it is freed.
    (void)finish_device_raster();
    resources.device_raster->reset();
  }
  return image;
}

Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options, DecodeReport* report,
                     std::vector<uint8_t>* raster) {
  CallResources resources;
  if (options.time_stages && report) resources.stage_times = &report->stage_times;
  return decode(data, options, resources, report, raster);
}

Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options, DecodeReport* report) {
  return decode(data, options, report, nullptr);
}

}  // namespace mallat::codec
