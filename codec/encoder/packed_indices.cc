#include "codec/encoder/packed_indices.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mallat::codec {
namespace {

constexpr int64_t kGroup = 8;
// A group's byte: its width w (0..32), or past that a run of groups of
// zeros, from 2 (kFirstRun) to 224 (255).
constexpr int kWidest = 32;
constexpr uint8_t kFirstRun = kWidest + 1;
constexpr uint8_t kLongestRun = 255;

uint32_t zig_zag(int32_t q) { return (static_cast<uint32_t>(q) << 1) ^ static_cast<uint32_t>(q >> 31); }
int32_t from_zig_zag(uint32_t z) { return static_cast<int32_t>((z >> 1) ^ (0u - (z & 1u))); }

// The bits byte plane k of a group at `w` bits takes per value.
constexpr int plane_bits(int w, int k) { return std::clamp(w - 8 * k, 0, 8); }

// Where a group of zeros goes: counted in the byte of the run just before
// it (`run`: that byte, null where the group before was not zeros) while
// the run can grow, else a byte of its own at `o`, which becomes the run.
uint8_t* zero_group(uint8_t*& run, uint8_t* o) {
  if (run != nullptr && *run != kLongestRun) {
    *run = *run == 0 ? kFirstRun : static_cast<uint8_t>(*run + 1);
    return o;
  }
  run = o;
  *o = 0;
  return o + 1;
}

// The groups of zeros a group's byte `b` stands for beyond its own (0 for
// a width).
int zero_groups_after(int b) { return b > kWidest ? b - kWidest : 0; }

}  // namespace

size_t packed_indices_bound(int64_t width, int64_t height) {
  const int64_t groups = (width + kGroup - 1) / kGroup * height;
  // 8 bytes more: the fast packer stores whole 8-byte words.
  return static_cast<size_t>(groups * (1 + 4 * kGroup) + 8);
}

size_t pack_indices_reference(PlaneView<const int32_t> indices, int fraction_bits, uint8_t* out) {
  uint8_t* o = out;
  uint8_t* run = nullptr;
  for (int64_t y = 0; y < indices.height; ++y) {
    const int32_t* row = indices.row(y);
    for (int64_t x = 0; x < indices.width; x += kGroup) {
      const int64_t n = std::min(kGroup, indices.width - x);
      uint32_t z[kGroup] = {};
      uint32_t any = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int32_t q = row[x + i];
        const uint32_t magnitude = q < 0 ? 0u - static_cast<uint32_t>(q) : static_cast<uint32_t>(q);
        any |= z[i] = (magnitude >> fraction_bits) != 0 ? zig_zag(q) : 0u;
      }
      const int w = std::bit_width(any);
      if (w == 0) {
        o = zero_group(run, o);
        continue;
      }
      run = nullptr;
      *o++ = static_cast<uint8_t>(w);
      for (int k = 0; k < 4 && plane_bits(w, k) > 0; ++k) {
        const int bits = plane_bits(w, k);
        std::memset(o, 0, static_cast<size_t>(bits));
        for (int i = 0; i < kGroup; ++i) {
          for (int b = 0; b < bits; ++b) {
            const int at = i * bits + b;
            if ((z[i] >> (8 * k + b)) & 1u) o[at / 8] = static_cast<uint8_t>(o[at / 8] | (1u << (at % 8)));
          }
        }
        o += bits;
      }
    }
  }
  return static_cast<size_t>(o - out);
}

bool unpack_indices_reference(const uint8_t* in, size_t bytes, PlaneView<int32_t> out) {
  const uint8_t* p = in;
  const uint8_t* end = in + bytes;
  int zeros = 0;  // groups of zeros left of the run being read
  for (int64_t y = 0; y < out.height; ++y) {
    int32_t* row = out.row(y);
    for (int64_t x = 0; x < out.width; x += kGroup) {
      uint32_t z[kGroup] = {};
      int w = 0;
      if (zeros > 0) {
        --zeros;
      } else {
        if (p >= end) return false;
        zeros = zero_groups_after(*p);
        w = zeros > 0 ? 0 : *p;
        ++p;
        if (end - p < w) return false;
      }
      for (int k = 0; k < 4 && plane_bits(w, k) > 0; ++k) {
        const int bits = plane_bits(w, k);
        for (int i = 0; i < kGroup; ++i) {
          for (int b = 0; b < bits; ++b) {
            const int at = i * bits + b;
            if ((p[at / 8] >> (at % 8)) & 1u) z[i] |= 1u << (8 * k + b);
          }
        }
        p += bits;
      }
      const int64_t n = std::min(kGroup, out.width - x);
      for (int64_t i = 0; i < n; ++i) row[x + i] = from_zig_zag(z[i]);
    }
  }
  return p == end && zeros == 0;
}

#if defined(__x86_64__)
namespace {

// Per group width w and byte plane k: the plane's bits per value, and the
// PEXT/PDEP mask of them (the low bits of each of a word's 8 bytes).
struct PlaneTables {
  uint8_t bits[33][4];
  uint64_t masks[33][4];
};

constexpr PlaneTables plane_tables() {
  PlaneTables t{};
  for (int w = 0; w <= 32; ++w) {
    for (int k = 0; k < 4; ++k) {
      const int bits = plane_bits(w, k);
      t.bits[w][k] = static_cast<uint8_t>(bits);
      t.masks[w][k] = bits == 8 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1) * 0x0101010101010101ull;
    }
  }
  return t;
}

constexpr PlaneTables kPlanes = plane_tables();
constexpr const auto& kPlaneBits = kPlanes.bits;
constexpr const auto& kPlaneMasks = kPlanes.masks;

// Within each 128-bit lane, the 4 values' byte k together (a 4x4 byte
// transpose, its own inverse); then the lanes' plane k joined into 64-bit
// word k.
[[gnu::target("avx2")]] __m256i transpose_bytes() {
  return _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14,
                          3, 7, 11, 15);
}

[[gnu::target("avx2,bmi2")]] size_t pack_fast(PlaneView<const int32_t> indices, int fraction_bits, uint8_t* out) {
  const __m256i transpose = transpose_bytes();
  const __m256i to_planes = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m128i fraction = _mm_cvtsi32_si128(fraction_bits);
  uint8_t* o = out;
  uint8_t* run = nullptr;
  for (int64_t y = 0; y < indices.height; ++y) {
    const int32_t* row = indices.row(y);
    for (int64_t x = 0; x < indices.width; x += kGroup) {
      __m256i q;
      if (x + kGroup <= indices.width) {
        q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x));
      } else {
        int32_t padded[kGroup] = {};
        std::memcpy(padded, row + x, static_cast<size_t>(indices.width - x) * 4);
        q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(padded));
      }
      // Below 2^F in magnitude: 0 (INT32_MIN's magnitude, 2^31, as unsigned).
      const __m256i small = _mm256_cmpeq_epi32(_mm256_srl_epi32(_mm256_abs_epi32(q), fraction), _mm256_setzero_si256());
      q = _mm256_andnot_si256(small, q);
      const __m256i z = _mm256_xor_si256(_mm256_slli_epi32(q, 1), _mm256_srai_epi32(q, 31));
      const __m256i planes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(z, transpose), to_planes);
      if (_mm256_testz_si256(z, _mm256_set1_epi32(~0xff))) {
        // Most groups: 8 bits or fewer, byte plane 0 alone.
        const auto plane = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm256_castsi256_si128(planes)));
        uint64_t any = plane | plane >> 32;
        any |= any >> 16;
        any |= any >> 8;
        const int w = std::bit_width(static_cast<uint8_t>(any));
        if (w == 0) {
          o = zero_group(run, o);
          continue;
        }
        run = nullptr;
        *o = static_cast<uint8_t>(w);
        const uint64_t word = _pext_u64(plane, kPlaneMasks[w][0]);
        std::memcpy(o + 1, &word, 8);
        o += 1 + w;
        continue;
      }
      alignas(32) uint64_t plane[4];
      _mm256_store_si256(reinterpret_cast<__m256i*>(plane), planes);
      // w: the bit length of the 8 values' OR.
      __m256i any = _mm256_or_si256(z, _mm256_shuffle_epi32(z, 0x4e));
      any = _mm256_or_si256(any, _mm256_shuffle_epi32(any, 0xb1));
      const auto all = static_cast<uint32_t>(
          _mm_cvtsi128_si32(_mm_or_si128(_mm256_castsi256_si128(any), _mm256_extracti128_si256(any, 1))));
      const int w = std::bit_width(all);
      run = nullptr;
      *o++ = static_cast<uint8_t>(w);
      for (int k = 0; k < 4; ++k) {
        const uint64_t word = _pext_u64(plane[k], kPlaneMasks[w][k]);
        std::memcpy(o, &word, 8);
        o += kPlaneBits[w][k];
      }
    }
  }
  return static_cast<size_t>(o - out);
}

// A group's 8 indices to row[x ..], those the row has.
[[gnu::target("avx2")]] inline void store_group(int32_t* row, int64_t x, int64_t width, __m256i q) {
  if (x + kGroup <= width) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + x), q);
  } else {
    int32_t padded[kGroup];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(padded), q);
    std::memcpy(row + x, padded, static_cast<size_t>(width - x) * 4);
  }
}

[[gnu::target("avx2,bmi2")]] bool unpack_fast(const uint8_t* in, size_t bytes, PlaneView<int32_t> out) {
  const __m256i transpose = transpose_bytes();
  const __m256i from_planes = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const uint8_t* p = in;
  const uint8_t* end = in + bytes;
  // A group reads whole words up to 1 + 32 bytes past its start: the last
  // groups read from a copy of the block's last bytes with room after them.
  constexpr ptrdiff_t kReach = 1 + 32;
  alignas(8) uint8_t tail[2 * kReach + 8] = {};
  bool in_tail = false;
  int zeros = 0;  // groups of zeros left of the run being read
  for (int64_t y = 0; y < out.height; ++y) {
    int32_t* row = out.row(y);
    for (int64_t x = 0; x < out.width; x += kGroup) {
      if (zeros > 0) {
        --zeros;
        store_group(row, x, out.width, _mm256_setzero_si256());
        continue;
      }
      if (!in_tail && end - p < kReach + 8) {
        const auto left = static_cast<size_t>(end - p);
        std::memcpy(tail, p, left);
        p = tail;
        end = tail + left;
        in_tail = true;
      }
      if (p >= end) return false;
      const int w = *p;
      if (w > kWidest) {
        zeros = zero_groups_after(w);
        ++p;
        store_group(row, x, out.width, _mm256_setzero_si256());
        continue;
      }
      if (end - p - 1 < w) return false;
      __m256i z;
      if (w <= 8) {
        // Most groups: byte plane 0 alone.
        uint64_t word;
        std::memcpy(&word, p + 1, 8);
        z = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(_pdep_u64(word, kPlaneMasks[w][0]))));
      } else {
        uint64_t plane[4];
        const uint8_t* at = p + 1;
        for (int k = 0; k < 4; ++k) {
          uint64_t word;
          std::memcpy(&word, at, 8);
          plane[k] = _pdep_u64(word, kPlaneMasks[w][k]);
          at += kPlaneBits[w][k];
        }
        // In registers (a 32-byte load of four 8-byte stores would wait for
        // them to reach the cache).
        const __m256i planes = _mm256_set_epi64x(static_cast<int64_t>(plane[3]), static_cast<int64_t>(plane[2]),
                                                 static_cast<int64_t>(plane[1]), static_cast<int64_t>(plane[0]));
        z = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(planes, from_planes), transpose);
      }
      p += 1 + w;
      const __m256i q = _mm256_xor_si256(
          _mm256_srli_epi32(z, 1), _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(z, _mm256_set1_epi32(1))));
      store_group(row, x, out.width, q);
    }
  }
  return p == end && zeros == 0;
}

}  // namespace

bool packed_indices_fast() {
  static const bool fast = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
  return fast;
}

size_t pack_indices(PlaneView<const int32_t> indices, int fraction_bits, uint8_t* out) {
  return packed_indices_fast() ? pack_fast(indices, fraction_bits, out)
                               : pack_indices_reference(indices, fraction_bits, out);
}

bool unpack_indices(const uint8_t* in, size_t bytes, PlaneView<int32_t> out) {
  return packed_indices_fast() ? unpack_fast(in, bytes, out) : unpack_indices_reference(in, bytes, out);
}

#else

bool packed_indices_fast() { return false; }

size_t pack_indices(PlaneView<const int32_t> indices, int fraction_bits, uint8_t* out) {
  return pack_indices_reference(indices, fraction_bits, out);
}

bool unpack_indices(const uint8_t* in, size_t bytes, PlaneView<int32_t> out) {
  return unpack_indices_reference(in, bytes, out);
}

#endif

}  // namespace mallat::codec
