// One tile through the decoder pipeline: Tier-2 packets -> Tier-1
// code-blocks -> dequantisation (E.1, H.1) -> inverse DWT -> inverse colour
// transform -> the tile's place in the image.
#include "codec/decoder/tile_decoder.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/effective_params.h"
#include "codec/tier2/packet_header.h"
#include "codec/tier2/packet_reader.h"
#include "codec/tier2/progression.h"
#include "codec/tier2/tile_geometry.h"
#include "codec/tier2/tile_precincts.h"
#include "codec/stages/tile_output.h"
#include "entropy/t1.h"
#include "quant/dequantize.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// A tile-component's coefficients at the decoded resolution, as Tier-1
// writes them and the inverse DWT transforms them in place: integers for
// the 5/3, floats for the 9/7.
struct TilePlane {
  int64_t width = 0, height = 0;
  std::unique_ptr<int32_t[]> samples53;
  std::unique_ptr<float[]> samples97;
};

// Whether the code-block's samples lie inside its tile-component's plane.
bool inside(const CodeBlock& cb, const TilePlane& plane) {
  return cb.packed.x0 >= 0 && cb.packed.y0 >= 0 && cb.packed.x0 + cb.rect.width() <= plane.width &&
         cb.packed.y0 + cb.rect.height() <= plane.height;
}

class TileDecoder {
 public:
  TileDecoder(const Codestream& cs, const Tile& tile, const DecodeOptions& options,
              std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
              std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, DecodeReport* report)
      : cs_(cs), tile_(tile), options_(options), stream_(stream), pool_(pool), dwt_(dwt),
        origin_x_(origin_x), origin_y_(origin_y), report_(report) {}

  // Decodes the tile into `image` (already sized for the reduced output).
  Status decode(Image& image) {
    MALLAT_ASSIGN_OR_RETURN(params_, tile_coding_parameters(cs_.main, &tile_.overrides, tile_.index));
    for (const ComponentCoding& cc : params_.components) {
      if (options_.reduce > cc.levels) {
        return invalid_argument("reduce " + std::to_string(options_.reduce) +
                                " exceeds the " + std::to_string(cc.levels) +
                                " decomposition levels of the codestream");
      }
    }
    MALLAT_ASSIGN_OR_RETURN(structure_, build_tile_layout(cs_.main.siz, tile_.index, params_.components));
    MALLAT_RETURN_IF_ERROR(gather_packets());
    MALLAT_RETURN_IF_ERROR(decode_code_blocks(image));
    MALLAT_RETURN_IF_ERROR(inverse_transforms(image));
    return Status::Ok();
  }

 private:
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

  Status gather_packets() {
    // The tile's packet data: its tile-parts' data in order (a packet may
    // not span tile-parts, but concatenation keeps packets in sequence); a
    // single tile-part's data is read where it lies.
    for (const TilePartHeader& part : tile_.parts) {
      const size_t end = std::min(stream_.size(), part.data_offset + part.data_length);
      const auto bytes = part.data_offset < end ? stream_.subspan(part.data_offset, end - part.data_offset)
                                                : std::span<const uint8_t>();
      if (tile_.parts.size() == 1) {
        data_ = bytes;
      } else {
        joined_data_.insert(joined_data_.end(), bytes.begin(), bytes.end());
        data_ = joined_data_;
      }
      // Packed headers from PPT, or from PPM as the reader handed them to
      // the tile-parts in codestream order (A.7.4); never both.
      headers_.insert(headers_.end(), part.ppt.begin(), part.ppt.end());
      headers_.insert(headers_.end(), part.ppm.begin(), part.ppm.end());
    }
    packed_headers_ = !headers_.empty() || !cs_.main.ppm.empty();

    const int layers = params_.style.layers;
    MALLAT_ASSIGN_OR_RETURN(const std::vector<PacketId> sequence,
                            packet_order(structure_, layers, params_.style.order, params_.progression_changes));
    MALLAT_ASSIGN_OR_RETURN(precincts_, TilePrecincts::create(structure_, params_.components));
    TilePacketsToRead what;
    what.sequence = sequence;
    what.data = data_;
    what.headers = headers_;
    what.packed_headers = packed_headers_;
    what.sop = params_.style.sop;
    what.decode_layers = options_.layers > 0 ? std::min(options_.layers, layers) : layers;
    what.describe = [this](size_t n, size_t pos) { return packet_at(n, pos); };
    std::vector<std::string> warnings;
    read_packets(precincts_, what, segments_, warnings);
    for (const std::string& w : warnings) warn(w);
    return Status::Ok();
  }

  // Tier-1 for every code-block, on the pool. The tile's planes are not
  // zero-filled: each code-block writes all its samples (zeros where it has
  // no coding passes), and when the code-blocks tile the plane, as Annex B's
  // partition does, they write every sample. The output image's components
  // are allocated (zero-filled) here too, as items beside the code-blocks,
  // by the first tile that needs them.
  Status decode_code_blocks(Image& image) {
    const int reduce = options_.reduce;
    planes_.resize(structure_.components.size());
    // The code-blocks of the resolutions decoded, in slot order.
    std::vector<size_t> slots;
    size_t next_slot = 0;
    for (size_t c = 0; c < structure_.components.size(); ++c) {
      const TileComponent& tc = structure_.components[c];
      const int levels = tc.levels;
      const dwt::Rect out = dwt::resolution_rect(tc.rect, levels, levels - reduce);
      TilePlane& plane = planes_[c];
      plane.width = out.width();
      plane.height = out.height();
      const auto count = static_cast<size_t>(out.width() * out.height());
      // Tier-1 writes integers in place for the 5/3, floats for the 9/7.
      if (params_.components[c].reversible) {
        plane.samples53 = std::make_unique_for_overwrite<int32_t[]>(count);
      } else {
        plane.samples97 = std::make_unique_for_overwrite<float[]>(count);
      }
      int64_t covered = 0;
      // Slots run component by component (tile_precincts.h).
      for (; next_slot < precincts_.code_blocks() && precincts_.place(next_slot).component == static_cast<int>(c);
           ++next_slot) {
        const size_t slot = next_slot;
        const CodeBlockPlace& at = precincts_.place(slot);
        if (at.resolution > levels - reduce) continue;
        const CodeBlock& cb = code_block_at(structure_, at);
        slots.push_back(slot);
        if (inside(cb, plane)) covered += cb.rect.width() * cb.rect.height();
      }
      // A plane its code-blocks do not cover keeps zeros where none lies.
      if (covered != static_cast<int64_t>(count)) {
        if (plane.samples53) std::fill_n(plane.samples53.get(), count, 0);
        if (plane.samples97) std::fill_n(plane.samples97.get(), count, 0.0f);
      }
    }
    std::vector<size_t> allocations;
    for (size_t c = 0; c < image.components.size(); ++c) {
      const Component& comp = image.components[c];
      if (comp.samples.empty() && comp.width > 0 && comp.height > 0) allocations.push_back(c);
    }
    const auto jobs = static_cast<int64_t>(allocations.size());
    return pool_.parallel_for_status(jobs + static_cast<int64_t>(slots.size()), [&](int64_t i) {
      if (i >= jobs) return decode_one(slots[i - jobs]);
      Component& comp = image.components[allocations[i]];
      comp.samples.assign(static_cast<size_t>(comp.width * comp.height), 0);
      return Status::Ok();
    });
  }

  Status decode_one(size_t slot) {
    const CodeBlockPlace& ref = precincts_.place(slot);
    const TileComponent& tc = structure_.components[ref.component];
    const PrecinctBand& pb = precinct_band_at(structure_, ref);
    const CodeBlock& cb = pb.blocks[ref.index];
    const CodeBlockSegments& s = segments_[slot];
    TilePlane& plane = planes_[ref.component];
    const int64_t w = cb.rect.width(), h = cb.rect.height();
    const int64_t offset = cb.packed.y0 * plane.width + cb.packed.x0;
    if (s.passes == 0) {
      // No coding passes: all its coefficients are zero.
      if (!inside(cb, plane)) return Status::Ok();
      for (int64_t y = 0; y < h; ++y) {
        if (plane.samples53) std::fill_n(plane.samples53.get() + offset + y * plane.width, w, 0);
        if (plane.samples97) std::fill_n(plane.samples97.get() + offset + y * plane.width, w, 0.0f);
      }
      return Status::Ok();
    }
    const Quantization& q = params_.quantization[ref.component];
    MALLAT_ASSIGN_OR_RETURN(const quant::StepSize step,
                            q.subband_step(tc.levels, quant::subband_step_index(ref.resolution, static_cast<int>(pb.band))));
    const int roi_shift = params_.roi_shift[ref.component];
    // E-2, and H.1: a region of interest adds its shift to the bit-planes.
    const int mb = quant::magnitude_bitplanes(q.guard_bits, step.exponent) + roi_shift;
    if (mb > entropy::kMaxBitPlanes || mb < 0) {
      return unsupported("subband needs " + std::to_string(mb) + " bit-planes; at most " +
                         std::to_string(entropy::kMaxBitPlanes) + " are supported");
    }
    entropy::CodeBlockToDecode in;
    thread_local std::vector<uint8_t> joined;
    if (s.pieces.size() == 1) {
      in.data = s.pieces[0];
    } else {
      joined.clear();
      for (std::span<const uint8_t> piece : s.pieces) joined.insert(joined.end(), piece.begin(), piece.end());
      in.data = joined;
    }
    in.segment_lengths = s.segment_lengths;
    in.num_passes = s.passes;
    in.zero_bitplanes = s.zero_bitplanes;
    in.num_bitplanes = mb;
    in.orientation = static_cast<entropy::BandOrientation>(pb.band);
    in.style = params_.components[ref.component].style;
    const bool reversible = params_.components[ref.component].reversible;
    // Reversible blocks decode in place; irreversible ones through a scratch
    // block into the float plane.
    thread_local std::vector<int32_t> scratch;
    PlaneView<int32_t> out;
    if (reversible) {
      out = PlaneView<int32_t>{plane.samples53.get() + offset, w, h, plane.width};
    } else {
      scratch.resize(static_cast<size_t>(w * h));
      out = PlaneView<int32_t>{scratch.data(), w, h, w};
    }
    auto info = entropy::decode_code_block(in, out);
    if (!info.ok()) {
      return info.status().with_context(
          "component " + std::to_string(ref.component) + " resolution " + std::to_string(ref.resolution) +
          " code-block at (" + std::to_string(cb.rect.x0) + "," + std::to_string(cb.rect.y0) + ")" +
          (s.pieces.empty() ? std::string()
                            : ", data from byte " + std::to_string(stream_offset(static_cast<size_t>(
                                                        s.pieces[0].data() - data_.data())))));
    }
    // The plane each sample is known to (E.1.1.2) follows from how far the
    // passes reached and the sample itself (quant::known_plane).
    const quant::KnownPlanes known{info->lowest_plane, info->ended_in_significance_pass};
    quant::BlockReconstruction how;
    how.roi_shift = roi_shift;
    if (reversible) {
      quant::reconstruct_reversible(out, known, how);
    } else {
      how.step = quant::step_size(step, cs_.main.siz.components[ref.component].precision, static_cast<int>(pb.band));
      PlaneView<float> dst{plane.samples97.get() + offset, w, h, plane.width};
      quant::reconstruct_irreversible(out, known, how, dst);
    }
    return Status::Ok();
  }

  // The inverse DWT of each tile-component, then write_tile: colour
  // transform, DC level shift, clamp, and the samples' place in the image.
  Status inverse_transforms(Image& image) {
    const int reduce = options_.reduce;
    std::vector<dwt::PlaneJob> jobs;
    std::vector<DecodedTileComponent> decoded(structure_.components.size());
    for (size_t c = 0; c < structure_.components.size(); ++c) {
      const TileComponent& tc = structure_.components[c];
      const int levels = tc.levels - reduce;
      const dwt::Rect out = dwt::resolution_rect(tc.rect, tc.levels, levels);
      const TilePlane& plane = planes_[c];
      dwt::PlaneJob job;
      job.direction = dwt::Direction::kInverse;
      job.levels = levels;
      job.x0 = out.x0;
      job.y0 = out.y0;
      decoded[c].rect = out;
      if (plane.samples53) {
        job.wavelet = dwt::Wavelet::k53;
        job.samples53 = decoded[c].samples53 = {plane.samples53.get(), plane.width, plane.height, plane.width};
      } else {
        job.wavelet = dwt::Wavelet::k97;
        job.samples97 = decoded[c].samples97 = {plane.samples97.get(), plane.width, plane.height, plane.width};
      }
      if (plane.width > 0 && plane.height > 0) jobs.push_back(job);
    }
    MALLAT_RETURN_IF_ERROR(dwt_.run(jobs));
    const bool colour = params_.style.multiple_component_transform && planes_.size() >= 3;
    if (colour) {
      const auto size = [&](int c) { return std::pair(planes_[c].width, planes_[c].height); };
      if (size(0) != size(1) || size(0) != size(2)) {
        return corrupt_data("the colour transform needs components 0..2 of equal size");
      }
      const bool r0 = params_.components[0].reversible;
      if (params_.components[1].reversible != r0 || params_.components[2].reversible != r0) {
        return corrupt_data("the colour transform needs components 0..2 of one wavelet");
      }
    }
    // G.2 / G.3: RCT with the 5/3, ICT with the 9/7.
    write_tile(decoded, colour, origin_x_, origin_y_, image, pool_);
    return Status::Ok();
  }

  const Codestream& cs_;
  const Tile& tile_;
  const DecodeOptions& options_;
  std::span<const uint8_t> stream_;
  ThreadPool& pool_;
  dwt::Backend& dwt_;
  std::span<const int64_t> origin_x_, origin_y_;  // the image's top-left on each component's reduced grid
  DecodeReport* report_;
  TileCodingParameters params_;
  TileLayout structure_;
  std::span<const uint8_t> data_;  // the tile's packet data
  std::vector<uint8_t> joined_data_, headers_;
  bool packed_headers_ = false;
  TilePrecincts precincts_;                 // the code-blocks by slot, Tier-2's state
  std::vector<CodeBlockSegments> segments_;  // per slot: what the packets gave
  std::vector<TilePlane> planes_;
};

}  // namespace

Status decode_tile(const Codestream& cs, const Tile& tile, const DecodeOptions& options,
                   std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
                   std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, Image& image,
                   DecodeReport* report) {
  TileDecoder decoder(cs, tile, options, stream, pool, dwt, origin_x, origin_y, report);
  return decoder.decode(image);
}

}  // namespace mallat::codec
