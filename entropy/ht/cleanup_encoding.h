// What the HT cleanup encoders (entropy/ht/cpu/cleanup_encoder_kernel.h and its plain
// reference) share (15444-15 Annex C): the UVLC codes of a quad pair's
// residuals, and the segment's assembly from its three streams with the
// interface locator. Internal to the HT coder.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/host_device.h"
#include "entropy/ht/bit_streams.h"

namespace mallat::entropy::ht {

// The UVLC prefix and suffix of u (Annex C): 1, 01, 001 + 1 bit, 000 + 5
// bits, first bit lowest. The encoder's u is at most 31, below the
// extension's range.
struct Uvlc {
  uint32_t prefix = 0, suffix = 0;
  int prefix_length = 0, suffix_length = 0;
};
MALLAT_HD inline Uvlc uvlc(int u) {
  if (u == 0) return {};
  if (u == 1) return {1, 0, 1, 0};
  if (u == 2) return {2, 0, 2, 0};
  if (u <= 4) return {4, static_cast<uint32_t>(u - 3), 3, 1};
  return {0, static_cast<uint32_t>(u - 5), 3, 5};
}

// Two quads' residuals: both prefixes, then both suffixes.
// Vlc: BackwardWriter, or one derived from it with a faster put.
template <class Vlc>
MALLAT_HD inline void put_uvlc_pair(Vlc& vlc, int u0, int u1) {
  const Uvlc a = uvlc(u0), b = uvlc(u1);
  vlc.put(a.prefix, a.prefix_length);
  vlc.put(b.prefix, b.prefix_length);
  vlc.put(a.suffix, a.suffix_length);
  vlc.put(b.suffix, b.suffix_length);
}

// The MEL and VLC streams meet in the middle of the MEL+VLC part: their
// last bytes are fused into one when the bits each needs agree (Annex C,
// as OpenJPH terminates them), else written one each.
template <class Mel, class Vlc, class Out>
MALLAT_HD inline void terminate_mel_vlc(Mel& mel, Vlc& vlc, Out& mel_bytes) {
  uint8_t mel_last = 0, mel_mask = 0;
  mel.finish(mel_last, mel_mask);
  const int vlc_bits = vlc.pending_bits();
  const auto vlc_mask = static_cast<uint8_t>(vlc_bits == 0 ? 0 : 0xFF >> (8 - vlc_bits));
  const uint8_t vlc_last = vlc.pending();
  if ((mel_mask | vlc_mask) == 0) return;
  const auto fuse = static_cast<uint8_t>(mel_last | vlc_last);
  if ((((fuse ^ mel_last) & mel_mask) | ((fuse ^ vlc_last) & vlc_mask)) == 0 && fuse != 0xFF &&
      vlc.bytes().size() > 1) {
    mel_bytes.push_back(fuse);
  } else {
    mel_bytes.push_back(mel_last);
    vlc.flush();
  }
}

// A quad pair's residuals u[0], u[1] (0: none coded).
template <class Vlc, class Mel>
MALLAT_HD inline void put_uvlc(Vlc& vlc, Mel& mel, bool initial, const int u[2]) {
  if (initial && u[0] > 0 && u[1] > 0) {
    // In the initial row a quad pair with both residuals non-zero says
    // by a MEL event whether both exceed 2 (then each is coded less 2);
    // if not and the first exceeds 2, the second (1 or 2) is one bit.
    const bool both_above_2 = u[0] > 2 && u[1] > 2;
    mel.encode(both_above_2);
    if (both_above_2) {
      put_uvlc_pair(vlc, u[0] - 2, u[1] - 2);
    } else if (u[0] > 2) {
      const Uvlc a = uvlc(u[0]);
      vlc.put(a.prefix, a.prefix_length);
      vlc.put(static_cast<uint32_t>(u[1] - 1), 1);
      vlc.put(a.suffix, a.suffix_length);
    } else {
      put_uvlc_pair(vlc, u[0], u[1]);
    }
  } else {
    put_uvlc_pair(vlc, u[0], u[1]);
  }
}

// After the MagSgn bytes already in `segment`: MEL and VLC terminated
// together, then the interface locator. The VLC writer holds fewer than 8
// bits. Out: std::vector or BoundedBytes (whose overflow the caller checks).
template <class Mel, class Vlc, class Out>
MALLAT_HD inline void append_mel_vlc(Mel& mel, Vlc& vlc, Out& mel_bytes, const Out& vlc_bytes, Out& segment) {
  terminate_mel_vlc(mel, vlc, mel_bytes);
  const size_t scup = mel_bytes.size() + vlc_bytes.size();
  for (size_t i = 0; i < mel_bytes.size(); ++i) segment.push_back(mel_bytes.data()[i]);
  for (size_t i = vlc_bytes.size(); i > 0; --i) segment.push_back(vlc_bytes.data()[i - 1]);
  // The interface locator word: Scup's high 8 bits in the last byte, its
  // low 4 in the low nibble of the byte before.
  const size_t lcup = segment.size();
  if (lcup < scup || lcup < 2) return;  // a bounded segment that overflowed
  uint8_t* bytes = segment.data();
  bytes[lcup - 1] = static_cast<uint8_t>(scup >> 4);
  bytes[lcup - 2] = static_cast<uint8_t>((bytes[lcup - 2] & 0xF0) | (scup & 0xF));
}

// The segment: MagSgn (finished), then append_mel_vlc.
inline void finish_segment(MelEncoder& mel, BackwardWriter& vlc, const std::vector<uint8_t>& ms_bytes,
                           std::vector<uint8_t>& mel_bytes, const std::vector<uint8_t>& vlc_bytes,
                           std::vector<uint8_t>& segment) {
  segment.clear();
  segment.reserve(ms_bytes.size() + mel_bytes.size() + vlc_bytes.size() + 2);
  segment.insert(segment.end(), ms_bytes.begin(), ms_bytes.end());
  append_mel_vlc(mel, vlc, mel_bytes, vlc_bytes, segment);
}

}  // namespace mallat::entropy::ht
