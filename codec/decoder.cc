// The decoder pipeline: codestream -> tiles -> Tier-2 packets -> Tier-1
// code-blocks -> inverse DWT -> inverse colour transform -> Image.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "codec/codec.h"
#include "codec/codestream_reader.h"
#include "codec/component_transform.h"
#include "codec/effective_params.h"
#include "codec/jp2_boxes.h"
#include "codec/memory_limit.h"
#include "codec/packet_header.h"
#include "codec/progression.h"
#include "codec/tile_geometry.h"
#include "common/thread_pool.h"
#include "entropy/t1.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// Everything Tier-2 gathers for one code-block across the packets.
struct CodeBlockState {
  std::vector<uint8_t> data;
  std::vector<uint32_t> segment_lengths;
  int passes = 0;
  int zero_bitplanes = 0;
};

// Where in the tile's structure a code-block lives, for Tier-1.
struct CodeBlockRef {
  int component, resolution, precinct, band, index;
};

// E.1.1.1 / E-5: the exponent of subband (r, band) for a component.
Result<int> band_exponent(const Quantization& q, int levels, int r, dwt::Band band) {
  const int idx = quant::subband_step_index(r, static_cast<int>(band));
  if (q.style == QuantizationStyle::kScalarDerived) {
    if (q.steps.empty()) return corrupt_data("QCD/QCC without a step size");
    // E-5: epsilon_b = epsilon_0 - NL + nb.
    const int nb = r == 0 ? levels : levels - r + 1;
    return q.steps[0].exponent - levels + nb;
  }
  if (idx >= static_cast<int>(q.steps.size())) {
    return corrupt_data("quantisation has " + std::to_string(q.steps.size()) +
                        " step sizes, subband " + std::to_string(idx) + " needs more");
  }
  return q.steps[idx].exponent;
}

class TileDecoder {
 public:
  TileDecoder(const Codestream& cs, const Tile& tile, const DecodeOptions& options,
              std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
              DecodeReport* report)
      : cs_(cs), tile_(tile), options_(options), stream_(stream), pool_(pool), dwt_(dwt),
        report_(report) {}

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
    MALLAT_RETURN_IF_ERROR(read_packets());
    MALLAT_RETURN_IF_ERROR(decode_code_blocks());
    MALLAT_RETURN_IF_ERROR(inverse_transforms());
    store(image);
    return Status::Ok();
  }

 private:
  void warn(const std::string& w) {
    if (report_) report_->warnings.push_back("tile " + std::to_string(tile_.index) + ": " + w);
  }

  Status read_packets() {
    // The tile's packet data: its tile-parts' data in order (a packet may
    // not span tile-parts, but concatenation keeps packets in sequence).
    for (const TilePartHeader& part : tile_.parts) {
      const size_t end = std::min(stream_.size(), part.data_offset + part.data_length);
      if (part.data_offset < end) data_.insert(data_.end(), stream_.begin() + part.data_offset, stream_.begin() + end);
      headers_.insert(headers_.end(), part.ppt.begin(), part.ppt.end());
    }
    packed_headers_ = !headers_.empty();
    if (!cs_.main.ppm.empty()) {
      MALLAT_ASSIGN_OR_RETURN(auto per_part, ppm_tile_part_headers(cs_.main));
      // PPM headers are per tile-part in codestream order; pick this tile's.
      size_t k = 0;
      for (const Tile& t : cs_.tiles) {
        for (size_t p = 0; p < t.parts.size(); ++p, ++k) {
          if (t.index == tile_.index && k < per_part.size())
            headers_.insert(headers_.end(), per_part[k].begin(), per_part[k].end());
        }
      }
      packed_headers_ = true;
    }

    // Per precinct: the packet-header coder and the state of its code-blocks.
    const auto& comps = structure_.components;
    coders_.resize(comps.size());
    blocks_.resize(comps.size());
    for (size_t c = 0; c < comps.size(); ++c) {
      coders_[c].resize(comps[c].resolutions.size());
      blocks_[c].resize(comps[c].resolutions.size());
      for (size_t r = 0; r < comps[c].resolutions.size(); ++r) {
        const Resolution& res = comps[c].resolutions[r];
        coders_[c][r].resize(res.precincts.size());
        blocks_[c][r].resize(res.precincts.size());
        for (size_t p = 0; p < res.precincts.size(); ++p) {
          const std::vector<CodeBlockGrid> grids = code_block_grids(res.precincts[p]);
          size_t count = 0;
          for (const PrecinctBand& pb : res.precincts[p].bands) count += pb.blocks.size();
          MALLAT_ASSIGN_OR_RETURN(coders_[c][r][p],
                                  PrecinctPacketCoder::create(grids, params_.components[c].style));
          blocks_[c][r][p].resize(count);
        }
      }
    }

    const int layers = params_.style.layers;
    const int decode_layers = options_.layers > 0 ? std::min(options_.layers, layers) : layers;
    MALLAT_ASSIGN_OR_RETURN(const std::vector<PacketId> sequence,
                            packet_order(structure_, layers, params_.style.order, params_.progression_changes));
    size_t pos = 0, hpos = 0;
    std::vector<CodeBlockContribution> contributions;
    for (size_t n = 0; n < sequence.size(); ++n) {
      const PacketId& id = sequence[n];
      if (pos >= data_.size() && (!packed_headers_ || hpos >= headers_.size())) {
        if (n < sequence.size()) warn("packet data ends after " + std::to_string(n) + " of " +
                                      std::to_string(sequence.size()) + " packets");
        break;
      }
      if (params_.style.sop && pos < data_.size()) {
        auto sop = skip_sop(std::span<const uint8_t>(data_).subspan(pos));
        if (!sop.ok()) {
          warn("packet " + std::to_string(n) + ": " + sop.status().message());
          break;
        }
        pos += *sop;
      }
      PrecinctPacketCoder& coder = coders_[id.component][id.resolution][id.precinct];
      std::span<const uint8_t> hsrc = packed_headers_ ? std::span<const uint8_t>(headers_).subspan(hpos)
                                                       : std::span<const uint8_t>(data_).subspan(pos);
      auto used = coder.decode_header(id.layer, hsrc, contributions);
      if (!used.ok()) {
        warn("packet " + std::to_string(n) + " header: " + used.status().message());
        break;
      }
      if (packed_headers_) hpos += *used; else pos += *used;
      auto& states = blocks_[id.component][id.resolution][id.precinct];
      bool truncated = false;
      for (size_t k = 0; k < contributions.size() && !truncated; ++k) {
        const CodeBlockContribution& contrib = contributions[k];
        if (contrib.new_passes == 0) continue;
        CodeBlockState& s = states[k];
        if (contrib.first_inclusion) s.zero_bitplanes = contrib.zero_bitplanes;
        const bool keep = id.layer < decode_layers;
        for (uint32_t len : contrib.lengths) {
          if (len > data_.size() - pos) {
            warn("packet " + std::to_string(n) + " body is truncated");
            truncated = true;
            break;
          }
          if (keep) {
            s.data.insert(s.data.end(), data_.begin() + pos, data_.begin() + pos + len);
            s.segment_lengths.push_back(len);
          }
          pos += len;
        }
        if (keep && !truncated) s.passes += contrib.new_passes;
      }
      if (truncated) break;
    }
    return Status::Ok();
  }

  Status decode_code_blocks() {
    const int reduce = options_.reduce;
    planes_.resize(structure_.components.size());
    std::vector<CodeBlockRef> refs;
    for (size_t c = 0; c < structure_.components.size(); ++c) {
      const TileComponent& tc = structure_.components[c];
      const int levels = tc.levels;
      const dwt::Rect out = dwt::resolution_rect(tc.rect, levels, levels - reduce);
      planes_[c].width = out.width();
      planes_[c].height = out.height();
      planes_[c].samples.assign(static_cast<size_t>(out.width() * out.height()), 0);
      for (int r = 0; r <= levels - reduce; ++r) {
        const Resolution& res = tc.resolutions[r];
        for (size_t p = 0; p < res.precincts.size(); ++p) {
          int k = 0;
          for (size_t b = 0; b < res.precincts[p].bands.size(); ++b) {
            for (size_t i = 0; i < res.precincts[p].bands[b].blocks.size(); ++i, ++k) {
              if (blocks_[c][r][p][k].passes > 0)
                refs.push_back({static_cast<int>(c), r, static_cast<int>(p), static_cast<int>(b), k});
            }
          }
        }
      }
    }
    std::vector<Status> errors(refs.size());
    pool_.parallel_for(static_cast<int64_t>(refs.size()), [&](int64_t i) {
      errors[i] = decode_one(refs[i]);
    });
    for (const Status& s : errors) MALLAT_RETURN_IF_ERROR(s);
    return Status::Ok();
  }

  Status decode_one(const CodeBlockRef& ref) {
    const TileComponent& tc = structure_.components[ref.component];
    const PrecinctBand& pb = tc.resolutions[ref.resolution].precincts[ref.precinct].bands[ref.band];
    // Code-block index within its band = running index minus the blocks of earlier bands.
    int index = ref.index;
    for (int b = 0; b < ref.band; ++b)
      index -= static_cast<int>(tc.resolutions[ref.resolution].precincts[ref.precinct].bands[b].blocks.size());
    const CodeBlock& cb = pb.blocks[index];
    const CodeBlockState& s = blocks_[ref.component][ref.resolution][ref.precinct][ref.index];
    const Quantization& q = params_.quantization[ref.component];
    MALLAT_ASSIGN_OR_RETURN(int exponent, band_exponent(q, tc.levels, ref.resolution, pb.band));
    const int mb = quant::magnitude_bitplanes(q.guard_bits, exponent);
    if (mb > entropy::kMaxBitPlanes || mb < 0) {
      return unsupported("subband needs " + std::to_string(mb) + " bit-planes; at most " +
                         std::to_string(entropy::kMaxBitPlanes) + " are supported");
    }
    entropy::CodeBlockToDecode in;
    in.data = s.data;
    in.segment_lengths = s.segment_lengths;
    in.num_passes = s.passes;
    in.zero_bitplanes = s.zero_bitplanes;
    in.num_bitplanes = mb;
    in.orientation = static_cast<entropy::BandOrientation>(pb.band);
    in.style = entropy::CodeBlockStyle::from_byte(params_.components[ref.component].style.to_byte());
    Component& plane = planes_[ref.component];
    PlaneView<int32_t> out{plane.samples.data() + cb.packed.y0 * plane.width + cb.packed.x0,
                           cb.rect.width(), cb.rect.height(), plane.width};
    auto info = entropy::decode_code_block(in, out);
    if (!info.ok()) return info.status();
    return Status::Ok();
  }

  Status inverse_transforms() {
    const int reduce = options_.reduce;
    std::vector<dwt::PlaneJob> jobs;
    for (size_t c = 0; c < structure_.components.size(); ++c) {
      const TileComponent& tc = structure_.components[c];
      if (!params_.components[c].reversible) return unsupported("irreversible (9/7) decoding is not implemented yet");
      const int levels = tc.levels - reduce;
      const dwt::Rect out = dwt::resolution_rect(tc.rect, tc.levels, levels);
      dwt::PlaneJob job;
      job.wavelet = dwt::Wavelet::k53;
      job.direction = dwt::Direction::kInverse;
      job.levels = levels;
      job.x0 = out.x0;
      job.y0 = out.y0;
      job.samples53 = planes_[c].view();
      if (!planes_[c].samples.empty()) jobs.push_back(job);
    }
    MALLAT_RETURN_IF_ERROR(dwt_.run(jobs));
    if (params_.style.multiple_component_transform && planes_.size() >= 3) {
      if (planes_[0].samples.size() != planes_[1].samples.size() ||
          planes_[0].samples.size() != planes_[2].samples.size()) {
        return corrupt_data("the colour transform needs components 0..2 of equal size");
      }
      rct_inverse(planes_[0].samples, planes_[1].samples, planes_[2].samples);
    }
    for (size_t c = 0; c < planes_.size(); ++c) {
      const ComponentSize& cs = cs_.main.siz.components[c];
      dc_level_shift_inverse(planes_[c].samples, cs.precision, cs.is_signed);
      clamp_to_precision(planes_[c].samples, cs.precision, cs.is_signed);
    }
    return Status::Ok();
  }

  // Copies the tile's samples into the image at their place.
  void store(Image& image) {
    const int reduce = options_.reduce;
    for (size_t c = 0; c < planes_.size(); ++c) {
      const TileComponent& tc = structure_.components[c];
      const dwt::Rect out = dwt::resolution_rect(tc.rect, tc.levels, tc.levels - reduce);
      Component& dst = image.components[c];
      const int64_t ox = out.x0 - origin_x_[c], oy = out.y0 - origin_y_[c];
      for (int64_t y = 0; y < out.height(); ++y) {
        if (oy + y < 0 || oy + y >= dst.height) continue;
        for (int64_t x = 0; x < out.width(); ++x) {
          if (ox + x < 0 || ox + x >= dst.width) continue;
          dst.samples[(oy + y) * dst.width + ox + x] = planes_[c].samples[y * out.width() + x];
        }
      }
    }
  }

 public:
  std::vector<int64_t> origin_x_, origin_y_;  // the image's top-left on each component's reduced grid

 private:
  const Codestream& cs_;
  const Tile& tile_;
  const DecodeOptions& options_;
  std::span<const uint8_t> stream_;
  ThreadPool& pool_;
  dwt::Backend& dwt_;
  DecodeReport* report_;
  TileCodingParameters params_;
  TileLayout structure_;
  std::vector<uint8_t> data_, headers_;
  bool packed_headers_ = false;
  std::vector<std::vector<std::vector<PrecinctPacketCoder>>> coders_;
  std::vector<std::vector<std::vector<std::vector<CodeBlockState>>>> blocks_;
  std::vector<Component> planes_;
};

}  // namespace

Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options,
                     DecodeReport* report) {
  std::span<const uint8_t> stream = data;
  ColorSpace color_space = ColorSpace::kUnknown;
  if (detect_container(data) == Container::kJp2) {
    MALLAT_ASSIGN_OR_RETURN(Jp2File jp2, parse_jp2(data));
    stream = data.subspan(jp2.codestream_offset, jp2.codestream_length);
    if (report) report->warnings.insert(report->warnings.end(), jp2.warnings.begin(), jp2.warnings.end());
    // I.5.3.3: the first colour specification with an enumerated space.
    for (const ColourSpecification& c : jp2.colour) {
      if (c.method != 1) continue;
      color_space = c.enumerated == 16 ? ColorSpace::kRgb : c.enumerated == 17 ? ColorSpace::kGray
                    : c.enumerated == 18 ? ColorSpace::kYcc : ColorSpace::kUnknown;
      break;
    }
  }
  MALLAT_ASSIGN_OR_RETURN(Codestream cs, parse_codestream(stream));
  if (report) report->warnings.insert(report->warnings.end(), cs.warnings.begin(), cs.warnings.end());
  MALLAT_RETURN_IF_ERROR(check_decoder_memory(cs, options.reduce, stream.size(), options.max_memory));
  const ImageAndTileSize& siz = cs.main.siz;
  const int reduce = options.reduce;

  // The output: each component's image area at the reduced resolution (B-14
  // applied to the whole image), or one tile's area with -t.
  dwt::Rect area{siz.xosiz, siz.yosiz, siz.xsiz, siz.ysiz};
  if (options.tile >= 0) {
    if (options.tile >= static_cast<int>(cs.tiles.size()))
      return invalid_argument("tile " + std::to_string(options.tile) + " does not exist (the image has " +
                              std::to_string(cs.tiles.size()) + " tiles)");
    MALLAT_ASSIGN_OR_RETURN(area, tile_rect(siz, options.tile));
  }
  Image image;
  image.x0 = area.x0;
  image.y0 = area.y0;
  std::vector<int64_t> ox, oy;
  for (const ComponentSize& c : siz.components) {
    const int64_t x0 = dwt::ceil_div_pow2((area.x0 + c.dx - 1) / c.dx, reduce);
    const int64_t y0 = dwt::ceil_div_pow2((area.y0 + c.dy - 1) / c.dy, reduce);
    const int64_t x1 = dwt::ceil_div_pow2((area.x1 + c.dx - 1) / c.dx, reduce);
    const int64_t y1 = dwt::ceil_div_pow2((area.y1 + c.dy - 1) / c.dy, reduce);
    if (c.precision > 31) return unsupported("component precision above 31 bits");
    Component comp;
    comp.width = x1 - x0;
    comp.height = y1 - y0;
    comp.precision = c.precision;
    comp.is_signed = c.is_signed;
    comp.dx = c.dx;
    comp.dy = c.dy;
    comp.samples.assign(static_cast<size_t>(comp.width * comp.height), 0);
    image.components.push_back(std::move(comp));
    ox.push_back(x0);
    oy.push_back(y0);
  }
  image.color_space = color_space != ColorSpace::kUnknown ? color_space
                      : siz.components.size() >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;

  ThreadPool pool(options.threads);
  MALLAT_ASSIGN_OR_RETURN(auto backend, dwt::make_backend(options.dwt_backend, options.threads));
  for (const Tile& tile : cs.tiles) {
    if (options.tile >= 0 && tile.index != options.tile) continue;
    if (tile.parts.empty()) {
      if (report) report->warnings.push_back("tile " + std::to_string(tile.index) + " is missing");
      continue;
    }
    TileDecoder decoder(cs, tile, options, stream, pool, *backend, report);
    decoder.origin_x_ = ox;
    decoder.origin_y_ = oy;
    MALLAT_RETURN_IF_ERROR(decoder.decode(image).with_context("tile " + std::to_string(tile.index)));
  }
  return image;
}

}  // namespace mallat::codec
