// BMP (Windows bitmap): uncompressed 1/4/8-bit palette, 24-bit BGR and 32-bit
// BGRX/BGRA rows, bottom-up (positive height) or top-down (negative height),
// each row padded to 4 bytes. A palette whose entries are all grey gives a
// grey image. RLE and other compressions are refused.
#include <cstdlib>

#include "io/bits.h"
#include "io/formats.h"

namespace mallat::io::detail {
namespace {

constexpr int64_t kMaxSide = int64_t{1} << 24;
constexpr uint32_t kBiRgb = 0, kBiBitfields = 3;

struct Rgba {
  uint8_t r, g, b, a;
};

}  // namespace

Result<Image> decode_bmp(Bytes file, uint64_t max_memory) {
  if (file.size() < 14 + 12) return corrupt_data("truncated: shorter than the BMP headers");
  if (file[0] != 'B' || file[1] != 'M') return corrupt_data("not a BMP file (no 'BM' magic)");
  const uint32_t data_offset = load_le32(&file[10]);
  const uint32_t info_size = load_le32(&file[14]);
  if (info_size != 12 && info_size < 40)
    return unsupported("BMP info header of " + std::to_string(info_size) + " bytes");
  if (file.size() < 14 + uint64_t{info_size}) return corrupt_data("truncated: in the info header");
  const uint8_t* info = &file[14];
  int64_t width, height;
  int bpp;
  uint32_t compression = kBiRgb, colors_used = 0;
  if (info_size == 12) {  // OS/2 BITMAPCOREHEADER: 16-bit sizes, 3-byte palette entries
    width = load_le16(info + 4);
    height = load_le16(info + 6);
    bpp = static_cast<int>(load_le16(info + 10));
  } else {
    width = static_cast<int32_t>(load_le32(info + 4));
    height = static_cast<int32_t>(load_le32(info + 8));
    bpp = static_cast<int>(load_le16(info + 14));
    compression = load_le32(info + 16);
    colors_used = load_le32(info + 32);
  }
  const bool top_down = height < 0;
  height = std::llabs(height);
  if (width <= 0 || height <= 0) return corrupt_data("the width or height is not positive");
  if (width > kMaxSide || height > kMaxSide) return resource_limit("the image is too large");

  // 32-bit files may say BI_BITFIELDS; we take only the usual BGRA layout.
  bool alpha = false;
  if (compression == kBiBitfields && bpp == 32 && info_size >= 52) {
    const uint32_t r = load_le32(info + 40), g = load_le32(info + 44), b = load_le32(info + 48);
    const uint32_t a = info_size >= 56 ? load_le32(info + 52) : 0;
    if (r != 0x00FF0000u || g != 0x0000FF00u || b != 0x000000FFu || (a != 0 && a != 0xFF000000u))
      return unsupported("32-bit BMP with colour masks other than BGRA");
    alpha = (a != 0);
  } else if (compression != kBiRgb) {
    return unsupported("BMP compression " + std::to_string(compression) +
                       " (only uncompressed files are read)");
  }
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32)
    return unsupported(std::to_string(bpp) + "-bit BMP");

  // The palette follows the info header.
  std::vector<Rgba> palette;
  bool grey_palette = true;
  if (bpp <= 8) {
    const uint64_t entries = colors_used ? colors_used : (uint64_t{1} << bpp);
    if (entries > 256) return corrupt_data("a palette of more than 256 colours");
    const int entry_size = info_size == 12 ? 3 : 4;
    const uint64_t start = 14 + uint64_t{info_size};
    if (file.size() < start + entries * entry_size) return corrupt_data("truncated: in the palette");
    for (uint64_t i = 0; i < entries; ++i) {
      const uint8_t* e = &file[start + i * entry_size];
      palette.push_back({e[2], e[1], e[0], 255});
      grey_palette = grey_palette && e[0] == e[1] && e[1] == e[2];
    }
  }

  const uint64_t stride = (static_cast<uint64_t>(width) * bpp + 31) / 32 * 4;
  if (data_offset > file.size() || file.size() - data_offset < stride * height)
    return corrupt_data("truncated: the pixel rows need " + std::to_string(stride * height) +
                        " bytes after offset " + std::to_string(data_offset));
  const int channels = bpp <= 8 ? (grey_palette ? 1 : 3) : (alpha ? 4 : 3);
  MALLAT_RETURN_IF_ERROR(check_image_memory(static_cast<uint64_t>(width), static_cast<uint64_t>(height), channels, max_memory));
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image(width, height, channels, 8, false));
  std::vector<int32_t> indices(bpp <= 8 ? width : 0);
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = &file[data_offset + stride * (top_down ? y : height - 1 - y)];
    int32_t* out[4];
    for (int c = 0; c < channels; ++c) out[c] = image.components[c].samples.data() + y * width;
    if (bpp <= 8) {
      unpack_msb_first(row, bpp, width, indices.data());
      for (int64_t x = 0; x < width; ++x) {
        const size_t idx = static_cast<size_t>(indices[x]);
        if (idx >= palette.size()) return corrupt_data("a pixel indexes past the palette");
        const Rgba& e = palette[idx];
        out[0][x] = e.r;
        if (channels == 3) {
          out[1][x] = e.g;
          out[2][x] = e.b;
        }
      }
    } else {
      const int step = bpp / 8;
      for (int64_t x = 0; x < width; ++x) {
        const uint8_t* p = row + x * step;
        out[0][x] = p[2];
        out[1][x] = p[1];
        out[2][x] = p[0];
        if (alpha) out[3][x] = p[3];
      }
    }
  }
  set_color_from_count(image);
  return image;
}

Result<std::vector<uint8_t>> encode_bmp(const Image& image) {
  MALLAT_RETURN_IF_ERROR(check_interleavable(image, "BMP", {1, 3}, 8));
  const int n = image.num_components();
  if (image.components[0].precision != 8)
    return invalid_argument("BMP holds 8 bits per sample, not " +
                            std::to_string(image.components[0].precision));
  const int64_t width = image.width(), height = image.height();
  const int bpp = n == 1 ? 8 : 24;
  const uint64_t stride = (static_cast<uint64_t>(width) * bpp + 31) / 32 * 4;
  const uint32_t palette_bytes = n == 1 ? 256 * 4 : 0;
  const uint32_t offset = 14 + 40 + palette_bytes;
  const uint64_t total = offset + stride * height;
  if (total > 0xFFFFFFFFu) return invalid_argument("the image is too large for BMP");
  std::vector<uint8_t> out(total, 0);
  out[0] = 'B';
  out[1] = 'M';
  store_le32(&out[2], static_cast<uint32_t>(total));
  store_le32(&out[10], offset);
  uint8_t* info = &out[14];
  store_le32(info, 40);
  store_le32(info + 4, static_cast<uint32_t>(width));
  store_le32(info + 8, static_cast<uint32_t>(height));  // positive: rows bottom-up
  store_le16(info + 12, 1);
  store_le16(info + 14, bpp);
  store_le32(info + 20, static_cast<uint32_t>(stride * height));
  if (n == 1) {
    store_le32(info + 32, 256);
    for (int i = 0; i < 256; ++i)
      for (int k = 0; k < 3; ++k) out[54 + 4 * i + k] = static_cast<uint8_t>(i);
  }
  for (int64_t y = 0; y < height; ++y) {
    uint8_t* row = &out[offset + stride * (height - 1 - y)];
    for (int64_t x = 0; x < width; ++x)
      for (int c = 0; c < n; ++c)  // BGR order
        row[x * n + (n - 1 - c)] = static_cast<uint8_t>(image.components[c].samples[y * width + x]);
  }
  return out;
}

}  // namespace mallat::io::detail
