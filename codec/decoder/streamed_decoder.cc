// codec::decode_streamed: the headers as decode() reads them, then each row
// of tiles through open_tile_stream (tile_decoder.h) strip by strip, each
// strip through the output stage (tile_output.h: colour transform, DC
// shift, clamp) into a strip image for the sink. The code-blocks through
// the caller's block decoder when its resources have one (the device's
// coders beside the CPU's: the same samples).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "codec/api/decode_streamed.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/memory_limit.h"
#include "codec/decoder/component_selection.h"
#include "codec/decoder/decode_call.h"
#include "codec/decoder/output_image.h"
#include "codec/decoder/tile_decoder.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/jp2/jp2_colour.h"
#include "codec/stages/streamed_tile.h"
#include "codec/stages/tile_output.h"
#include "common/job_thread.h"
#include "common/thread_pool.h"
#include "common/timeline.h"

namespace mallat::codec {
namespace {

// Rows per strip: enough that the output stage and the writer work on long
// runs, few enough that a strip of a wide image stays small. Smaller strips
// also touch less fresh memory (the first two strips' samples are new pages;
// later ones reuse them), so fewer page faults; 2^17 samples is where the two
// balance (2^16 and 2^18 are no better).
constexpr int64_t kStripSamples = int64_t{1} << 17;
// This path holds strips, not the image, so the whole-image parse limit
// (ParseLimits::max_samples, 2^31) does not bound it: the memory check below
// does, against what it holds. This cap only keeps sample counts far from
// overflow (a 2^20 x 2^20 RGB image is under it).
constexpr uint64_t kStreamedMaxSamples = uint64_t{1} << 42;
// A strip job's output stage gets a thread for every this many of the
// decode's threads (at least one): the pool decodes the code-blocks while
// a thread a plane runs the inverse DWT, and the output stage, one pass
// over the strip's samples, is a fraction of either.
constexpr int kDecodeThreadsPerOutputThread = 4;

// A strip made by the inverse DWT, on its way through the output stage
// (tile_output.h) into `raster`, then to the sink as rows [y, y + n).
struct StripOutput {
  std::vector<DecodedTileComponent> rows;
  Image image;  // describes the strip's components (no samples)
  std::vector<int64_t> oy;  // the strip's top on each component's grid
  std::vector<uint8_t> raster;
  int64_t n = 0, y = 0;
  bool colour = false;
};

// The decode of a codestream: false when it needs the whole image.
Result<bool> stream_codestream(std::span<const uint8_t> stream, ColorSpace color_space, const DecodeOptions& options,
                               const CallResources& resources, const Jp2File* jp2, RowSink& sink,
                               DecodeReport* report, std::vector<std::string>& jp2_warnings) {
  if (options.region || options.tile >= 0) return false;
  ParseLimits limits;
  limits.max_samples = kStreamedMaxSamples;
  std::optional<timeline::Span> parsing(std::in_place, "parse");  // with MALLAT_TIMELINE
  MALLAT_ASSIGN_OR_RETURN(Codestream cs, parse_codestream(stream, limits));
  parsing.reset();
  const ImageAndTileSize& siz = cs.main.siz;
  // A tile missing from the stream is decode()'s to report or fill.
  for (const Tile& tile : cs.tiles)
    if (tile.parts.empty()) return false;
  MALLAT_ASSIGN_OR_RETURN(const ComponentSelection selection,
                          select_components(options.components, static_cast<int>(siz.components.size()),
                                            any_colour_transform(cs)));
  // Components of one size and sub-sampling: every plane has the image's rows.
  const ComponentSize& first = siz.components[static_cast<size_t>(selection.decoded[0])];
  for (int index : selection.decoded) {
    const ComponentSize& c = siz.components[static_cast<size_t>(index)];
    if (c.dx != first.dx || c.dy != first.dy) return false;
    if (c.precision > 31) return false;  // decode() gives the error
  }
  // What this path holds: a strip of the image, as a region decode of it
  // would hold (memory_limit.h), beside the stream.
  const int64_t width = dwt::ceil_div_pow2((siz.xsiz + first.dx - 1) / first.dx, options.reduce) -
                        dwt::ceil_div_pow2((siz.xosiz + first.dx - 1) / first.dx, options.reduce);
  const int64_t strip_rows = std::max<int64_t>(1, kStripSamples / std::max<int64_t>(1, width));
  const int64_t strip_on_grid = std::min<int64_t>(siz.ysiz - siz.yosiz, (strip_rows << options.reduce) * first.dy);
  MALLAT_RETURN_IF_ERROR(check_decoder_memory(cs, options.reduce, stream.size(), options.max_memory,
                                              dwt::Rect{siz.xosiz, siz.yosiz, siz.xsiz, siz.yosiz + strip_on_grid}));

  // The output image, as decode() makes it.
  std::vector<int64_t> ox, oy;
  MALLAT_ASSIGN_OR_RETURN(const Image image, output_image(siz, dwt::Rect{siz.xosiz, siz.yosiz, siz.xsiz, siz.ysiz},
                                                          options.reduce, selection, color_space, ox, oy));
  Image header = image;
  keep_output_components(selection, header);
  // Annex I on the header alone: without a palette or channel definitions
  // it changes no sample (only the colour space, or an ICC profile the
  // caller applies), and sYCC is converted on whole images.
  if (jp2 && options.apply_jp2_header && selection.all) {
    MALLAT_RETURN_IF_ERROR(apply_jp2_header(*jp2, header, &jp2_warnings, options.strict));
    if (header.color_space == ColorSpace::kYcc) return false;
  }
  if (report) report->warnings.insert(report->warnings.end(), cs.warnings.begin(), cs.warnings.end());

  std::optional<ThreadPool> own_pool;
  if (!resources.pool) own_pool.emplace(options.threads);
  ThreadPool& pool = resources.pool ? *resources.pool : *own_pool;
  // The output stage of a strip job (below) on threads of its own beside
  // the pool, started only where a strip job runs: one for every
  // kDecodeThreadsPerOutputThread of the decode's, so that on many threads
  // it keeps up with the planes' inverse DWTs, which run at once.
  PoolOnDemand output_pool(std::max(1, pool.size() / kDecodeThreadsPerOutputThread));
  QuirkCounts quirks;
  MALLAT_ASSIGN_OR_RETURN(const std::shared_ptr<dwt::Backend> backend,
                          dwt::given_or_made_backend(resources.dwt, options.dwt_backend, options.threads));
  // One tile row at a time: its tiles' packets read, then its rows taken
  // from all of them strip by strip (each tile's columns to their place,
  // tile_output.h), so that a row of tiles is never held whole either.
  const uint32_t tiles_x = siz.tiles_x();
  bool begun = false;
  Image strip = image;
  int64_t y = 0;  // rows given to the sink
  // The sink's bytes in place of samples where it takes them and they hold
  // every component as decoded (all of them: no -c).
  bool bytes = false;
  // Every raster and sample vector the sink has written is kept for a later
  // strip: a fresh one costs its zero-fill and page faults.
  std::vector<std::vector<uint8_t>> spare_rasters;
  std::vector<std::vector<int32_t>> spare_samples;
  for (size_t first_tile = 0; first_tile < cs.tiles.size(); first_tile += tiles_x) {
    std::vector<std::unique_ptr<TileStream>> row;
    for (size_t t = first_tile; t < std::min<size_t>(cs.tiles.size(), first_tile + tiles_x); ++t) {
      const timeline::Span span("open_tile");  // with MALLAT_TIMELINE
      // One tile a row reads its packets while its first rows decode; a
      // row of several reads each tile's as it opens, so that the first
      // tile's damage is found before the next tile is opened, as ever.
      auto opened = open_tile_stream(cs, cs.tiles[t], options, resources, selection.decoded, stream, pool, *backend,
                                     report, quirks, /*read_ahead=*/tiles_x == 1);
      if (!opened.ok()) return opened.status().with_context("tile " + std::to_string(t));
      row.push_back(std::move(*opened));
    }
    // One tile across the image (the usual large file) runs on threads of
    // its own beside the pool; a row of several keeps its threads few.
    if (row.size() == 1) {
      row[0]->rows().use_threads();
      // Its first rows' code-blocks decode while its packets are still read.
      row[0]->rows().decode_first_rows_ahead();
    }
    // What reading the packets found (TileStream::packets_read), before the
    // sink is begun: a damaged stream fails, or warns, as when its packets
    // were read first.
    for (size_t k = 0; k < row.size(); ++k) {
      const Status s = row[k]->packets_read();
      if (!s.ok()) return s.with_context("tile " + std::to_string(first_tile + k));
    }
    if (!begun) {
      const timeline::Span span("sink_begin");  // with MALLAT_TIMELINE
      MALLAT_RETURN_IF_ERROR(sink.begin(header));
      bytes = selection.all && fits_bytes(image) && sink.takes_bytes();
    }
    begun = true;
    // One tile whose strips take turns (keeps_two_strips) into a sink of
    // bytes: each strip's output stage and its hand-over to the sink run on
    // a thread of their own (the output stage's bands of rows shared with
    // output_pool's threads) while the next strip is made, one strip at a
    // time, so that the planes' inverse DWTs do not wait for them.
    const bool overlap = bytes && row.size() == 1 && row[0]->rows().keeps_two_strips();
    JobThread strip_job;  // after `row`: it ends its job before the strips go
    while (row[0]->rows().rows_left() > 0) {
      const timeline::Span strip_span("strip");  // with MALLAT_TIMELINE
      const int64_t n = std::min(strip_rows, row[0]->rows().rows_left());
      std::vector<DecodedTileComponent> made;  // with overlap: the strip, made before the last one is through
      if (overlap) {
        StreamedTile& tile = row[0]->rows();
        Status s;
        if (tile.reversible()) {
          s = tile.next_rows(n, [&](std::span<const DecodedTileComponent> r) { made.assign(r.begin(), r.end()); });
        } else if (auto rows = tile.next_strip(n); rows.ok()) {
          made = std::move(*rows);
        } else {
          s = rows.status();
        }
        // The strip before first: its error is the earlier one.
        MALLAT_RETURN_IF_ERROR(strip_job.wait());
        if (!s.ok()) return s.with_context("tile " + std::to_string(first_tile));
      }
      std::vector<int64_t> strip_oy(oy.size());
      std::vector<uint8_t> raster;
      if (bytes) {
        raster = reused_bytes(sink, spare_rasters);
        // Every byte is written (the tiles cover the strip), so a spent
        // raster's old bytes need no clearing.
        raster.resize(static_cast<size_t>(strip.components[0].width * n) * strip.components.size());
      }
      if (!bytes)
        for (std::vector<int32_t>& v : sink.spent_samples()) spare_samples.push_back(std::move(v));
      for (size_t c = 0; c < strip.components.size(); ++c) {
        strip.components[c].height = n;
        strip_oy[c] = oy[c] + y;
        if (bytes) continue;
        std::vector<int32_t>& samples = strip.components[c].samples;
        // A strip handed over whole left its samples with the sink: a spent
        // one's memory is written again (write_tile writes every sample).
        if (samples.empty() && !spare_samples.empty()) {
          samples = std::move(spare_samples.back());
          spare_samples.pop_back();
        }
        samples.resize(static_cast<size_t>(strip.components[c].width * n));
      }
      if (overlap) {
        auto work = std::make_shared<StripOutput>(StripOutput{std::move(made), strip, std::move(strip_oy),
                                                              std::move(raster), n, y,
                                                              row[0]->colour_transform()});
        strip_job.start([work, &ox, &sink, &output_pool, tag = timeline::current_tag()]() -> Status {
          timeline::set_tag(tag);  // the file's and lane's, as the caller's
          {
            const timeline::Span span("output");  // with MALLAT_TIMELINE
            write_tile_bytes(work->rows, work->colour, ox, work->oy, work->image, work->raster.data(),
                             output_pool.get());
          }
          return sink.byte_rows(std::move(work->raster), work->n, work->y);
        });
        y += n;
        continue;
      }
      // The output stage (tile_output.h), into the strip's samples or bytes.
      auto output = [&](std::span<const DecodedTileComponent> r, bool colour) {
        const timeline::Span span("output");  // with MALLAT_TIMELINE
        if (bytes) write_tile_bytes(r, colour, ox, strip_oy, strip, raster.data(), pool);
        else write_tile(r, colour, ox, strip_oy, strip, pool);
      };
      for (size_t k = 0; k < row.size(); ++k) {
        StreamedTile& tile = row[k]->rows();
        const bool colour = row[k]->colour_transform();
        const std::string where = "tile " + std::to_string(first_tile + k);
        if (tile.reversible()) {  // each row where the inverse DWT leaves it, no copy
          const Status s = tile.next_rows(n, [&](std::span<const DecodedTileComponent> r) { output(r, colour); });
          if (!s.ok()) return s.with_context(where);
          continue;
        }
        auto rows = tile.next_strip(n);
        if (!rows.ok()) return rows.status().with_context(where);
        output(*rows, colour);
      }
      if (bytes) {
        MALLAT_RETURN_IF_ERROR(sink.byte_rows(std::move(raster), n, y));
        y += n;
        continue;
      }
      // The components asked for, described as the header describes them:
      // all of them in order hand the strip's samples over, not a copy.
      Image out = header;
      if (selection.all) {
        for (size_t c = 0; c < out.components.size(); ++c) {
          out.components[c].height = n;
          out.components[c].samples = std::move(strip.components[c].samples);
        }
      } else {
        Image kept = strip;
        keep_output_components(selection, kept);
        for (size_t c = 0; c < out.components.size(); ++c) {
          out.components[c].height = n;
          out.components[c].samples = std::move(kept.components[c].samples);
        }
      }
      MALLAT_RETURN_IF_ERROR(sink.rows(std::move(out), y));
      y += n;
    }
    MALLAT_RETURN_IF_ERROR(strip_job.wait());
  }
  if (y != header.height()) return internal_error("the streamed tiles gave " + std::to_string(y) + " of " +
                                                  std::to_string(header.height()) + " rows");
  if (report) quirks.report(report->warnings);
  return true;
}

}  // namespace

Result<bool> decode_streamed(std::span<const uint8_t> data, const DecodeOptions& options, RowSink& sink,
                             DecodeReport* report) {
  return decode_streamed(data, options, CallResources{}, sink, report);
}

Result<bool> decode_streamed(std::span<const uint8_t> data, const DecodeOptions& options,
                             const CallResources& resources, RowSink& sink, DecodeReport* report) {
  std::vector<std::string> jp2_warnings;  // decode() adds them last, as they are
  if (detect_container(data) != Container::kJp2)
    return stream_codestream(data, ColorSpace::kUnknown, options, resources, nullptr, sink, report, jp2_warnings);
  MALLAT_ASSIGN_OR_RETURN(Jp2File jp2, parse_jp2(data, options.strict));
  if (options.apply_jp2_header && (jp2.palette || !jp2.channel_definitions.empty())) return false;
  if (report) report->warnings.insert(report->warnings.end(), jp2.warnings.begin(), jp2.warnings.end());
  const ColourSpecification* colr = first_colour_specification(jp2);
  const ColorSpace color_space = colr && colr->method == 1 ? enumerated_colour_space(colr->enumerated).color_space
                                                           : ColorSpace::kUnknown;
  const std::string where = "codestream starting at byte " + std::to_string(jp2.codestream_offset);
  const size_t first_warning = report ? report->warnings.size() : 0;
  auto streamed = stream_codestream(data.subspan(jp2.codestream_offset, jp2.codestream_length), color_space, options,
                                    resources, &jp2, sink, report, jp2_warnings);
  if (report)
    for (size_t i = first_warning; i < report->warnings.size(); ++i)
      report->warnings[i] = where + ": " + report->warnings[i];
  if (!streamed.ok()) return streamed.status().with_context(where);
  if (report) report->warnings.insert(report->warnings.end(), jp2_warnings.begin(), jp2_warnings.end());
  return streamed;
}

}  // namespace mallat::codec
