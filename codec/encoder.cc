// The encoder pipeline: Image -> tiles -> DC shift + RCT -> forward DWT ->
// Tier-1 code-blocks (in parallel) -> Tier-2 packets -> codestream or JP2.
#include <algorithm>
#include <string>

#include "codec/codec.h"
#include "codec/component_transform.h"
#include "codec/jp2_boxes.h"
#include "codec/marker_writer.h"
#include "codec/packet_header.h"
#include "codec/progression.h"
#include "codec/tile_geometry.h"
#include "common/thread_pool.h"
#include "entropy/t1.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// The largest number of decomposition levels for which the first tile's
// smaller side still has a sample at the lowest resolution.
int max_levels_for(int64_t width, int64_t height) {
  int levels = 0;
  while (levels < 32 && (std::min(width, height) >> (levels + 1)) > 0) ++levels;
  return levels;
}

Status check_image(const Image& image) {
  if (image.components.empty()) return invalid_argument("the image has no components");
  if (image.num_components() > 16384) return invalid_argument("more than 16384 components");
  const Component& first = image.components[0];
  if (first.width <= 0 || first.height <= 0) return invalid_argument("the image is empty (zero size)");
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    if (comp.width != first.width || comp.height != first.height || comp.dx != 1 || comp.dy != 1)
      return unsupported("component " + std::to_string(c) + " differs in size; sub-sampled input is not supported");
    if (comp.precision < 1 || comp.precision > 16)
      return unsupported("component " + std::to_string(c) + " has " + std::to_string(comp.precision) +
                         " bits; lossless coding supports 1..16");
    if (comp.samples.size() != static_cast<size_t>(comp.width * comp.height))
      return invalid_argument("component " + std::to_string(c) + " has the wrong number of samples");
  }
  return Status::Ok();
}

// Builds the main header from the image and the options (A.5, A.6).
Result<MainHeader> main_header_for(const Image& image, const EncodeOptions& o) {
  MainHeader h;
  ImageAndTileSize& siz = h.siz;
  const int64_t w = image.width(), ht = image.height();
  if (o.image_x0 + w > UINT32_MAX || o.image_y0 + ht > UINT32_MAX)
    return invalid_argument("image offset plus size exceeds 2^32 - 1");
  siz.xosiz = o.image_x0;
  siz.yosiz = o.image_y0;
  siz.xsiz = static_cast<uint32_t>(o.image_x0 + w);
  siz.ysiz = static_cast<uint32_t>(o.image_y0 + ht);
  siz.xtosiz = o.tile_x0;
  siz.ytosiz = o.tile_y0;
  if (siz.xtosiz > siz.xosiz || siz.ytosiz > siz.yosiz)
    return invalid_argument("the tile origin (-T) must not lie right of or below the image origin (-d)");
  siz.xtsiz = o.tile_width ? o.tile_width : siz.xsiz - siz.xtosiz;
  siz.ytsiz = o.tile_height ? o.tile_height : siz.ysiz - siz.ytosiz;
  if (uint64_t{siz.xtosiz} + siz.xtsiz <= siz.xosiz || uint64_t{siz.ytosiz} + siz.ytsiz <= siz.yosiz)
    return invalid_argument("the first tile does not reach the image area (A.5.1)");
  if (uint64_t{siz.tiles_x()} * siz.tiles_y() > 65535)
    return invalid_argument("more than 65535 tiles; choose larger tiles");
  for (const Component& c : image.components) siz.components.push_back({c.precision, c.is_signed, 1, 1});

  // Levels: an explicit -n must fit the first tile; the default shrinks to fit.
  MALLAT_ASSIGN_OR_RETURN(const dwt::Rect first, tile_rect(siz, 0));
  const int fit = max_levels_for(first.width(), first.height());
  int levels = o.resolutions - 1;
  if (levels > fit) {
    if (!o.resolutions_explicit) {
      levels = fit;
    } else {
      return invalid_argument(std::to_string(o.resolutions) + " resolutions need tiles of at least " +
                              std::to_string(1 << levels) + " samples a side; the first tile is " +
                              std::to_string(first.width()) + "x" + std::to_string(first.height()));
    }
  }
  CodingStyle& cod = h.cod;
  cod.order = o.order;
  cod.layers = 1;
  cod.sop = o.sop;
  cod.eph = o.eph;
  const bool equal_sizes = image.num_components() >= 3;
  if (o.mct == 1 && !equal_sizes) return invalid_argument("-mct 1 needs at least 3 components");
  cod.multiple_component_transform = o.mct == -1 ? equal_sizes : o.mct == 1;
  ComponentCoding& cc = cod.component;
  cc.levels = levels;
  if (o.xcb < 2 || o.xcb > 10 || o.ycb < 2 || o.ycb > 10 || o.xcb + o.ycb > 12)
    return invalid_argument("code-block size must be 4..1024 a side with at most 4096 samples (A.6.1)");
  cc.xcb = o.xcb;
  cc.ycb = o.ycb;
  cc.style = o.style;
  cc.reversible = true;
  if (!o.precincts.empty()) {
    // -c lists precincts from the highest resolution down; the last repeats.
    cc.precinct_exponents.resize(levels + 1);
    for (int r = levels, i = 0; r >= 0; --r, ++i) {
      auto e = o.precincts[std::min<size_t>(i, o.precincts.size() - 1)];
      if (r > 0 && (e[0] == 0 || e[1] == 0))
        return invalid_argument("precincts above the lowest resolution must be at least 2x2 (A.6.1)");
      cc.precinct_exponents[r] = e;
    }
  }
  // E.1.1: reversible step sizes carry the bit-plane counts; components of
  // another precision get a QCC.
  auto quant_for = [&](int precision) {
    Quantization q;
    q.style = QuantizationStyle::kNone;
    q.guard_bits = o.guard_bits;
    q.steps = quant::reversible_step_sizes(precision, levels);
    return q;
  };
  h.qcd = quant_for(image.components[0].precision);
  for (int c = 1; c < image.num_components(); ++c) {
    if (image.components[c].precision != image.components[0].precision)
      h.qcc[c] = quant_for(image.components[c].precision);
  }
  if (!o.comment.empty()) {
    Comment com;
    com.registration = 1;
    com.data.assign(o.comment.begin(), o.comment.end());
    h.comments.push_back(com);
  }
  return h;
}

class TileEncoder {
 public:
  TileEncoder(const Image& image, const MainHeader& main, const EncodeOptions& options,
              ThreadPool& pool, dwt::Backend& dwt)
      : image_(image), main_(main), options_(options), pool_(pool), dwt_(dwt) {}

  // Codes tile `index`: its packet data and the length of each packet.
  Status encode(int index, std::vector<uint8_t>& out, std::vector<uint32_t>& packet_lengths) {
    std::vector<ComponentCoding> coding(main_.siz.components.size(), main_.cod.component);
    MALLAT_ASSIGN_OR_RETURN(structure_, build_tile_layout(main_.siz, index, coding));
    MALLAT_RETURN_IF_ERROR(transform());
    MALLAT_RETURN_IF_ERROR(code_blocks());
    return packets(out, packet_lengths);
  }

 private:
  struct BlockRef {
    int c, r, p, b, k;  // k: index within the band
  };

  Status transform() {
    const size_t n = structure_.components.size();
    planes_.assign(n, {});
    std::vector<dwt::PlaneJob> jobs;
    for (size_t c = 0; c < n; ++c) {
      const TileComponent& tc = structure_.components[c];
      const Component& src = image_.components[c];
      const int64_t sx = tc.rect.x0 - main_.siz.xosiz, sy = tc.rect.y0 - main_.siz.yosiz;
      const int64_t w = tc.rect.width(), h = tc.rect.height();
      planes_[c].assign(static_cast<size_t>(w * h), 0);
      for (int64_t y = 0; y < h; ++y) {
        std::copy_n(src.samples.data() + (sy + y) * src.width + sx, w, planes_[c].data() + y * w);
      }
      dc_level_shift_forward(planes_[c], src.precision, src.is_signed);
    }
    if (main_.cod.multiple_component_transform) rct_forward(planes_[0], planes_[1], planes_[2]);
    for (size_t c = 0; c < n; ++c) {
      const TileComponent& tc = structure_.components[c];
      if (planes_[c].empty()) continue;
      dwt::PlaneJob job;
      job.wavelet = dwt::Wavelet::k53;
      job.direction = dwt::Direction::kForward;
      job.levels = tc.levels;
      job.x0 = tc.rect.x0;
      job.y0 = tc.rect.y0;
      job.samples53 = PlaneView<int32_t>{planes_[c].data(), tc.rect.width(), tc.rect.height(), tc.rect.width()};
      jobs.push_back(job);
    }
    return dwt_.run(jobs);
  }

  Status code_blocks() {
    std::vector<BlockRef> refs;
    const auto& comps = structure_.components;
    coded_.assign(comps.size(), {});
    for (size_t c = 0; c < comps.size(); ++c) {
      coded_[c].resize(comps[c].resolutions.size());
      for (size_t r = 0; r < comps[c].resolutions.size(); ++r) {
        const Resolution& res = comps[c].resolutions[r];
        coded_[c][r].resize(res.precincts.size());
        for (size_t p = 0; p < res.precincts.size(); ++p) {
          size_t count = 0;
          for (size_t b = 0; b < res.precincts[p].bands.size(); ++b) {
            for (size_t k = 0; k < res.precincts[p].bands[b].blocks.size(); ++k) {
              refs.push_back({static_cast<int>(c), static_cast<int>(r), static_cast<int>(p),
                              static_cast<int>(b), static_cast<int>(k)});
            }
            count += res.precincts[p].bands[b].blocks.size();
          }
          coded_[c][r][p].resize(count);
        }
      }
    }
    std::vector<Status> errors(refs.size());
    pool_.parallel_for(static_cast<int64_t>(refs.size()), [&](int64_t i) { errors[i] = code_one(refs[i]); });
    for (const Status& s : errors) MALLAT_RETURN_IF_ERROR(s);
    return Status::Ok();
  }

  Status code_one(const BlockRef& ref) {
    const TileComponent& tc = structure_.components[ref.c];
    const Precinct& prec = tc.resolutions[ref.r].precincts[ref.p];
    const PrecinctBand& pb = prec.bands[ref.b];
    const CodeBlock& cb = pb.blocks[ref.k];
    int slot = ref.k;
    for (int b = 0; b < ref.b; ++b) slot += static_cast<int>(prec.bands[b].blocks.size());
    const Quantization& q = main_.qcc.count(ref.c) ? main_.qcc.at(ref.c) : main_.qcd;
    const int exponent = q.steps[quant::subband_step_index(ref.r, static_cast<int>(pb.band))].exponent;
    const int mb = quant::magnitude_bitplanes(q.guard_bits, exponent);
    const int64_t stride = tc.rect.width();
    PlaneView<const int32_t> view{planes_[ref.c].data() + cb.packed.y0 * stride + cb.packed.x0,
                                  cb.rect.width(), cb.rect.height(), stride};
    auto coded = entropy::encode_code_block(view, static_cast<entropy::BandOrientation>(pb.band), mb,
                                            entropy::CodeBlockStyle::from_byte(main_.cod.component.style.to_byte()));
    if (!coded.ok()) return coded.status();
    coded_[ref.c][ref.r][ref.p][slot] = std::move(coded).value();
    return Status::Ok();
  }

  Status packets(std::vector<uint8_t>& body, std::vector<uint32_t>& packet_lengths) {
    MALLAT_ASSIGN_OR_RETURN(const std::vector<PacketId> sequence,
                            packet_order(structure_, main_.cod.layers, main_.cod.order, main_.poc));
    std::vector<CodeBlockContribution> contributions;
    std::vector<uint8_t> header;
    uint32_t packet_index = 0;
    for (const PacketId& id : sequence) {
      const size_t start = body.size();
      const TileComponent& tc = structure_.components[id.component];
      const Precinct& prec = tc.resolutions[id.resolution].precincts[id.precinct];
      const std::vector<CodeBlockGrid> grids = code_block_grids(prec);
      MALLAT_ASSIGN_OR_RETURN(PrecinctPacketCoder coder, PrecinctPacketCoder::create(grids, main_.cod.component.style));
      auto& blocks = coded_[id.component][id.resolution][id.precinct];
      contributions.assign(blocks.size(), {});
      for (size_t k = 0; k < blocks.size(); ++k) {
        const entropy::EncodedCodeBlock& cb = blocks[k];
        const bool included = cb.num_passes > 0;
        MALLAT_RETURN_IF_ERROR(coder.set_code_block(static_cast<int>(k), included ? id.layer : TagTree::kUnknown,
                                                    cb.zero_bitplanes));
        if (!included) continue;
        contributions[k].new_passes = cb.num_passes;
        // B.10.7.2: one length per codeword segment the passes fall into.
        contributions[k].lengths = entropy::codeword_segment_lengths(cb, cb.num_passes);
      }
      if (main_.cod.sop) write_sop(static_cast<uint16_t>(packet_index & 0xFFFF), body);
      header.clear();
      MALLAT_RETURN_IF_ERROR(coder.encode_header(id.layer, contributions, main_.cod.eph, header));
      body.insert(body.end(), header.begin(), header.end());
      for (size_t k = 0; k < blocks.size(); ++k) {
        if (contributions[k].new_passes > 0) body.insert(body.end(), blocks[k].data.begin(), blocks[k].data.end());
      }
      packet_lengths.push_back(static_cast<uint32_t>(body.size() - start));
      ++packet_index;
    }
    return Status::Ok();
  }

  const Image& image_;
  const MainHeader& main_;
  const EncodeOptions& options_;
  ThreadPool& pool_;
  dwt::Backend& dwt_;
  TileLayout structure_;
  std::vector<std::vector<int32_t>> planes_;
  std::vector<std::vector<std::vector<std::vector<entropy::EncodedCodeBlock>>>> coded_;
};

}  // namespace

Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& options) {
  MALLAT_RETURN_IF_ERROR(check_image(image));
  MALLAT_ASSIGN_OR_RETURN(MainHeader main, main_header_for(image, options));
  MALLAT_ASSIGN_OR_RETURN(auto backend, dwt::make_backend(options.dwt_backend, options.threads));
  ThreadPool pool(options.threads);
  const int count = static_cast<int>(main.siz.tiles_x() * main.siz.tiles_y());
  std::vector<std::vector<uint8_t>> data(count);
  std::vector<TilePartToWrite> parts(count);
  for (int t = 0; t < count; ++t) {
    TileEncoder encoder(image, main, options, pool, *backend);
    std::vector<uint32_t> packet_lengths;
    MALLAT_RETURN_IF_ERROR(encoder.encode(t, data[t], packet_lengths));
    parts[t].tile = t;
    parts[t].part = 0;
    parts[t].num_parts = 1;
    if (options.plt) parts[t].plt = std::move(packet_lengths);
    parts[t].data = data[t];
  }
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> stream, write_codestream(main, parts, options.tlm));
  if (options.container == Container::kJp2) return write_jp2(main.siz, stream);
  return stream;
}

}  // namespace mallat::codec
