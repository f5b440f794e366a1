#include "tools/output_policy.h"

#include <algorithm>

#include "codec/jp2/output_conversions.h"

namespace mallat::tools {
namespace {

void note(std::vector<std::string>* notes, std::string text) {
  if (notes) notes->push_back(std::move(text));
}

std::string component_list(int first, int last) {
  return first == last ? "component " + std::to_string(first)
                       : "components " + std::to_string(first) + ".." + std::to_string(last);
}

// The most channels of `n` that `counts` allows (empty: all of them).
int channels_kept(const std::vector<int>& counts, int n) {
  if (counts.empty()) return n;
  int best = 0;
  for (int k : counts)
    if (k <= n) best = std::max(best, k);
  return best;
}

// Signed samples offset to unsigned, and precisions brought into 1..max_bits
// (scaled as opj_decompress's -p B S), component by component.
void fit_samples(Image& image, const FormatLimits& limits, const char* name, bool one_precision,
                 std::vector<std::string>* notes) {
  int signed_count = 0;
  for (Component& c : image.components) {
    if (!c.is_signed || limits.signed_samples) continue;
    const int32_t offset = static_cast<int32_t>(1u << (c.precision - 1));
    for (int32_t& v : c.samples) v += offset;
    c.is_signed = false;
    ++signed_count;
  }
  if (signed_count > 0)
    note(notes, std::string(name) + " holds no signed samples: " + std::to_string(signed_count) +
                    " signed component(s) offset by 2^(bits-1) to unsigned, as opj_decompress does");
  int target = 0;
  for (const Component& c : image.components) target = std::max(target, c.precision);
  target = std::min(target, limits.max_bits);
  std::vector<codec::PrecisionRequest> requests;
  bool changed = false;
  for (const Component& c : image.components) {
    const int bits = one_precision || c.precision > limits.max_bits ? target : c.precision;
    changed = changed || bits != c.precision;
    requests.push_back({bits, true});
  }
  if (!changed) return;
  codec::force_precision(image, requests);
  note(notes, std::string(name) + " takes " + (one_precision ? "one precision" : "at most " +
                  std::to_string(limits.max_bits) + " bits") + ": samples scaled to " + std::to_string(target) +
                  " bits (as -p " + std::to_string(target) + "S)");
}

}  // namespace

FormatLimits format_limits(io::Format format) {
  switch (format) {
    case io::Format::kPnm: return {{1, 3}, 16, false, false};
    case io::Format::kPam: return {{}, 16, false, false};
    case io::Format::kPng: return {{1, 2, 3, 4}, 16, false, true};
    case io::Format::kTiff: return {{1, 2, 3, 4}, 16, false, true};
    case io::Format::kBmp: return {{1, 3}, 8, false, false};
    case io::Format::kPgx: return {{}, 31, true, false};
    case io::Format::kRaw:
    case io::Format::kRawl: return {{}, 16, true, false};
    case io::Format::kUnknown: break;
  }
  return {};
}

bool planar(io::Format format) {
  return format == io::Format::kPgx || format == io::Format::kRaw || format == io::Format::kRawl;
}

bool needs_upsampling(const Image& image, io::Format format) {
  return !planar(format) && !codec::components_share_grid(image);
}

void fit_to_format(Image& image, io::Format format, bool per_component, std::vector<std::string>* notes) {
  const FormatLimits limits = format_limits(format);
  const char* name = io::format_name(format);
  if (planar(format)) return;  // the planes as decoded; the raw writer says what it cannot hold
  if (per_component || format == io::Format::kPgx) {
    // One file per component: PGX holds what the decoder gives; a PGM
    // each (-split-pnm) needs unsigned samples of up to 16 bits.
    if (format != io::Format::kPgx) fit_samples(image, format_limits(io::Format::kPnm), "PGM", false, notes);
    return;
  }
  const int n = image.num_components();
  const Component& first = image.components[0];
  if (first.dx > 1 || first.dy > 1) {
    note(notes, "every component is sub-sampled " + std::to_string(first.dx) + "x" + std::to_string(first.dy) +
                    ": written at its size, " + std::to_string(first.width) + "x" + std::to_string(first.height) +
                    " (-upsample gives the image's size)");
    for (Component& c : image.components) c.dx = c.dy = 1;
  }
  const int kept = channels_kept(limits.counts, n);
  if (kept < n) {
    const bool alpha = image.has_alpha && kept == n - 1;
    note(notes, std::string(name) + " holds " + (kept == 1 ? "1 channel" : std::to_string(kept) + " channels") +
                    ": " + component_list(kept, n - 1) + (alpha ? " (alpha)" : "") +
                    " not written (-split-pnm, PAM" + (n <= 4 ? ", PNG or TIFF" : " or PGX") + " keep " +
                    (kept == n - 1 ? "it" : "them") + ")");
    image.components.resize(static_cast<size_t>(kept));
    if (alpha || kept < 2) image.has_alpha = false;
    if (kept < 3) image.color_space = ColorSpace::kGray;
  }
  fit_samples(image, limits, name, true, notes);
}

}  // namespace mallat::tools
