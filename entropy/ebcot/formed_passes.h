// The Tier-1 encoder split for the GPU into two steps: the coding passes'
// decisions formed (D.3) by a group of lanes that share one code-block,
// then MQ-coded (C.2) by one lane a block. Forming a pass touches every
// sample, so it is where a block's work is; spread over the block's
// stripes, a pass takes its width plus three columns a stripe of steps
// instead of a column per step. Coding the decisions is a short chain per
// decision that one lane runs; a warp's lanes then code 32 blocks side by
// side, each from its own recorded stream.
//
// Forming (form_* below): lane l of a group of n takes stripes l, l + n, ...
// and at step t codes the column that its stripe reaches then. Stripe s
// starts kFormLag steps after stripe s - 1, so that when it codes column x
// the stripe above has coded x + 1 (the neighbours that D.3's scan order
// has coded before x: above-left, above, above-right), and no two lanes
// touch the same column word in one step (a stripe changes the words of
// the stripes above and below it at columns x - 1 .. x + 1, the lanes stay
// kFormLag >= 3 columns apart). Each stripe records its decisions in its
// own room of a pass's staging; after the pass they are joined in stripe
// order, which is the scan order, so the decisions and their order are
// those of the state's passes (entropy/ebcot/passes.h, whose column coders
// form them here too). The refinement pass changes no neighbour and needs
// no lag. Distortions are exact sums (DistortionSum), so each stripe's
// share adds to the pass's own.
//
// Host and device code (host_device.h): the GPU runs each step on a warp
// with a __syncwarp between steps (entropy/cuda/ebcot/form_kernel.cuh);
// form_code_block_lanes runs the same steps lane after lane on the CPU,
// which the tests hold to encode_code_block. The coding lane's half is
// formed_coding.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/distortion_sum.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/passes.h"
#include "entropy/ebcot/shared_encoder.h"

namespace mallat::entropy {

// Lanes of a forming group at most (a warp; a block of at most 16 stripes
// may be formed by half a warp, two blocks a warp), and the steps between
// two stripes' starts.
inline constexpr int kFormLanes = 32;
inline constexpr int kFormLag = 3;
// The most decisions a stripe column forms in one pass (kMaxPassDecisions's
// count: a cleanup column in run-length mode).
inline constexpr int kMaxColumnDecisions = 10;

// What forming leaves for the coding lane: each pass's decisions (a byte
// each, context above the bit; raw passes' bits alike) at `offset` in the
// block's stream, 16-byte aligned, and its distortion decrease in the
// integer domain (before fraction bits are scaled out).
struct FormedPass {
  uint32_t offset = 0;
  uint32_t count = 0;
  double distortion = 0.0;
};
struct FormedBlock {
  SharedT1Status status = SharedT1Status::kOk;
  int8_t zero_bitplanes = 0;
  int8_t planes = 0;
  int16_t num_passes = 0;  // the passes coded (SharedT1Block::pass_limit may cut them)
  bool cut = false;        // fewer than 3 * planes - 2
};

// Bytes a block's decision stream may need: per bit-plane at most one
// decision a sample (in one of the three passes) and two more a stripe
// column (run-length mode's UNIFORM pair), one sign a sample, and 15
// bytes of alignment a pass (and a last chunk read whole). `planes` is Mb
// (the planes coded never exceed it).
MALLAT_HD inline uint64_t formed_stream_bound(int width, int height, int planes) {
  const uint64_t samples = uint64_t(width) * height;
  const uint64_t columns = uint64_t(width) * ((height + 3) / 4);
  const uint64_t p = planes > 0 ? uint64_t(planes) : 0;
  return samples * (p + 1) + 2 * columns * p + 16 * (3 * p + 1);
}

// A forming group's room for one block of at most `width` x `height`
// (the largest of a batch), in two parts. In memory the group's lanes share
// at low latency (on the GPU, the CUDA block's shared memory): the column
// words (T1State's layout, a border all round), which the
// stripes change for each other, and the stripes' decision counts. In
// scratch memory (the device's, each block its own): the magnitudes four
// to a stripe column in scan order (a column's room past the last for the
// walk's load ahead), 16-byte aligned, and the stripes' staging rooms.
// Each part starts with its first (the words, the magnitudes); offsets
// and sizes in 4-byte words.
struct FormingLayout {
  uint32_t counts = 0;
  uint32_t shared_total = 0;
  uint32_t staging = 0;
  uint32_t scratch_total = 0;  // a multiple of 4
  MALLAT_HD static FormingLayout of(int width, int height) {
    const uint32_t stripes = (height + 3) / 4;
    FormingLayout l;
    l.counts = (width + 2) * (stripes + 2);
    l.shared_total = l.counts + stripes;
    l.staging = 4 * stripes * width + 4;
    l.scratch_total = (l.staging + (stripes * width * kMaxColumnDecisions + 3) / 4 + 3) / 4 * 4;
    return l;
  }
};

// One block's room, laid out by FormingLayout for the block's own shape
// (its column stride is its width + 2).
struct FormingView {
  uint32_t* words = nullptr;
  uint32_t* magnitudes = nullptr;
  uint8_t* staging = nullptr;
  uint32_t* counts = nullptr;
  int width = 0;
  int height = 0;
  int stripes = 0;
  int column_stride = 0;

  // `scratch` 16-byte aligned.
  MALLAT_HD static FormingView in(uint32_t* shared, uint32_t* scratch, const FormingLayout& l, int w, int h) {
    FormingView v;
    v.words = shared;
    v.counts = shared + l.counts;
    v.magnitudes = scratch;
    v.staging = reinterpret_cast<uint8_t*>(scratch + l.staging);
    v.width = w;
    v.height = h;
    v.stripes = (h + 3) / 4;
    v.column_stride = w + 2;
    return v;
  }
  MALLAT_HD uint32_t* column(int x, int stripe) const { return words + (stripe + 1) * column_stride + x + 1; }
  MALLAT_HD uint32_t* magnitude(int x, int stripe) const { return magnitudes + 4 * (stripe * width + x); }
  MALLAT_HD uint8_t* stripe_staging(int stripe) const {
    return staging + static_cast<size_t>(stripe) * width * kMaxColumnDecisions;
  }
};

namespace detail {

// Symbol coders for the column coders of passes.h that record each decision
// in a stripe's staging room: the MQ passes' context and bit, the raw
// passes' bit.
struct FormedMqSymbols {
  static constexpr bool kEncoder = true, kRaw = false;
  uint8_t* out;
  uint32_t& count;
  MALLAT_HD uint32_t code(int ctx, uint32_t bit) {
    out[count++] = static_cast<uint8_t>((ctx << 1) | bit);
    return bit;
  }
  MALLAT_HD uint32_t code_skewed(int ctx, uint32_t bit) { return code(ctx, bit); }
};
struct FormedRawSymbols {
  static constexpr bool kEncoder = true, kRaw = true;
  uint8_t* out;
  uint32_t& count;
  MALLAT_HD uint32_t code(int, uint32_t bit) {
    out[count++] = static_cast<uint8_t>(bit);
    return bit;
  }
};

// A lane's walk along its stripe, kept from step to step: which stripe and
// when it starts (FormSchedule::start, worked out once a stripe),
// for_each_column's registers (the column words, the word as stored, the
// magnitudes loaded ahead), the stripe's decisions so far and the pass's
// distortion share.
struct FormLane {
  int stripe = 0;  // the stripe the lane walks, and the step it starts at
  int start = 0;
  ColumnWords w;
  uint32_t stored = 0;
  ColumnMagnitudes mags{};
  uint32_t count = 0;
  DistortionSum dist;
};

// When stripes start in a pass formed by `lanes` lanes: stripe s (lane
// s % lanes) at lag * s + (s / lanes) * extra, where `extra` keeps a lane's
// next stripe after its last (blocks of more stripes than lanes).
struct FormSchedule {
  int lanes = kFormLanes;
  int lag = 0;
  int extra = 0;
  int steps = 0;
  MALLAT_HD static FormSchedule of(PassType type, int width, int stripes, int lanes) {
    FormSchedule s;
    s.lanes = lanes;
    s.lag = type == PassType::kRefinement ? 0 : kFormLag;
    s.extra = width > lanes * s.lag ? width - lanes * s.lag : 0;
    const int last = stripes - 1;
    s.steps = s.start(last) + width;
    return s;
  }
  MALLAT_HD int start(int stripe) const { return lag * stripe + (stripe / lanes) * extra; }
  // Lane `lane`'s state at the pass's start: its first stripe.
  MALLAT_HD void begin(FormLane& s, int lane) const {
    s.stripe = lane;
    s.start = start(lane);
    s.dist = {};
  }
};

// A pass's column coder (passes.h's SignificanceColumn, RefinementColumn or
// CleanupColumn) with its recording symbol coder, as one type.
template <template <class, bool, bool> class C, class Coder>
struct FormKind {
  using Symbols = Coder;
  template <bool kVsc>
  using Column = C<Coder, kVsc, true>;
};

// Calls f(FormKind<...>{}) for a pass of `type`, raw or MQ-coded, so that
// a pass's steps run one coder, chosen once.
template <class F>
MALLAT_HD inline void with_form_kind(PassType type, bool raw, F&& f) {
  switch (type) {
    case PassType::kSignificance:
      if (raw) {
        f(FormKind<SignificanceColumn, FormedRawSymbols>{});
      } else {
        f(FormKind<SignificanceColumn, FormedMqSymbols>{});
      }
      break;
    case PassType::kRefinement:
      if (raw) {
        f(FormKind<RefinementColumn, FormedRawSymbols>{});
      } else {
        f(FormKind<RefinementColumn, FormedMqSymbols>{});
      }
      break;
    case PassType::kCleanup:
      f(FormKind<CleanupColumn, FormedMqSymbols>{});
      break;
  }
}

// Step t of a lane (its state begun by FormSchedule::begin): codes the
// column its stripe reaches at t, if any,
// with Kind's column coder, as for_each_column codes it.
template <class Kind, bool kVsc>
MALLAT_HD inline void form_step(const FormingView& v, FormLane& lane_state, int t,
                                const FormSchedule& schedule, const uint8_t* zc_lut, int p,
                                const PlaneGains& gains) {
  FormLane& s = lane_state;
  // A lane's stripes follow each other at least a stripe's width apart.
  if (s.stripe < v.stripes && t >= s.start + v.width) {
    s.stripe += schedule.lanes;
    s.start = schedule.start(s.stripe);
  }
  const int stripe = s.stripe;
  if (stripe >= v.stripes || t < s.start) return;
  const int x = t - s.start;
  uint32_t* f = v.column(x, stripe);
  const uint32_t* m = v.magnitude(x, stripe);
  if (x == 0) {
    s.w = ColumnWords{f[-1], f[0], 0};
    s.stored = s.w.cur;
    s.mags = load_magnitudes(m);
    s.count = 0;
  }
  const int rows = v.height - 4 * stripe < 4 ? v.height - 4 * stripe : 4;
  s.w.next = f[1];
  const uint32_t next_stored = s.w.next;
  const ColumnMagnitudes next_mags = load_magnitudes(m + 4);
  typename Kind::Symbols c{v.stripe_staging(stripe), s.count};
  typename Kind::template Column<kVsc> column{{c, zc_lut, v.column_stride, p, gains, s.dist}};
  if (column(rows, s.w, f, const_cast<uint32_t*>(m), s.mags)) {
    f[-1] = s.w.prev;
    f[0] = s.w.cur;
  } else if (s.w.cur != s.stored) {
    f[0] = s.w.cur;
  }
  s.w.prev = s.w.cur;
  s.w.cur = s.w.next;
  s.stored = next_stored;
  s.mags = next_mags;
  if (x == v.width - 1) {
    if (s.w.cur != s.stored) f[1] = s.w.cur;
    v.counts[stripe] = s.count;
  }
}

}  // namespace detail

// Loading, first step: lane `lane` of `lanes` clears the column words and
// copies the block's samples into the magnitudes, each with its sign in
// bit 31 (magnitudes stay below 2^31), rows read side by side.
MALLAT_HD inline void form_load_samples(const FormingView& v, const SharedT1Block& block, int lane, int lanes) {
  const int words = v.column_stride * (v.stripes + 2);
  for (int i = lane; i < words; i += lanes) v.words[i] = 0;
  const int samples = v.width * v.height;
  for (int i = lane; i < samples; i += lanes) {
    const int y = i / v.width;
    const int x = i - y * v.width;
    const int32_t c = block.coefficients[y * block.stride + x];
    const uint32_t mag = c < 0 ? 0u - static_cast<uint32_t>(c) : static_cast<uint32_t>(c);
    v.magnitude(x, y / 4)[y % 4] = mag | (c < 0 ? 0x80000000u : 0u);
  }
}

// Loading, second step (after the first's stores are seen): lane `lane`
// sets the sign bits of its stripe columns' words, clears bit 31 and the
// rows past the block's last, and returns the OR of the magnitudes it saw.
MALLAT_HD inline uint32_t form_load_columns(const FormingView& v, int lane, int lanes) {
  uint32_t all = 0;
  const int columns = v.width * v.stripes;
  for (int i = lane; i < columns; i += lanes) {
    const int stripe = i / v.width;
    const int x = i - stripe * v.width;
    const int rows = v.height - 4 * stripe < 4 ? v.height - 4 * stripe : 4;
    uint32_t* m = v.magnitude(x, stripe);
    detail::ColumnMagnitudes c{{0, 0, 0, 0}};
    uint32_t word = 0;
    for (int r = 0; r < rows; ++r) {
      word |= m[r] >> 31 ? sign_bit(r + 1) : 0;
      c.v[r] = m[r] & 0x7FFFFFFFu;
    }
    all |= c.v[0] | c.v[1] | c.v[2] | c.v[3];
    detail::store_magnitudes(m, c);
    *v.column(x, stripe) = word;
  }
  if (lane == 0) v.magnitudes[4 * columns] = v.magnitudes[4 * columns + 1] = v.magnitudes[4 * columns + 2] =
      v.magnitudes[4 * columns + 3] = 0;
  return all;
}

// What a block codes, from its parameters and the OR of its magnitudes:
// the checks of encode_code_block_shared, its zero bit-planes and passes.
MALLAT_HD inline FormedBlock form_block_plan(const SharedT1Block& block, uint32_t all) {
  FormedBlock b;
  const int w = block.width;
  const int h = block.height;
  if (w < 1 || h < 1 || w > kMaxCodeBlockSide || h > kMaxCodeBlockSide || w * h > kMaxCodeBlockSamples) {
    b.status = SharedT1Status::kBadShape;
    return b;
  }
  if (block.num_bitplanes < 0 || block.fraction_bits < 0 ||
      block.num_bitplanes + block.fraction_bits > kMaxBitPlanes) {
    b.status = SharedT1Status::kBadBitPlanes;
    return b;
  }
  const int coded_bits = block.num_bitplanes + block.fraction_bits;
  if (coded_bits < 32 && (all >> coded_bits) != 0) {
    b.status = SharedT1Status::kMagnitudeTooLarge;
    return b;
  }
  int bit_width = 0;
  while (bit_width < 32 && (all >> bit_width) != 0) ++bit_width;
  const int planes = bit_width > block.fraction_bits ? bit_width - block.fraction_bits : 0;
  b.planes = static_cast<int8_t>(planes);
  b.zero_bitplanes = static_cast<int8_t>(block.num_bitplanes - planes);
  b.num_passes = static_cast<int16_t>(limited_passes(planes, block.pass_limit));
  b.cut = b.num_passes < (planes > 0 ? 3 * planes - 2 : 0);
  return b;
}

// After a pass's last step: lane `lane` of `lanes` copies the stripes'
// decisions, in stripe order, to stream + offset (every lane walks the
// stripes; each copies every lanes-th byte); returns the pass's count.
MALLAT_HD inline uint32_t form_join_pass(const FormingView& v, uint8_t* stream, uint32_t offset, int lane,
                                         int lanes) {
  uint32_t at = offset;
  for (int s = 0; s < v.stripes; ++s) {
    const uint32_t n = v.counts[s];
    const uint8_t* from = v.stripe_staging(s);
    for (uint32_t i = lane; i < n; i += lanes) stream[at + i] = from[i];
    at += n;
  }
  return at - offset;
}

// Pass i of a planned block: its kind, whether it is raw, its bit-plane,
// its steps.
struct FormPassPlan {
  PassType type;
  bool raw;
  int plane;
  detail::FormSchedule schedule;
  MALLAT_HD static FormPassPlan of(const FormedBlock& b, const SharedT1Block& block, const FormingView& v, int i,
                                   int lanes) {
    FormPassPlan p;
    p.type = pass_type(i);
    p.raw = pass_is_raw(block.style, i);
    p.plane = block.fraction_bits + b.planes - 1 - pass_plane_offset(i);
    p.schedule = detail::FormSchedule::of(p.type, v.width, v.stripes, lanes);
    return p;
  }
};

// A formed pass's decisions in all, once its steps are done: its stripes'.
MALLAT_HD inline uint32_t form_pass_count(const FormingView& v) {
  uint32_t count = 0;
  for (int s = 0; s < v.stripes; ++s) count += v.counts[s];
  return count;
}

// Where the next pass's decisions go after `count` of them at `offset`:
// 16-byte aligned, as the coding lane reads them (formed_coding.h).
MALLAT_HD inline uint32_t formed_pass_after(uint32_t offset, uint32_t count) { return (offset + count + 15) / 16 * 16; }

// The GPU's forming run lane after lane on one thread, for the tests (the
// steps are those of entropy/cuda/ebcot/form_kernel.cuh, each step's lanes
// in turn, which touch no common word): block `block` formed in `shared`
// and `scratch` (FormingLayout::of its shape's words, `scratch` 16-byte
// aligned) into `stream` (`capacity` bytes),
// its plan into `plan` and its passes into `passes` (kMaxCodingPasses).
// `lanes` (1..kFormLanes) form the block; `reversed` runs each step's
// lanes last to first: the same result, as no lane reads what another
// writes in the same step.
template <bool kVsc>
inline void form_code_block_lanes(const SharedT1Block& block, uint32_t* shared, uint32_t* scratch, uint8_t* stream,
                                  uint64_t capacity, FormedBlock& plan, FormedPass* passes, int lanes = kFormLanes,
                                  bool reversed = false) {
  const FormingLayout layout = FormingLayout::of(block.width, block.height);
  const FormingView v = FormingView::in(shared, scratch, layout, block.width, block.height);
  plan = form_block_plan(block, 0);
  if (plan.status != SharedT1Status::kOk) return;
  for (int lane = 0; lane < lanes; ++lane) form_load_samples(v, block, lane, lanes);
  uint32_t all = 0;
  for (int lane = 0; lane < lanes; ++lane) all |= form_load_columns(v, lane, lanes);
  plan = form_block_plan(block, all);
  if (plan.status != SharedT1Status::kOk) return;
  const uint8_t* zc_lut = kZeroCodingLut[static_cast<int>(block.orientation)].data();
  detail::FormLane lane_states[kFormLanes];
  uint32_t next = 0;  // where the next pass's decisions go
  for (int i = 0; i < plan.num_passes; ++i) {
    const FormPassPlan pass = FormPassPlan::of(plan, block, v, i, lanes);
    const detail::PlaneGains gains(pass.plane);
    for (int lane = 0; lane < lanes; ++lane) pass.schedule.begin(lane_states[lane], lane);
    detail::with_form_kind(pass.type, pass.raw, [&](auto kind) {
      for (int t = 0; t < pass.schedule.steps; ++t) {
        for (int k = 0; k < lanes; ++k) {
          const int lane = reversed ? lanes - 1 - k : k;
          detail::form_step<decltype(kind), kVsc>(v, lane_states[lane], t, pass.schedule, zc_lut, pass.plane,
                                                  gains);
        }
      }
    });
    const uint32_t count = form_pass_count(v);
    if (uint64_t{next} + count > capacity) {
      plan.status = SharedT1Status::kOutputOverflow;
      return;
    }
    for (int lane = 0; lane < lanes; ++lane) form_join_pass(v, stream, next, lane, lanes);
    detail::DistortionSum dist;
    for (const detail::FormLane& l : lane_states) dist.add(l.dist);
    passes[i] = FormedPass{next, count, dist.value()};
    next = formed_pass_after(next, count);
  }
}

}  // namespace mallat::entropy
