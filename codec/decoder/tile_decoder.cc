// One tile through the decoder pipeline: Tier-2 packets, then the inverse
// stages of codec/stages/tile_stages.h: block decoding -> dequantisation
// (E.1, H.1) -> inverse DWT -> inverse colour transform -> the tile's place
// in the image.
#include "codec/decoder/tile_decoder.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/effective_params.h"
#include "codec/tier2/packet_header.h"
#include "codec/tier2/tile_packets.h"
#include "codec/tier2/tile_geometry.h"
#include "codec/tier2/tile_precincts.h"
#include "codec/stages/region_dwt.h"
#include "codec/stages/streamed_tile.h"
#include "codec/stages/device_raster.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/tile_stages.h"
#include "common/job_thread.h"
#include "common/timeline.h"
#include "entropy/block_coder.h"
#include "entropy/ebcot/ebcot.h"
#include "quant/dequantize.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

class TileDecoder {
 public:
  TileDecoder(const Codestream& cs, const Tile& tile, const DecodeOptions& options, const CallResources& resources,
              std::span<const int> decoded, std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
              std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, DecodeReport* report,
              QuirkCounts& quirks)
      : cs_(cs), tile_(tile), options_(options), resources_(resources), decoded_(decoded), stream_(stream), pool_(pool), dwt_(dwt),
        origin_x_(origin_x), origin_y_(origin_y), report_(report), quirks_(quirks) {
    plane_of_.assign(cs.main.siz.components.size(), -1);
    for (size_t p = 0; p < decoded.size(); ++p) plane_of_[static_cast<size_t>(decoded[p])] = static_cast<int>(p);
  }

  // Decodes the tile into `image` (already sized for the reduced output),
  // or into `raster` where set.
  Status decode(Image& image, TileRaster raster) {
    MALLAT_RETURN_IF_ERROR(read_parameters());
    find_region(image);
    {
      StageClock clock(stage_sink(resources_.stage_times, &StageTimes::tier2_ms), "tier2");
      MALLAT_RETURN_IF_ERROR(gather_packets());
    }
    return run_inverse_stages(image, raster);
  }

  // The tile's planes and code-blocks as a StreamedTile (streamed_tile.h)
  // that decodes them row by row. `ahead`: its packets are read on a thread
  // of their own while it is made and its first rows decoded, each block
  // waiting for its precinct's packets (packets_read() says what reading
  // them found); otherwise they are read here, first.
  Result<std::unique_ptr<StreamedTile>> stream(bool ahead) {
    // The packets' thread made now, with a first job of nothing, so that it
    // is waiting when the packets' job comes (read_packets_ahead).
    if (ahead) ahead_.job.start([] { return Status::Ok(); });
    MALLAT_RETURN_IF_ERROR(read_parameters());
    if (ahead) {
      MALLAT_RETURN_IF_ERROR(read_packets_ahead());
    } else {
      // With MALLAT_TIMELINE: Tier-2, on the calling thread before any block.
      const timeline::Span span("tier2");
      MALLAT_RETURN_IF_ERROR(gather_packets());
    }
    StreamedTileInput in;
    for (int c : decoded_) in.planes.push_back(plane_of_component(c));
    in.blocks.reserve(packets_.precincts.code_blocks());
    for (size_t slot = 0; slot < packets_.precincts.code_blocks(); ++slot) {
      const CodeBlockPlace& at = packets_.precincts.place(slot);
      const int p = plane_of_[static_cast<size_t>(at.component)];
      if (p < 0 || at.resolution > structure_.components[at.component].levels - options_.reduce) continue;
      in.blocks.push_back({p, at.resolution, precinct_band_at(structure_, at).band, code_block_at(structure_, at).rect,
                           slot});
    }
    in.make_block = [this](size_t slot) {
      ahead_.wait_for(slot_ready_after(slot));
      return decode_one(slot);
    };
    in.describe_block = [this](size_t slot) {
      ahead_.wait_for(slot_ready_after(slot));
      return describe(slot);
    };
    in.hybrid_decoder = resources_.block_decoder.get();
    return std::make_unique<StreamedTile>(std::move(in), pool_);
  }

  // After stream(true): waits for the packets to be read and gives what
  // gather_packets would have: the error of a damaged stream without
  // -allow-partial; otherwise its warnings go to the report, once.
  Status packets_read() {
    if (!ahead_.started || ahead_.checked) return ahead_.status;
    (void)ahead_.job.wait();  // the job's errors are its warnings
    ahead_.checked = true;
    ahead_.status = take_warnings(ahead_.warnings);
    return ahead_.status;
  }

  // G.2 / G.3: RCT with the 5/3, ICT with the 9/7, on components 0..2:
  // planes 0..2 when decoded_ begins 0, 1, 2 (component_selection.h
  // decodes all three when any is asked for under the transform).
  bool colour_transform() const {
    return params_.style.multiple_component_transform && decoded_.size() >= 3 && decoded_[0] == 0 &&
           decoded_[1] == 1 && decoded_[2] == 2;
  }

 private:
  // The tile's coding parameters and layout, checked against -r.
  Status read_parameters() {
    int steps_completed = 0;
    MALLAT_ASSIGN_OR_RETURN(params_, tile_coding_parameters(cs_.main, &tile_.overrides, tile_.index,
                                                            options_.strict ? nullptr : &steps_completed));
    quirks_.add(Quirk::kMissingStepSizes, steps_completed);
    for (const ComponentCoding& cc : params_.components) {
      if (options_.reduce > cc.levels) {
        return invalid_argument("reduce " + std::to_string(options_.reduce) +
                                " exceeds the " + std::to_string(cc.levels) +
                                " decomposition levels of the codestream");
      }
    }
    MALLAT_ASSIGN_OR_RETURN(structure_, build_tile_layout(cs_.main.siz, tile_.index, params_.components));
    return Status::Ok();
  }

  // Code-block `slot` named in a block decoder's message.
  std::string describe(size_t slot) const {
    const CodeBlockPlace& at = packets_.precincts.place(slot);
    const CodeBlock& cb = code_block_at(structure_, at);
    const CodeBlockSegments& s = packets_.segments[slot];
    return "component " + std::to_string(at.component) + " resolution " + std::to_string(at.resolution) +
           " code-block at (" + std::to_string(cb.rect.x0) + "," + std::to_string(cb.rect.y0) + ")" +
           (s.pieces.empty()
                ? std::string()
                : ", data from byte " +
                      std::to_string(stream_offset(static_cast<size_t>(s.pieces[0].data() - packets_.data.data()))));
  }

  // The codestream offset of byte `pos` of the tile's packet data (the
  // tile-parts' data joined), so that messages point into the file.
  size_t stream_offset(size_t pos) const {
    for (const TilePartHeader& part : tile_.parts) {
      if (pos < part.data_length) return part.data_offset + pos;
      pos -= part.data_length;
    }
    return tile_.parts.empty() ? 0 : tile_.parts.back().data_offset + tile_.parts.back().data_length + pos;
  }
  std::string packet_at(size_t n, size_t pos) const {
    return "packet " + std::to_string(n) + " at byte " + std::to_string(stream_offset(pos));
  }

  void warn(const std::string& w) {
    if (report_) report_->warnings.push_back("tile " + std::to_string(tile_.index) + ": " + w);
  }

  int decode_layers() const {
    const int layers = params_.style.layers;
    return options_.layers > 0 ? std::min(options_.layers, layers) : layers;
  }

  // Precincts to step over with PLT: outside the region, of components not
  // decoded (-c) or resolutions discarded (-r); none in a whole decode.
  std::function<bool(const PacketId&)> wanted() {
    const bool some_unwanted = !windows_.empty() || options_.reduce > 0 ||
                               decoded_.size() < cs_.main.siz.components.size();
    if (!some_unwanted) return nullptr;
    return [this](const PacketId& id) { return precinct_wanted(id); };
  }

  Status gather_packets() {
    std::vector<std::string> warnings;
    MALLAT_RETURN_IF_ERROR(read_tile_packets(cs_.main, tile_, stream_, params_, structure_, decode_layers(),
                                             [this](size_t n, size_t pos) { return packet_at(n, pos); },
                                             packets_, warnings, wanted()));
    return take_warnings(warnings);
  }

  // Damage Tier-2 found: an error without -allow-partial, warnings with it.
  Status take_warnings(const std::vector<std::string>& warnings) {
    if (!warnings.empty() && !options_.allow_partial)
      return corrupt_data(warnings.front() + " (a partial stream, refused without -allow-partial)");
    for (const std::string& w : warnings) warn(w);
    return Status::Ok();
  }

  // gather_packets in two steps: the tile's packet order and code-block
  // slots here, its packets read on ahead_.job. Each slot is ready once
  // every packet of its precinct is read (B.12: the sequence names each
  // precinct's packets, layer by layer), or the reading stopped.
  Status read_packets_ahead() {
    MALLAT_RETURN_IF_ERROR(open_tile_packets(cs_.main, tile_, stream_, params_, structure_, packets_, &pool_));
    // A precinct the sequence never names (progression changes may leave
    // some out) is final when the reading ends.
    ahead_.last_packet.assign(packets_.precincts.precincts(), SIZE_MAX);
    for (size_t n = 0; n < packets_.sequence.size(); ++n) {
      const PacketId& id = packets_.sequence[n];
      ahead_.last_packet[packets_.precincts.precinct_index(id.component, id.resolution, id.precinct)] = n + 1;
    }
    ahead_.started = true;
    ahead_.job.start([this, tag = timeline::current_tag()]() -> Status {
      timeline::set_tag(tag);  // the file's and lane's, as the decode's
      {
        // With MALLAT_TIMELINE: Tier-2, beside the first blocks' decoding.
        const timeline::Span span("tier2");
        read_opened_packets(params_, decode_layers(), [this](size_t n, size_t pos) { return packet_at(n, pos); },
                            packets_, ahead_.warnings, wanted(), [this](size_t packets) { ahead_.now_read(packets); });
      }
      ahead_.now_read(SIZE_MAX);  // every slot final: what was read is all there is
      return Status::Ok();
    });
    return Status::Ok();
  }

  // The packets after which `slot`'s segments are final (0 when they are
  // read on this thread).
  size_t slot_ready_after(size_t slot) const {
    if (!ahead_.started) return 0;
    const CodeBlockPlace& at = packets_.precincts.place(slot);
    return ahead_.last_packet[packets_.precincts.precinct_index(at.component, at.resolution, at.precinct)];
  }

  // The planes of the components decoded at the decoded resolution and
  // their code-blocks of the resolutions decoded, through the inverse stages
  // (tile_stages.h): block decoding on the pool, then dequantisation,
  // inverse DWT and output. Plane p is codestream component decoded_[p].
  Status run_inverse_stages(Image& image, TileRaster raster) {
    const int reduce = options_.reduce;
    DecodeTile tile;
    // A region decode's blocks go to band buffers (find_region), its
    // planes are made by the inverse DWT.
    for (int c : decoded_) {
      TilePlane plane = plane_of_component(c);
      if (windows_.empty()) plane.allocate();
      tile.planes.push_back(std::move(plane));
    }
    tile.windows = windows_;
    // The code-blocks of the components and resolutions decoded, in slot
    // order; in a region decode, those whose coefficients its inverse DWT
    // reads.
    std::vector<size_t> slots;
    for (size_t slot = 0; slot < packets_.precincts.code_blocks(); ++slot) {
      const CodeBlockPlace& at = packets_.precincts.place(slot);
      const int p = plane_of_[static_cast<size_t>(at.component)];
      if (p < 0) continue;
      if (at.resolution > structure_.components[at.component].levels - reduce) continue;
      if (!in_region(p, at.resolution, precinct_band_at(structure_, at).band, code_block_at(structure_, at).rect))
        continue;
      slots.push_back(slot);
    }
    tile.blocks.reserve(slots.size());
    for (size_t slot : slots) tile.blocks.push_back(decode_one(slot));
    if (!windows_.empty()) place_in_bands(slots, tile);
    tile.describe_block = [&](size_t i) { return describe(slots[i]); };
    tile.hybrid_decoder = resources_.block_decoder.get();
    tile.colour_transform = colour_transform();
    tile.image = &image;
    tile.raster = raster.host;
    tile.device_raster = raster.device;
    tile.origin_x = origin_x_;
    tile.origin_y = origin_y_;
    MALLAT_RETURN_IF_ERROR(run_stages(tile));
    return raster.device && !tile.raster_on_device ? upload_to_device_raster(tile) : Status::Ok();
  }

  // The inverse stages of `tile`, on the device runner where the call has
  // one, timed one by one where the call asks for stage times.
  Status run_stages(DecodeTile& tile) {
    const std::unique_ptr<TileStages> stages = resources_.device_tiles
                                                   ? make_device_tile_stages(pool_, dwt_, *resources_.device_tiles)
                                                   : make_cpu_tile_stages(pool_, dwt_);
    const Status done = run_all_inverse(*stages, tile);
    if (!tile.device_failure.empty() && report_) {
      report_->warnings.push_back("tile " + std::to_string(tile_.index) + ": the device failed (" +
                                  tile.device_failure + "); decoded on the CPU instead");
    }
    return done;
  }

  // Every inverse stage of `tile` through `stages`, timed where asked.
  Status run_all_inverse(TileStages& stages, DecodeTile& tile) {
    StageTimes* times = resources_.stage_times;
    if (!times) return stages.inverse(InverseStage::kBlockDecoding, InverseStage::kOutput, tile);
    if (stages.keeps_whole(tile)) {
      // On the device whole: one span for every stage.
      StageClock clock(&times->block_coding_ms, "device_tile");
      return stages.inverse(InverseStage::kBlockDecoding, InverseStage::kOutput, tile);
    }
    // Timed one by one: the results are those of running them together
    // (tile_stages.h).
    {
      StageClock clock(&times->block_coding_ms, "tier1_dequant");
      MALLAT_RETURN_IF_ERROR(stages.inverse(InverseStage::kBlockDecoding, InverseStage::kDequantisation, tile));
    }
    {
      StageClock clock(&times->dwt_ms, "idwt");
      MALLAT_RETURN_IF_ERROR(stages.inverse(InverseStage::kInverseDwt, InverseStage::kInverseDwt, tile));
    }
    StageClock clock(&times->colour_transform_ms, "output");
    return stages.inverse(InverseStage::kOutput, InverseStage::kOutput, tile);
  }

  // A tile the CPU runner wrote into the host's raster: its pixels (plane
  // 0's rect on the image, as write_tile_bytes places them) up into the
  // device raster, which the device runner's tiles fill on the device.
  Status upload_to_device_raster(const DecodeTile& tile) {
    const Image& image = *tile.image;
    const dwt::Rect& rect = tile.planes[0].rect;
    const int64_t x0 = std::max<int64_t>(0, rect.x0 - origin_x_[0]);
    const int64_t y0 = std::max<int64_t>(0, rect.y0 - origin_y_[0]);
    const int64_t x1 = std::min<int64_t>(image.width(), rect.x1 - origin_x_[0]);
    const int64_t y1 = std::min<int64_t>(image.height(), rect.y1 - origin_y_[0]);
    if (x0 >= x1 || y0 >= y1) return Status::Ok();
    const auto n = static_cast<size_t>(image.num_components());
    return upload_raster_part(tile.raster, tile.device_raster, static_cast<size_t>(image.width()) * n,
                              static_cast<size_t>(x0) * n, static_cast<size_t>(x1 - x0) * n, static_cast<size_t>(y0),
                              static_cast<size_t>(y1 - y0), pool_);
  }

  static bool meets(const dwt::Rect& a, const dwt::Rect& b) {
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  }

  // Codestream component c's plane, unallocated: the tile-component at the
  // highest resolution decoded (B-14) and the levels left to undo.
  TilePlane plane_of_component(int c) const {
    const TileComponent& tc = structure_.components[static_cast<size_t>(c)];
    TilePlane plane;
    plane.rect = dwt::resolution_rect(tc.rect, tc.levels, tc.levels - options_.reduce);
    plane.levels = tc.levels - options_.reduce;
    // Integers for the 5/3, floats for the 9/7 (tile_buffers.h).
    plane.wavelet = params_.components[static_cast<size_t>(c)].reversible ? dwt::Wavelet::k53 : dwt::Wavelet::k97;
    return plane;
  }

  // A region decode: each plane's part of the output image's area (the
  // region, -d) on its grid, and what its inverse DWT reads
  // (region_dwt.h); left empty when every plane is wanted whole.
  void find_region(const Image& image) {
    std::vector<dwt::Rect> windows;
    bool partial = false;
    for (size_t p = 0; p < decoded_.size(); ++p) {
      const dwt::Rect rect = plane_of_component(decoded_[p]).rect;
      const Component& comp = image.components[p];
      const dwt::Rect area{origin_x_[p], origin_y_[p], origin_x_[p] + comp.width, origin_y_[p] + comp.height};
      dwt::Rect w{std::max(rect.x0, area.x0), std::max(rect.y0, area.y0), std::min(rect.x1, area.x1),
                  std::min(rect.y1, area.y1)};
      if (rect.empty()) {
        w = rect;
      } else if (w.empty()) {
        w = dwt::Rect{};
      }
      partial = partial || w != rect;
      windows.push_back(w);
    }
    if (!partial) return;
    windows_ = std::move(windows);
    for (size_t p = 0; p < decoded_.size(); ++p) {
      const TilePlane plane = plane_of_component(decoded_[p]);
      regions_.push_back(windows_[p].empty() ? PlaneRegion{}
                                             : plane_region(plane.rect, plane.levels, plane.wavelet, windows_[p]));
    }
  }

  // A region decode: one buffer per subband that has blocks, their
  // bounding box in subband coordinates (the blocks met by a band window
  // are a rectangle of the code-block grid), and each block placed in it.
  void place_in_bands(const std::vector<size_t>& slots, DecodeTile& tile) const {
    std::vector<size_t> band_of(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) {
      const CodeBlockPlace& at = packets_.precincts.place(slots[i]);
      const int p = plane_of_[static_cast<size_t>(at.component)];
      const dwt::Band band = precinct_band_at(structure_, at).band;
      const dwt::Rect& rect = code_block_at(structure_, at).rect;
      size_t k = 0;
      while (k < tile.bands.size() &&
             !(tile.bands[k].plane == p && tile.bands[k].resolution == at.resolution && tile.bands[k].band == band))
        ++k;
      if (k == tile.bands.size()) {
        RegionBand b;
        b.plane = p;
        b.resolution = at.resolution;
        b.band = band;
        b.coefficients.rect = rect;
        b.coefficients.wavelet = tile.planes[static_cast<size_t>(p)].wavelet;
        tile.bands.push_back(std::move(b));
      }
      dwt::Rect& box = tile.bands[k].coefficients.rect;
      box = dwt::Rect{std::min(box.x0, rect.x0), std::min(box.y0, rect.y0), std::max(box.x1, rect.x1),
                      std::max(box.y1, rect.y1)};
      band_of[i] = k;
    }
    for (RegionBand& b : tile.bands) {
      b.coefficients.allocate();
      std::fill_n(b.coefficients.ints().data, b.coefficients.count(), 0);
    }
    for (size_t i = 0; i < slots.size(); ++i) {
      const dwt::Rect& rect = code_block_at(structure_, packets_.precincts.place(slots[i])).rect;
      const dwt::Rect& box = tile.bands[band_of[i]].coefficients.rect;
      tile.blocks[i].place = {static_cast<int>(band_of[i]), rect.x0 - box.x0, rect.y0 - box.y0, rect.width(),
                              rect.height()};
    }
  }

  // Whether coefficients `rect` of band `band` of resolution r of plane p
  // are read by the region's inverse DWT (always, in a whole decode).
  bool in_region(int p, int r, dwt::Band band, const dwt::Rect& rect) const {
    if (regions_.empty()) return true;
    const auto pi = static_cast<size_t>(p);
    return !windows_[pi].empty() && meets(rect, regions_[pi].band_window(r, band));
  }

  // Whether a precinct's code-blocks are decoded: Tier-2 steps over the
  // packets of others where PLT gives their lengths (packet_reader.h).
  bool precinct_wanted(const PacketId& id) const {
    const int p = plane_of_[static_cast<size_t>(id.component)];
    if (p < 0) return false;
    const TileComponent& tc = structure_.components[static_cast<size_t>(id.component)];
    if (id.resolution > tc.levels - options_.reduce) return false;
    const Precinct& precinct =
        tc.resolutions[static_cast<size_t>(id.resolution)].precincts[static_cast<size_t>(id.precinct)];
    for (const PrecinctBand& pb : precinct.bands)
      if (!pb.rect.empty() && in_region(p, id.resolution, pb.band, pb.rect)) return true;
    return false;
  }

  // What Tier-2 gathered for a code-block (B.10), for the block decoder:
  // the one place the stages' input reads the per-code-block Tier-2 state.
  entropy::BlockToDecode coded_block(size_t slot) const {
    const CodeBlockSegments& s = packets_.segments[slot];
    entropy::BlockToDecode in;
    in.pieces = s.pieces;
    in.segment_lengths = s.segment_lengths;
    in.num_passes = s.passes;
    in.zero_bitplanes = s.zero_bitplanes;
    return in;
  }

  // One code-block for the stages: its place in the plane, its Tier-2 data,
  // its subband's Mb, orientation and style, and its dequantisation. What
  // keeps it from decoding goes in its status.
  DecodeBlock decode_one(size_t slot) {
    const CodeBlockPlace& ref = packets_.precincts.place(slot);
    const TileComponent& tc = structure_.components[ref.component];
    const PrecinctBand& pb = precinct_band_at(structure_, ref);
    const CodeBlock& cb = pb.blocks[ref.index];
    DecodeBlock block;
    block.place = {plane_of_[static_cast<size_t>(ref.component)], cb.packed.x0, cb.packed.y0, cb.rect.width(), cb.rect.height()};
    block.coded = coded_block(slot);
    // No coding passes: all its coefficients are zero.
    if (block.coded.num_passes == 0) return block;
    const Quantization& q = params_.quantization[ref.component];
    auto step = q.subband_step(tc.levels, quant::subband_step_index(ref.resolution, static_cast<int>(pb.band)));
    if (!step.ok()) {
      block.status = step.status();
      return block;
    }
    const int roi_shift = params_.roi_shift[ref.component];
    // E-2, and H.1: a region of interest adds its shift to the bit-planes.
    const int mb = quant::magnitude_bitplanes(q.guard_bits, step->exponent) + roi_shift;
    if (mb > entropy::kMaxBitPlanes || mb < 0) {
      block.status = unsupported("subband needs " + std::to_string(mb) + " bit-planes; at most " +
                                 std::to_string(entropy::kMaxBitPlanes) + " are supported");
      return block;
    }
    block.coded.num_bitplanes = mb;
    block.coded.orientation = static_cast<entropy::BandOrientation>(pb.band);
    block.coded.style = params_.components[ref.component].style;
    // 15444-15 B.3: Tier-2 found which coder the block needs (HTMIXED
    // decides it block by block).
    block.coded.style.ht = packets_.segments[slot].ht;
    block.coded.style.ht_mixed = false;
    if (!options_.strict) tolerate_pass_count(block.coded);
    block.roi_shift = roi_shift;
    if (!params_.components[ref.component].reversible) {
      block.step = quant::step_size(*step, cs_.main.siz.components[ref.component].precision, static_cast<int>(pb.band));
    }
    return block;
  }

  // Encoders' quirks in the Part 1 pass count (quirks.h), repaired as
  // OpenJPEG's t1 does: passes below bit-plane 0 are never decoded there
  // (D.1: a block of Mb - P bit-planes has at most 3 (Mb - P) - 2 passes),
  // and P > Mb leaves no bit-plane, so the block is zero. HT code-blocks
  // count their passes otherwise (15444-15) and are left to their coder.
  void tolerate_pass_count(entropy::BlockToDecode& coded) {
    if (entropy::block_coder_kind(coded.style) != entropy::BlockCoderKind::kEbcot) return;
    const int planes = coded.num_bitplanes - coded.zero_bitplanes;
    if (planes < 0) {
      quirks_.add(Quirk::kZeroBitPlanesBeyondMb);
      coded.num_passes = 0;
      return;
    }
    const int max_passes = planes > 0 ? 3 * planes - 2 : 0;
    if (coded.num_passes > max_passes) {
      quirks_.add(Quirk::kPassesBelowLastBitPlane);
      coded.num_passes = max_passes;
    }
  }

  // The packets read on a thread of their own (stream(true)): how many of
  // the sequence are read, for the blocks' makers on other threads.
  struct PacketsAhead {
    bool started = false;
    std::vector<size_t> last_packet;  // per precinct: 1 + its last packet's place in the sequence
    std::atomic<size_t> read{0};      // packets read; SIZE_MAX once the reading ended
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> warnings;  // the job's; read after waiting for it
    bool checked = false;               // packets_read() has taken them
    Status status;

    void now_read(size_t packets) {
      {
        const std::lock_guard<std::mutex> lock(mutex);
        read.store(packets, std::memory_order_release);
      }
      changed.notify_all();
    }
    void wait_for(size_t packets) {
      if (read.load(std::memory_order_acquire) >= packets) return;
      // With MALLAT_TIMELINE: a block waiting for its packets.
      const timeline::Span span("tier2_wait");
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return read.load(std::memory_order_acquire) >= packets; });
    }
    JobThread job;  // last: it ends its job before the members the job uses go
  };

  const Codestream& cs_;
  const Tile& tile_;
  const DecodeOptions& options_;
  const CallResources& resources_;
  std::span<const int> decoded_;  // the codestream component of each plane
  std::vector<int> plane_of_;     // per codestream component: its plane, or -1 when not decoded
  std::span<const uint8_t> stream_;
  ThreadPool& pool_;
  dwt::Backend& dwt_;
  std::span<const int64_t> origin_x_, origin_y_;  // the image's top-left on each component's reduced grid
  DecodeReport* report_;
  QuirkCounts& quirks_;
  TileCodingParameters params_;
  TileLayout structure_;
  TilePackets packets_;  // the tile's packet data, the code-blocks by slot and what the packets gave them
  // A region decode (find_region): per plane, its window and what the
  // window's inverse DWT reads; empty for a whole decode.
  std::vector<dwt::Rect> windows_;
  std::vector<PlaneRegion> regions_;
  // Last: its job, which reads and writes the members above, ends first.
  PacketsAhead ahead_;
};

}  // namespace

Status decode_tile(const Codestream& cs, const Tile& tile, const DecodeOptions& options,
                   const CallResources& resources, std::span<const int> decoded, std::span<const uint8_t> stream,
                   ThreadPool& pool, dwt::Backend& dwt, std::span<const int64_t> origin_x,
                   std::span<const int64_t> origin_y, Image& image, TileRaster raster, DecodeReport* report,
                   QuirkCounts& quirks) {
  TileDecoder decoder(cs, tile, options, resources, decoded, stream, pool, dwt, origin_x, origin_y, report, quirks);
  return decoder.decode(image, raster);
}

Result<std::unique_ptr<TileStream>> open_tile_stream(const Codestream& cs, const Tile& tile,
                                                     const DecodeOptions& options, const CallResources& resources,
                                                     std::span<const int> decoded,
                                                     std::span<const uint8_t> stream, ThreadPool& pool,
                                                     dwt::Backend& dwt, DecodeReport* report, QuirkCounts& quirks,
                                                     bool read_ahead) {
  // The decoder holds the tile's packets, which the streamed tile's blocks
  // read until its last row: the two live together. Of the resources only
  // the block decoder is used (the streamed tile runs no whole-tile stage,
  // untimed).
  struct Open final : TileStream {
    CallResources own;
    TileDecoder decoder;
    std::unique_ptr<StreamedTile> streamed;
    Open(const Codestream& cs, const Tile& tile, const DecodeOptions& options, const CallResources& resources,
         std::span<const int> decoded, std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
         DecodeReport* report, QuirkCounts& quirks)
        : own(only_block_decoder(resources)),
          decoder(cs, tile, options, own, decoded, stream, pool, dwt, {}, {}, report, quirks) {}
    static CallResources only_block_decoder(const CallResources& given) {
      CallResources r;
      r.block_decoder = given.block_decoder;
      return r;
    }
    StreamedTile& rows() override { return *streamed; }
    bool colour_transform() const override { return decoder.colour_transform(); }
    Status packets_read() override { return decoder.packets_read(); }
  };
  auto open = std::make_unique<Open>(cs, tile, options, resources, decoded, stream, pool, dwt, report, quirks);
  // One thread reads the packets before any block (its CPU time as ever).
  MALLAT_ASSIGN_OR_RETURN(open->streamed, open->decoder.stream(read_ahead && pool.size() > 1));
  return std::unique_ptr<TileStream>(std::move(open));
}

}  // namespace mallat::codec
