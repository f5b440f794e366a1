// The shared Tier-1 decoder's MQ-coded significance propagation and
// refinement passes (D.3.1, D.3.3; entropy/ebcot/shared_decoder.h, what the
// GPU's decoding kernel runs), written for the decoder apart from the
// templates of entropy/ebcot/passes.h, on the same column walks
// (for_each_column, for_each_marked_column) and column words:
// - the MQ decoder (MqEntryDecoder) is a local copy for the whole pass;
// - whether the significance pass codes a sample is decided on the column
//   word in registers, and its zero-coding context loaded only then;
// - there the sign's context and its entry are looked up before the
//   significance decision resolves, so their loads overlap its decoding
//   rather than follow it;
// - the refinement pass holds its three contexts' entries in registers
//   and selects among them by the flags, without branches.
// The cleanup pass's columns are passes.h's, walked by runs in quiet
// stripes (CleanupDecodingColumn); the raw (BYPASS) passes stay passes.h's.
// Host and device code (host_device.h); internal to the entropy module.
#pragma once

#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/mq_entry_decoder.h"
#include "entropy/ebcot/passes.h"

namespace mallat::entropy::detail {

// Keeps the compiler from moving the computation of `v` past this point
// (into the branch that uses it): a value loaded ahead is then loaded
// ahead.
template <class T>
[[gnu::always_inline]] MALLAT_HD inline void keep_here(T& v) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    asm("" : "+l"(v));
  } else {
    asm("" : "+r"(v));
  }
#else
  asm("" : "+r"(v));
#endif
}

// What a decoding pass's column works with: the pass's copy of the MQ
// decoder, the contexts, the zero-coding look-up of the block's
// orientation, the column words' stride and the bit-plane.
struct EntryDecoding {
  MqEntryDecoder& mq;
  MqEntryContexts& cx;
  const uint8_t* zc_lut;
  int stride;
  int p;
};

// One stripe column of the D.3.1 significance propagation pass.
template <bool kVsc>
struct SignificanceDecodingColumn : EntryDecoding {
  static constexpr bool kSpreads = true;
  static constexpr int kStripeReach = 1;  // for_each_column skips stripes with none near

  MALLAT_HD static bool has_work(uint32_t word) {
    return SignificanceColumn<MqEntryDecodeSymbols, kVsc, false>::has_work(word);
  }
  MALLAT_HD bool operator()(int rows, ColumnWords& w, uint32_t* f, uint32_t* m, const ColumnMagnitudes&) {
    if (!has_work(w.cur)) return false;
    for_each_row(rows, [&](auto row) {
      constexpr int r = decltype(row)::value;
      const uint32_t n = neighbourhood<kVsc, r>(w.cur);
      // D.3.1: insignificant, with a significant neighbour.
      if ((n & kNbSelf) != 0 || (n & kNbAll) == 0) return;
      const uint32_t ctx = zc_lut[n];
      // The sign's context and entry ahead of the decision (which is in a
      // zero-coding context, never a sign context, so the entry is still
      // current if the sample turns out significant).
      uint32_t lut = sign_lookup<r>(w, n);
      uint64_t sign_state = cx[static_cast<int>(lut & 31)];
      keep_here(lut);
      keep_here(sign_state);
      w.cur |= visited_bit(r);
      if (mq.decode_branchless(cx[static_cast<int>(ctx)])) {
        // D.3.2: its sign, then its flags in this and the neighbours'
        // windows, and its magnitude 2^p.
        const uint32_t negative = mq.decode_branchless(cx[static_cast<int>(lut & 31)], sign_state) ^ (lut >> 7);
        become_significant<r>(w, f, stride, negative);
        m[r] = 1u << p;
      }
    });
    return true;
  }
};

// The entries of the three refinement contexts (Table D.4), which are the
// only ones the refinement pass codes in: it holds them in registers, so a
// decision waits for no store and reload of its context's entry.
struct RefinementContexts {
  uint64_t first;      // 14: not refined before, no significant neighbour
  uint64_t neighbour;  // 15: not refined before, a significant neighbour
  uint64_t refined;    // 16: refined before
};

// One stripe column of the D.3.3 magnitude refinement pass.
template <bool kVsc>
struct RefinementDecodingColumn {
  static constexpr bool kSpreads = false;
  static constexpr int kStripeReach = 0;  // only stripes with significance have work
  MqEntryDecoder& mq;
  RefinementContexts& rc;
  int p;

  MALLAT_HD static bool has_work(uint32_t word) {
    return RefinementColumn<MqEntryDecodeSymbols, kVsc, false>::has_work(word);
  }
  MALLAT_HD bool operator()(int rows, ColumnWords& w, uint32_t*, uint32_t* m, const ColumnMagnitudes&) {
    if (!has_work(w.cur)) return false;
    for_each_row(rows, [&](auto row) {
      constexpr int r = decltype(row)::value;
      constexpr uint32_t kSigHere = window_sig_bit(r + 1, 1);
      // Significant before this bit-plane's significance pass visited it.
      if ((w.cur & (kSigHere | visited_bit(r))) != kSigHere) return;
      // Table D.4: 16 once refined, else 15 with a significant neighbour,
      // else 14; selected, not branched on.
      const bool refined = (w.cur & refined_bit(r)) != 0;
      const bool any = (neighbourhood<kVsc, r>(w.cur) & kNbAll) != 0;
      const uint64_t t = refined ? rc.refined : any ? rc.neighbour : rc.first;
      uint64_t next = t;
      m[r] |= mq.decode_branchless(next, t) << p;
      rc.refined = refined ? next : rc.refined;
      rc.neighbour = !refined && any ? next : rc.neighbour;
      rc.first = !refined && !any ? next : rc.first;
      w.cur |= refined_bit(r);
    });
    return true;
  }
};

// One stripe column of the D.3.4 cleanup pass (passes.h's), and the
// run-length decisions of a quiet stripe's columns decoded by runs
// (for_each_column's quiet stripes): while the run-length context's
// MPS is 0 ("no sample of the column becomes significant"), the decisions
// that are that MPS with A left normalised change nothing but A and C, so
// a run of them is decoded at once (MqEntryDecoder::decode_mps_run).
// (passes.h's code_pass makes it; its Coder is MqEntryDecodeSymbols.)
template <class Coder, bool kVsc, bool kAhead>
struct CleanupDecodingColumn : CleanupColumn<Coder, kVsc, kAhead> {
  MALLAT_HD int quiet_run(int n) {
    Coder& coder = this->c;
    const uint64_t t = (*coder.cx)[kRunLengthContext];
    if (((t >> 32) & 1) != 0) return 0;  // its MPS is 1: a 0 would be the LPS
    return coder.mq.decode_mps_run(t, n);
  }
};

// The passes on a local copy of the decoder, by the walk kMarked chooses.
template <bool kVsc, bool kMarked, class State>
[[gnu::flatten]] MALLAT_HD void decode_significance_pass(MqEntryDecodeSymbols& coder, State& s,
                                                         const uint8_t* zc_lut, int p) {
  MqEntryDecoder mq = coder.mq;
  walk_columns<kMarked, false>(s, SignificanceDecodingColumn<kVsc>{{mq, *coder.cx, zc_lut, s.column_stride, p}});
  coder.mq = mq;
}

template <bool kVsc, bool kMarked, class State>
[[gnu::flatten]] MALLAT_HD void decode_cleanup_pass(MqEntryDecodeSymbols& coder, State& s, const uint8_t* zc_lut,
                                                    int p) {
  code_pass<kMarked, CleanupDecodingColumn, MqEntryDecodeSymbols, kVsc>(coder, s, zc_lut, p);
}

template <bool kVsc, bool kMarked, class State>
[[gnu::flatten]] MALLAT_HD void decode_refinement_pass(MqEntryDecodeSymbols& coder, State& s, int p) {
  MqEntryDecoder mq = coder.mq;
  MqEntryContexts& cx = *coder.cx;
  RefinementContexts rc{cx[kRefinementContexts], cx[kRefinementContexts + 1], cx[kRefinementContexts + 2]};
  walk_columns<kMarked, false>(s, RefinementDecodingColumn<kVsc>{mq, rc, p});
  cx[kRefinementContexts] = rc.first;
  cx[kRefinementContexts + 1] = rc.neighbour;
  cx[kRefinementContexts + 2] = rc.refined;
  coder.mq = mq;
}

// Runs pass `type` for bit-plane p (run_pass's choices): the MQ-coded
// significance and refinement passes above, passes.h's cleanup pass and
// raw passes where BYPASS says so.
template <bool kVsc, bool kMarked, class Raw, class State>
MALLAT_HD void run_decoding_pass(PassType type, bool raw, MqEntryDecodeSymbols& mq, Raw& rw, State& s,
                                 const uint8_t* zc_lut, int p) {
  switch (type) {
    case PassType::kSignificance:
      if (raw) {
        significance_pass<Raw, kVsc, kMarked>(rw, s, zc_lut, p);
      } else {
        decode_significance_pass<kVsc, kMarked>(mq, s, zc_lut, p);
      }
      break;
    case PassType::kRefinement:
      if (raw) {
        refinement_pass<Raw, kVsc, kMarked>(rw, s, p);
      } else {
        decode_refinement_pass<kVsc, kMarked>(mq, s, p);
      }
      break;
    case PassType::kCleanup:
      decode_cleanup_pass<kVsc, kMarked>(mq, s, zc_lut, p);
      break;
  }
}

}  // namespace mallat::entropy::detail
