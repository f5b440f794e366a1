// TIFF writing without libtiff (so every build can write TIFF): little-endian,
// uncompressed, contiguous samples; 16-bit samples little-endian, other widths
// 1..15 packed MSB-first with each row starting on a byte boundary (as libtiff
// reads them). 1 component is min-is-black grey, 2 grey + alpha, 3 RGB, 4 RGB
// + alpha (unassociated). An ICC profile on the image is written as the
// ICCProfile tag (34675).
//
// A file whose offsets fit 32 bits is classic TIFF (TIFF 6.0) in one strip. A
// larger one is BigTIFF (version 43: 8-byte offsets and counts, 20-byte IFD
// entries), in strips of about 1 MiB so that a reader needs no buffer the size
// of the image.
#include <algorithm>
#include <utility>

#include "io/bits.h"
#include "io/formats.h"

namespace mallat::io::detail {
namespace {

constexpr uint16_t kShort = 3, kLong = 4, kUndefined = 7, kLong8 = 16;
constexpr uint64_t kBigStripBytes = uint64_t{1} << 20;

void store_le64(uint8_t* p, uint64_t v) {
  store_le32(p, static_cast<uint32_t>(v));
  store_le32(p + 4, static_cast<uint32_t>(v >> 32));
}

// One IFD entry: its tag, type, count and value bytes (little-endian). Values
// up to the entry's inline size (4 bytes classic, 8 BigTIFF) sit in the entry,
// left-justified; longer ones are written before the IFD and the entry holds
// their offset.
struct Entry {
  uint16_t tag, type;
  uint64_t count;
  std::vector<uint8_t> value;
};

Entry shorts(uint16_t tag, const std::vector<uint32_t>& v) {
  Entry e{tag, kShort, v.size(), std::vector<uint8_t>(2 * v.size())};
  for (size_t i = 0; i < v.size(); ++i) store_le16(&e.value[2 * i], v[i]);
  return e;
}

Entry longs(uint16_t tag, const std::vector<uint64_t>& v, bool eight) {
  const size_t k = eight ? 8 : 4;
  Entry e{tag, eight ? kLong8 : kLong, v.size(), std::vector<uint8_t>(k * v.size())};
  for (size_t i = 0; i < v.size(); ++i) {
    if (eight) store_le64(&e.value[k * i], v[i]);
    else store_le32(&e.value[k * i], static_cast<uint32_t>(v[i]));
  }
  return e;
}

// The file's form: classic TIFF or BigTIFF.
struct Form {
  bool big;
  uint64_t header() const { return big ? 16 : 8; }
  uint64_t inline_bytes() const { return big ? 8 : 4; }
  uint64_t entry_bytes() const { return big ? 20 : 12; }
  uint64_t ifd_bytes(size_t entries) const {
    return big ? 8 + 20 * entries + 8 : 2 + 12 * entries + 4;
  }
};

uint64_t even(uint64_t v) { return v + (v & 1); }

// Places the out-of-line values after `data_end` (each on a word boundary),
// then the IFD; returns the IFD's offset and sets each long value's offset.
uint64_t lay_out(const Form& form, const std::vector<Entry>& entries, uint64_t data_end,
                 std::vector<uint64_t>* value_offsets) {
  uint64_t at = even(data_end);
  value_offsets->assign(entries.size(), 0);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].value.size() <= form.inline_bytes()) continue;
    (*value_offsets)[i] = at;
    at = even(at + entries[i].value.size());
  }
  return at;
}

// Writes the values and the IFD into `out`, which holds the file from byte
// `base` on (offsets are the file's).
void write_ifd(const Form& form, const std::vector<Entry>& entries,
               const std::vector<uint64_t>& value_offsets, uint64_t ifd_offset, uint8_t* out, uint64_t base) {
  for (size_t i = 0; i < entries.size(); ++i)
    if (value_offsets[i]) std::copy(entries[i].value.begin(), entries[i].value.end(), out + (value_offsets[i] - base));
  uint8_t* ifd = out + (ifd_offset - base);
  if (form.big) store_le64(ifd, entries.size());
  else store_le16(ifd, static_cast<uint32_t>(entries.size()));
  uint8_t* e = ifd + (form.big ? 8 : 2);
  for (size_t i = 0; i < entries.size(); ++i, e += form.entry_bytes()) {
    store_le16(e, entries[i].tag);
    store_le16(e + 2, entries[i].type);
    uint8_t* value = e + (form.big ? 12 : 8);
    if (form.big) store_le64(e + 4, entries[i].count);
    else store_le32(e + 4, static_cast<uint32_t>(entries[i].count));
    if (value_offsets[i]) {
      if (form.big) store_le64(value, value_offsets[i]);
      else store_le32(value, static_cast<uint32_t>(value_offsets[i]));
    } else {
      std::copy(entries[i].value.begin(), entries[i].value.end(), value);
    }
  }
  // The offset of a next IFD after the entries stays 0: no more images.
}

}  // namespace

Result<TiffFrame> tiff_frame(const Image& image, TiffForm requested) {
  const int n = image.num_components();
  const int bits = image.components[0].precision;
  const int64_t w = image.width(), h = image.height();
  const uint64_t row_bytes = packed_bytes(static_cast<uint64_t>(w) * n, bits);
  const uint64_t raster_bytes = row_bytes * static_cast<uint64_t>(h);
  const std::vector<uint8_t>& icc = image.icc_profile;
  if (!icc.empty() && icc.size() < 128) return invalid_argument("an ICC profile shorter than its 128-byte header");
  // Classic TIFF's offsets are 32-bit: the raster, the ICC profile and an IFD
  // of at most 12 entries with BitsPerSample out of line must fit below 4 GiB.
  const bool fits_classic = 8 + even(raster_bytes) + 8 + even(icc.size()) + 2 + 12 * 12 + 4 <= 0xFFFFFFFFu;
  const Form form{requested == TiffForm::kBig || (requested == TiffForm::kAuto && !fits_classic)};
  if (!form.big && !fits_classic) return invalid_argument("the image is too large for a classic TIFF file");
  // Strips: the whole raster in one for classic TIFF; about 1 MiB each for BigTIFF.
  const uint64_t rows_per_strip =
      form.big ? std::clamp<uint64_t>(kBigStripBytes / std::max<uint64_t>(row_bytes, 1), 1, static_cast<uint64_t>(h))
               : static_cast<uint64_t>(h);
  const uint64_t strips = (static_cast<uint64_t>(h) + rows_per_strip - 1) / rows_per_strip;
  std::vector<uint64_t> strip_offsets(strips), strip_counts(strips);
  for (uint64_t s = 0; s < strips; ++s) {
    const uint64_t rows = std::min(rows_per_strip, static_cast<uint64_t>(h) - s * rows_per_strip);
    strip_offsets[s] = form.header() + s * rows_per_strip * row_bytes;
    strip_counts[s] = rows * row_bytes;
  }
  std::vector<uint32_t> bps(static_cast<size_t>(n), static_cast<uint32_t>(bits));
  std::vector<Entry> entries = {
      longs(256, {static_cast<uint64_t>(w)}, false),
      longs(257, {static_cast<uint64_t>(h)}, false),
      shorts(258, bps),
      shorts(259, {1}),                          // no compression
      shorts(262, {n <= 2 ? 1u : 2u}),           // min-is-black or RGB
      longs(273, strip_offsets, form.big),
      shorts(277, {static_cast<uint32_t>(n)}),   // samples per pixel
      longs(278, {rows_per_strip}, false),
      longs(279, strip_counts, form.big),
      shorts(284, {1}),                          // contiguous
  };
  if (n == 2 || n == 4) entries.push_back(shorts(338, {2}));  // unassociated alpha
  if (!icc.empty()) entries.push_back(Entry{34675, kUndefined, icc.size(), icc});
  std::vector<uint64_t> value_offsets;
  const uint64_t raster_end = form.header() + raster_bytes;
  const uint64_t ifd_offset = lay_out(form, entries, raster_end, &value_offsets);
  TiffFrame frame;
  frame.row_bytes = row_bytes;
  frame.head.assign(form.header(), 0);
  frame.head[0] = 'I';
  frame.head[1] = 'I';
  if (form.big) {
    store_le16(&frame.head[2], 43);
    store_le16(&frame.head[4], 8);  // bytes per offset
    store_le16(&frame.head[6], 0);
    store_le64(&frame.head[8], ifd_offset);
  } else {
    store_le16(&frame.head[2], 42);
    store_le32(&frame.head[4], static_cast<uint32_t>(ifd_offset));
  }
  frame.tail.assign(ifd_offset + form.ifd_bytes(entries.size()) - raster_end, 0);
  write_ifd(form, entries, value_offsets, ifd_offset, frame.tail.data(), raster_end);
  return frame;
}

void tiff_rows(const Image& image, int64_t y0, int64_t y1, const TiffFrame& frame, uint8_t* out) {
  const int n = image.num_components();
  const int bits = image.components[0].precision;
  const int64_t w = image.width();
  std::vector<int32_t> row(static_cast<size_t>(w) * n);
  for (int64_t y = y0; y < y1; ++y) {
    for (int64_t x = 0; x < w; ++x)
      for (int c = 0; c < n; ++c) row[x * n + c] = image.components[c].samples[y * w + x];
    uint8_t* dst = out + (y - y0) * frame.row_bytes;
    pack_msb_first(row.data(), 1, bits, w * n, dst);
    // 16-bit samples follow the file's byte order (little-endian here);
    // narrower and odd widths stay a bit stream, most significant bit first.
    if (bits == 16)
      for (uint64_t i = 0; i + 1 < frame.row_bytes; i += 2) std::swap(dst[i], dst[i + 1]);
  }
}

Result<std::vector<uint8_t>> encode_tiff(const Image& image, TiffForm requested) {
  MALLAT_RETURN_IF_ERROR(check_interleavable(image, "TIFF", {1, 2, 3, 4}, 16));
  MALLAT_ASSIGN_OR_RETURN(const TiffFrame frame, tiff_frame(image, requested));
  const uint64_t raster_bytes = frame.row_bytes * static_cast<uint64_t>(image.height());
  std::vector<uint8_t> out(frame.head.size() + raster_bytes + frame.tail.size());
  std::copy(frame.head.begin(), frame.head.end(), out.begin());
  tiff_rows(image, 0, image.height(), frame, out.data() + frame.head.size());
  std::copy(frame.tail.begin(), frame.tail.end(), out.begin() + static_cast<std::ptrdiff_t>(frame.head.size() + raster_bytes));
  return out;
}

}  // namespace mallat::io::detail
