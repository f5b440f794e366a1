// What a raw file does not hold: its geometry as opj_compress's -F text,
// parsed and written back, found for an image, and the sub-sampling of
// components that come from separate files (io/raw.h).
#include <charconv>

#include "io/formats.h"
#include "io/raw.h"

namespace mallat::io {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr char kForm[] = "W,H,N,BITS,s|u[@DX1xDY1:DX2xDY2:...]";

bool parse_number(std::string_view s, int64_t lo, int64_t hi, int64_t* out) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    const size_t at = s.find(sep, pos);
    parts.push_back(s.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
    if (at == std::string_view::npos) return parts;
    pos = at + 1;
  }
}

std::string factor_text(const std::array<int, 2>& f) { return std::to_string(f[0]) + "x" + std::to_string(f[1]); }

}  // namespace

int64_t RawGeometry::component_width(int c) const { return ceil_div(width, subsampling[c][0]); }
int64_t RawGeometry::component_height(int c) const { return ceil_div(height, subsampling[c][1]); }

uint64_t RawGeometry::file_bytes() const {
  const uint64_t bytes = precision <= 8 ? 1 : 2;
  uint64_t samples = 0;
  for (int c = 0; c < num_components(); ++c)
    samples += static_cast<uint64_t>(component_width(c)) * static_cast<uint64_t>(component_height(c));
  return samples * bytes;
}

Result<std::vector<std::array<int, 2>>> parse_subsampling(std::string_view text, int components) {
  std::vector<std::array<int, 2>> out;
  const std::vector<std::string_view> items = split(text, ':');
  if (static_cast<int>(items.size()) > components)
    return invalid_argument("-F: " + std::to_string(items.size()) + " sub-sampling factors for " +
                            std::to_string(components) + " component(s)");
  for (std::string_view item : items) {
    const size_t x = item.find('x');
    int64_t dx = 0, dy = 0;
    // A.5.1: XRsiz and YRsiz are 1..255.
    if (x == std::string_view::npos || !parse_number(item.substr(0, x), 1, 255, &dx) ||
        !parse_number(item.substr(x + 1), 1, 255, &dy))
      return invalid_argument("-F: the sub-sampling factor '" + std::string(item) +
                              "' is not DXxDY with DX and DY in 1..255 (A.5.1)");
    out.push_back({static_cast<int>(dx), static_cast<int>(dy)});
  }
  while (static_cast<int>(out.size()) < components) out.push_back(out.back());
  return out;
}

Result<RawGeometry> parse_raw_geometry(std::string_view text) {
  const size_t at = text.find('@');
  const std::vector<std::string_view> fields = split(text.substr(0, at), ',');
  if (fields.size() != 5)
    return invalid_argument("-F needs " + std::string(kForm) + ", got '" + std::string(text) + "'");
  RawGeometry g;
  int64_t n = 0, bits = 0;
  if (!parse_number(fields[0], 1, UINT32_MAX, &g.width) || !parse_number(fields[1], 1, UINT32_MAX, &g.height))
    return invalid_argument("-F: the width and height must be 1..2^32-1, got '" + std::string(fields[0]) + "," +
                            std::string(fields[1]) + "'");
  if (!parse_number(fields[2], 1, 16384, &n))
    return invalid_argument("-F: the number of components must be 1..16384, got '" + std::string(fields[2]) + "'");
  if (!parse_number(fields[3], 1, 16, &bits))
    return invalid_argument("-F: the bit depth must be 1..16 (one or two bytes a sample), got '" +
                            std::string(fields[3]) + "'");
  if (fields[4] != "s" && fields[4] != "u")
    return invalid_argument("-F: the sign must be s or u, got '" + std::string(fields[4]) + "'");
  g.precision = static_cast<int>(bits);
  g.is_signed = fields[4] == "s";
  if (at == std::string_view::npos) {
    g.subsampling.assign(static_cast<size_t>(n), {1, 1});
  } else {
    MALLAT_ASSIGN_OR_RETURN(g.subsampling, parse_subsampling(text.substr(at + 1), static_cast<int>(n)));
  }
  return g;
}

std::string raw_geometry_text(const RawGeometry& g) {
  std::string text = std::to_string(g.width) + "," + std::to_string(g.height) + "," +
                     std::to_string(g.num_components()) + "," + std::to_string(g.precision) + "," +
                     (g.is_signed ? "s" : "u") + "@";
  for (int c = 0; c < g.num_components(); ++c) {
    if (c > 0) text += ":";
    text += factor_text(g.subsampling[c]);
  }
  return text;
}

Result<RawGeometry> raw_geometry_of(const Image& image) {
  // The geometry alone: an image's header (the streamed decoder's) will do.
  MALLAT_RETURN_IF_ERROR(detail::check_raw_planes(image, /*check_samples=*/false));
  RawGeometry g;
  g.precision = image.components[0].precision;
  g.is_signed = image.components[0].is_signed;
  for (const Component& comp : image.components) g.subsampling.push_back({comp.dx, comp.dy});
  // The planes as written start at the origin of their own grids: the -F
  // size is one whose ceil(W / dx) is every component's width.
  Image at_origin;
  for (const Component& comp : image.components) {
    Component shape;
    shape.width = comp.width;
    shape.height = comp.height;
    shape.dx = comp.dx;
    shape.dy = comp.dy;
    at_origin.components.push_back(std::move(shape));
  }
  at_origin.x1 = image.x1 - image.x0;
  at_origin.y1 = image.y1 - image.y0;
  auto size = reference_grid_size(at_origin, 0, 0);
  if (!size.ok())
    return size.status().with_context("no -F size reads these planes back (their sizes follow the image offset)");
  g.width = size->width;
  g.height = size->height;
  return g;
}

Result<Image> join_components(std::vector<Image> parts, const std::vector<std::string>& names,
                              const std::vector<std::array<int, 2>>& subsampling) {
  if (parts.empty()) return invalid_argument("no components to join");
  if (!subsampling.empty() && subsampling.size() != parts.size())
    return invalid_argument(std::to_string(subsampling.size()) + " sub-sampling factors for " +
                            std::to_string(parts.size()) + " components");
  Image image;
  int64_t width = 0, height = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].num_components() != 1)
      return invalid_argument(names[i] + ": has " + std::to_string(parts[i].num_components()) +
                              " components; each file must hold one");
    width = std::max(width, parts[i].components[0].width);
    height = std::max(height, parts[i].components[0].height);
  }
  // The smallest d with ceil(size / d) == n, or 0 when there is none: d
  // is at least ceil(size / n), and that one is the answer if any is.
  auto factor = [](int64_t size, int64_t n) -> int {
    const int64_t d = ceil_div(size, n);
    return d <= 255 && ceil_div(size, d) == n ? static_cast<int>(d) : 0;
  };
  for (size_t i = 0; i < parts.size(); ++i) {
    Component comp = std::move(parts[i].components[0]);
    if (subsampling.empty()) {
      comp.dx = factor(width, comp.width);
      comp.dy = factor(height, comp.height);
      if (comp.dx == 0 || comp.dy == 0)
        return invalid_argument(names[i] + ": its size " + std::to_string(comp.width) + "x" +
                                std::to_string(comp.height) + " is not ceil(" + std::to_string(width) + " / dx) x ceil(" +
                                std::to_string(height) + " / dy) for integer factors 1..255 of the largest component "
                                "(give the factors with -F)");
    } else {
      comp.dx = subsampling[i][0];
      comp.dy = subsampling[i][1];
    }
    comp.role = ChannelRole::kColour;
    image.components.push_back(std::move(comp));
  }
  if (subsampling.empty()) {
    image.x1 = width;
    image.y1 = height;
  }
  // Given factors must fit the sizes too (B-2, the planes at the origin).
  MALLAT_ASSIGN_OR_RETURN(const GridSize grid, reference_grid_size(image, 0, 0));
  image.x1 = grid.width;
  image.y1 = grid.height;
  set_planar_colour(image);
  return image;
}

}  // namespace mallat::io
