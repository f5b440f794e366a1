#include "codec/encoder/finer_steps.h"

#include <cmath>
#include <vector>

#include "codec/encoder/coding_setup.h"
#include "codec/encoder/ht_rate.h"
#include "codec/encoder/main_header.h"
#include "quant/finer_indices.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// The finer steps over the nominal ones lie within these (QCD's 11-bit
// mantissas round 2^1/2 either way by a little): an index of 2^(F-1) or
// less stays below 2^F there, one of 2^F - 1 reaches it (F >= 2), which
// the kept indices' zeros rely on (code_rows).
constexpr double kLeastFactor = 1.15;
constexpr double kMostFactor = 1.6;

}  // namespace

Status offer_finer_steps(const Image& image, GridSize grid, const EncodeOptions& options, const MainHeader& main,
                         TileCodingSetup& setup, MainHeader& finer) {
  setup.finer_main = nullptr;
  setup.finer_step.clear();
  if (options.ht_rate != EncodeOptions::HtRate::kEstimatedSteps || !setup.ht_estimated ||
      !main.cod.component.style.ht || main.cod.component.reversible || !main.rgn.empty() ||
      options.rate_kind == EncodeOptions::RateKind::kPsnr || setup.fraction_bits < 2)
    return Status::Ok();
  EncodeOptions o = options;
  o.base_step_scale *= kFinerBaseStep;
  // A scale whose steps the QCD cannot signal (E-5) is no choice.
  Result<MainHeader> made = main_header_for(image, grid, o, nullptr);
  if (!made.ok()) return Status::Ok();
  finer = std::move(made).value();
  MALLAT_ASSIGN_OR_RETURN(const TileCodingSetup finer_setup, coding_setup(image, finer, options));
  const int levels = main.cod.component.levels;
  for (int c = 0; c < image.num_components(); ++c) {
    const Quantization& q = main.qcc.count(c) ? main.qcc.at(c) : main.qcd;
    const Quantization& qf = finer.qcc.count(c) ? finer.qcc.at(c) : finer.qcd;
    for (size_t b = 0; b < setup.step[c].size(); ++b) {
      MALLAT_ASSIGN_OR_RETURN(const quant::StepSize at, q.subband_step(levels, static_cast<int>(b)));
      MALLAT_ASSIGN_OR_RETURN(const quant::StepSize at_finer, qf.subband_step(levels, static_cast<int>(b)));
      // Both steps' indices keep F fraction bits below 31 (code_one).
      if (quant::magnitude_bitplanes(q.guard_bits, at.exponent) + setup.fraction_bits > 31 ||
          quant::magnitude_bitplanes(qf.guard_bits, at_finer.exponent) + setup.fraction_bits > 31)
        return Status::Ok();
      const double factor = setup.step[c][b] / finer_setup.step[c][b];
      if (!(factor >= kLeastFactor && factor <= kMostFactor)) return Status::Ok();
    }
  }
  setup.finer_step = finer_setup.step;
  setup.finer_main = &finer;
  return Status::Ok();
}

bool finer_steps_better(std::span<const std::unique_ptr<TileEncoder>> tiles, const LayerTarget& target,
                        double initial_distortion, ThreadPool& pool) {
  std::vector<const entropy::HtPlaneEstimate*> nominal, finer;
  std::vector<double> weights, finer_weights;
  for (const auto& tile : tiles) {
    const std::span<const entropy::HtPlaneEstimate> e = tile->ht_estimates();
    const std::span<const entropy::HtPlaneEstimate> f = tile->finer_ht_estimates();
    const std::vector<CodedBlock>& blocks = tile->blocks();
    // A tile without estimates at both steps leaves the choice out.
    if (e.size() != blocks.size() || f.size() != blocks.size()) return false;
    for (size_t slot = 0; slot < blocks.size(); ++slot) {
      nominal.push_back(&e[slot]);
      finer.push_back(&f[slot]);
      weights.push_back(blocks[slot].weight);
      finer_weights.push_back(tile->finer_weight(slot));
    }
  }
  const double at_nominal = estimated_distortion_left(nominal, weights, target, initial_distortion, &pool);
  const double at_finer = estimated_distortion_left(finer, finer_weights, target, initial_distortion, &pool);
  return at_finer < at_nominal;
}

Result<TileEncoder::FinerBlock> TileEncoder::finer_block(const EncodeBlock& block, int c, int levels,
                                                         int band) const {
  const MainHeader& finer = *setup_.finer_main;
  const Quantization& q = finer.qcc.count(c) ? finer.qcc.at(c) : finer.qcd;
  MALLAT_ASSIGN_OR_RETURN(const quant::StepSize step, q.subband_step(levels, band));
  FinerBlock f;
  f.num_bitplanes = quant::magnitude_bitplanes(q.guard_bits, step.exponent) + block.roi_shift;
  f.delta = setup_.finer_step[c][band];
  f.step.factor = block.step / f.delta;
  // offer_finer_steps saw to it that F is the same at both steps.
  f.step.magnitude_bits = f.num_bitplanes + block.fraction_bits;
  f.weight = std::ldexp(f.delta * f.delta * setup_.energy[c][band] * setup_.colour_weight[c], -2 * block.roi_shift);
  return f;
}

std::span<const entropy::HtPlaneEstimate> TileEncoder::finer_ht_estimates() const {
  if (!kept_) return kept_finer_estimates_;
  return kept_->ht_finer_estimates;
}

void TileEncoder::take_finer_step(size_t slot, EncodeBlock& block, const entropy::HtPlaneEstimate& finer) {
  const FinerBlock& f = finer_[slot];
  block.step = f.delta;
  block.num_bitplanes = f.num_bitplanes;
  CodedBlock& out = blocks_[slot];
  // The error with nothing sent is the coefficients' own: it stays.
  out.weight = f.weight;
  out.coded.zero_bitplanes = f.num_bitplanes;
  if (out.ht) out.ht->top_plane = std::min(finer.planes, f.num_bitplanes) - 1;
}

void TileEncoder::take_finer_steps() {
  if (finer_.empty() || finer_taken_) return;
  finer_taken_ = true;
  if (!kept_) {
    // code_rows's blocks: their indices are taken to the finer steps as
    // they are read back (code_kept_planes).
    for (size_t slot = 0; slot < kept_blocks_.size(); ++slot)
      take_finer_step(slot, kept_blocks_[slot], kept_finer_estimates_[slot]);
    kept_estimates_.swap(kept_finer_estimates_);
    return;
  }
  EncodeTile& tile = *kept_;
  pool_.parallel_for(static_cast<int64_t>(tile.blocks.size()), [&](int64_t k) {
    const auto i = static_cast<size_t>(k);
    EncodeBlock& b = tile.blocks[i];
    const PlaneView<int32_t> at = b.place.in(tile.planes[b.place.component].ints());
    quant::finer_indices(at, finer_[i].step.factor, finer_[i].step.magnitude_bits, at);
    take_finer_step(i, b, tile.ht_finer_estimates[i]);
  });
  tile.ht_estimates.swap(tile.ht_finer_estimates);
}

}  // namespace mallat::codec
