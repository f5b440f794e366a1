#include "codec/encoder/tile_encoder.h"

#include <algorithm>
#include <cmath>

#include "codec/stages/component_transform.h"
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

  MALLAT_ASSIGN_OR_RETURN(precincts_, TilePrecincts::create(layout_, coding));
  std::vector<BlockRef> refs;
  for (size_t slot = 0; slot < precincts_.code_blocks(); ++slot) {
    const CodeBlockPlace& at = precincts_.place(slot);
    refs.push_back({at.component, at.resolution, at.precinct, at.band, at.index, slot});
  }
  blocks_.assign(refs.size(), {});
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

Result<uint64_t> TileEncoder::packets(const LayerPasses& layers, size_t first_block,
                                      const PacketOutput& out) const {
  const MainHeader& main = *setup_.main;
  const auto own = setup_.tile_progression_changes.find(index_);
  MALLAT_ASSIGN_OR_RETURN(
      const std::vector<PacketId> sequence,
      packet_order(layout_, static_cast<int>(layers.size()), main.cod.order,
                   own != setup_.tile_progression_changes.end() ? own->second : main.poc));
  // A fresh copy: the precincts' tag trees depend on this allocation.
  TilePrecincts precincts = precincts_;
  TilePacketsToWrite what;
  what.sequence = sequence;
  what.layers = &layers;
  what.first_block = first_block;
  what.block = [this](size_t slot) -> const entropy::EncodedCodeBlock& { return blocks_[slot].coded; };
  what.sop = main.cod.sop;
  what.eph = main.cod.eph;
  return write_packets(precincts, what, out);
}

}  // namespace mallat::codec
