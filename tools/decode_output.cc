#include "tools/decode_output.h"

#include <system_error>
#include <unistd.h>

#include "codec/jp2/icc_profile.h"
#include "common/large_buffer.h"
#include "io/image_io.h"
#include "io/raw.h"
#include "io/strip_writer.h"
#include "tools/output_policy.h"

namespace mallat::tools {
namespace {

namespace fs = std::filesystem;

bool per_component(const Image& image, const fs::path& out, const DecodeOutputOptions& options) {
  if (image.num_components() < 2) return false;
  const io::Format format = io::format_from_extension(out);
  return format == io::Format::kPgx || (format == io::Format::kPnm && options.split_pnm);
}

// The restricted ICC profile (I.5.3.3) applied: always with --icc-to-srgb,
// and by default for a picture format that cannot carry the profile, where
// samples left in the profile's space would look wrong in every viewer. One
// file per component (PGX, -split-pnm) is a dump of the components, as the
// ISO reference decodes are: kept as decoded.
Status apply_icc_profile(Image& image, int reduce, io::Format format, bool split, const DecodeOutputOptions& options,
                         std::vector<std::string>* notes) {
  const bool by_default =
      !format_limits(format).icc_profile && !planar(format) && !split && !options.keep_samples;
  if (image.icc_profile.empty() || !(options.icc_to_srgb || by_default)) return Status::Ok();
  Image converted = image;
  // The profile maps whole pixels: sub-sampled components join the grid first.
  if (!codec::components_share_grid(converted)) MALLAT_RETURN_IF_ERROR(codec::upsample_components(converted, reduce));
  const Status s = codec::icc_to_srgb(converted);
  if (!s.ok() && options.icc_to_srgb) return s.with_context("--icc-to-srgb");
  if (!s.ok()) {
    if (notes)
      notes->push_back("the ICC profile could not be applied (" + s.message() + "); the samples are written as decoded");
    return Status::Ok();
  }
  image = std::move(converted);
  if (!options.icc_to_srgb && notes)
    notes->push_back(std::string(io::format_name(format)) +
                     " holds no ICC profile: the file's restricted profile was applied, the samples are sRGB "
                     "(--keep-samples writes them untouched)");
  return Status::Ok();
}

}  // namespace

Status prepare_output(Image& image, int reduce, const fs::path& out, const DecodeOutputOptions& options,
                      std::vector<std::string>* notes) {
  const io::Format format = io::format_from_extension(out);
  const bool split = per_component(image, out, options);
  MALLAT_RETURN_IF_ERROR(apply_icc_profile(image, reduce, format, split, options, notes));
  codec::force_precision(image, options.precision);
  // The interleaved formats hold one size: components of several sizes are
  // brought to the image grid for them, as opj_decompress does.
  const bool upsample = !split && needs_upsampling(image, format);
  if (options.upsample || upsample) {
    if (upsample && !options.upsample && notes)
      notes->push_back("components of different sizes upsampled to the image grid for " +
                       std::string(io::format_name(format)));
    MALLAT_RETURN_IF_ERROR(codec::upsample_components(image, reduce));
  }
  if (options.force_rgb) MALLAT_RETURN_IF_ERROR(codec::force_rgb(image));
  for (int c = 0; c < image.num_components() && notes; ++c)
    if (image.components[c].role == ChannelRole::kPremultipliedOpacity)
      notes->push_back("component " + std::to_string(c) +
                       " is premultiplied opacity (cdef); it is written as the format's alpha, colour samples unchanged");
  if (!image.icc_profile.empty() && !format_limits(format).icc_profile && notes)
    notes->push_back("the ICC profile (" + std::to_string(image.icc_profile.size()) +
                     " bytes) is not written: only PNG and TIFF hold one");
  fit_to_format(image, format, split, notes);
  return Status::Ok();
}

bool output_keeps_samples(const Image& decoded, const Image& written) {
  if (written.num_components() != decoded.num_components()) return false;
  for (int c = 0; c < decoded.num_components(); ++c) {
    const Component &a = written.components[c], &b = decoded.components[c];
    if (a.precision != b.precision || a.is_signed != b.is_signed || a.width != b.width || a.height != b.height)
      return false;
  }
  return true;
}

Result<bool> write_raster_output(Image& image, std::span<const uint8_t> raster, int reduce, const fs::path& out,
                                 const DecodeOutputOptions& options, std::vector<std::string>* notes) {
  const io::Format format = io::format_from_extension(out);
  if (format != io::Format::kPnm || per_component(image, out, options) || !image.icc_profile.empty() ||
      options.upsample || needs_upsampling(image, format))
    return false;
  Image written = image;
  std::vector<std::string> said;
  // An error here is the sample path's too, which gives it with the samples.
  if (!prepare_output(written, reduce, out, options, &said).ok() || !output_keeps_samples(image, written))
    return false;
  MALLAT_RETURN_IF_ERROR(io::write_strips(out, {.format = format, .png = options.png, .threads = options.threads},
                                          [&](io::StripWriter& writer) -> Status {
    MALLAT_RETURN_IF_ERROR(writer.begin(written));
    if (!writer.takes_raster()) return internal_error(out.string() + ": the PNM writer takes no raster");
    return writer.raster_rows(raster, written.height());
  }));
  if (notes) notes->insert(notes->end(), said.begin(), said.end());
  image = std::move(written);
  return true;
}

void unpack_raster(std::span<const uint8_t> raster, Image& image) {
  const int n = image.num_components();
  for (int c = 0; c < n; ++c) {
    Component& comp = image.components[c];
    assign_large(comp.samples, static_cast<size_t>(comp.width * comp.height));
    for (size_t i = 0; i < comp.samples.size(); ++i) comp.samples[i] = raster[i * static_cast<size_t>(n) + c];
  }
}

std::vector<fs::path> output_paths(const Image& image, const fs::path& out, const DecodeOutputOptions& options) {
  if (!per_component(image, out, options)) return {out};
  const std::string ext = io::format_from_extension(out) == io::Format::kPgx ? ".pgx" : ".pgm";
  std::vector<fs::path> paths;
  for (int c = 0; c < image.num_components(); ++c) paths.push_back(io::component_path(out, c, ext));
  return paths;
}

std::string raw_read_back_message(const Image& image, const fs::path& out) {
  auto geometry = io::raw_geometry_of(image);
  return geometry.ok() ? "mallat decode: " + out.string() + ": read it back with -F " + io::raw_geometry_text(*geometry)
                       : "mallat decode: note: " + out.string() + ": " + geometry.status().message();
}

Status write_outputs(const Image& image, const fs::path& out, const DecodeOutputOptions& options) {
  const auto paths = output_paths(image, out, options);
  if (paths.size() == 1) return io::write_image(image, out, {.png = options.png, .threads = options.threads});
  std::vector<fs::path> temps;
  auto remove_temps = [&] {
    std::error_code ec;
    for (const auto& t : temps) fs::remove(t, ec);
  };
  for (size_t c = 0; c < paths.size(); ++c) {
    fs::path temp = paths[c];
    std::string name = paths[c].filename().string();
    name.insert(0, 1, '.');
    name.append(".part").append(std::to_string(::getpid()));
    temp.replace_filename(name);
    temps.push_back(temp);
    Image one;
    one.components.push_back(image.components[c]);
    one.components[0].dx = one.components[0].dy = 1;  // a file of its own holds it at its size
    one.color_space = ColorSpace::kGray;
    const io::Format format = io::format_from_extension(paths[c]);
    Status s = format == io::Format::kPgx ? io::write_pgx_component(image.components[c], temp)
                                          : io::write_image(one, temp, {.format = format, .png = options.png, .threads = options.threads});
    if (!s.ok()) {
      remove_temps();
      return s.with_context(paths[c].string());
    }
  }
  for (size_t c = 0; c < paths.size(); ++c) {
    std::error_code ec;
    fs::rename(temps[c], paths[c], ec);
    if (ec) {
      remove_temps();
      for (size_t k = 0; k < c; ++k) fs::remove(paths[k], ec);
      return io_error(paths[c].string() + ": cannot rename into place: " + ec.message());
    }
  }
  return Status::Ok();
}

}  // namespace mallat::tools
