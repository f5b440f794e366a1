// TIFF writing without libtiff (so every build can write TIFF): baseline
// little-endian TIFF, uncompressed, one strip, contiguous samples; 16-bit
// samples little-endian, other widths 1..15 packed MSB-first with each row
// starting on a byte boundary (as libtiff reads them). 1 component is
// min-is-black grey, 2 grey + alpha, 3 RGB, 4 RGB + alpha (unassociated).
// An ICC profile on the image is written as the ICCProfile tag (34675).
#include <algorithm>
#include <utility>

#include "io/bits.h"
#include "io/formats.h"

namespace mallat::io::detail {
namespace {

constexpr uint16_t kShort = 3, kLong = 4, kUndefined = 7;

struct Entry {
  uint16_t tag, type;
  uint32_t count, value;  // value: inline for one value, else an offset
};

}  // namespace

Result<std::vector<uint8_t>> encode_tiff(const Image& image) {
  MALLAT_RETURN_IF_ERROR(check_interleavable(image, "TIFF", {1, 2, 3, 4}, 16));
  const int n = image.num_components();
  const int bits = image.components[0].precision;
  const int64_t w = image.width(), h = image.height();
  const uint64_t row_bytes = packed_bytes(static_cast<uint64_t>(w) * n, bits);
  const uint64_t strip_bytes = row_bytes * static_cast<uint64_t>(h);
  // Pixels at offset 8; then BitsPerSample's array (when it does not fit
  // inline), the ICC profile, then the IFD on a word boundary. Classic TIFF
  // offsets are 32-bit.
  const std::vector<uint8_t>& icc = image.icc_profile;
  if (!icc.empty() && icc.size() < 128) return invalid_argument("an ICC profile shorter than its 128-byte header");
  const uint64_t bps_offset = 8 + strip_bytes + (strip_bytes & 1);
  const uint64_t icc_offset = bps_offset + (n > 2 ? 2 * n : 0);
  const uint64_t ifd_offset = icc_offset + icc.size() + (icc.size() & 1);
  if (ifd_offset + 2 + 12 * 12 + 4 > 0xFFFFFFFFu)
    return invalid_argument("the image is too large for a classic TIFF file");

  std::vector<Entry> entries = {
      {256, kLong, 1, static_cast<uint32_t>(w)},
      {257, kLong, 1, static_cast<uint32_t>(h)},
      {258, kShort, static_cast<uint32_t>(n),
       n > 2 ? static_cast<uint32_t>(bps_offset)
             : static_cast<uint32_t>(bits) | (n == 2 ? static_cast<uint32_t>(bits) << 16 : 0)},
      {259, kShort, 1, 1},                          // no compression
      {262, kShort, 1, n <= 2 ? 1u : 2u},           // min-is-black or RGB
      {273, kLong, 1, 8},                           // the strip's offset
      {277, kShort, 1, static_cast<uint32_t>(n)},   // samples per pixel
      {278, kLong, 1, static_cast<uint32_t>(h)},    // rows per strip: all
      {279, kLong, 1, static_cast<uint32_t>(strip_bytes)},
      {284, kShort, 1, 1},                          // contiguous
  };
  if (n == 2 || n == 4) entries.push_back({338, kShort, 1, 2});  // unassociated alpha
  if (!icc.empty())  // a profile is at least its 128-byte header: never inline
    entries.push_back({34675, kUndefined, static_cast<uint32_t>(icc.size()), static_cast<uint32_t>(icc_offset)});

  std::vector<uint8_t> out(ifd_offset + 2 + 12 * entries.size() + 4, 0);
  out[0] = 'I';
  out[1] = 'I';
  store_le16(&out[2], 42);
  store_le32(&out[4], static_cast<uint32_t>(ifd_offset));
  std::vector<int32_t> row(static_cast<size_t>(w) * n);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x)
      for (int c = 0; c < n; ++c) row[x * n + c] = image.components[c].samples[y * w + x];
    uint8_t* dst = &out[8 + y * row_bytes];
    pack_msb_first(row.data(), 1, bits, w * n, dst);
    // 16-bit samples follow the file's byte order (little-endian here);
    // narrower and odd widths stay a bit stream, most significant bit first.
    if (bits == 16)
      for (uint64_t i = 0; i + 1 < row_bytes; i += 2) std::swap(dst[i], dst[i + 1]);
  }
  if (n > 2)
    for (int c = 0; c < n; ++c) store_le16(&out[bps_offset + 2 * c], static_cast<uint32_t>(bits));
  std::copy(icc.begin(), icc.end(), out.begin() + static_cast<std::ptrdiff_t>(icc_offset));
  uint8_t* ifd = &out[ifd_offset];
  store_le16(ifd, static_cast<uint32_t>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    uint8_t* e = ifd + 2 + 12 * i;
    store_le16(e, entries[i].tag);
    store_le16(e + 2, entries[i].type);
    store_le32(e + 4, entries[i].count);
    // Inline SHORTs sit left-justified in the 4-byte field: in little-endian
    // order that is the low half, so one 32-bit store serves both types.
    store_le32(e + 8, entries[i].value);
  }
  // The 4 bytes after the entries (offset of a next IFD) stay 0: no more images.
  return out;
}

}  // namespace mallat::io::detail
