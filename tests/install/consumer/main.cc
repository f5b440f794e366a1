// A program built against an installed mallat (tests/install): it makes a
// small image, encodes it losslessly, decodes it and checks every sample;
// with a file name it also writes the image as PNG and reads it back (the io
// library and libpng). Exit status 0 when everything matches, 1 otherwise.
#include <cstdint>
#include <cstdio>
#include <utility>

#include "codec/codec.h"
#include "common/image.h"
#include "common/status.h"
#include "io/image_io.h"

namespace {

bool same_samples(const mallat::Image& a, const mallat::Image& b, const char* what) {
  if (a.num_components() != b.num_components()) {
    std::fprintf(stderr, "%s: %d components, expected %d\n", what, b.num_components(),
                 a.num_components());
    return false;
  }
  for (int c = 0; c < a.num_components(); ++c) {
    const mallat::Component& x = a.components[c];
    const mallat::Component& y = b.components[c];
    if (x.width != y.width || x.height != y.height || x.precision != y.precision ||
        x.is_signed != y.is_signed || x.samples.size() != y.samples.size()) {
      std::fprintf(stderr, "%s: component %d is %lldx%lld, %d bits, expected %lldx%lld, %d bits\n",
                   what, c, (long long)y.width, (long long)y.height, y.precision,
                   (long long)x.width, (long long)x.height, x.precision);
      return false;
    }
    for (size_t i = 0; i < x.samples.size(); ++i) {
      if (x.samples[i] != y.samples[i]) {
        std::fprintf(stderr, "%s: component %d sample %zu is %d, expected %d\n", what, c, i,
                     y.samples[i], x.samples[i]);
        return false;
      }
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // 3 x 8-bit components of an odd size, a pattern with edges and noise.
  mallat::Result<mallat::Image> made = mallat::make_image(45, 29, 3, 8, false);
  if (!made.ok()) {
    std::fprintf(stderr, "make_image: %s\n", made.status().to_string().c_str());
    return 1;
  }
  mallat::Image image = std::move(made).value();
  image.color_space = mallat::ColorSpace::kRgb;
  uint32_t noise = 12345;
  for (int c = 0; c < image.num_components(); ++c) {
    mallat::Component& component = image.components[c];
    for (int64_t y = 0; y < component.height; ++y) {
      for (int64_t x = 0; x < component.width; ++x) {
        noise = noise * 1103515245u + 12345u;
        int32_t v = static_cast<int32_t>((x * 5 + y * 3 + c * 70) % 256);
        if ((x / 8 + y / 8) % 2) v = 255 - v;
        v = (v + static_cast<int32_t>((noise >> 16) % 9)) % 256;
        component.samples[y * component.width + x] = v;
      }
    }
  }

  mallat::codec::EncodeOptions options;  // reversible 5/3, every pass: lossless
  options.resolutions = 4;
  options.threads = 1;
  mallat::Result<std::vector<uint8_t>> encoded = mallat::codec::encode(image, options);
  if (!encoded.ok()) {
    std::fprintf(stderr, "encode: %s\n", encoded.status().to_string().c_str());
    return 1;
  }
  mallat::Result<mallat::Image> decoded =
      mallat::codec::decode(*encoded, mallat::codec::DecodeOptions{});
  if (!decoded.ok()) {
    std::fprintf(stderr, "decode: %s\n", decoded.status().to_string().c_str());
    return 1;
  }
  if (!same_samples(image, *decoded, "decoded")) return 1;
  std::printf("encoded %lldx%lld x%d to %zu bytes; decoded, every sample equal\n",
              (long long)image.width(), (long long)image.height(), image.num_components(),
              encoded->size());

  if (argc > 1) {
    if (mallat::Status s = mallat::io::write_image(*decoded, argv[1]); !s.ok()) {
      std::fprintf(stderr, "write_image: %s\n", s.to_string().c_str());
      return 1;
    }
    mallat::Result<mallat::Image> read = mallat::io::read_image(argv[1]);
    if (!read.ok()) {
      std::fprintf(stderr, "read_image: %s\n", read.status().to_string().c_str());
      return 1;
    }
    if (!same_samples(image, *read, argv[1])) return 1;
    std::printf("wrote and read %s, every sample equal\n", argv[1]);
  }
  return 0;
}
