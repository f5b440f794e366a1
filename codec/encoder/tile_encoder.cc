#include "codec/encoder/tile_encoder.h"

#include <algorithm>
#include <cmath>

#include "codec/stages/component_transform.h"
#include "codec/tier2/packet_header.h"
#include "codec/tier2/progression.h"
#include "quant/quantize.h"
#include "quant/step_size.h"

namespace mallat::codec {

Status TileEncoder::code(int index) {
  const MainHeader& main = *setup_.main;
  index_ = index;
  irreversible_ = !main.cod.component.reversible;
  std::vector<ComponentCoding> coding(main.siz.components.size(), main.cod.component);
  MALLAT_ASSIGN_OR_RETURN(layout_, build_tile_layout(main.siz, index, coding));
  MALLAT_RETURN_IF_ERROR(transform());

  std::vector<BlockRef> refs;
  const auto& comps = layout_.components;
  precinct_first_.assign(comps.size(), {});
  size_t slot = 0;
  for (size_t c = 0; c < comps.size(); ++c) {
    precinct_first_[c].resize(comps[c].resolutions.size());
    for (size_t r = 0; r < comps[c].resolutions.size(); ++r) {
      const Resolution& res = comps[c].resolutions[r];
      for (size_t p = 0; p < res.precincts.size(); ++p) {
        precinct_first_[c][r].push_back(slot);
        for (size_t b = 0; b < res.precincts[p].bands.size(); ++b) {
          for (size_t k = 0; k < res.precincts[p].bands[b].blocks.size(); ++k) {
            refs.push_back({static_cast<int>(c), static_cast<int>(r), static_cast<int>(p),
                            static_cast<int>(b), static_cast<int>(k), slot++});
          }
        }
      }
    }
  }
  blocks_.assign(slot, {});
  const Status coded =
      pool_.parallel_for_status(static_cast<int64_t>(refs.size()), [&](int64_t i) { return code_one(refs[i]); });
  planes53_.clear();
  planes97_.clear();
  return coded;
}

Status TileEncoder::transform() {
  const MainHeader& main = *setup_.main;
  const Image& image = *setup_.image;
  const size_t n = layout_.components.size();
  planes53_.assign(irreversible_ ? 0 : n, {});
  planes97_.clear();
  planes97_.resize(irreversible_ ? n : 0);
  for (size_t c = 0; c < n; ++c) {
    const size_t count = static_cast<size_t>(layout_.components[c].rect.width() * layout_.components[c].rect.height());
    // The 9/7 path goes straight to float (no integer copy: the pages of a
    // large tile cost as much to fault in as to fill).
    if (irreversible_) {
      planes97_[c] = std::make_unique_for_overwrite<float[]>(count);
    } else {
      planes53_[c].resize(count);
    }
  }
  // G.1.2 DC shift, then G.2 RCT / G.3 ICT, in bands of rows on the pool
  // (the components of a colour transform have the same size).
  const bool colour = main.cod.multiple_component_transform;
  const int64_t height = layout_.components.empty() ? 0 : layout_.components[0].rect.height();
  constexpr int64_t kBand = 32;
  const int64_t bands = colour ? (height + kBand - 1) / kBand : 0;
  auto convert_rows = [&](size_t c, int64_t y0, int64_t y1) {
    const TileComponent& tc = layout_.components[c];
    const Component& src = image.components[c];
    const int64_t sx = tc.rect.x0 - main.siz.xosiz, sy = tc.rect.y0 - main.siz.yosiz;
    const int64_t w = tc.rect.width();
    const int32_t shift = src.is_signed ? 0 : int32_t{1} << (src.precision - 1);
    for (int64_t y = y0; y < y1; ++y) {
      const int32_t* row = src.samples.data() + (sy + y) * src.width + sx;
      if (irreversible_) {
        float* dst = planes97_[c].get() + y * w;
        for (int64_t x = 0; x < w; ++x) dst[x] = static_cast<float>(row[x] - shift);
      } else {
        int32_t* dst = planes53_[c].data() + y * w;
        for (int64_t x = 0; x < w; ++x) dst[x] = row[x] - shift;
      }
    }
  };
  if (colour) {
    const int64_t w = layout_.components[0].rect.width();
    pool_.parallel_for(bands, [&](int64_t band) {
      const int64_t y0 = band * kBand, y1 = std::min(height, y0 + kBand);
      for (size_t c = 0; c < n; ++c) convert_rows(c, y0, y1);
      const size_t at = static_cast<size_t>(y0 * w), count = static_cast<size_t>((y1 - y0) * w);
      if (irreversible_) {
        ict_forward({planes97_[0].get() + at, count}, {planes97_[1].get() + at, count},
                    {planes97_[2].get() + at, count});
      } else {
        rct_forward({planes53_[0].data() + at, count}, {planes53_[1].data() + at, count},
                    {planes53_[2].data() + at, count});
      }
    });
  } else {
    pool_.parallel_for(static_cast<int64_t>(n), [&](int64_t c) {
      convert_rows(static_cast<size_t>(c), 0, layout_.components[c].rect.height());
    });
  }
  std::vector<dwt::PlaneJob> jobs;
  for (size_t c = 0; c < n; ++c) {
    const TileComponent& tc = layout_.components[c];
    if (tc.rect.empty()) continue;
    dwt::PlaneJob job;
    job.wavelet = irreversible_ ? dwt::Wavelet::k97 : dwt::Wavelet::k53;
    job.direction = dwt::Direction::kForward;
    job.levels = tc.levels;
    job.x0 = tc.rect.x0;
    job.y0 = tc.rect.y0;
    const int64_t w = tc.rect.width(), h = tc.rect.height();
    if (irreversible_) {
      job.samples97 = PlaneView<float>{planes97_[c].get(), w, h, w};
    } else {
      job.samples53 = PlaneView<int32_t>{planes53_[c].data(), w, h, w};
    }
    jobs.push_back(job);
  }
  return dwt_.run(jobs);
}

Status TileEncoder::code_one(const BlockRef& ref) {
  const MainHeader& main = *setup_.main;
  const TileComponent& tc = layout_.components[ref.c];
  const PrecinctBand& pb = tc.resolutions[ref.r].precincts[ref.p].bands[ref.b];
  const CodeBlock& cb = pb.blocks[ref.k];
  const Quantization& q = main.qcc.count(ref.c) ? main.qcc.at(ref.c) : main.qcd;
  const int band = quant::subband_step_index(ref.r, static_cast<int>(pb.band));
  MALLAT_ASSIGN_OR_RETURN(const quant::StepSize step, q.subband_step(tc.levels, band));
  // H.1: the region's coefficients are shifted up by s, above every
  // background plane; with the whole component as the region, all of them.
  const int roi_shift = setup_.roi_shift.empty() ? 0 : setup_.roi_shift[ref.c];
  const int mb = quant::magnitude_bitplanes(q.guard_bits, step.exponent) + roi_shift;
  const int64_t stride = tc.rect.width();
  const int64_t w = cb.rect.width(), h = cb.rect.height();
  CodedBlock& out = blocks_[ref.slot];
  const double delta = setup_.step[ref.c][band];
  // Tier-1 measures distortion on the shifted integers: 2^(2s) times larger.
  out.weight = std::ldexp(delta * delta * setup_.energy[ref.c][band] * setup_.colour_weight[ref.c], -2 * roi_shift);
  // Irreversible: the indices carry up to 8 bits of their coefficient's
  // fraction below them (within Tier-1's 31 magnitude bits), so Tier-1
  // measures each pass against the unquantised coefficients.
  const int fraction_bits = irreversible_ ? std::clamp(31 - mb, 0, 8) : 0;
  PlaneView<const int32_t> view;
  std::vector<int32_t> quantized;
  double energy = 0;   // the error with nothing sent, in units of Delta^2 (irreversible)
  if (irreversible_) {
    quantized.resize(static_cast<size_t>(w * h));
    PlaneView<const float> in{planes97_[ref.c].get() + cb.packed.y0 * stride + cb.packed.x0, w, h, stride};
    const quant::QuantizationError e = quant::quantize_dead_zone(
        in, delta, mb - roi_shift, PlaneView<int32_t>{quantized.data(), w, h, w}, fraction_bits);
    out.clipped = e.clipped;
    energy = e.energy;
    view = PlaneView<const int32_t>{quantized.data(), w, h, w};
  } else {
    view = PlaneView<const int32_t>{planes53_[ref.c].data() + cb.packed.y0 * stride + cb.packed.x0, w, h, stride};
  }
  if (roi_shift > 0) {
    std::vector<int32_t> shifted(static_cast<size_t>(w * h));
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) shifted[y * w + x] = view.data[y * view.stride + x] * (int32_t{1} << roi_shift);
    quantized = std::move(shifted);
    view = PlaneView<const int32_t>{quantized.data(), w, h, w};
  }
  auto coded = entropy::encode_code_block(view, static_cast<entropy::BandOrientation>(pb.band), mb,
                                          main.cod.component.style,
                                          fraction_bits);
  if (!coded.ok()) return coded.status();
  out.coded = std::move(coded).value();
  if (irreversible_) {
    // Tier-1's units are those of the shifted indices, which `weight` takes back.
    out.initial_distortion = std::ldexp(energy, 2 * roi_shift) * out.weight;
    return Status::Ok();
  }
  // Reversible: the coefficients are the integers Tier-1 measured against;
  // with no pass sent the error is the sum of what all the passes remove.
  double all = 0;
  for (const entropy::CodingPass& pass : out.coded.passes) all += pass.distortion_decrease;
  out.initial_distortion = all * out.weight;
  return Status::Ok();
}

namespace {

// Byte lengths of the codeword-segment pieces that carry passes
// (before, before + new] of a block (B.10.7.2): each piece ends where a
// segment ends or where the layer ends.
std::vector<uint32_t> piece_lengths(const entropy::EncodedCodeBlock& block, CodeBlockStyle style,
                                    int before, int new_passes) {
  std::vector<uint32_t> lengths;
  auto end_of = [&](int passes) { return passes == 0 ? 0u : block.passes[passes - 1].cumulative_length; };
  int at = before;
  for (int piece : codeword_segment_pieces(style, before, new_passes)) {
    lengths.push_back(end_of(at + piece) - end_of(at));
    at += piece;
  }
  return lengths;
}

}  // namespace

Result<uint64_t> TileEncoder::packets(const LayerPasses& layers, size_t first_block,
                                      const PacketOutput& out) const {
  const MainHeader& main = *setup_.main;
  const CodeBlockStyle style = main.cod.component.style;
  const int num_layers = static_cast<int>(layers.size());
  // One packet coder per precinct, told up front in which layer each block
  // first appears (its inclusion tag tree needs them all, B.10.4).
  std::vector<std::vector<std::vector<PrecinctPacketCoder>>> coders(layout_.components.size());
  for (size_t c = 0; c < layout_.components.size(); ++c) {
    const TileComponent& tc = layout_.components[c];
    coders[c].resize(tc.resolutions.size());
    for (size_t r = 0; r < tc.resolutions.size(); ++r) {
      for (size_t p = 0; p < tc.resolutions[r].precincts.size(); ++p) {
        const std::vector<CodeBlockGrid> grids = code_block_grids(tc.resolutions[r].precincts[p]);
        MALLAT_ASSIGN_OR_RETURN(PrecinctPacketCoder coder, PrecinctPacketCoder::create(grids, style));
        const size_t first = precinct_first_[c][r][p];
        for (int k = 0; k < coder.code_blocks(); ++k) {
          const size_t slot = first + static_cast<size_t>(k);
          int first_layer = TagTree::kUnknown;
          for (int l = 0; l < num_layers; ++l) {
            if (layers[l][first_block + slot] > 0) {
              first_layer = l;
              break;
            }
          }
          MALLAT_RETURN_IF_ERROR(coder.set_code_block(k, first_layer, blocks_[slot].coded.zero_bitplanes));
        }
        coders[c][r].push_back(std::move(coder));
      }
    }
  }
  const auto own = setup_.tile_progression_changes.find(index_);
  MALLAT_ASSIGN_OR_RETURN(
      const std::vector<PacketId> sequence,
      packet_order(layout_, num_layers, main.cod.order,
                   own != setup_.tile_progression_changes.end() ? own->second : main.poc));
  std::vector<CodeBlockContribution> contributions;
  std::vector<uint8_t> header, sop;
  uint64_t total = 0;
  uint32_t packet_index = 0;
  for (const PacketId& id : sequence) {
    PrecinctPacketCoder& coder = coders[id.component][id.resolution][id.precinct];
    const size_t first = precinct_first_[id.component][id.resolution][id.precinct];
    const int n = coder.code_blocks();
    contributions.assign(n, {});
    uint64_t bytes = 0;
    for (int k = 0; k < n; ++k) {
      const size_t index = first_block + first + k;
      const int before = id.layer > 0 ? layers[id.layer - 1][index] : 0;
      const int now = layers[id.layer][index];
      if (now <= before) continue;
      contributions[k].new_passes = now - before;
      contributions[k].lengths = piece_lengths(blocks_[first + k].coded, style, before, now - before);
      bytes += contributions[k].body_bytes();
    }
    header.clear();
    sop.clear();
    if (main.cod.sop) write_sop(static_cast<uint16_t>(packet_index & 0xFFFF), sop);
    MALLAT_RETURN_IF_ERROR(coder.encode_header(id.layer, contributions, main.cod.eph, header));
    PacketBytes sizes{id, static_cast<uint32_t>(sop.size() + bytes), 0};
    if (out.packed_headers) {
      sizes.header = static_cast<uint32_t>(header.size());
      if (out.headers) out.headers->insert(out.headers->end(), header.begin(), header.end());
    } else {
      sizes.data += static_cast<uint32_t>(header.size());
    }
    bytes += sop.size() + header.size();
    if (out.data) {
      std::vector<uint8_t>& data = *out.data;
      data.insert(data.end(), sop.begin(), sop.end());
      if (!out.packed_headers) data.insert(data.end(), header.begin(), header.end());
      for (int k = 0; k < n; ++k) {
        if (contributions[k].new_passes == 0) continue;
        const size_t index = first_block + first + k;
        const int before = id.layer > 0 ? layers[id.layer - 1][index] : 0;
        const auto& block = blocks_[first + k].coded;
        const uint32_t from = before == 0 ? 0 : block.passes[before - 1].cumulative_length;
        const uint32_t to = block.passes[layers[id.layer][index] - 1].cumulative_length;
        data.insert(data.end(), block.data.begin() + from, block.data.begin() + to);
      }
    }
    if (out.packets) out.packets->push_back(sizes);
    total += bytes;
    ++packet_index;
  }
  return total;
}

}  // namespace mallat::codec
