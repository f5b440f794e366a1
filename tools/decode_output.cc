#include "tools/decode_output.h"

#include <system_error>
#include <unistd.h>

#include "codec/jp2/icc_profile.h"
#include "io/image_io.h"

namespace mallat::tools {
namespace {

namespace fs = std::filesystem;

bool per_component(const Image& image, const fs::path& out, const DecodeOutputOptions& options) {
  if (image.num_components() < 2) return false;
  const io::Format format = io::format_from_extension(out);
  return format == io::Format::kPgx || (format == io::Format::kPnm && options.split_pnm);
}

}  // namespace

Status prepare_output(Image& image, int reduce, const fs::path& out, const DecodeOutputOptions& options,
                      std::vector<std::string>* notes) {
  if (options.icc_to_srgb && !image.icc_profile.empty()) {
    // The profile maps whole pixels: sub-sampled components join the grid first.
    if (!codec::components_share_grid(image)) MALLAT_RETURN_IF_ERROR(codec::upsample_components(image, reduce));
    MALLAT_RETURN_IF_ERROR(codec::icc_to_srgb(image).with_context("--icc-to-srgb"));
  }
  codec::force_precision(image, options.precision);
  // PNM, PNG, TIFF and BMP interleave samples: sub-sampled components are
  // always brought to the image grid for them, as opj_decompress does.
  const bool interleaved = !per_component(image, out, options) && io::format_from_extension(out) != io::Format::kPgx;
  if (options.upsample || (interleaved && !codec::components_share_grid(image)))
    MALLAT_RETURN_IF_ERROR(codec::upsample_components(image, reduce));
  if (options.force_rgb) MALLAT_RETURN_IF_ERROR(codec::force_rgb(image));
  const io::Format format = io::format_from_extension(out);
  for (int c = 0; c < image.num_components() && notes; ++c)
    if (image.components[c].role == ChannelRole::kPremultipliedOpacity)
      notes->push_back("component " + std::to_string(c) +
                       " is premultiplied opacity (cdef); it is written as the format's alpha, colour samples unchanged");
  if (!image.icc_profile.empty() && format != io::Format::kPng && format != io::Format::kTiff && notes)
    notes->push_back("the ICC profile (" + std::to_string(image.icc_profile.size()) +
                     " bytes) is not written: only PNG and TIFF hold one (--icc-to-srgb converts to sRGB)");
  return Status::Ok();
}

std::vector<fs::path> output_paths(const Image& image, const fs::path& out, const DecodeOutputOptions& options) {
  if (!per_component(image, out, options)) return {out};
  const std::string ext = io::format_from_extension(out) == io::Format::kPgx ? ".pgx" : ".pgm";
  std::vector<fs::path> paths;
  for (int c = 0; c < image.num_components(); ++c) {
    fs::path p = out;
    p.replace_filename(out.stem().string() + "_" + std::to_string(c) + ext);
    paths.push_back(p);
  }
  return paths;
}

Status write_outputs(const Image& image, const fs::path& out, const DecodeOutputOptions& options) {
  const auto paths = output_paths(image, out, options);
  if (paths.size() == 1) return io::write_image(image, out, {.threads = options.threads});
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
    one.color_space = ColorSpace::kGray;
    const io::Format format = io::format_from_extension(paths[c]);
    Status s = format == io::Format::kPgx ? io::write_pgx_component(image.components[c], temp)
                                          : io::write_image(one, temp, {.format = format, .threads = options.threads});
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
