// PNM (Netpbm): P5/P6 binary grey/RGB, P2/P3 ASCII grey/RGB. maxval sets the
// precision: the bits needed to hold it (255 -> 8, 4095 -> 12). Samples wider
// than 8 bits are two bytes, big-endian.
#include <algorithm>
#include <bit>
#include <functional>
#include <string>
#include <vector>

#include "io/formats.h"
#include "io/text_header.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MALLAT_PNM_SSSE3 1
#else
#define MALLAT_PNM_SSSE3 0
#endif

namespace mallat::io::detail {
namespace {

// No Netpbm image is wider or taller than this; it keeps w*h*c*2 far from overflow.
constexpr uint64_t kMaxSide = uint64_t{1} << 24;

}  // namespace

int32_t deinterleave_raster(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                            int32_t* const* planes, bool largest_of_bytes) {
  // Component by component, so that each inner loop writes one plane
  // through a plain pointer; the largest sample is kept on the way, and the
  // check against maxval needs no second pass over the image.
  if (channels == 3 && bytes_per_sample == 1 && !largest_of_bytes) {
    // 8-bit RGB with maxval 255 (the common case): one pass over the raster
    // instead of three strided ones (scalar: baseline SSE2 has no byte
    // shuffle for the compiler to use). Bytes need no check against 255.
    int32_t* __restrict red = planes[0];
    int32_t* __restrict green = planes[1];
    int32_t* __restrict blue = planes[2];
    for (uint64_t i = 0; i < pixels; ++i) {
      red[i] = raster[3 * i];
      green[i] = raster[3 * i + 1];
      blue[i] = raster[3 * i + 2];
    }
    return 0;
  }
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

Status check_maxval(int32_t largest, uint64_t maxval) {
  if (static_cast<uint64_t>(largest) > maxval)
    return corrupt_data("sample " + std::to_string(largest) + " exceeds maxval " + std::to_string(maxval));
  return Status::Ok();
}

Status check_raster_size(uint64_t available, uint64_t width, uint64_t height, int channels, uint64_t maxval) {
  const uint64_t need = width * height * channels * (maxval < 256 ? 1 : 2);
  if (available < need)
    return corrupt_data("truncated: the raster needs " + std::to_string(need) + " bytes, the file has " +
                        std::to_string(available));
  return Status::Ok();
}

Result<Image> read_binary_raster(Bytes raster, uint64_t width, uint64_t height, int channels, uint64_t maxval) {
  const int bytes_per_sample = maxval < 256 ? 1 : 2;
  MALLAT_RETURN_IF_ERROR(check_raster_size(raster.size(), width, height, channels, maxval));
  const int precision = std::bit_width(maxval);
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image(static_cast<int64_t>(width), static_cast<int64_t>(height), channels,
                                                  precision, false));
  std::vector<int32_t*> planes;
  for (Component& comp : image.components) planes.push_back(comp.samples.data());
  // One-byte samples reach 255 only: their largest is needed under a smaller maxval.
  const int32_t largest =
      deinterleave_raster(raster.data(), width * height, channels, bytes_per_sample, planes.data(), maxval < 255);
  MALLAT_RETURN_IF_ERROR(check_maxval(largest, maxval));
  return image;
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
// stays small (no large allocation to fault in) while each write is large.
constexpr int64_t kChunkBytes = int64_t{4} << 20;

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

#if MALLAT_PNM_SSSE3
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
#endif

}  // namespace

bool interleave_raster(const Image& image, int64_t y0, int64_t y1, uint8_t* out, bool per_channel) {
  const int bytes_per_sample = image.components[0].precision <= 8 ? 1 : 2;
#if MALLAT_PNM_SSSE3
  static const bool ssse3 = __builtin_cpu_supports("ssse3");
  const auto maxval = static_cast<uint32_t>(image.components[0].max_value());
  // maxval is 2^precision - 1: a sample is above it exactly when it has a
  // bit above maxval's, so the OR of all of them tells.
  if (!per_channel && ssse3 && image.num_components() == 3 && bytes_per_sample == 1 &&
      std::has_single_bit(uint64_t{maxval} + 1)) {
    const int64_t w = image.width(), at = y0 * w;
    const uint32_t all = interleave_rgb8(image.components[0].samples.data() + at,
                                         image.components[1].samples.data() + at,
                                         image.components[2].samples.data() + at, (y1 - y0) * w, out);
    return (all & ~maxval) == 0;
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
