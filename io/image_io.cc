#include "io/image_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/memory_limit.h"
#include "io/file.h"
#include "io/formats.h"

namespace mallat::io {

const char* format_name(Format format) {
  switch (format) {
    case Format::kUnknown: return "unknown";
    case Format::kPng: return "PNG";
    case Format::kTiff: return "TIFF";
    case Format::kPnm: return "PNM";
    case Format::kPam: return "PAM";
    case Format::kPgx: return "PGX";
    case Format::kBmp: return "BMP";
    case Format::kRaw: return "raw";
    case Format::kRawl: return "raw (little-endian)";
  }
  return "unknown";
}

Format format_from_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".png") return Format::kPng;
  if (ext == ".tif" || ext == ".tiff") return Format::kTiff;
  if (ext == ".pgm" || ext == ".ppm" || ext == ".pnm") return Format::kPnm;
  if (ext == ".pam") return Format::kPam;
  if (ext == ".pgx") return Format::kPgx;
  if (ext == ".bmp") return Format::kBmp;
  if (ext == ".raw" || ext == ".yuv") return Format::kRaw;
  if (ext == ".rawl") return Format::kRawl;
  return Format::kUnknown;
}

Format format_from_magic(const unsigned char* bytes, size_t size) {
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (size >= 8 && std::memcmp(bytes, kPng, 8) == 0) return Format::kPng;
  // Classic TIFF (42) and BigTIFF (43), either byte order.
  if (size >= 4 && ((bytes[0] == 'I' && bytes[1] == 'I' && (bytes[2] == 42 || bytes[2] == 43) &&
                     bytes[3] == 0) ||
                    (bytes[0] == 'M' && bytes[1] == 'M' && bytes[2] == 0 &&
                     (bytes[3] == 42 || bytes[3] == 43))))
    return Format::kTiff;
  if (size >= 3 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '6' &&
      std::isspace(bytes[2]))
    return Format::kPnm;
  if (size >= 3 && bytes[0] == 'P' && bytes[1] == '7' && std::isspace(bytes[2])) return Format::kPam;
  if (size >= 3 && bytes[0] == 'P' && bytes[1] == 'G' && std::isspace(bytes[2])) return Format::kPgx;
  if (size >= 2 && bytes[0] == 'B' && bytes[1] == 'M') return Format::kBmp;
  return Format::kUnknown;
}

bool can_read(Format format) {
  if (format == Format::kTiff) {
#ifdef MALLAT_HAVE_TIFF
    return true;
#else
    return false;
#endif
  }
  return format != Format::kUnknown && format != Format::kRaw && format != Format::kRawl;
}

bool can_write(Format format) { return format != Format::kUnknown; }

Result<Image> read_image(const std::filesystem::path& path, uint64_t max_memory, SampleForm form) {
  if (max_memory == 0) max_memory = default_memory_limit();
  // A binary PNM or PAM raster is read in pieces, each converted as it
  // comes. Anything else, or a file that cannot be opened, is read whole
  // below (whose errors name the problem).
  if (Result<InputFile> file = InputFile::open(path); file.ok()) {
    std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(file->size(), 4096)));
    const Result<size_t> got = file->read_at(0, head.data(), head.size());
    if (got.ok()) {
      head.resize(*got);
      const Format format = format_from_magic(head.data(), head.size());
      if (std::optional<Result<Image>> image = detail::read_binary_pnm(*file, head, max_memory, form)) {
        if (!image->ok()) return image->status().with_context(path.string() + " (" + format_name(format) + ")");
        return std::move(**image);
      }
    }
  }
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file(path));
  Format format = format_from_magic(bytes.data(), bytes.size());
  if (format == Format::kUnknown) format = format_from_extension(path);
  const std::string name = path.string();
  if (bytes.empty()) return corrupt_data(name + ": the file is empty");
  Result<Image> image = unsupported("not reached");
  const detail::Bytes file(bytes);
  switch (format) {
    case Format::kPng: image = detail::decode_png(file, max_memory); break;
    case Format::kTiff:
#ifdef MALLAT_HAVE_TIFF
      image = detail::decode_tiff(file, max_memory);
#else
      return unsupported(name + ": this build has no TIFF support (libtiff was not found or "
                                "MALLAT_TIFF=OFF)");
#endif
      break;
    case Format::kPnm: image = detail::decode_pnm(file, max_memory); break;
    case Format::kPam: image = detail::decode_pam(file, max_memory); break;
    case Format::kPgx: image = detail::decode_pgx(file, max_memory); break;
    case Format::kBmp: image = detail::decode_bmp(file, max_memory); break;
    case Format::kRaw:
    case Format::kRawl:
      return invalid_argument(name + ": a raw file holds no geometry; give it as -F "
                                     "W,H,N,BITS,s|u[@DX1xDY1:...] (io::read_raw)");
    case Format::kUnknown:
      return unsupported(name + ": not a PNG, TIFF, PNM, PAM, PGX or BMP file (no known magic "
                                "number or extension)");
  }
  if (!image.ok()) return image.status().with_context(name + " (" + format_name(format) + ")");
  return image;
}

Status write_image(const Image& image, const std::filesystem::path& path,
                   const WriteOptions& options) {
  const std::string name = path.string();
  Format format = options.format != Format::kUnknown ? options.format : format_from_extension(path);
  Result<std::vector<uint8_t>> bytes = unsupported("not reached");
  switch (format) {
    case Format::kPng: bytes = detail::encode_png(image, options.png_interlace, options.png); break;
    case Format::kTiff: bytes = detail::encode_tiff(image); break;
    case Format::kPnm:
    case Format::kPam: {
      ThreadPool pool(options.threads);
      // The sink's errors name the file already; the encoder's get the name here.
      Status sunk = Status::Ok();
      return write_file_atomically(path, [&](const ByteSink& sink) {
        const ByteSink watched = [&](std::span<const uint8_t> piece) { return sunk = sink(piece); };
        Status s = format == Format::kPam ? detail::encode_pam(image, watched, pool)
                                          : detail::encode_pnm(image, watched, pool);
        return s.ok() || !sunk.ok() ? s : s.with_context(name + " (" + format_name(format) + ")");
      });
    }
    case Format::kBmp: bytes = detail::encode_bmp(image); break;
    case Format::kRaw:
    case Format::kRawl: bytes = detail::encode_raw(image, format == Format::kRaw); break;
    case Format::kPgx:
      if (image.num_components() != 1)
        return invalid_argument(name + ": a PGX file holds one component, this image has " +
                                std::to_string(image.num_components()) +
                                " (write one file per component with write_pgx_component)");
      return write_pgx_component(image.components[0], path);
    case Format::kUnknown:
      return invalid_argument(name + ": cannot tell the format to write from the extension");
  }
  if (!bytes.ok()) return bytes.status().with_context(name + " (" + format_name(format) + ")");
  return write_file_atomically(path, *bytes);
}

Status write_pgx_component(const Component& component, const std::filesystem::path& path) {
  Result<std::vector<uint8_t>> bytes = detail::encode_pgx(component);
  if (!bytes.ok()) return bytes.status().with_context(path.string() + " (PGX)");
  return write_file_atomically(path, *bytes);
}

namespace detail {

Status check_image_memory(uint64_t width, uint64_t height, uint64_t components, uint64_t max_memory) {
  // Saturating: the header's values must not wrap the product around.
  uint64_t bytes = sizeof(int32_t);
  for (uint64_t f : {width, height, components}) bytes = f != 0 && bytes > UINT64_MAX / f ? UINT64_MAX : bytes * f;
  if (bytes <= max_memory) return Status::Ok();
  return resource_limit("a " + std::to_string(width) + "x" + std::to_string(height) + " image of " +
                        std::to_string(components) + " component" + (components == 1 ? "" : "s") + " needs " +
                        std::to_string(bytes >> 20) + " MiB for its samples, more than the memory limit of " +
                        std::to_string(max_memory >> 20) + " MiB");
}

Status check_interleavable(const Image& image, const char* format,
                           std::initializer_list<int> counts, int max_precision, bool check_values) {
  const int n = image.num_components();
  if (std::find(counts.begin(), counts.end(), n) == counts.end()) {
    std::string allowed;
    for (int k : counts) allowed += (allowed.empty() ? "" : ", ") + std::to_string(k);
    return invalid_argument(std::string(format) + " holds " + allowed +
                            " components, the image has " + std::to_string(n));
  }
  const Component& first = image.components[0];
  if (first.width <= 0 || first.height <= 0) return invalid_argument("the image is empty");
  for (const Component& c : image.components) {
    if (c.width != first.width || c.height != first.height || c.dx != 1 || c.dy != 1)
      return invalid_argument(std::string(format) +
                              " needs components of one size, without sub-sampling");
    if (c.precision != first.precision)
      return invalid_argument(std::string(format) + " needs one precision for all components");
    if (c.is_signed) return invalid_argument(std::string(format) + " cannot hold signed samples");
    if (c.precision < 1 || c.precision > max_precision)
      return invalid_argument(std::string(format) + " holds 1 to " +
                              std::to_string(max_precision) + " bits per sample, not " +
                              std::to_string(c.precision));
    if (c.samples.size() != static_cast<size_t>(c.width * c.height))
      return invalid_argument("a component's sample count does not match its size");
    if (!check_values) continue;
    const int32_t top = c.max_value();
    for (int32_t v : c.samples)
      if (v < 0 || v > top)
        return invalid_argument("sample " + std::to_string(v) + " is outside 0.." +
                                std::to_string(top) + " for " + std::to_string(c.precision) +
                                " bits");
  }
  return Status::Ok();
}

void set_color_from_count(Image& image) {
  const int n = image.num_components();
  image.color_space = n <= 2 ? ColorSpace::kGray : ColorSpace::kRgb;
  image.has_alpha = (n == 2 || n == 4);
}

}  // namespace detail
}  // namespace mallat::io
