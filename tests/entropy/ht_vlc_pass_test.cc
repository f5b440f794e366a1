// The fast HT cleanup decoder's VLC pass pieces (entropy/ht/fast_readers.h,
// entropy/ht/cpu/cleanup_decoder_kernel.h) against the plain ones they
// replace: the MEL events decoded ahead into words are ht::MelDecoder's,
// in order, over random streams and ones cut short; and the UVLC table for
// a bit deposit gives every pair's u_q as the per-field table
// (kUvlcPairs) does, for every mode, prefix and suffix bits.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/fast_readers.h"

// The kernel's source in a namespace of the test's own, for its tables.
#define MALLAT_HT_ISA vlc_pass_test
#include "entropy/ht/cpu/cleanup_decoder_kernel.h"

namespace mallat::entropy {
namespace {

// The events of `stream` both ways: `count` of them, taken in runs of
// random lengths between refills (as the VLC pass takes them).
void expect_same_events(const std::vector<uint8_t>& stream, int count, std::mt19937& rng) {
  ht::MelDecoder plain(stream.data(), stream.size());
  ht::fast::MelDecoder fast(stream.data(), stream.size());
  uint64_t events = ht::fast::MelDecoder::kNoEvents;
  for (int taken = 0; taken < count;) {
    events = fast.refill(events);
    const int have = 63 - std::countl_zero(events);
    ASSERT_GE(have, ht::fast::MelDecoder::kRefillEvents);
    const int run = std::min(have, static_cast<int>(rng() % 64));
    for (int i = 0; i < run; ++i, ++taken) {
      ASSERT_EQ((events & 1) != 0, plain.decode()) << "event " << taken << " of a stream of " << stream.size();
      events >>= 1;
    }
  }
}

TEST(HtVlcPass, MelEventsDecodedAheadAreThePlainDecodersInOrder) {
  std::mt19937 rng(2718);
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> stream(rng() % 64);
    // Random bytes, or mostly 1s (long runs of zeros) or 0s (many 1s), and
    // 0xFF now and then (the stuffed bit after it).
    const int kind = i % 3;
    for (uint8_t& b : stream) {
      b = static_cast<uint8_t>(kind == 0 ? rng() : kind == 1 ? (rng() % 8 ? 0xFF : rng()) : (rng() % 8 ? 0 : rng()));
    }
    expect_same_events(stream, 2000, rng);
  }
}

// A portable bit deposit: the low bits of `bits` into the set bits of
// `mask`, lowest first.
uint64_t deposit(uint64_t bits, uint64_t mask) {
  uint64_t out = 0;
  for (; mask != 0; mask &= mask - 1, bits >>= 1) {
    if (bits & 1) out |= mask & -mask;
  }
  return out;
}

TEST(HtVlcPass, UvlcDepositsGiveTheFieldTablesUq) {
  using namespace ht::cpu::vlc_pass_test;
  std::mt19937 rng(31);
  for (int mode = kUvlcNone; mode <= kUvlcBoth; ++mode) {
    for (int prefix = 0; prefix < 64; ++prefix) {
      const int index = mode << 6 | prefix;
      const UvlcPair& e = kUvlcPairs.entry[index];
      EXPECT_EQ(kUvlcDeposits.length[index], e.length) << index;
      for (int k = 0; k < 64; ++k) {
        const uint64_t bits = (static_cast<uint64_t>(rng()) << 32 | rng()) << 6 | static_cast<uint64_t>(prefix);
        const uint64_t u0 = e.base[0] + ht::low_bits(bits >> e.suffix_start[0], e.suffix_length[0]);
        const uint64_t u1 = e.base[1] + ht::low_bits(bits >> e.suffix_start[1], e.suffix_length[1]);
        const UvlcDeposits::Entry& d = kUvlcDeposits.entry[index];
        const uint64_t both = deposit(bits >> kUvlcDeposits.suffix_start[index], d.deposit) + d.bases;
        ASSERT_EQ(both, u0 << 16 | u1 << 48) << "mode " << mode << " bits " << bits;
      }
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
