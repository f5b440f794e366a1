// The MQ arithmetic decoder of Annex C.3 (registers of Table C.1). Reads
// never leave [data, data + size): past the end of the codeword segment the
// decoder is fed 0xFF bytes, which it takes for a marker (C.3.4), so a
// truncated segment decodes its prefix and then a predictable tail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "entropy/host_device.h"
#include "entropy/ebcot/mq_states.h"

namespace mallat::entropy {

// A copy of a codeword segment followed by two 0xFF bytes, for
// the padded decoding of MqDecoder. One per thread, reused.
class PaddedSegment {
 public:
  const uint8_t* assign(std::span<const uint8_t> segment) {
    bytes_.assign(segment.begin(), segment.end());
    bytes_.push_back(0xFF);
    bytes_.push_back(0xFF);
    return bytes_.data();
  }

 private:
  std::vector<uint8_t> bytes_;
};

struct MqDecoder {
  uint32_t a = 0;
  uint32_t c = 0;
  int ct = 0;
  const uint8_t* bp = nullptr;   // the byte B
  const uint8_t* end = nullptr;  // one past the segment's last byte

  // C.3.5 INITDEC on the segment [data, data + size).
  MALLAT_HD void init(const uint8_t* data, size_t size) {
    bp = data;
    end = data + size;
    c = static_cast<uint32_t>(current()) << 16;
    byte_in();
    c <<= 7;
    ct -= 7;
    a = 0x8000;
  }

  // C.3.2 DECODE with the MPS/LPS exchanges (C.3.3) and RENORMD (C.3.4);
  // `state` is the context's byte 2 * I + MPS.
  MALLAT_HD inline uint32_t decode(uint8_t& state) { return decode_with_branches<false>(state); }

  // The same on a PaddedSegment (no bounds checks), for the fast Tier-1
  // passes where a decision is usually the MPS: then the branches predict
  // well and the common path is short.
  [[gnu::always_inline]] inline uint32_t decode_padded(uint8_t& state) {
    return decode_with_branches<true>(state);
  }

  // The same decision without a branch on its outcome, on a PaddedSegment,
  // for the fast Tier-1 passes where decisions are close to coin tosses and
  // branches on them mostly mispredict. `lower` is C in the lower (LPS)
  // sub-interval; the exchanges of C.3.3 swap the symbols when A < Qe
  // (which implies A < 0x8000). The next state is a byte picked out of
  // kMqBranchlessStates by shifting.
  [[gnu::always_inline]] inline uint32_t decode_padded_branchless(uint8_t& state) {
    return decode_branchless<true>(state);
  }

  template <bool kPadded>
  [[gnu::always_inline]] MALLAT_HD inline uint32_t decode_branchless(uint8_t& state) {
    const uint64_t t = MALLAT_T1_TABLE(kMqBranchlessStates)[state];
    const uint32_t qe = static_cast<uint16_t>(t);
    a -= qe;
    const uint32_t lower = (c >> 16) < qe;
    const uint32_t lps = lower ^ static_cast<uint32_t>(a < qe);
    c -= (qe << 16) & (lower - 1);
    a = lower ? qe : a;
    const int n = shifts_to_normalise(a);  // 0 when A is still normalised
    const uint32_t renormalised = n != 0;
    state = static_cast<uint8_t>(t >> (24 + 8 * (2 * renormalised + lps)));
    shift_out<kPadded>(n);
    return (static_cast<uint32_t>(t >> 16) & 1) ^ lps;
  }

  template <bool kPadded>
  [[gnu::always_inline]] MALLAT_HD inline uint32_t decode_with_branches(uint8_t& state) {
    const MqState& s = MALLAT_T1_TABLE(kMqStates)[state];
    const uint32_t qe = s.qe;
    const uint32_t mps = s.mps;
    a -= qe;
    uint32_t d;
    if ((c >> 16) < qe) {
      // LPS_EXCHANGE
      if (a < qe) {
        d = mps;
        state = s.next_mps;
      } else {
        d = mps ^ 1;
        state = s.next_lps;
      }
      a = qe;
    } else {
      c -= qe << 16;
      if (a & 0x8000) return mps;
      // MPS_EXCHANGE
      if (a < qe) {
        d = mps ^ 1;
        state = s.next_lps;
      } else {
        d = mps;
        state = s.next_mps;
      }
    }
    shift_out<kPadded>(shifts_to_normalise(a));
    return d;
  }

  // C.3.4 RENORMD: shift A and C left by n (what brings A to 0x8000 or
  // more), reading a byte whenever CT runs out.
  template <bool kPadded>
  [[gnu::always_inline]] MALLAT_HD inline void shift_out(int n) {
    while (n > ct) {
      a <<= ct;
      c <<= ct;
      n -= ct;
      if constexpr (kPadded) {
        byte_in_padded();
      } else {
        byte_in();
      }
    }
    a <<= n;
    c <<= n;
    ct -= n;
  }

  // byte_in for a padded segment: past the end it finds 0xFF 0xFF, a
  // marker, and stays there, as byte_in does.
  [[gnu::always_inline]] MALLAT_HD inline void byte_in_padded() {
    if (bp[0] == 0xFF) {
      if (bp[1] > 0x8F) {
        c += 0xFF00;
        ct = 8;
      } else {
        ++bp;
        c += static_cast<uint32_t>(bp[0]) << 9;
        ct = 7;
      }
    } else {
      ++bp;
      c += static_cast<uint32_t>(bp[0]) << 8;
      ct = 8;
    }
  }

  // C.3.4 BYTEIN: 0xFF followed by a byte above 0x8F is a marker (or the
  // end of the data): feed 1 bits without advancing.
  MALLAT_HD void byte_in() {
    if (current() == 0xFF) {
      const uint8_t b1 = end - bp > 1 ? bp[1] : 0xFF;  // no bp + 1: bp may be null
      if (b1 > 0x8F) {
        c += 0xFF00;
        ct = 8;
      } else {
        ++bp;
        c += static_cast<uint32_t>(b1) << 9;
        ct = 7;
      }
    } else {
      ++bp;
      c += static_cast<uint32_t>(current()) << 8;
      ct = 8;
    }
  }

 private:
  MALLAT_HD uint8_t current() const { return bp < end ? *bp : 0xFF; }
};

}  // namespace mallat::entropy
