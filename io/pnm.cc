// PNM (Netpbm): P5/P6 binary grey/RGB, P2/P3 ASCII grey/RGB. maxval sets the
// precision: the bits needed to hold it (255 -> 8, 4095 -> 12). Samples wider
// than 8 bits are two bytes, big-endian.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/formats.h"
#include "io/text_header.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MALLAT_PNM_X86 1
#else
#define MALLAT_PNM_X86 0
#endif

namespace mallat::io::detail {
namespace {

// No Netpbm image is wider or taller than this; it keeps w*h*c*2 far from overflow.
constexpr uint64_t kMaxSide = uint64_t{1} << 24;

}  // namespace

namespace {

// The plain per-channel loop that the fast paths are tested against.
int32_t deinterleave_plain(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                           int32_t* const* planes, bool largest_of_bytes) {
  int32_t largest = 0;
  for (int c = 0; c < channels; ++c) {
    int32_t* dst = planes[c];
    const uint8_t* src = raster + static_cast<size_t>(c) * bytes_per_sample;
    const size_t step = static_cast<size_t>(channels) * bytes_per_sample;
    int32_t most = 0;
    if (bytes_per_sample == 1) {
      for (uint64_t i = 0; i < pixels; ++i) dst[i] = src[i * step];
      if (largest_of_bytes) most = pixels ? *std::max_element(dst, dst + pixels) : 0;
    } else {
      for (uint64_t i = 0; i < pixels; ++i) {
        const int32_t v = (src[i * step] << 8) | src[i * step + 1];
        dst[i] = v;
        most = std::max(most, v);
      }
    }
    largest = std::max(largest, most);
  }
  return largest;
}

#if MALLAT_PNM_X86
// Byte masks that gather channel c of the pixels in 48 interleaved bytes
// (three blocks of 16) into 16 bytes: 16 one-byte samples, or 8 two-byte
// ones turned little-endian; 0x80 gives 0.
struct SplitMasks {
  uint8_t m[3][3][16];  // [channel][block]
};
constexpr SplitMasks make_split_masks(int bytes_per_sample) {
  SplitMasks t{};
  for (int c = 0; c < 3; ++c) {
    for (int block = 0; block < 3; ++block) {
      for (int j = 0; j < 16; ++j) {
        // Output byte j: sample j (one byte) or byte j % 2 (0: low) of sample j / 2.
        const int at = bytes_per_sample == 1 ? 3 * j + c : 6 * (j / 2) + 2 * c + (j % 2 == 0 ? 1 : 0);
        t.m[c][block][j] = static_cast<uint8_t>(at / 16 == block ? at % 16 : 0x80);
      }
    }
  }
  return t;
}
constexpr SplitMasks kSplit8 = make_split_masks(1);
constexpr SplitMasks kSplit16 = make_split_masks(2);

// Channel c of 48 interleaved bytes.
[[gnu::target("avx2")]] inline __m128i channel_of(const __m128i* in, const SplitMasks& masks, int c) {
  __m128i out = _mm_setzero_si128();
  for (int block = 0; block < 3; ++block) {
    const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(masks.m[c][block]));
    out = _mm_or_si128(out, _mm_shuffle_epi8(in[block], mask));
  }
  return out;
}

// The largest of the 16 bytes (B = 1) or 8 little-endian words (B = 2).
template <int B>
[[gnu::target("avx2")]] int32_t largest_lane(__m128i most) {
  alignas(16) uint8_t lanes[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), most);
  int32_t largest = 0;
  for (int k = 0; k < 16; k += B) largest = std::max(largest, B == 1 ? lanes[k] : lanes[k] | (lanes[k + 1] << 8));
  return largest;
}

// RGB of B bytes a sample (big-endian), 16 / B pixels a step; the largest
// sample (of bytes, only when `largest_of_bytes`).
template <int B>
[[gnu::target("avx2")]] int32_t split_rgb(const uint8_t* raster, uint64_t pixels, int32_t* const* planes,
                                          bool largest_of_bytes) {
  constexpr uint64_t kStep = 16 / B;
  __m128i most = _mm_setzero_si128();
  uint64_t i = 0;
  for (; i + kStep <= pixels; i += kStep) {
    const auto* p = reinterpret_cast<const __m128i*>(raster + 3 * B * i);
    const __m128i in[3] = {_mm_loadu_si128(p), _mm_loadu_si128(p + 1), _mm_loadu_si128(p + 2)};
    for (int c = 0; c < 3; ++c) {
      auto* out = reinterpret_cast<__m256i*>(planes[c] + i);
      if constexpr (B == 1) {
        const __m128i bytes = channel_of(in, kSplit8, c);
        most = _mm_max_epu8(most, bytes);
        _mm256_storeu_si256(out, _mm256_cvtepu8_epi32(bytes));
        _mm256_storeu_si256(out + 1, _mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8)));
      } else {
        const __m128i words = channel_of(in, kSplit16, c);
        most = _mm_max_epu16(most, words);
        _mm256_storeu_si256(out, _mm256_cvtepu16_epi32(words));
      }
    }
  }
  const bool want = B == 2 || largest_of_bytes;
  const int32_t rest = deinterleave_plain(raster + 3 * B * i, pixels - i, 3, B,
                                          std::array<int32_t*, 3>{planes[0] + i, planes[1] + i, planes[2] + i}.data(),
                                          want);
  return want ? std::max(largest_lane<B>(most), rest) : 0;
}

// 16-bit grey, 8 samples a step; the largest sample.
[[gnu::target("avx2")]] int32_t split_gray16(const uint8_t* raster, uint64_t pixels, int32_t* plane) {
  const __m128i swap = _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
  __m128i most = _mm_setzero_si128();
  uint64_t i = 0;
  for (; i + 8 <= pixels; i += 8) {
    const __m128i words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(raster + 2 * i)), swap);
    most = _mm_max_epu16(most, words);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(plane + i), _mm256_cvtepu16_epi32(words));
  }
  int32_t* rest_plane = plane + i;
  return std::max(largest_lane<2>(most), deinterleave_plain(raster + 2 * i, pixels - i, 1, 2, &rest_plane, true));
}
#endif

// Samples at their stored width (Component::stored): the plain loop the
// fast path is tested against. One byte a sample as in the file, two in the
// host's order (the file's are big-endian); the largest sample (of bytes,
// only when `largest_of_bytes`).
int32_t split_stored_plain(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                           uint8_t* const* planes, bool largest_of_bytes) {
  int32_t largest = 0;
  const size_t step = static_cast<size_t>(channels) * bytes_per_sample;
  for (int c = 0; c < channels; ++c) {
    const uint8_t* src = raster + static_cast<size_t>(c) * bytes_per_sample;
    if (bytes_per_sample == 1) {
      uint8_t most = 0;
      for (uint64_t i = 0; i < pixels; ++i) {
        planes[c][i] = src[i * step];
        most = std::max(most, src[i * step]);
      }
      if (largest_of_bytes) largest = std::max<int32_t>(largest, most);
    } else {
      auto* dst = reinterpret_cast<uint16_t*>(planes[c]);
      for (uint64_t i = 0; i < pixels; ++i) {
        const uint16_t v = static_cast<uint16_t>((src[i * step] << 8) | src[i * step + 1]);
        std::memcpy(dst + i, &v, 2);
        largest = std::max<int32_t>(largest, v);
      }
    }
  }
  return largest;
}

#if MALLAT_PNM_X86
// One-byte RGB, 16 pixels a step, into three planes of bytes.
[[gnu::target("avx2")]] int32_t split_rgb_stored(const uint8_t* raster, uint64_t pixels, uint8_t* const* planes,
                                                 bool largest_of_bytes) {
  __m128i most = _mm_setzero_si128();
  uint64_t i = 0;
  for (; i + 16 <= pixels; i += 16) {
    const auto* p = reinterpret_cast<const __m128i*>(raster + 3 * i);
    const __m128i in[3] = {_mm_loadu_si128(p), _mm_loadu_si128(p + 1), _mm_loadu_si128(p + 2)};
    for (int c = 0; c < 3; ++c) {
      const __m128i bytes = channel_of(in, kSplit8, c);
      most = _mm_max_epu8(most, bytes);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(planes[c] + i), bytes);
    }
  }
  const std::array<uint8_t*, 3> rest{planes[0] + i, planes[1] + i, planes[2] + i};
  const int32_t tail = split_stored_plain(raster + 3 * i, pixels - i, 3, 1, rest.data(), largest_of_bytes);
  return largest_of_bytes ? std::max(largest_lane<1>(most), tail) : 0;
}
#endif

}  // namespace

int32_t deinterleave_raster(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                            int32_t* const* planes, bool largest_of_bytes, bool plain) {
#if MALLAT_PNM_X86
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && !plain) {
    if (channels == 3 && bytes_per_sample == 1) return split_rgb<1>(raster, pixels, planes, largest_of_bytes);
    if (channels == 3) return split_rgb<2>(raster, pixels, planes, true);
    if (channels == 1 && bytes_per_sample == 2) return split_gray16(raster, pixels, planes[0]);
  }
#endif
  (void)plain;
  if (channels == 1 && bytes_per_sample == 1) {
    // A straight widening, which the compiler vectorises.
    int32_t* __restrict dst = planes[0];
    for (uint64_t i = 0; i < pixels; ++i) dst[i] = raster[i];
    return largest_of_bytes && pixels ? *std::max_element(dst, dst + pixels) : 0;
  }
  return deinterleave_plain(raster, pixels, channels, bytes_per_sample, planes, largest_of_bytes);
}

int32_t split_stored(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                     uint8_t* const* planes, bool largest_of_bytes, bool plain) {
#if MALLAT_PNM_X86
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && !plain && channels == 3 && bytes_per_sample == 1)
    return split_rgb_stored(raster, pixels, planes, largest_of_bytes);
#endif
  (void)plain;
  return split_stored_plain(raster, pixels, channels, bytes_per_sample, planes, largest_of_bytes);
}

namespace {

// `pixels` interleaved pixels converted a block at a time into a buffer that
// stays in the first-level cache, then appended to each component's
// `Plane` (Component::samples or Component::stored, `per_sample` elements a
// sample): its memory is written once. `split` is deinterleave_raster or
// split_stored.
template <auto Plane, typename Element, typename Split>
int32_t append_in_blocks(const uint8_t* raster, uint64_t pixels, int bytes_per_sample, int per_sample, Image& image,
                         bool largest_of_bytes, Split split) {
  constexpr uint64_t kBlock = 2048;
  const int channels = image.num_components();
  const size_t block_elements = kBlock * static_cast<size_t>(per_sample);
  std::vector<Element> buffer(static_cast<size_t>(channels) * block_elements);
  std::vector<Element*> block(static_cast<size_t>(channels));
  for (int c = 0; c < channels; ++c) block[c] = buffer.data() + c * block_elements;
  int32_t largest = 0;
  const uint64_t pixel_bytes = static_cast<uint64_t>(channels) * bytes_per_sample;
  for (uint64_t i = 0; i < pixels; i += kBlock) {
    const uint64_t n = std::min(kBlock, pixels - i);
    largest = std::max(largest, split(raster + i * pixel_bytes, n, channels, bytes_per_sample, block.data(),
                                      largest_of_bytes, false));
    for (int c = 0; c < channels; ++c) {
      std::vector<Element>& plane = image.components[c].*Plane;
      plane.insert(plane.end(), block[c], block[c] + n * static_cast<uint64_t>(per_sample));
    }
  }
  return largest;
}

}  // namespace

int32_t append_deinterleaved(const uint8_t* raster, uint64_t pixels, int bytes_per_sample, Image& image,
                             bool largest_of_bytes) {
  return append_in_blocks<&Component::samples, int32_t>(raster, pixels, bytes_per_sample, 1, image, largest_of_bytes,
                                                         deinterleave_raster);
}

int32_t append_stored(const uint8_t* raster, uint64_t pixels, int bytes_per_sample, Image& image,
                      bool largest_of_bytes) {
  return append_in_blocks<&Component::stored, uint8_t>(raster, pixels, bytes_per_sample, bytes_per_sample, image,
                                                        largest_of_bytes, split_stored);
}

Status check_maxval(int32_t largest, uint64_t maxval) {
  if (static_cast<uint64_t>(largest) > maxval)
    return corrupt_data("sample " + std::to_string(largest) + " exceeds maxval " + std::to_string(maxval));
  return Status::Ok();
}

Status check_raster_size(uint64_t available, uint64_t width, uint64_t height, int channels, uint64_t maxval) {
  const int bytes_per_sample = maxval < 256 ? 1 : 2;
  const uint64_t row_bytes = width * channels * bytes_per_sample;
  const uint64_t need = row_bytes * height;
  if (available < need)
    return corrupt_data("truncated: the raster of " + std::to_string(width) + "x" + std::to_string(height) + ", " +
                        std::to_string(channels) + " sample(s) of " + std::to_string(bytes_per_sample) +
                        " byte(s) a pixel, needs " + std::to_string(need) + " bytes after the header, the file has " +
                        std::to_string(available) + ": it ends in row " + std::to_string(available / row_bytes) +
                        " (rows counted from 0)");
  return Status::Ok();
}

Result<Image> read_binary_raster(Bytes raster, uint64_t width, uint64_t height, int channels, uint64_t maxval) {
  const int bytes_per_sample = maxval < 256 ? 1 : 2;
  MALLAT_RETURN_IF_ERROR(check_raster_size(raster.size(), width, height, channels, maxval));
  const int precision = std::bit_width(maxval);
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image_to_fill(static_cast<int64_t>(width), static_cast<int64_t>(height),
                                                          channels, precision, false));
  // One-byte samples reach 255 only: their largest is needed under a smaller maxval.
  const int32_t largest = append_deinterleaved(raster.data(), width * height, bytes_per_sample, image, maxval < 255);
  MALLAT_RETURN_IF_ERROR(check_maxval(largest, maxval));
  return image;
}

std::optional<Result<Image>> read_binary_pnm(const InputFile& file, Bytes head, uint64_t max_memory, SampleForm form) {
  if (head.size() < 3 || head[0] != 'P' || (head[1] != '5' && head[1] != '6' && head[1] != '7')) return std::nullopt;
  PnmHeader h;
  std::string tupltype;
  if (head[1] == '7') {
    Result<PamHeader> pam = read_pam_header(head);
    if (!pam.ok()) return std::nullopt;
    h = pam->pnm;
    tupltype = std::move(pam->tupltype);
  } else {
    Result<PnmHeader> pnm = read_pnm_header(head);
    if (!pnm.ok()) return std::nullopt;
    h = *pnm;
  }
  // A header that fills `head` may go on past it: the whole file's reader decides.
  if (h.raster >= head.size() && head.size() < file.size()) return std::nullopt;
  const Status memory = check_image_memory(h.width, h.height, static_cast<uint64_t>(h.channels), max_memory);
  if (!memory.ok()) return memory;
  const uint64_t available = file.size() - std::min<uint64_t>(file.size(), h.raster);
  if (Status size = check_raster_size(available, h.width, h.height, h.channels, h.maxval); !size.ok()) return size;
  const int bytes_per_sample = h.maxval < 256 ? 1 : 2;
  const uint64_t row_bytes = h.width * static_cast<uint64_t>(h.channels) * bytes_per_sample;
  const bool stored = form == SampleForm::kStoredWhereCheap;
  Result<Image> made =
      stored ? make_stored_image_to_fill(static_cast<int64_t>(h.width), static_cast<int64_t>(h.height), h.channels,
                                         std::bit_width(h.maxval))
             : make_image_to_fill(static_cast<int64_t>(h.width), static_cast<int64_t>(h.height), h.channels,
                                  std::bit_width(h.maxval), false);
  if (!made.ok()) return made.status();
  Image& image = *made;
  // Pieces of whole rows of about 1 MiB, which stay in the second-level
  // cache from the read to the conversion.
  const uint64_t rows_per_piece = std::max<uint64_t>(1, (uint64_t{1} << 20) / row_bytes);
  std::vector<uint8_t> piece(static_cast<size_t>(std::min(rows_per_piece, h.height) * row_bytes));
  int32_t largest = 0;
  for (uint64_t y = 0; y < h.height; y += rows_per_piece) {
    const uint64_t rows = std::min(rows_per_piece, h.height - y);
    const Result<size_t> got = file.read_at(h.raster + y * row_bytes, piece.data(), rows * row_bytes);
    if (!got.ok()) return got.status();
    // The file shrank since its size was taken.
    if (*got < rows * row_bytes)
      return check_raster_size(y * row_bytes + *got, h.width, h.height, h.channels, h.maxval);
    largest = std::max(largest, stored ? append_stored(piece.data(), rows * h.width, bytes_per_sample, image,
                                                       h.maxval < 255)
                                       : append_deinterleaved(piece.data(), rows * h.width, bytes_per_sample, image,
                                                              h.maxval < 255));
  }
  if (Status in_range = check_maxval(largest, h.maxval); !in_range.ok()) return in_range;
  if (h.kind == '7') {
    set_pam_color(image, tupltype);
  } else {
    set_color_from_count(image);
  }
  return std::move(image);
}

Result<PnmHeader> read_pnm_header(Bytes file) {
  if (file.size() < 2 || file[0] != 'P') return corrupt_data("not a PNM file (no 'P' magic)");
  const char kind = static_cast<char>(file[1]);
  if (kind == '1' || kind == '4')
    return unsupported(std::string("PNM type P") + kind + " is not supported (only P2, P3, P5, P6, P7)");
  if (kind != '2' && kind != '3' && kind != '5' && kind != '6' && kind != '7')
    return corrupt_data("not a PNM file (unknown type after 'P')");
  PnmHeader h;
  h.kind = kind;
  if (kind == '7') return h;  // PAM: its own header (pam.cc)
  h.ascii = (kind == '2' || kind == '3');
  h.channels = (kind == '3' || kind == '6') ? 3 : 1;
  TextHeader header(file, /*hash_comments=*/true);
  header.set_pos(2);
  MALLAT_ASSIGN_OR_RETURN(h.width, header.number("width", kMaxSide));
  MALLAT_ASSIGN_OR_RETURN(h.height, header.number("height", kMaxSide));
  MALLAT_ASSIGN_OR_RETURN(h.maxval, header.number("maxval", 65535));
  if (h.width == 0 || h.height == 0) return corrupt_data("the width or height is zero");
  if (h.maxval == 0) return corrupt_data("maxval is zero");
  if (!h.ascii) {
    // Exactly one whitespace byte separates maxval from the raster.
    if (!TextHeader::is_space(header.peek())) return corrupt_data("no whitespace after maxval");
    header.advance();
  }
  h.raster = header.pos();
  return h;
}

Result<Image> decode_pnm(Bytes file, uint64_t max_memory) {
  MALLAT_ASSIGN_OR_RETURN(const PnmHeader h, read_pnm_header(file));
  if (h.kind == '7') return decode_pam(file, max_memory);
  const uint64_t width = h.width, height = h.height, maxval = h.maxval;
  const int channels = h.channels;
  const int precision = std::bit_width(maxval);
  const uint64_t count = width * height * channels;
  MALLAT_RETURN_IF_ERROR(check_image_memory(width, height, channels, max_memory));
  TextHeader header(file, /*hash_comments=*/true);
  header.set_pos(h.raster);

  if (!h.ascii) {
    MALLAT_ASSIGN_OR_RETURN(Image image, read_binary_raster(file.subspan(h.raster), width, height, channels, maxval));
    set_color_from_count(image);
    return image;
  }

  // ASCII: every sample takes at least one digit and a separator, so a file
  // smaller than the count cannot hold the image; check before allocating.
  if (file.size() - header.pos() < count) return corrupt_data("truncated: too few samples");
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image(static_cast<int64_t>(width),
                                                  static_cast<int64_t>(height), channels,
                                                  precision, false));
  for (uint64_t i = 0; i < width * height; ++i)
    for (int c = 0; c < channels; ++c) {
      header.skip_space();
      if (header.at_end())
        return corrupt_data("truncated: " + std::to_string(i * channels + c) + " of " +
                            std::to_string(count) + " samples");
      MALLAT_ASSIGN_OR_RETURN(uint64_t v, header.number("sample", maxval));
      image.components[c].samples[i] = static_cast<int32_t>(v);
    }
  set_color_from_count(image);
  return image;
}

namespace {

// Rows are converted and written this many bytes at a time: the buffer
// stays small (a fresh one faults in few pages, and it stays in the
// second-level cache from the conversion to the write) while each write is
// large.
constexpr int64_t kChunkBytes = int64_t{1} << 20;

// Rows [y0, y1) of the image, interleaved, into `out` (B bytes a sample,
// big-endian), a channel at a time; false when a sample lies outside
// 0..maxval.
template <int B>
bool interleave_per_channel(const Image& image, int64_t y0, int64_t y1, uint8_t* out) {
  const int n = image.num_components();
  const int64_t w = image.width();
  const auto maxval = static_cast<uint32_t>(image.components[0].max_value());
  uint32_t over = 0;  // any bit above maxval's, in any sample
  for (int c = 0; c < n; ++c) {
    const int32_t* src = image.components[c].samples.data() + y0 * w;
    uint8_t* dst = out + c * B;
    for (int64_t i = 0; i < (y1 - y0) * w; ++i) {
      const auto v = static_cast<uint32_t>(src[i]);
      over |= v > maxval ? 1u : 0u;
      if constexpr (B == 2) dst[i * n * B] = static_cast<uint8_t>(v >> 8);
      dst[i * n * B + B - 1] = static_cast<uint8_t>(v);
    }
  }
  return over == 0;
}

#if MALLAT_PNM_X86
// Byte masks that put 16 pixels' channel c (16 bytes) at their places in
// the 48 interleaved bytes, 16 at a time (block 0..2); 0x80 gives 0.
struct RgbMasks {
  uint8_t m[3][3][16];  // [block][channel]
};
constexpr RgbMasks make_rgb_masks() {
  RgbMasks t{};
  for (int block = 0; block < 3; ++block) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 16; ++k) {
        const int at = 16 * block + k;
        t.m[block][c][k] = static_cast<uint8_t>(at % 3 == c ? at / 3 : 0x80);
      }
    }
  }
  return t;
}
constexpr RgbMasks kRgbMasks = make_rgb_masks();

// 16 samples as bytes (saturated: a sample out of range is caught by the
// caller's `over` and the bytes are not written out).
[[gnu::target("ssse3")]] inline __m128i bytes_of(const int32_t* p) {
  const auto* v = reinterpret_cast<const __m128i*>(p);
  return _mm_packus_epi16(_mm_packs_epi32(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                          _mm_packs_epi32(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
}

// 8-bit RGB in one pass, 16 pixels at a time with byte shuffles; returns
// the OR of every sample (what interleave_per_channel checks each against).
[[gnu::target("ssse3")]] uint32_t interleave_rgb8(const int32_t* r, const int32_t* g, const int32_t* b, int64_t pixels,
                                                  uint8_t* out) {
  __m128i any = _mm_setzero_si128();
  int64_t i = 0;
  for (; i + 16 <= pixels; i += 16) {
    for (int k = 0; k < 16; k += 4) {
      any = _mm_or_si128(any, _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + i + k)));
      any = _mm_or_si128(any, _mm_loadu_si128(reinterpret_cast<const __m128i*>(g + i + k)));
      any = _mm_or_si128(any, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + k)));
    }
    const __m128i channel[3] = {bytes_of(r + i), bytes_of(g + i), bytes_of(b + i)};
    for (int block = 0; block < 3; ++block) {
      __m128i o = _mm_setzero_si128();
      for (int c = 0; c < 3; ++c) {
        const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRgbMasks.m[block][c]));
        o = _mm_or_si128(o, _mm_shuffle_epi8(channel[c], mask));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * i + 16 * block), o);
    }
  }
  any = _mm_or_si128(any, _mm_srli_si128(any, 8));
  any = _mm_or_si128(any, _mm_srli_si128(any, 4));
  auto all = static_cast<uint32_t>(_mm_cvtsi128_si32(any));
  for (; i < pixels; ++i) {
    all |= static_cast<uint32_t>(r[i]) | static_cast<uint32_t>(g[i]) | static_cast<uint32_t>(b[i]);
    out[3 * i] = static_cast<uint8_t>(r[i]);
    out[3 * i + 1] = static_cast<uint8_t>(g[i]);
    out[3 * i + 2] = static_cast<uint8_t>(b[i]);
  }
  return all;
}
// The same for 16-bit RGB, 8 pixels a step: each sample's two bytes,
// big-endian, at their places in the 48 interleaved bytes.
constexpr RgbMasks make_rgb16_masks() {
  RgbMasks t{};
  for (int block = 0; block < 3; ++block) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 16; ++k) {
        const int at = 16 * block + k, pixel = at / 6, within = at % 6;
        // Channel c's 8 samples as 16-bit lanes: the high byte of lane p is byte 2p + 1.
        t.m[block][c][k] = static_cast<uint8_t>(within / 2 == c ? 2 * pixel + (within % 2 == 0 ? 1 : 0) : 0x80);
      }
    }
  }
  return t;
}
constexpr RgbMasks kRgb16Masks = make_rgb16_masks();

// 8 samples as 16-bit lanes (saturated: one out of range is caught by the
// caller's `over`), and their OR into `any`.
[[gnu::target("avx2")]] inline __m128i words_of(const int32_t* p, __m128i& any) {
  const auto* v = reinterpret_cast<const __m128i*>(p);
  const __m128i lo = _mm_loadu_si128(v), hi = _mm_loadu_si128(v + 1);
  any = _mm_or_si128(any, _mm_or_si128(lo, hi));
  return _mm_packus_epi32(lo, hi);
}

[[gnu::target("avx2")]] inline uint32_t or_of_lanes(__m128i any) {
  any = _mm_or_si128(any, _mm_srli_si128(any, 8));
  any = _mm_or_si128(any, _mm_srli_si128(any, 4));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(any));
}

// 16-bit RGB in one pass; returns the OR of every sample.
[[gnu::target("avx2")]] uint32_t interleave_rgb16(const int32_t* r, const int32_t* g, const int32_t* b,
                                                  int64_t pixels, uint8_t* out) {
  __m128i any = _mm_setzero_si128();
  int64_t i = 0;
  for (; i + 8 <= pixels; i += 8) {
    const __m128i channel[3] = {words_of(r + i, any), words_of(g + i, any), words_of(b + i, any)};
    for (int block = 0; block < 3; ++block) {
      __m128i o = _mm_setzero_si128();
      for (int c = 0; c < 3; ++c) {
        const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRgb16Masks.m[block][c]));
        o = _mm_or_si128(o, _mm_shuffle_epi8(channel[c], mask));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 6 * i + 16 * block), o);
    }
  }
  uint32_t all = or_of_lanes(any);
  for (; i < pixels; ++i) {
    const int32_t v[3] = {r[i], g[i], b[i]};
    for (int c = 0; c < 3; ++c) {
      all |= static_cast<uint32_t>(v[c]);
      out[6 * i + 2 * c] = static_cast<uint8_t>(v[c] >> 8);
      out[6 * i + 2 * c + 1] = static_cast<uint8_t>(v[c]);
    }
  }
  return all;
}

// 16-bit grey, 8 samples a step; returns the OR of every sample.
[[gnu::target("avx2")]] uint32_t interleave_gray16(const int32_t* g, int64_t pixels, uint8_t* out) {
  const __m128i swap = _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
  __m128i any = _mm_setzero_si128();
  int64_t i = 0;
  for (; i + 8 <= pixels; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), _mm_shuffle_epi8(words_of(g + i, any), swap));
  uint32_t all = or_of_lanes(any);
  for (; i < pixels; ++i) {
    all |= static_cast<uint32_t>(g[i]);
    out[2 * i] = static_cast<uint8_t>(g[i] >> 8);
    out[2 * i + 1] = static_cast<uint8_t>(g[i]);
  }
  return all;
}
#endif

}  // namespace

bool interleave_raster(const Image& image, int64_t y0, int64_t y1, uint8_t* out, bool per_channel) {
  const int bytes_per_sample = image.components[0].precision <= 8 ? 1 : 2;
#if MALLAT_PNM_X86
  static const bool ssse3 = __builtin_cpu_supports("ssse3");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const auto maxval = static_cast<uint32_t>(image.components[0].max_value());
  // maxval is 2^precision - 1: a sample is above it exactly when it has a
  // bit above maxval's, so the OR of all of them tells.
  const int n = image.num_components();
  if (!per_channel && (n == 1 || n == 3) && std::has_single_bit(uint64_t{maxval} + 1)) {
    const int64_t w = image.width(), at = y0 * w, pixels = (y1 - y0) * w;
    const auto plane = [&](int c) { return image.components[c].samples.data() + at; };
    if (ssse3 && n == 3 && bytes_per_sample == 1)
      return (interleave_rgb8(plane(0), plane(1), plane(2), pixels, out) & ~maxval) == 0;
    if (avx2 && n == 3 && bytes_per_sample == 2)
      return (interleave_rgb16(plane(0), plane(1), plane(2), pixels, out) & ~maxval) == 0;
    if (avx2 && n == 1 && bytes_per_sample == 2) return (interleave_gray16(plane(0), pixels, out) & ~maxval) == 0;
  }
#endif
  (void)per_channel;
  return bytes_per_sample == 1 ? interleave_per_channel<1>(image, y0, y1, out)
                               : interleave_per_channel<2>(image, y0, y1, out);
}

Status write_binary_raster(const Image& image, const ByteSink& sink, ThreadPool& pool,
                           const std::function<Status()>& out_of_range) {
  const int precision = image.components[0].precision;
  const int n = image.num_components();
  const int bytes_per_sample = precision <= 8 ? 1 : 2;
  const int64_t row_bytes = image.width() * n * bytes_per_sample;
  const int64_t rows_per_chunk = std::max<int64_t>(1, kChunkBytes / row_bytes);
  std::vector<uint8_t> chunk(static_cast<size_t>(std::min(image.height(), rows_per_chunk) * row_bytes));
  // Each chunk's rows are shared among the threads in parts.
  const int64_t parts_per_chunk = pool.size() * 2;
  std::vector<char> in_range(static_cast<size_t>(parts_per_chunk));
  for (int64_t y0 = 0; y0 < image.height(); y0 += rows_per_chunk) {
    const int64_t rows = std::min(rows_per_chunk, image.height() - y0);
    const int64_t parts = std::min(parts_per_chunk, rows);
    pool.parallel_for(parts, [&](int64_t p) {
      const int64_t a = rows * p / parts, b = rows * (p + 1) / parts;
      uint8_t* out = chunk.data() + a * row_bytes;
      in_range[p] = interleave_raster(image, y0 + a, y0 + b, out);
    });
    if (std::count(in_range.begin(), in_range.begin() + parts, 0) > 0) return out_of_range();
    MALLAT_RETURN_IF_ERROR(sink({chunk.data(), static_cast<size_t>(rows * row_bytes)}));
  }
  return Status::Ok();
}

std::string pnm_header(const Image& image) {
  const int n = image.num_components();
  const uint32_t maxval = (1u << image.components[0].precision) - 1;
  return std::string(n == 1 ? "P5" : "P6") + "\n" + std::to_string(image.width()) + " " +
         std::to_string(image.height()) + "\n" + std::to_string(maxval) + "\n";
}

Status encode_pnm(const Image& image, const ByteSink& sink, ThreadPool& pool) {
  // The sample values are checked while they are converted; any other
  // problem, or a sample out of range, gets check_interleavable's message.
  const char* kFormat = "PNM (P5/P6)";
  if (!check_interleavable(image, kFormat, {1, 3}, 16, /*check_values=*/false).ok())
    return check_interleavable(image, kFormat, {1, 3}, 16);
  const std::string header = pnm_header(image);
  MALLAT_RETURN_IF_ERROR(sink({reinterpret_cast<const uint8_t*>(header.data()), header.size()}));
  return write_binary_raster(image, sink, pool, [&] { return check_interleavable(image, kFormat, {1, 3}, 16); });
}

}  // namespace mallat::io::detail
