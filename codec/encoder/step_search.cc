#include "codec/encoder/step_search.h"

#include <cmath>
#include <string>

#include "codec/api/decode.h"
#include "codec/decoder/decode_call.h"
#include "codec/encoder/main_header.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/rate_targets.h"
#include "common/metrics.h"

namespace mallat::codec {

Result<bool> step_search_wanted(const EncodeOptions& options) {
  if (options.step_search == 1) return false;
  const std::string n = std::to_string(options.step_search);
  if (options.step_search < 1 || options.step_search > 16)
    return invalid_argument("the step search takes 1..16 base steps, got " + n);
  if (!options.style.ht) return invalid_argument("the step search (" + n + " steps) is for HT code-blocks (-M 64)");
  if (options.reversible) return invalid_argument("the step search (" + n + " steps) needs the irreversible path (-I)");
  if (options.rate_kind == EncodeOptions::RateKind::kNone)
    return invalid_argument("the step search (" + n + " steps) needs a rate target (-r, --bpp or -q)");
  return true;
}

namespace {

// The best file so far and the options it was encoded with.
class Search {
 public:
  // `target_error`: under a PSNR target, the squared error (summed over
  // the samples) it allows.
  Search(const Image& image, const EncodeOptions& options, const CallResources& resources,
         const EncodeWith& encode_with, double target_error)
      : image_(image),
        options_(options),
        resources_(resources),
        encode_with_(encode_with),
        samples_(sample_count(image)),
        target_error_(target_error) {}

  // Encodes with `o` and keeps the file where it is better than the best;
  // whether it was. A scale whose steps do not fit the step signalling
  // where the first did (E-5: a derived step's exponent must be at least
  // the levels) is left out; the first encode's failure is the search's.
  // `least_bytes`: a file smaller is not kept.
  Result<bool> try_options(const EncodeOptions& o, double least_bytes = 0) {
    const bool first = !tried_;
    tried_ = true;
    Result<std::vector<uint8_t>> file = encode_with_(o, first);
    if (!file.ok()) {
      if (first) return file.status();
      return false;
    }
    if (static_cast<double>(file->size()) < least_bytes) return false;
    DecodeOptions d;
    d.threads = options_.threads;
    d.dwt_backend = options_.dwt_backend;
    d.apply_jp2_header = false;  // the components as encoded, as -q's check decodes them
    CallResources decoding;
    decoding.dwt = resources_.dwt;
    MALLAT_ASSIGN_OR_RETURN(const Image decoded, decode(*file, d, decoding, nullptr, nullptr));
    MALLAT_ASSIGN_OR_RETURN(const ImageComparison cmp, compare_images(image_, decoded));
    const double mse = cmp.overall.mse;
    if (!best_.empty() && !better(file->size(), mse)) return false;
    best_ = std::move(file).value();
    best_mse_ = mse;
    best_options_ = o;
    return true;
  }

  const EncodeOptions& best_options() const { return best_options_; }
  std::vector<uint8_t> take_best() { return std::move(best_); }

 private:
  // Under a size target the smaller error. Under a PSNR target the smaller
  // file at the target's error: -q lands each encode near the target, not
  // on it (a few hundredths of a dB either way), so each file's bytes are
  // taken to the target's error as an error falls with bytes at high
  // rates, as bytes^-2 (6 dB a doubling); then the smaller error.
  bool better(size_t bytes, double mse) const {
    if (options_.rate_kind != EncodeOptions::RateKind::kPsnr) return mse < best_mse_;
    const double at_target = at_target_error(bytes, mse), best_at_target = at_target_error(best_.size(), best_mse_);
    return at_target < best_at_target || (at_target == best_at_target && mse < best_mse_);
  }
  double at_target_error(size_t bytes, double mse) const {
    return static_cast<double>(bytes) * std::sqrt(mse * samples_ / target_error_);
  }

  const Image& image_;
  const EncodeOptions& options_;
  const CallResources& resources_;
  const EncodeWith& encode_with_;
  const double samples_;
  const double target_error_;
  bool tried_ = false;
  std::vector<uint8_t> best_;
  double best_mse_ = 0;
  EncodeOptions best_options_;
};

}  // namespace

Result<std::vector<uint8_t>> encode_searching_steps(const Image& image, const EncodeOptions& options,
                                                    const CallResources& resources, const EncodeWith& encode_with) {
  MALLAT_ASSIGN_OR_RETURN(const GridSize grid, check_image(image, options, false));
  MALLAT_ASSIGN_OR_RETURN(const std::vector<LayerTarget> targets, layer_targets(image, grid, options));
  const LayerTarget* last = targets.empty() ? nullptr : &targets.back();
  const double target_error = last && last->kind == LayerTarget::Kind::kDistortion ? last->value : 0.0;
  Search search(image, options, resources, encode_with, target_error);
  for (int k = 0; k < options.step_search; ++k) {
    EncodeOptions scaled = options;
    scaled.base_step_scale = options.base_step_scale * std::exp2(static_cast<double>(k) / options.step_search);
    MALLAT_RETURN_IF_ERROR(search.try_options(scaled).status());
  }
  // One base step moves every subband's planes at once; the best place for
  // one resolution's planes need not be the others'. Each resolution's
  // steps (E.1.1: expounded, one per subband) are moved up or down by a
  // quarter, then an eighth of an octave from the best so far. Not under a
  // PSNR target: there the moves took a few tenths of a per cent off the
  // file for several times the encodes.
  if (options.derived_quantization || options.rate_kind == EncodeOptions::RateKind::kPsnr)
    return search.take_best();
  MALLAT_ASSIGN_OR_RETURN(const MainHeader main, main_header_for(image, grid, options, nullptr));
  const int resolutions = main.cod.component.levels + 1;
  // Under a size target a moved step is kept only where its file lies
  // within 1% under the target (the band the size targets keep to).
  const double least_bytes = last && last->kind == LayerTarget::Kind::kBytes ? 0.99 * last->value : 0.0;
  for (const double octave : {0.25, 0.125}) {
    for (int r = 0; r < resolutions; ++r) {
      for (const double sign : {1.0, -1.0}) {
        EncodeOptions moved = search.best_options();
        moved.resolution_step_scales.resize(static_cast<size_t>(resolutions), 1.0);
        moved.resolution_step_scales[static_cast<size_t>(r)] *= std::exp2(sign * octave);
        MALLAT_ASSIGN_OR_RETURN(const bool better, search.try_options(moved, least_bytes));
        if (better) break;  // the other way is the one just left
      }
    }
  }
  return search.take_best();
}

}  // namespace mallat::codec
