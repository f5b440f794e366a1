// info, compare and convert: the image-file commands, built on io/.
#include <cmath>
#include <cstdio>
#include <string>

#include "common/metrics.h"
#include "io/image_io.h"
#include "tools/commands.h"

namespace mallat::tools {

int fail(const std::string& command, const std::string& message, int status) {
  std::fprintf(stderr, "mallat %s: %s\n", command.c_str(), message.c_str());
  return status;
}

namespace {

bool wants_help(const Args& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

const char* color_space_name(ColorSpace cs) {
  switch (cs) {
    case ColorSpace::kGray: return "grey";
    case ColorSpace::kRgb: return "RGB";
    case ColorSpace::kYcc: return "YCC";
    default: return "unknown";
  }
}

}  // namespace

int info_main(const Args& args) {
  if (wants_help(args) || args.empty()) {
    std::puts("usage: mallat info FILE...\n"
              "Prints each image's size, components, bit depth and signedness, and its ICC\n"
              "profile's size. For a JPEG 2000 codestream or JP2 file: the SIZ components and\n"
              "the JP2 header boxes (colour specification with the ICC profile's class and\n"
              "colour space, palette, component mapping, channel definitions, resolution).");
    return args.empty() ? 2 : 0;
  }
  int status = 0;
  for (const auto& path : args) {
    if (is_jpeg2000_file(path)) {
      if (int s = jpeg2000_info(path); s != 0) status = s;
      continue;
    }
    auto image = io::read_image(path);
    if (!image.ok()) {
      status = fail("info", image.status().message());
      continue;
    }
    std::printf("%s: %lldx%lld, %d component%s, %s%s\n", path.c_str(),
                static_cast<long long>(image->width()), static_cast<long long>(image->height()),
                image->num_components(), image->num_components() == 1 ? "" : "s",
                color_space_name(image->color_space), image->has_alpha ? " + alpha" : "");
    for (int c = 0; c < image->num_components(); ++c) {
      const Component& comp = image->components[c];
      std::printf("  component %d: %lldx%lld, %d bits %s\n", c,
                  static_cast<long long>(comp.width), static_cast<long long>(comp.height),
                  comp.precision, comp.is_signed ? "signed" : "unsigned");
    }
    if (!image->icc_profile.empty()) std::printf("  ICC profile: %zu bytes\n", image->icc_profile.size());
  }
  return status;
}

int compare_main(const Args& args) {
  if (wants_help(args) || args.size() != 2) {
    std::puts("usage: mallat compare A B\n"
              "Prints MSE, PSNR (against 2^bits - 1) and peak absolute error per component\n"
              "and overall. Exit status: 0 when the images could be compared, 1 when they\n"
              "could not be read or their sizes or component counts differ.");
    return args.size() == 2 ? 0 : 2;
  }
  auto a = io::read_image(args[0]);
  if (!a.ok()) return fail("compare", a.status().message());
  auto b = io::read_image(args[1]);
  if (!b.ok()) return fail("compare", b.status().message());
  auto r = compare_images(*a, *b);
  if (!r.ok()) return fail("compare", args[0] + " vs " + args[1] + ": " + r.status().message());
  auto print = [](const char* name, const ErrorStats& s) {
    if (std::isinf(s.psnr)) {
      std::printf("%-12s MSE %-12.6g PSNR      inf dB  peak error %lld\n", name, s.mse,
                  static_cast<long long>(s.peak_error));
    } else {
      std::printf("%-12s MSE %-12.6g PSNR %8.3f dB  peak error %lld\n", name, s.mse, s.psnr,
                  static_cast<long long>(s.peak_error));
    }
  };
  for (size_t c = 0; c < r->components.size(); ++c) {
    print(("component " + std::to_string(c)).c_str(), r->components[c]);
  }
  print("overall", r->overall);
  return 0;
}

int convert_main(const Args& args) {
  if (wants_help(args) || args.size() != 2) {
    std::puts("usage: mallat convert IN OUT\n"
              "Converts between image formats (PNG, TIFF, PNM, PGX, BMP); OUT's format\n"
              "comes from its extension. Samples are copied exactly; a format that cannot\n"
              "hold the image (e.g. 3 components as PGM) is an error, and no partial file\n"
              "is left behind.");
    return args.size() == 2 ? 0 : 2;
  }
  auto image = io::read_image(args[0]);
  if (!image.ok()) return fail("convert", image.status().message());
  Status s = io::write_image(*image, args[1]);
  if (!s.ok()) return fail("convert", s.message());
  return 0;
}

}  // namespace mallat::tools
