#include "codec/encoder/step_search.h"

#include <cmath>
#include <string>

#include "codec/api/decode.h"
#include "codec/decoder/decode_call.h"
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

Result<std::vector<uint8_t>> encode_searching_steps(const Image& image, const EncodeOptions& options,
                                                    const CallResources& resources, const EncodeWith& encode_with) {
  const bool smallest_file = options.rate_kind == EncodeOptions::RateKind::kPsnr;
  std::vector<uint8_t> best;
  double best_mse = 0;
  for (int k = 0; k < options.step_search; ++k) {
    EncodeOptions scaled = options;
    scaled.base_step_scale = options.base_step_scale * std::exp2(static_cast<double>(k) / options.step_search);
    Result<std::vector<uint8_t>> file = encode_with(scaled, k == 0);
    // A coarser scale may not fit the step signalling where the first did
    // (E-5: a derived step's exponent must be at least the levels): that
    // scale is left out.
    if (!file.ok()) {
      if (k == 0) return file.status();
      continue;
    }
    DecodeOptions d;
    d.threads = options.threads;
    d.dwt_backend = options.dwt_backend;
    d.apply_jp2_header = false;  // the components as encoded, as -q's check decodes them
    CallResources decoding;
    decoding.dwt = resources.dwt;
    MALLAT_ASSIGN_OR_RETURN(const Image decoded, decode(*file, d, decoding, nullptr, nullptr));
    MALLAT_ASSIGN_OR_RETURN(const ImageComparison cmp, compare_images(image, decoded));
    const double mse = cmp.overall.mse;
    const bool better = best.empty() ||
                        (smallest_file ? file->size() < best.size() || (file->size() == best.size() && mse < best_mse)
                                 : mse < best_mse);
    if (better) {
      best = std::move(file).value();
      best_mse = mse;
    }
  }
  return best;
}

}  // namespace mallat::codec
