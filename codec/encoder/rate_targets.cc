#include "codec/encoder/rate_targets.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "codec/api/decode.h"
#include "common/metrics.h"

namespace mallat::codec {

double sample_count(const Image& image) {
  double n = 0;
  for (const Component& c : image.components) n += static_cast<double>(c.width) * static_cast<double>(c.height);
  return n;
}

double raw_bytes(const Image& image) {
  double bits = 0;
  for (const Component& c : image.components)
    bits += c.precision * static_cast<double>(c.width) * static_cast<double>(c.height);
  return bits / 8.0;
}

Result<std::vector<LayerTarget>> layer_targets(const Image& image, GridSize grid, const EncodeOptions& o) {
  using Kind = EncodeOptions::RateKind;
  std::vector<LayerTarget> targets;
  // A file limit (the profiles') caps every layer's byte target.
  const double most = o.max_file_bytes ? static_cast<double>(o.max_file_bytes) : 0.0;
  auto capped = [&](LayerTarget t) {
    if (most > 0 && t.kind == LayerTarget::Kind::kEverything) return LayerTarget{LayerTarget::Kind::kBytes, most};
    if (most > 0 && t.kind == LayerTarget::Kind::kBytes) t.value = std::min(t.value, most);
    return t;
  };
  if (most > 0 && o.rate_kind == Kind::kPsnr)
    return invalid_argument("PSNR targets (-q) cannot be combined with a limit on the file's bytes");
  if (o.rate_kind == Kind::kNone) return std::vector<LayerTarget>{capped(LayerTarget{})};
  const double pixels = static_cast<double>(grid.width) * static_cast<double>(grid.height);
  const double raw = raw_bytes(image);
  const double samples = sample_count(image);
  const double peak = std::ldexp(1.0, image.components[0].precision) - 1.0;
  for (size_t l = 0; l < o.rate_values.size(); ++l) {
    const double v = o.rate_values[l];
    const std::string which = "rate target " + std::to_string(l + 1);
    if (!(v >= 0) || !std::isfinite(v)) return invalid_argument(which + " must be a number >= 0");
    if (l > 0) {
      const double before = o.rate_values[l - 1];
      const bool lossless_before = o.rate_kind == Kind::kRatio ? before <= 1 : before == 0;
      const bool ordered = o.rate_kind == Kind::kRatio ? v < before : (v > before || v == 0);
      if (lossless_before || !ordered)
        return invalid_argument(which + " is out of order: ratios must decrease, bpp and PSNR increase, "
                                "and only the last layer may be lossless");
    }
    LayerTarget t;
    switch (o.rate_kind) {
      case Kind::kRatio:
        if (v > 1) t = {LayerTarget::Kind::kBytes, std::floor(raw / v)};
        break;
      case Kind::kBitsPerPixel:
        if (v > 0) t = {LayerTarget::Kind::kBytes, std::floor(v * pixels / 8.0)};
        break;
      case Kind::kPsnr:
        if (v > 0) t = {LayerTarget::Kind::kDistortion, peak * peak * std::pow(10.0, -v / 10.0) * samples};
        break;
      case Kind::kNone:
        break;
    }
    targets.push_back(capped(t));
  }
  return targets;
}

Result<std::vector<uint8_t>> meet_psnr_targets(const Image& image, const EncodeOptions& options,
                                               const FileAssembler& assembler,
                                               std::span<const CodeBlockHull> hulls,
                                               std::vector<LayerTarget> targets, double initial,
                                               LayerPasses layers) {
  const std::vector<LayerTarget> wanted = targets;
  const double samples = sample_count(image);
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> file, assembler.file(layers));
  for (int round = 0; round < 2; ++round) {
    bool changed = false;
    for (size_t l = 0; l < targets.size(); ++l) {
      if (targets[l].kind != LayerTarget::Kind::kDistortion) continue;
      DecodeOptions d;
      d.layers = static_cast<int>(l) + 1;
      d.threads = options.threads;
      d.dwt_backend = options.dwt_backend;
      d.apply_jp2_header = false;  // the components as encoded, whatever the JP2 header says of them
      MALLAT_ASSIGN_OR_RETURN(const Image decoded, decode(file, d));
      MALLAT_ASSIGN_OR_RETURN(const ImageComparison cmp, compare_images(image, decoded));
      const double real = cmp.overall.mse * samples;
      if (real <= 0) continue;
      if (std::fabs(10.0 * std::log10(real / wanted[l].value)) > 0.03) {
        targets[l].value *= wanted[l].value / real;
        changed = true;
      }
    }
    if (!changed) break;
    MALLAT_ASSIGN_OR_RETURN(layers, allocate_layers(hulls, targets, initial, [&](const LayerPasses& p) {
      return assembler.size(p);
    }));
    MALLAT_ASSIGN_OR_RETURN(file, assembler.file(layers));
  }
  return file;
}

}  // namespace mallat::codec
