// Raw planes (io/raw.h): read with a geometry given apart, written as the
// components are, one after another, each at its size.
#include "io/raw.h"

#include <system_error>

#include "common/memory_limit.h"
#include "io/file.h"
#include "io/formats.h"

namespace mallat::io {
namespace {

int container_bytes(int precision) { return precision <= 8 ? 1 : 2; }

std::string sample_kind(int precision, bool is_signed) {
  return std::to_string(precision) + "-bit " + (is_signed ? "signed" : "unsigned");
}

}  // namespace

void set_planar_colour(Image& image) {
  const int n = image.num_components();
  image.has_alpha = false;
  image.color_space = ColorSpace::kUnknown;
  if (n == 1) {
    image.color_space = ColorSpace::kGray;
  } else if (n >= 3) {
    // Chroma planes sub-sampled against the first: YCbCr, as opj_decompress
    // takes such a stream to be.
    const Component& y = image.components[0];
    const auto coarser = [&](const Component& c) {
      return c.dx * c.dy > y.dx * y.dy && c.dx >= y.dx && c.dy >= y.dy;
    };
    if (coarser(image.components[1]) && coarser(image.components[2])) image.color_space = ColorSpace::kYcc;
  }
}

Image raw_planes_layout(const RawGeometry& g) {
  Image image;
  image.x1 = g.width;
  image.y1 = g.height;
  for (int c = 0; c < g.num_components(); ++c) {
    Component comp;
    comp.width = g.component_width(c);
    comp.height = g.component_height(c);
    comp.precision = g.precision;
    comp.is_signed = g.is_signed;
    comp.dx = g.subsampling[c][0];
    comp.dy = g.subsampling[c][1];
    image.components.push_back(std::move(comp));
  }
  set_planar_colour(image);
  return image;
}

Image raw_planes(const RawGeometry& g) {
  Image image = raw_planes_layout(g);
  for (Component& comp : image.components) comp.samples.resize(static_cast<size_t>(comp.width * comp.height));
  return image;
}

Result<Image> read_raw(const std::filesystem::path& path, const RawGeometry& g, bool big_endian,
                       uint64_t max_memory) {
  const std::string name = path.string() + (big_endian ? " (raw, big-endian)" : " (raw, little-endian)");
  MALLAT_RETURN_IF_ERROR(detail::check_raw_geometry(g, name));
  if (max_memory == 0) max_memory = default_memory_limit();
  const uint64_t need = g.file_bytes();
  // Samples are held as int32: at most twice (four times for 8 bits) the file.
  if (need / container_bytes(g.precision) > max_memory / sizeof(int32_t))
    return resource_limit(name + ": -F " + raw_geometry_text(g) + " needs " + std::to_string(need >> 20) +
                          " MiB of samples and more memory than the limit of " + std::to_string(max_memory >> 20) +
                          " MiB");
  // The size first: a file far too long is refused before it is read.
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec) MALLAT_RETURN_IF_ERROR(detail::check_raw_file_size(g, size, name));
  MALLAT_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, read_file(path, need));
  MALLAT_RETURN_IF_ERROR(detail::check_raw_file_size(g, bytes.size(), name));
  const int nbytes = container_bytes(g.precision);
  Image image = raw_planes(g);
  const uint8_t* src = bytes.data();
  for (int c = 0; c < g.num_components(); ++c) {
    Component& comp = image.components[c];
    MALLAT_RETURN_IF_ERROR(
        detail::convert_raw_samples(src, comp.samples.size(), g, big_endian, c, 0, comp.samples.data(), name));
    src += comp.samples.size() * nbytes;
  }
  return image;
}

namespace detail {

Status check_raw_geometry(const RawGeometry& g, const std::string& name) {
  if (g.num_components() < 1 || g.precision < 1 || g.precision > 16 || g.width < 1 || g.height < 1)
    return invalid_argument(name + ": the geometry needs a size, 1..16 bits and at least one component");
  return Status::Ok();
}

Status check_raw_file_size(const RawGeometry& g, uint64_t size, const std::string& name) {
  if (size == g.file_bytes()) return Status::Ok();
  return invalid_argument(name + ": -F " + raw_geometry_text(g) + " needs a file of exactly " +
                          std::to_string(g.file_bytes()) + " bytes, the file has " + std::to_string(size));
}

Status convert_raw_samples(const uint8_t* src, size_t count, const RawGeometry& g, bool big_endian, int c,
                           size_t first, int32_t* out, const std::string& name) {
  const int nbytes = container_bytes(g.precision);
  Component kind;
  kind.precision = g.precision;
  kind.is_signed = g.is_signed;
  const int32_t lo = kind.min_value(), hi = kind.max_value();
  const int64_t width = g.component_width(c);
  for (size_t i = 0; i < count; ++i, src += nbytes) {
    uint32_t raw = src[0];
    if (nbytes == 2) raw = big_endian ? (raw << 8 | src[1]) : (uint32_t{src[1]} << 8 | raw);
    int32_t v = static_cast<int32_t>(raw);
    if (g.is_signed && (raw >> (8 * nbytes - 1)) != 0) v -= int32_t{1} << (8 * nbytes);  // two's complement
    if (v < lo || v > hi) {
      const size_t at = first + i;
      return corrupt_data(name + ": component " + std::to_string(c) + ", sample " + std::to_string(at) + " (row " +
                          std::to_string(at / width) + ", column " + std::to_string(at % width) + ") is " +
                          std::to_string(v) + ", outside the range of " + sample_kind(g.precision, g.is_signed) +
                          " samples");
    }
    out[i] = v;
  }
  return Status::Ok();
}

Status check_raw_planes(const Image& image, bool check_samples) {
  if (image.components.empty()) return invalid_argument("the image has no components");
  const Component& first = image.components[0];
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    if (comp.precision != first.precision || comp.is_signed != first.is_signed)
      return invalid_argument("a raw file holds one precision and signedness (-F has one bit depth): component " +
                              std::to_string(c) + " is " + sample_kind(comp.precision, comp.is_signed) +
                              ", component 0 " + sample_kind(first.precision, first.is_signed) +
                              " (decode -p B can bring them to one precision)");
    if (comp.width <= 0 || comp.height <= 0 ||
        (check_samples && comp.samples.size() != static_cast<size_t>(comp.width * comp.height)))
      return invalid_argument("component " + std::to_string(c) + " is empty or its sample count does not match its size");
  }
  if (first.precision < 1 || first.precision > 16)
    return invalid_argument("a raw file holds 1..16 bits a sample, not " + std::to_string(first.precision));
  return Status::Ok();
}

Status raw_sample_bytes(const Component& comp, int c, const int32_t* samples, size_t count, size_t first,
                        bool big_endian, uint8_t* out) {
  const int nbytes = container_bytes(comp.precision);
  const int32_t lo = comp.min_value(), hi = comp.max_value();
  for (size_t i = 0; i < count; ++i) {
    const int32_t v = samples[i];
    if (v < lo || v > hi)
      return invalid_argument("component " + std::to_string(c) + ", sample " + std::to_string(first + i) + " is " +
                              std::to_string(v) + ", outside " + sample_kind(comp.precision, comp.is_signed) +
                              " samples");
    const uint32_t raw = static_cast<uint32_t>(v);  // two's complement, cut to the container
    if (nbytes == 1) {
      *out++ = static_cast<uint8_t>(raw);
    } else {
      out[big_endian ? 0 : 1] = static_cast<uint8_t>(raw >> 8);
      out[big_endian ? 1 : 0] = static_cast<uint8_t>(raw);
      out += 2;
    }
  }
  return Status::Ok();
}

Result<std::vector<uint8_t>> encode_raw(const Image& image, bool big_endian) {
  MALLAT_RETURN_IF_ERROR(check_raw_planes(image));
  const int nbytes = container_bytes(image.components[0].precision);
  size_t total = 0;
  for (const Component& comp : image.components) total += comp.samples.size() * nbytes;
  std::vector<uint8_t> out(total);
  uint8_t* dst = out.data();
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    MALLAT_RETURN_IF_ERROR(raw_sample_bytes(comp, c, comp.samples.data(), comp.samples.size(), 0, big_endian, dst));
    dst += comp.samples.size() * nbytes;
  }
  return out;
}

}  // namespace detail
}  // namespace mallat::io
