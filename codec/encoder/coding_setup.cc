#include "codec/encoder/coding_setup.h"

#include <utility>
#include <vector>

#include "codec/encoder/ht_rate.h"
#include "codec/encoder/main_header.h"
#include "codec/encoder/synthesis_norms.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// Per component: the squared-error weight of its errors in the output after
// the inverse colour transform, the sum over outputs of the squared
// coefficient with which the component enters them. G.3 (ICT inverse):
// R = Y + 1.402 Cr, G = Y - 0.344136 Cb - 0.714136 Cr, B = Y + 1.772 Cb.
// G.2 (RCT inverse, linearised): G = Y - (Cb + Cr) / 4, R = G + Cr, B = G + Cb.
std::vector<double> colour_weights(const MainHeader& main) {
  std::vector<double> w(main.siz.components.size(), 1.0);
  if (!main.cod.multiple_component_transform) return w;
  if (main.cod.component.reversible) {
    w[0] = 3.0;
    w[1] = w[2] = 0.0625 + 0.0625 + 0.5625;
  } else {
    w[0] = 3.0;
    w[1] = 0.344136 * 0.344136 + 1.772 * 1.772;
    w[2] = 1.402 * 1.402 + 0.714136 * 0.714136;
  }
  return w;
}

}  // namespace

Result<TileCodingSetup> coding_setup(const Image& image, const MainHeader& main, const EncodeOptions& options) {
  TileCodingSetup setup;
  setup.roi_shift.assign(image.num_components(), 0);
  for (const RegionOfInterest& r : main.rgn) setup.roi_shift[r.component] = r.shift;
  MALLAT_ASSIGN_OR_RETURN(setup.tile_progression_changes, tile_progression_changes(main, options));
  setup.image = &image;
  setup.main = &main;
  const int levels = main.cod.component.levels;
  const bool reversible = main.cod.component.reversible;
  MALLAT_ASSIGN_OR_RETURN(std::vector<double> norms,
                          subband_synthesis_norms(reversible ? dwt::Wavelet::k53 : dwt::Wavelet::k97, levels));
  for (int c = 0; c < image.num_components(); ++c) {
    const Quantization& q = main.qcc.count(c) ? main.qcc.at(c) : main.qcd;
    std::vector<StepSize> steps = q.style == QuantizationStyle::kScalarDerived
                                      ? quant::derived_step_sizes(q.steps[0], levels)
                                      : q.steps;
    std::vector<double> step(norms.size(), 1.0), energy(norms.size());
    for (size_t b = 0; b < norms.size(); ++b) {
      energy[b] = norms[b] * norms[b];
      const int rb = image.components[c].precision + quant::log2_subband_gain(quant::subband_orientation(static_cast<int>(b)));
      if (!reversible) step[b] = quant::step_value(steps[b], rb);
    }
    setup.step.push_back(std::move(step));
    setup.energy.push_back(std::move(energy));
  }
  setup.colour_weight = colour_weights(main);
  setup.ht_candidates = main.cod.component.style.ht && options.ht_under_target();
  setup.ht_estimated = setup.ht_candidates && ht_rate_by_estimates(options);
  // HT blocks under a size target by estimates wait as indices between
  // quantisation and coding (kept_indices.h): two bits of fraction place
  // each coefficient within a quarter of its index's interval, enough for
  // the passes' distortions that only rank them against one another, and
  // keep the packed indices small. A PSNR target (-q) sets its
  // layers from the distortions' sum, which wants the full fraction.
  if (setup.ht_estimated && options.rate_kind != EncodeOptions::RateKind::kPsnr) setup.fraction_bits = 2;
  setup.distortions = options.rate_kind != EncodeOptions::RateKind::kNone || options.max_file_bytes > 0 ||
                      options.max_component_bytes > 0;
  return setup;
}

}  // namespace mallat::codec
