#include "codec/jp2/icc_profile.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "codec/codestream/byte_reader.h"

namespace mallat::codec {
namespace {

constexpr uint32_t sig(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) << 24 | uint32_t(uint8_t(s[1])) << 16 | uint32_t(uint8_t(s[2])) << 8 | uint8_t(s[3]);
}

double s15fixed16(uint32_t v) { return static_cast<int32_t>(v) / 65536.0; }

using Matrix = std::array<std::array<double, 3>, 3>;

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix m{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) m[i][j] += a[i][k] * b[k][j];
  return m;
}

Matrix invert(const Matrix& m) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  Matrix r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      // Cofactor of m[j][i] over the determinant.
      const int a0 = (j + 1) % 3, a1 = (j + 2) % 3, b0 = (i + 1) % 3, b1 = (i + 2) % 3;
      r[i][j] = (m[a0][b0] * m[a1][b1] - m[a0][b1] * m[a1][b0]) / det;
    }
  return r;
}

// XYZ (D50) -> linear sRGB: the sRGB primaries and D65 white (IEC 61966-2-1)
// to XYZ, adapted to the D50 connection space with the Bradford matrix (ICC.1
// Annex E), inverted.
Matrix xyz_d50_to_linear_srgb() {
  const double xy[3][2] = {{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}};
  const double white[3] = {0.3127 / 0.3290, 1.0, (1 - 0.3127 - 0.3290) / 0.3290};
  Matrix primaries{};  // columns: XYZ of each primary with Y = 1
  for (int c = 0; c < 3; ++c) {
    primaries[0][c] = xy[c][0] / xy[c][1];
    primaries[1][c] = 1.0;
    primaries[2][c] = (1 - xy[c][0] - xy[c][1]) / xy[c][1];
  }
  const Matrix inv = invert(primaries);
  Matrix rgb_to_xyz = primaries;
  for (int c = 0; c < 3; ++c) {
    const double s = inv[c][0] * white[0] + inv[c][1] * white[1] + inv[c][2] * white[2];
    for (int r = 0; r < 3; ++r) rgb_to_xyz[r][c] *= s;
  }
  const Matrix bradford = {{{0.8951, 0.2664, -0.1614}, {-0.7502, 1.7135, 0.0367}, {0.0389, -0.0685, 1.0296}}};
  const double d50[3] = {0.9642, 1.0, 0.8249};
  const Matrix b_inv = invert(bradford);
  Matrix scale{};
  for (int i = 0; i < 3; ++i) {
    const double src = bradford[i][0] * white[0] + bradford[i][1] * white[1] + bradford[i][2] * white[2];
    const double dst = bradford[i][0] * d50[0] + bradford[i][1] * d50[1] + bradford[i][2] * d50[2];
    scale[i][i] = dst / src;
  }
  const Matrix adapt = multiply(b_inv, multiply(scale, bradford));
  return invert(multiply(adapt, rgb_to_xyz));
}

// IEC 61966-2-1: linear light to the sRGB curve.
double srgb_encode(double l) {
  l = std::clamp(l, 0.0, 1.0);
  return l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
}

Result<ToneCurve> parse_curve(std::span<const uint8_t> p, uint32_t offset, uint32_t size, const std::string& tag) {
  ByteReader r(p.subspan(offset, size), offset);
  const uint32_t type = r.u32();
  r.skip(4);
  ToneCurve c;
  if (type == sig("curv")) {
    const uint32_t n = r.u32();
    if (!r.ok() || r.remaining() / 2 < n) return corrupt_at("ICC tag " + tag, offset, "curve cut short");
    if (n == 0) {
      c.kind = ToneCurve::Kind::kIdentity;
    } else if (n == 1) {
      c.kind = ToneCurve::Kind::kGamma;
      c.gamma = r.u16() / 256.0;  // u8Fixed8Number
    } else {
      c.kind = ToneCurve::Kind::kTable;
      c.table.resize(n);
      for (auto& v : c.table) v = r.u16();
    }
    return c;
  }
  if (type == sig("para")) {
    c.kind = ToneCurve::Kind::kParametric;
    c.function = r.u16();
    r.skip(2);
    static const int kCount[5] = {1, 3, 4, 5, 7};
    if (c.function > 4) return corrupt_at("ICC tag " + tag, offset, "parametric curve type " + std::to_string(c.function));
    for (int i = 0; i < kCount[c.function]; ++i) c.params[i] = s15fixed16(r.u32());
    if (!r.ok()) return corrupt_at("ICC tag " + tag, offset, "curve cut short");
    return c;
  }
  return corrupt_at("ICC tag " + tag, offset, "not a curveType or parametricCurveType");
}

}  // namespace

double ToneCurve::apply(double x) const {
  x = std::clamp(x, 0.0, 1.0);
  switch (kind) {
    case Kind::kIdentity: return x;
    case Kind::kGamma: return std::pow(x, gamma);
    case Kind::kTable: {
      const double pos = x * static_cast<double>(table.size() - 1);
      const size_t i = std::min(static_cast<size_t>(pos), table.size() - 2);
      const double t = pos - static_cast<double>(i);
      return (table[i] * (1 - t) + table[i + 1] * t) / 65535.0;
    }
    case Kind::kParametric: {
      // ICC.1 parametricCurveType, functions 0..4.
      const double g = params[0], a = params[1], b = params[2], c = params[3], d = params[4], e = params[5], f = params[6];
      auto power = [&](double v) { return v > 0 ? std::pow(v, g) : 0.0; };
      switch (function) {
        case 0: return power(x);
        case 1: return x >= -b / a ? power(a * x + b) : 0.0;
        case 2: return x >= -b / a ? power(a * x + b) + c : c;
        case 3: return x >= d ? power(a * x + b) : c * x;
        default: return x >= d ? power(a * x + b) + e : c * x + f;
      }
    }
  }
  return x;
}

Result<RestrictedIccProfile> parse_restricted_icc(std::span<const uint8_t> p) {
  ByteReader r(p);
  const uint32_t size = r.u32();
  r.seek(16);
  const uint32_t space = r.u32(), pcs = r.u32();
  r.seek(36);
  const uint32_t magic = r.u32();
  r.seek(128);
  const uint32_t count = r.u32();
  if (!r.ok() || size > p.size() || size < 132) return corrupt_at("ICC profile", 0, "header cut short");
  if (magic != sig("acsp")) return corrupt_at("ICC profile", 36, "no 'acsp' signature");
  if (pcs != sig("XYZ ")) return unsupported("ICC profile: connection space is not XYZ (not a restricted ICC profile)");
  RestrictedIccProfile out;
  if (space == sig("GRAY")) {
    out.monochrome = true;
  } else if (space != sig("RGB ")) {
    return unsupported("ICC profile: data colour space is neither RGB nor GRAY");
  }
  if (count > (size - 132) / 12) return corrupt_at("ICC profile", 128, "tag table runs past the profile");
  bool have_curve[3] = {}, have_colorant[3] = {};
  for (uint32_t t = 0; t < count; ++t) {
    const uint32_t tag = r.u32(), offset = r.u32(), length = r.u32();
    if (offset > size || length > size - offset || length < 8)
      return corrupt_at("ICC profile tag table", 132 + 12 * t, "tag outside the profile");
    const std::string name{char(tag >> 24), char(tag >> 16), char(tag >> 8), char(tag)};
    static const uint32_t kCurves[3] = {sig("rTRC"), sig("gTRC"), sig("bTRC")};
    static const uint32_t kColorants[3] = {sig("rXYZ"), sig("gXYZ"), sig("bXYZ")};
    for (int c = 0; c < 3; ++c) {
      if (tag == (out.monochrome ? (c == 0 ? sig("kTRC") : 0) : kCurves[c])) {
        MALLAT_ASSIGN_OR_RETURN(out.curves[c], parse_curve(p.subspan(0, size), offset, length, name));
        have_curve[c] = true;
      }
      if (!out.monochrome && tag == kColorants[c]) {
        ByteReader x(p.subspan(offset, length), offset);
        if (x.u32() != sig("XYZ ") || length < 20) return corrupt_at("ICC tag " + name, offset, "not an XYZType");
        x.skip(4);
        for (int k = 0; k < 3; ++k) out.colorants[k][c] = s15fixed16(x.u32());
        have_colorant[c] = true;
      }
    }
  }
  for (int c = 0; c < (out.monochrome ? 1 : 3); ++c) {
    if (!have_curve[c]) return unsupported(std::string("ICC profile without ") + (out.monochrome ? "kTRC" : "an rTRC/gTRC/bTRC tag"));
    if (!out.monochrome && !have_colorant[c]) return unsupported("ICC profile without an rXYZ/gXYZ/bXYZ tag");
  }
  return out;
}

Status icc_to_srgb(Image& image) {
  if (image.icc_profile.empty()) return invalid_argument("the image has no ICC profile");
  MALLAT_ASSIGN_OR_RETURN(RestrictedIccProfile profile, parse_restricted_icc(image.icc_profile));
  const int channels = profile.monochrome ? 1 : 3;
  if (image.num_components() < channels)
    return invalid_argument("an RGB ICC profile needs 3 components, the image has " + std::to_string(image.num_components()));
  const Component& first = image.components[0];
  for (int c = 0; c < channels; ++c) {
    const Component& comp = image.components[c];
    if (comp.is_signed || comp.precision != first.precision || comp.width != first.width || comp.height != first.height)
      return unsupported("ICC conversion of signed components or components of different precision or size");
  }
  const int bits = first.precision;
  if (bits > 16) return unsupported("ICC conversion of samples above 16 bits");
  const double top = static_cast<double>((int64_t{1} << bits) - 1);
  // Tone curves as tables over every input value (at most 2^16).
  std::array<std::vector<double>, 3> linear;
  for (int c = 0; c < channels; ++c) {
    linear[c].resize(static_cast<size_t>(top) + 1);
    for (size_t v = 0; v < linear[c].size(); ++v) linear[c][v] = profile.curves[c].apply(v / top);
  }
  Matrix to_xyz = profile.colorants;
  if (profile.monochrome) {  // grey: Y scaled onto the D50 white of the connection space
    to_xyz = {};
    to_xyz[0][0] = 0.9642;
    to_xyz[1][0] = 1.0;
    to_xyz[2][0] = 0.8249;
  }
  const Matrix m = multiply(xyz_d50_to_linear_srgb(), to_xyz);
  const size_t n = first.samples.size();
  std::array<std::vector<int32_t>, 3> out;
  for (auto& o : out) o.resize(n);
  for (size_t i = 0; i < n; ++i) {
    double lin[3] = {0, 0, 0};
    for (int c = 0; c < channels; ++c) lin[c] = linear[c][static_cast<size_t>(std::clamp<int64_t>(image.components[c].samples[i], 0, int64_t(top)))];
    for (int k = 0; k < 3; ++k) {
      const double l = m[k][0] * lin[0] + m[k][1] * lin[1] + m[k][2] * lin[2];
      out[k][i] = static_cast<int32_t>(std::lround(srgb_encode(l) * top));
    }
  }
  if (profile.monochrome) image.components.insert(image.components.begin() + 1, 2, image.components[0]);
  for (int k = 0; k < 3; ++k) image.components[k].samples = std::move(out[k]);
  image.color_space = ColorSpace::kRgb;
  image.icc_profile.clear();
  return Status::Ok();
}

}  // namespace mallat::codec
