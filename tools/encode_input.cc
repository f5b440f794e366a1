#include "tools/encode_input.h"

#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "io/image_io.h"
#include "io/raw.h"

namespace mallat::tools {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (true) {
    const size_t comma = s.find(',', pos);
    parts.push_back(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) return parts;
    pos = comma + 1;
  }
}

// One file per component joined, each at its own size (`parts`: one
// component each, their samples there or not); -F, when given, is
// "@DX1xDY1:..." or the whole W,H,N,BITS,s|u@... text, whose every field
// must then agree with the files.
Result<Image> join_component_files(std::vector<Image> parts, const std::vector<std::string>& names,
                                   const std::string& raw_format) {
  const int n = static_cast<int>(names.size());
  std::vector<std::array<int, 2>> factors;
  io::RawGeometry given;
  const bool whole = !raw_format.empty() && raw_format[0] != '@';
  if (whole) {
    MALLAT_ASSIGN_OR_RETURN(given, io::parse_raw_geometry(raw_format));
    if (given.num_components() != n)
      return invalid_argument("-F names " + std::to_string(given.num_components()) + " components, -i lists " +
                              std::to_string(n) + " files");
    factors = given.subsampling;
  } else if (!raw_format.empty()) {
    MALLAT_ASSIGN_OR_RETURN(factors, io::parse_subsampling(std::string_view(raw_format).substr(1), n));
  }
  MALLAT_ASSIGN_OR_RETURN(Image image, io::join_components(std::move(parts), names, factors));
  if (!whole) return image;
  for (int c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    if (comp.precision != given.precision || comp.is_signed != given.is_signed)
      return invalid_argument(names[c] + ": " + std::to_string(comp.precision) + "-bit " +
                              (comp.is_signed ? "signed" : "unsigned") + " samples, -F says " +
                              std::to_string(given.precision) + "-bit " + (given.is_signed ? "signed" : "unsigned"));
    if (comp.width != given.component_width(c) || comp.height != given.component_height(c))
      return invalid_argument(names[c] + ": " + std::to_string(comp.width) + "x" + std::to_string(comp.height) +
                              ", -F " + raw_format + " gives component " + std::to_string(c) + " " +
                              std::to_string(given.component_width(c)) + "x" +
                              std::to_string(given.component_height(c)));
  }
  image.x1 = given.width;
  image.y1 = given.height;
  return image;
}

Result<Image> read_component_files(const std::vector<std::string>& names, const std::string& raw_format,
                                   uint64_t max_memory) {
  std::vector<Image> parts;
  for (const std::string& name : names) {
    if (name.empty()) return invalid_argument("-i: an empty file name in the list of per-component files");
    MALLAT_ASSIGN_OR_RETURN(Image part, io::read_image(name, max_memory));
    parts.push_back(std::move(part));
  }
  return join_component_files(std::move(parts), names, raw_format);
}

// Per-component files each read in strips: component c is file c's only one.
class JoinedStrips final : public io::StripReader {
 public:
  JoinedStrips(std::vector<std::unique_ptr<io::StripReader>> parts, Image layout) : parts_(std::move(parts)) {
    layout_ = std::move(layout);
  }
  Status read_rows(int c, int64_t rows, int32_t* out) override {
    if (c < 0 || c >= static_cast<int>(parts_.size())) return invalid_argument("no component " + std::to_string(c));
    return parts_[c]->read_rows(0, rows, out);
  }

 private:
  std::vector<std::unique_ptr<io::StripReader>> parts_;
};

// The list read in strips where every file's format allows; null otherwise
// (also for a list the whole-image path refuses: it gives the error).
Result<std::unique_ptr<io::StripReader>> open_component_strips(const std::vector<std::string>& names,
                                                               const std::string& raw_format) {
  std::vector<std::unique_ptr<io::StripReader>> readers;
  std::vector<Image> layouts;
  for (const std::string& name : names) {
    if (name.empty()) return std::unique_ptr<io::StripReader>();
    Result<std::unique_ptr<io::StripReader>> reader = io::open_strips(name);
    if (!reader.ok() || !*reader) return std::unique_ptr<io::StripReader>();
    layouts.push_back((*reader)->layout());
    readers.push_back(std::move(*reader));
  }
  Result<Image> layout = join_component_files(std::move(layouts), names, raw_format);
  if (!layout.ok()) return std::unique_ptr<io::StripReader>();
  return std::unique_ptr<io::StripReader>(std::make_unique<JoinedStrips>(std::move(readers), std::move(*layout)));
}

// -F for a raw file: its geometry, or why there is none.
Result<io::RawGeometry> raw_input_geometry(const std::string& in, const std::string& raw_format) {
  if (raw_format.empty())
    return invalid_argument(in + ": a raw file holds no geometry; give -F W,H,N,BITS,s|u[@DX1xDY1:...]");
  return io::parse_raw_geometry(raw_format);
}

bool is_raw_name(const std::string& in) {
  const io::Format format = io::format_from_extension(in);
  return format == io::Format::kRaw || format == io::Format::kRawl;
}

}  // namespace

Result<std::unique_ptr<io::StripReader>> open_encode_strips(const std::string& in, const std::string& raw_format) {
  if (is_raw_name(in)) {
    MALLAT_ASSIGN_OR_RETURN(const io::RawGeometry geometry, raw_input_geometry(in, raw_format));
    return io::open_raw_strips(in, geometry, io::format_from_extension(in) == io::Format::kRaw);
  }
  std::error_code ec;
  if (in.find(',') != std::string::npos && !std::filesystem::exists(in, ec))
    return open_component_strips(split_list(in), raw_format);
  if (!raw_format.empty()) return std::unique_ptr<io::StripReader>();
  return io::open_strips(in);
}

Result<Image> read_encode_input(const std::string& in, const std::string& raw_format, uint64_t max_memory,
                                io::SampleForm form) {
  if (is_raw_name(in)) {
    MALLAT_ASSIGN_OR_RETURN(const io::RawGeometry geometry, raw_input_geometry(in, raw_format));
    return io::read_raw(in, geometry, io::format_from_extension(in) == io::Format::kRaw, max_memory);
  }
  std::error_code ec;
  if (in.find(',') != std::string::npos && !std::filesystem::exists(in, ec))
    return read_component_files(split_list(in), raw_format, max_memory);
  if (!raw_format.empty())
    return invalid_argument("-F gives the geometry of raw input (.raw, .yuv, .rawl) or the sub-sampling of a list "
                            "of per-component files (-i a.pgx,b.pgx,...), not of " + in);
  return io::read_image(in, max_memory, form);
}

}  // namespace mallat::tools
