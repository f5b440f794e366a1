// TileEncoder::code_rows: one tile coded from its rows, top to bottom, in
// bounded memory (codec/api/encode_streamed.h). The rows of a strip are
// read, DC shifted and colour transformed (G.1-G.3, the rules of
// codec/stages/tile_input.h and component_transform.h), and pushed through
// each component's line-based DWT (dwt/line_forward.h); each subband's rows
// gather in a buffer per row of code-blocks, and a full row of code-blocks
// is quantised and Tier-1 coded on the pool (encode_blocks, the stages' own
// per-block coding) while, beside it on the pool, the next strip is read
// (only what must be read in order), the strip before it shifted and
// colour transformed in bands of rows, and the one before that goes
// through the DWT, each component on a thread of its own; then its rows are
// freed. The blocks' coding lands in the same slots as code() puts it, so
// rate allocation and Tier-2 are unchanged. Under HT
// rate control by estimates a row of code-blocks is only quantised, each
// block's estimate taken and its indices kept (kept_indices.h) until rate
// control has chosen its planes from every block's estimate
// (code_kept_planes).
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codec/encoder/tile_encoder.h"
#include "codec/stages/block_coding.h"
#include "codec/stages/colour_rules.h"
#include "codec/stages/component_transform.h"
#include "codec/stages/quantisation.h"
#include "codec/stages/tile_input.h"
#include "common/large_buffer.h"
#include "common/release_job.h"
#include "common/timeline.h"
#include "dwt/line_forward.h"
#include "quant/finer_indices.h"

namespace mallat::codec {
namespace {

// Rows of the tallest component read per strip: a row of 64-row
// code-blocks at the first level needs 128, so that each strip completes
// one (and the deeper levels' rows as they come), a batch large enough to
// keep the pool busy beside the next strip's DWT.
constexpr int64_t kStripRows = 128;
// Rows of every component read at once within a strip, so that a source
// that reads them together holds few.
constexpr int64_t kRowsAtOnce = 16;
// Rows of a strip shifted and colour transformed as one item on the pool.
constexpr int64_t kBandRows = 8;
// Samples (of all its components) that an item converts at once, in a
// buffer that stays in the core's cache.
constexpr int64_t kSamplesAtOnce = 16384;
// A strip is read in one step, converted in the next and goes through the
// DWT in the one after: three strips of each component in turn, or two
// where the source holds what it read until it is converted.
constexpr int kStripsHeld = 3;

// The code-blocks of one subband whose rows are [y0, y1) of the band.
struct BlockRow {
  int64_t y0 = 0, y1 = 0;
  std::vector<size_t> slots;
};

// One subband of one component on its way to the block coder: its rows
// gather in `buffer` until its next row of code-blocks is complete.
struct BandRows {
  int component = 0;
  dwt::Rect packed;  // its place in the packed plane (dwt/geometry.h)
  dwt::Wavelet wavelet = dwt::Wavelet::k53;
  std::vector<BlockRow> rows;
  size_t next = 0;     // the row of code-blocks being filled
  int64_t filled = 0;  // of its rows
  int64_t most_rows = 0;  // in any of its rows of code-blocks
  TilePlane buffer;
  // Buffers back from the coder, reused (buffers_in_use says how many a
  // band takes), and none is freed and allocated again, so the coded blocks
  // do not land in the holes they would leave.
  std::vector<std::shared_ptr<std::byte[]>> spare;
};

// How many of a band's buffers are in use at once, `per_strip` of its rows
// arriving with each strip: those of the rows of code-blocks completed in
// the step before, being coded, and those the DWT touches in this step. The
// DWT's output lags its input by a row or two (the lifting's reach, F.3),
// so a strip that brings n rows of code-blocks' worth (n >= 1) touches up
// to n + 1 of them while the n before are coded: at the first level, with
// 64-row code-blocks, one row completes, the next fills and a third starts.
// A strip that brings fewer leaves one row being coded and one filling. (An
// image whose strips bring a row more now and then takes one more then.)
int buffers_in_use(int64_t per_strip, int64_t block_rows) {
  if (block_rows <= 0 || per_strip < block_rows) return 2;
  return static_cast<int>(2 * ((per_strip + block_rows - 1) / block_rows) + 1);
}

// A row of code-blocks whose samples are all in; x0, y0: where its buffer
// starts in the packed plane.
struct ReadyRow {
  TilePlane samples;
  const BlockRow* row = nullptr;
  int64_t x0 = 0, y0 = 0;
  size_t band = 0;
};

// One strip's rows of a component: as read (int32), then DC shifted and
// colour transformed in place, waiting for its line DWT.
struct StripRows {
  std::shared_ptr<std::byte[]> samples;  // kStripRows rows: int32 for the 5/3, float for the 9/7
  template <typename T>
  T* row(int64_t y, int64_t width) const {
    return reinterpret_cast<T*>(samples.get()) + y * width;
  }
};

// One component's rows through its line DWT, kStripsHeld strips at most:
// one read, one converted and one through the DWT at a time.
struct ComponentRows {
  int64_t width = 0, height = 0, done = 0;
  std::vector<int> band_of;  // nb * 4 + band -> index in the bands, -1: empty
  std::unique_ptr<dwt::LineForward<int32_t>> f53;
  std::unique_ptr<dwt::LineForward<float>> f97;
  StripRows strips[kStripsHeld];
  std::vector<ReadyRow> ready;
};

// Where the band's next row goes in its buffer (a new buffer for a new row
// of code-blocks): the line DWT writes it there (dwt::BandRowPlace).
template <typename T>
T* next_row_place(BandRows& band, int64_t width) {
  const BlockRow& r = band.rows[band.next];
  if (band.filled == 0 && band.buffer.storage == nullptr) {
    band.buffer = TilePlane();
    band.buffer.rect = dwt::Rect{0, 0, width, r.y1 - r.y0};
    band.buffer.wavelet = band.wavelet;
    if (band.spare.empty()) {
      band.buffer.storage = allocate_large(static_cast<size_t>(width * band.most_rows) * 4);
    } else {
      band.buffer.storage = std::move(band.spare.back());
      band.spare.pop_back();
    }
  }
  return reinterpret_cast<T*>(band.buffer.storage.get()) + band.filled * width;
}

template <typename T>
void take_row(BandRows& band, size_t index, std::vector<ReadyRow>& ready, const T* row, int64_t width) {
  T* at = next_row_place<T>(band, width);
  if (at != row) std::memcpy(at, row, static_cast<size_t>(width) * sizeof(T));
  const BlockRow& r = band.rows[band.next];
  if (++band.filled < r.y1 - r.y0) return;
  ready.push_back({std::move(band.buffer), &r, band.packed.x0, band.packed.y0 + r.y0, index});
  ++band.next;
  band.filled = 0;
}

// Each subband's rows of code-blocks, from the blocks' places in the packed
// plane; an error when they do not tile the band (Annex B's partition does).
Result<std::vector<BandRows>> band_rows(const TileLayout& layout, std::span<const EncodeBlock> blocks,
                                        dwt::Wavelet wavelet, std::vector<ComponentRows>& comps) {
  std::vector<BandRows> bands;
  for (size_t c = 0; c < layout.components.size(); ++c) {
    const TileComponent& tc = layout.components[c];
    comps[c].band_of.assign(static_cast<size_t>(tc.levels + 1) * 4, -1);
    auto add = [&](int nb, dwt::Band band) {
      const dwt::Rect p = dwt::packed_subband_rect(tc.rect, tc.levels, nb, band);
      if (p.empty()) return;
      comps[c].band_of[static_cast<size_t>(nb * 4 + static_cast<int>(band))] = static_cast<int>(bands.size());
      BandRows b;
      b.component = static_cast<int>(c);
      b.packed = p;
      b.wavelet = wavelet;
      bands.push_back(std::move(b));
    };
    add(tc.levels, dwt::Band::kLL);
    for (int nb = 1; nb <= tc.levels; ++nb)
      for (dwt::Band band : {dwt::Band::kHL, dwt::Band::kLH, dwt::Band::kHH}) add(nb, band);
  }
  std::vector<std::map<int64_t, BlockRow>> rows(bands.size());
  for (size_t slot = 0; slot < blocks.size(); ++slot) {
    const BlockPlace& at = blocks[slot].place;
    if (at.width <= 0 || at.height <= 0) continue;
    int found = -1;
    for (size_t b = 0; b < bands.size() && found < 0; ++b) {
      const dwt::Rect& p = bands[b].packed;
      if (bands[b].component == at.component && at.x0 >= p.x0 && at.x0 < p.x1 && at.y0 >= p.y0 && at.y0 < p.y1)
        found = static_cast<int>(b);
    }
    if (found < 0) return internal_error("streamed encode: code-block " + std::to_string(slot) + " lies in no subband");
    BlockRow& row = rows[found][at.y0 - bands[found].packed.y0];
    row.y0 = at.y0 - bands[found].packed.y0;
    if (!row.slots.empty() && row.y1 != row.y0 + at.height)
      return internal_error("streamed encode: code-blocks of one row differ in height");
    row.y1 = row.y0 + at.height;
    row.slots.push_back(slot);
  }
  for (size_t b = 0; b < bands.size(); ++b) {
    int64_t y = 0;
    for (auto& [y0, row] : rows[b]) {
      if (y0 != y) return internal_error("streamed encode: the code-blocks do not tile a subband");
      y = row.y1;
      bands[b].most_rows = std::max(bands[b].most_rows, row.y1 - row.y0);
      bands[b].rows.push_back(std::move(row));
    }
    if (y != bands[b].packed.height()) return internal_error("streamed encode: the code-blocks do not tile a subband");
  }
  return bands;
}

// Every component's strips and every subband's buffers (buffers_in_use,
// its rows per strip from its height's share of the tallest component's)
// as pieces of one allocation, so that they lie mostly in huge pages
// (large_buffer.h), their pages first touched on the pool rather than by
// each component's DWT (one thread a component) as it first writes them; a
// band that needs more allocates it then.
void allocate_rows(std::vector<ComponentRows>& comps, int strips, std::vector<BandRows>& bands, int64_t tallest,
                   ThreadPool& pool) {
  std::vector<size_t> bytes;
  std::vector<int> buffers;
  for (const ComponentRows& k : comps) bytes.insert(bytes.end(), strips, static_cast<size_t>(kStripRows * k.width) * 4);
  for (const BandRows& b : bands) {
    const int64_t per_strip = tallest > 0 ? (b.packed.height() * kStripRows + tallest - 1) / tallest : 0;
    buffers.push_back(buffers_in_use(per_strip, b.most_rows));
    bytes.insert(bytes.end(), buffers.back(), static_cast<size_t>(b.packed.width() * b.most_rows) * 4);
  }
  std::vector<std::shared_ptr<std::byte[]>> pieces = allocate_large_pieces(bytes, pool);
  if (pieces.empty()) return;
  size_t i = 0;
  for (ComponentRows& k : comps)
    for (int s = 0; s < strips; ++s) k.strips[s].samples = std::move(pieces[i++]);
  for (size_t b = 0; b < bands.size(); ++b)
    for (int n = 0; n < buffers[b]; ++n) bands[b].spare.push_back(std::move(pieces[i++]));
}

}  // namespace

Status TileEncoder::code_rows(int index, const TileRowReader& read, const TileRowsTogether* together) {
  const MainHeader& main = *setup_.main;
  MALLAT_ASSIGN_OR_RETURN(const std::vector<EncodeBlock> blocks, prepare(index));
  // The planes of an HT block are chosen from the whole image's estimates,
  // after its rows have gone: its indices wait (code_kept_planes).
  const bool estimated = setup_.estimated(main.cod.component.style.ht);
  if (estimated) {
    if (!setup_.kept_store) return internal_error("streamed encode: estimates without a store for the indices");
    kept_blocks_ = blocks;
    kept_estimates_.assign(blocks.size(), {});
    kept_indices_.assign(blocks.size(), {});
    kept_finer_estimates_.assign(finer_.size(), {});
  }
  // The tile's indices as they are where the most they take fits the
  // store's room for them (kept_indices.h), a cache line a block.
  KeptRoom raw;
  if (estimated) {
    for (const EncodeBlock& b : blocks)
      if (b.place.width > 0 && b.place.height > 0)
        raw.size += (static_cast<uint64_t>(b.place.width * b.place.height) *
                         static_cast<uint64_t>(kept_index_bytes(b.num_bitplanes + b.fraction_bits)) +
                     63) & ~uint64_t{63};
    raw.memory = setup_.kept_store->raw_room(raw.size);
  }
  const size_t nc = layout_.components.size();
  const dwt::Wavelet wavelet = irreversible_ ? dwt::Wavelet::k97 : dwt::Wavelet::k53;
  std::vector<ComponentRows> comps(nc);
  MALLAT_ASSIGN_OR_RETURN(std::vector<BandRows> bands, band_rows(layout_, blocks, wavelet, comps));
  int64_t tallest = 0;
  for (size_t c = 0; c < nc; ++c) {
    const TileComponent& tc = layout_.components[c];
    ComponentRows& k = comps[c];
    k.width = tc.rect.width();
    k.height = tc.rect.height();
    tallest = std::max(tallest, k.height);
    auto to_band = [&k](int nb, dwt::Band band) {
      return k.band_of[static_cast<size_t>(nb * 4 + static_cast<int>(band))];
    };
    // A tile-component may be empty (B-12: a sub-sampled component in a
    // tile narrower or lower than its sub-sampling): no rows, no blocks.
    if (tc.rect.empty()) continue;
    // Each band row straight into its band's buffer (next_row_place), and
    // taken there.
    auto sink = [to_band, &k, &bands]<typename T>(int nb, dwt::Band band, int64_t, const T* row, int64_t width) {
      const int b = to_band(nb, band);
      if (b >= 0) take_row(bands[b], b, k.ready, row, width);
    };
    auto place = [to_band, &bands]<typename T>(T*, int nb, dwt::Band band, int64_t width) -> T* {
      const int b = to_band(nb, band);
      return b >= 0 ? next_row_place<T>(bands[b], width) : nullptr;
    };
    if (wavelet == dwt::Wavelet::k53) {
      MALLAT_ASSIGN_OR_RETURN(
          k.f53, dwt::LineForward<int32_t>::make(
                     tc.rect, tc.levels, sink, dwt::cpu::Isa::kBest,
                     [place](int nb, dwt::Band band, int64_t, int64_t width) {
                       return place(static_cast<int32_t*>(nullptr), nb, band, width);
                     }));
    } else {
      MALLAT_ASSIGN_OR_RETURN(
          k.f97, dwt::LineForward<float>::make(
                     tc.rect, tc.levels, sink, dwt::cpu::Isa::kBest,
                     [place](int nb, dwt::Band band, int64_t, int64_t width) {
                       return place(static_cast<float*>(nullptr), nb, band, width);
                     }));
    }
  }

  // Component c's rows before the tallest one's first `rows`: its share
  // of them (B-12's sub-sampled rows), so each strip's rows of every
  // component come from the tallest one's.
  auto rows_before = [&](size_t c, int64_t rows) {
    const ComponentRows& k = comps[c];
    return tallest == 0 ? 0 : std::min(k.height, (std::min(rows, tallest) * k.height + tallest - 1) / tallest);
  };
  auto rows_in = [&](int64_t s, size_t c) { return rows_before(c, (s + 1) * kStripRows) - rows_before(c, s * kStripRows); };
  // A source that reads every component's rows together, converted by the
  // bands of rows below: only for components of one size. What it reads
  // stays with it until converted, so two strips of each component do.
  bool all_one_size = true;
  for (const ComponentRows& k : comps) all_one_size = all_one_size && k.height == tallest && k.width == comps[0].width;
  const TileRowsTogether* const read_together = all_one_size ? together : nullptr;
  const int held = read_together ? 2 : kStripsHeld;
  allocate_rows(comps, held, bands, tallest, pool_);
  auto strip_of = [&](int64_t s, size_t c) -> const StripRows& { return comps[c].strips[s % held]; };
  RowConversion conversions[2];
  // Each component's rows up to its share of the tallest one's first
  // `rows`, appended as read to strip s.
  auto advance_to = [&](int64_t s, int64_t rows) -> Status {
    for (size_t c = 0; c < nc; ++c) {
      ComponentRows& k = comps[c];
      const int64_t target = rows_before(c, rows), n = target - k.done;
      if (n > 0)
        MALLAT_RETURN_IF_ERROR(
            read(static_cast<int>(c), n, strip_of(s, c).row<int32_t>(k.done - rows_before(c, s * kStripRows), k.width)));
      k.done = target;
    }
    return Status::Ok();
  };
  // Strip s read: only what the source must read in order.
  auto read_strip = [&](int64_t s) -> Status {
    const int64_t end = std::min(tallest, (s + 1) * kStripRows);
    if (read_together) {
      MALLAT_ASSIGN_OR_RETURN(conversions[s % 2], (*read_together)(end - s * kStripRows));
      return Status::Ok();
    }
    for (int64_t rows = s * kStripRows + kRowsAtOnce; rows < end + kRowsAtOnce; rows += kRowsAtOnce)
      MALLAT_RETURN_IF_ERROR(advance_to(s, std::min(rows, end)));
    return Status::Ok();
  };

  // A strip's rows DC shifted and colour transformed (G.1-G.3, the rules of
  // tile_input.h and component_transform.h) in bands of rows, each band an
  // item: components 0..2 together under a colour transform (they share
  // their size), the shift and the transform in one pass
  // (shifted_rct_forward, shifted_ict_forward); every component together
  // when the source converts them together.
  const bool colour = main.cod.multiple_component_transform && nc >= 3;
  const Image& image = *setup_.image;
  int32_t colour_shift[3] = {0, 0, 0};
  if (colour)
    for (size_t c = 0; c < 3; ++c)
      colour_shift[c] = dc_shift_of(image.components[c].precision, image.components[c].is_signed);
  struct Band {
    size_t c0 = 0, c1 = 0;  // components [c0, c1)
    int64_t y0 = 0, y1 = 0;  // rows of the strip
  };
  auto bands_of = [&](int64_t s) {
    std::vector<Band> out;
    auto add = [&](size_t c0, size_t c1) {
      const int64_t rows = rows_in(s, c0);
      for (int64_t y = 0; y < rows; y += kBandRows) out.push_back({c0, c1, y, std::min(rows, y + kBandRows)});
    };
    if (read_together) {
      add(0, nc);
    } else {
      const size_t first = colour ? 3 : 0;
      if (colour) add(0, 3);
      for (size_t c = first; c < nc; ++c) add(c, c + 1);
    }
    return out;
  };
  // Band b of strip s converted a few rows at a time: each component's
  // rows as read (from the source's conversion, or from the strip) into a
  // buffer of the thread's that stays in cache, then shifted and
  // transformed back into the strip.
  auto convert_band = [&](int64_t s, const Band& b) -> Status {
    thread_local std::vector<int32_t> rows_buffer;
    // Components 0..2 under a colour transform are in a band of their own,
    // or first in the band of every component.
    const bool transforms_colour = colour && b.c0 == 0;
    int64_t widths = 0;
    for (size_t c = b.c0; c < b.c1; ++c) widths += comps[c].width;
    const int64_t rows_at_once = std::clamp<int64_t>(kSamplesAtOnce / std::max<int64_t>(widths, 1), 1, b.y1 - b.y0);
    if (rows_buffer.size() < static_cast<size_t>(widths * rows_at_once))
      rows_buffer.resize(static_cast<size_t>(widths * rows_at_once));
    std::vector<int32_t*> ins(b.c1 - b.c0);
    for (size_t c = b.c0, offset = 0; c < b.c1; offset += static_cast<size_t>(comps[c].width * rows_at_once), ++c)
      ins[c - b.c0] = rows_buffer.data() + offset;
    for (int64_t y0 = b.y0; y0 < b.y1; y0 += rows_at_once) {
      const int64_t y1 = std::min(b.y1, y0 + rows_at_once);
      if (read_together) {
        MALLAT_RETURN_IF_ERROR(conversions[s % 2](y0, y1, ins.data()));
      } else {
        for (size_t c = b.c0; c < b.c1; ++c)
          std::memcpy(ins[c - b.c0], strip_of(s, c).row<int32_t>(y0, comps[c].width),
                      static_cast<size_t>((y1 - y0) * comps[c].width) * sizeof(int32_t));
      }
      const int64_t n0 = (y1 - y0) * comps[b.c0].width;
      for (size_t c = transforms_colour ? 3 : b.c0; c < b.c1; ++c) {
        const StripRows& strip = strip_of(s, c);
        const int64_t n = (y1 - y0) * comps[c].width;
        if (wavelet == dwt::Wavelet::k53)
          dc_shift_row(ins[c - b.c0], n, image.components[c], strip.row<int32_t>(y0, comps[c].width));
        else
          dc_shift_row(ins[c - b.c0], n, image.components[c], strip.row<float>(y0, comps[c].width));
      }
      if (transforms_colour) {
        auto span = [&](size_t c) { return std::span<const int32_t>(ins[c], static_cast<size_t>(n0)); };
        auto out = [&]<typename T>(size_t c, T*) { return strip_of(s, c).template row<T>(y0, comps[c].width); };
        if (wavelet == dwt::Wavelet::k53)
          shifted_rct_forward(span(0), span(1), span(2), colour_shift, out(0, static_cast<int32_t*>(nullptr)),
                              out(1, static_cast<int32_t*>(nullptr)), out(2, static_cast<int32_t*>(nullptr)));
        else
          shifted_ict_forward(span(0), span(1), span(2), colour_shift, out(0, static_cast<float*>(nullptr)),
                              out(1, static_cast<float*>(nullptr)), out(2, static_cast<float*>(nullptr)));
      }
    }
    return Status::Ok();
  };
  // Component c's rows of strip s through its DWT: each component's DWT,
  // band buffers and ready rows are its own, so components run at once.
  // The DWT lifts the strip's rows where they lie, and keeps its own copy
  // of those it still needs once the strip is done, as the strip's buffer
  // is then converted into again.
  auto transform_strip = [&](int64_t s, size_t c) {
    ComponentRows& k = comps[c];
    const StripRows& strip = strip_of(s, c);
    for (int64_t y = 0, rows = rows_in(s, c); y < rows; ++y) {
      if (k.f53) k.f53->push_in_place(strip.row<int32_t>(y, k.width));
      if (k.f97) k.f97->push_in_place(strip.row<float>(y, k.width));
    }
    if (k.f53) k.f53->keep_rows();
    if (k.f97) k.f97->keep_rows();
  };

  const std::unique_ptr<TileStages> stages = make_cpu_tile_stages(pool_, dwt_);
  const bool ht_candidates = setup_.ht_candidates && main.cod.component.style.ht;
  // The ready rows of code-blocks as one batch, coded while `beside` (the
  // next strip) runs on the pool; each block's coding to its slot.
  auto code_ready = [&](std::vector<ReadyRow>& ready, const entropy::BatchWork& beside) -> Status {
    EncodeTile batch;
    batch.distortions = setup_.distortions;
    batch.hybrid_coder = setup_.hybrid_coder;
    std::vector<size_t> slots;
    for (ReadyRow& r : ready) {
      const int plane = static_cast<int>(batch.planes.size());
      batch.planes.push_back(std::move(r.samples));
      for (size_t slot : r.row->slots) {
        EncodeBlock b = blocks[slot];
        b.place = {plane, b.place.x0 - r.x0, b.place.y0 - r.y0, b.place.width, b.place.height};
        batch.blocks.push_back(b);
        slots.push_back(slot);
        if (estimated && !finer_.empty()) batch.ht_finer.push_back(finer_[slot].step);
      }
    }
    if (batch.blocks.empty()) {
      if (beside.item) pool_.parallel_for(beside.items, beside.item);
      return Status::Ok();
    }
    if (estimated) {
      // Quantised and estimated; each block's indices kept on its thread.
      batch.ht_statistics = true;
      std::vector<Status> kept(batch.blocks.size());
      const QuantisedIndices take = [&](size_t i, PlaneView<const int32_t> indices) {
        const EncodeBlock& b = batch.blocks[i];
        if (raw.memory) {
          // Its largest magnitude lies below 2^(planes + F) (plane_estimate.h).
          const std::optional<KeptIndices> as_they_are = KeptIndexStore::keep_raw(
              indices, batch.ht_estimates[i].planes + b.fraction_bits,
              kept_index_bytes(b.num_bitplanes + b.fraction_bits), raw);
          if (as_they_are) {
            kept_indices_[slots[i]] = *as_they_are;
            return;
          }
        }
        // Packed as zeros below 2^F at the nominal step; with a finer one,
        // below 2^(F - 1): an index from 2^F / factor - 1/2 on (factor below
        // 1.6) codes there (quant/finer_indices.h), as it does kept as it is.
        const int zeros_below = finer_.empty() ? b.fraction_bits : b.fraction_bits - 1;
        Result<KeptIndices> at = setup_.kept_store->keep(indices, zeros_below);
        if (at.ok()) kept_indices_[slots[i]] = at.value();
        kept[i] = at.status();
      };
      quantise_blocks(batch, pool_, beside, take);
      for (size_t i = 0; i < slots.size(); ++i) {
        MALLAT_RETURN_IF_ERROR(kept[i]);
        kept_estimates_[slots[i]] = batch.ht_estimates[i];
        if (!finer_.empty()) kept_finer_estimates_[slots[i]] = batch.ht_finer_estimates[i];
        account_estimated(slots[i], batch, i);
      }
      for (size_t i = 0; i < ready.size(); ++i) bands[ready[i].band].spare.push_back(std::move(batch.planes[i].storage));
      return Status::Ok();
    }
    MALLAT_RETURN_IF_ERROR(encode_blocks(batch, pool_, true, beside));
    for (size_t i = 0; i < slots.size(); ++i) {
      account(slots[i], batch, i);
      MALLAT_RETURN_IF_ERROR(keep_or_spill(slots[i]));
    }
    if (ht_candidates) MALLAT_RETURN_IF_ERROR(code_ht_candidates(batch, *stages, slots));
    for (size_t i = 0; i < ready.size(); ++i) bands[ready[i].band].spare.push_back(std::move(batch.planes[i].storage));
    return Status::Ok();
  };

  // Step s reads strip s, converts strip s - 1 (a band of rows an item),
  // transforms strip s - 2 (a component an item) and codes the rows of
  // code-blocks that strip s - 3 completed, all at once.
  const int64_t strips = (tallest + kStripRows - 1) / kStripRows;
  std::vector<ReadyRow> coding;
  for (int64_t s = 0; s <= strips + 2; ++s) {
    Status read_status;
    const bool reads = s < strips, converts = s >= 1 && s <= strips, transforms = s >= 2 && s <= strips + 1;
    const std::vector<Band> converting = converts ? bands_of(s - 1) : std::vector<Band>();
    std::vector<Status> converted(converting.size());
    const int64_t first_band = (reads ? 1 : 0) + (transforms ? static_cast<int64_t>(nc) : 0);
    entropy::BatchWork beside;
    beside.items = first_band + static_cast<int64_t>(converting.size());
    if (beside.items > 0) {
      beside.item = [&](int64_t i) {
        if (reads && i == 0) {
          const timeline::Span span("strip_rows");
          read_status = read_strip(s);
          return;
        }
        if (i < first_band) {
          const timeline::Span span("strip_dwt");
          transform_strip(s - 2, static_cast<size_t>(i - (reads ? 1 : 0)));
          return;
        }
        const timeline::Span span("strip_convert");
        const size_t b = static_cast<size_t>(i - first_band);
        converted[b] = convert_band(s - 1, converting[b]);
      };
    }
    {
      // With MALLAT_TIMELINE: a strip's blocks and its beside work together,
      // the reading, each band's conversion and each component's DWT alone
      // (which of them bounds a strip).
      const timeline::Span span("strip_blocks");
      MALLAT_RETURN_IF_ERROR(code_ready(coding, beside));
    }
    // The earlier strip's problems first, as a source read in order meets them.
    for (const Status& c : converted) MALLAT_RETURN_IF_ERROR(c);
    MALLAT_RETURN_IF_ERROR(read_status);
    coding.clear();
    for (ComponentRows& k : comps) {
      for (ReadyRow& r : k.ready) coding.push_back(std::move(r));
      k.ready.clear();
    }
  }
  for (const BandRows& b : bands)
    if (b.next != b.rows.size()) return internal_error("streamed encode: a subband's rows did not all arrive");
  // The image's last tile's buffers go to the release thread, the others
  // where they were used, so that no more than one tile's wait there
  // (however slow that thread) beside the next tile's.
  const uint64_t tiles = uint64_t{main.siz.tiles_x()} * main.siz.tiles_y();
  if (setup_.release && static_cast<uint64_t>(index) + 1 == tiles) {
    // Both, for the pieces of the one allocation that each holds.
    struct Spent {
      std::vector<ComponentRows> comps;
      std::vector<BandRows> bands;
    };
    release_on(*setup_.release, std::make_shared<Spent>(Spent{std::move(comps), std::move(bands)}));
  }
  return Status::Ok();
}

namespace {

// Samples of kept blocks read back and coded in one batch.
constexpr int64_t kKeptBatchSamples = int64_t{1} << 22;

}  // namespace

Status TileEncoder::code_kept_limited(std::span<const int> limits) {
  std::vector<size_t> wanted;
  for (size_t slot = 0; slot < kept_indices_.size() && slot < limits.size(); ++slot)
    if (limits[slot] >= 0) wanted.push_back(slot);
  std::shared_ptr<std::byte[]> storage;
  uint64_t capacity = 0;
  for (size_t first = 0; first < wanted.size();) {
    EncodeTile batch;
    batch.distortions = setup_.distortions;
    MALLAT_ASSIGN_OR_RETURN(const size_t end, stack_kept_blocks(wanted, first, batch, storage, capacity));
    const std::span<const size_t> slots = std::span<const size_t>(wanted).subspan(first, end - first);
    for (const size_t slot : slots) batch.pass_limits.push_back(limits[slot]);
    // Each block's indices unpacked on the thread that codes it, before it
    // is coded.
    std::vector<Status> unpacked(slots.size());
    entropy::BatchWork work;
    work.each = [&](size_t i) {
      unpacked[i] = setup_.kept_store->read(kept_indices_[slots[i]], batch.blocks[i].place.in(batch.planes[0].ints()));
    };
    const Status coded = encode_blocks(batch, pool_, false, work);
    for (const Status& u : unpacked) MALLAT_RETURN_IF_ERROR(u);
    MALLAT_RETURN_IF_ERROR(coded);
    for (size_t i = 0; i < slots.size(); ++i) blocks_[slots[i]].coded = std::move(batch.coded[i]);
    first = end;
  }
  return Status::Ok();
}

Result<size_t> TileEncoder::stack_kept_blocks(std::span<const size_t> wanted, size_t first, EncodeTile& batch,
                                              std::shared_ptr<std::byte[]>& storage, uint64_t& capacity) const {
  int64_t width = 0, height = 0, samples = 0;
  size_t end = first;
  for (; end < wanted.size() && (end == first || samples < kKeptBatchSamples); ++end) {
    EncodeBlock b = kept_blocks_[wanted[end]];
    b.place = {0, 0, height, b.place.width, b.place.height};
    width = std::max(width, b.place.width);
    height += b.place.height;
    samples += b.place.width * b.place.height;
    batch.blocks.push_back(b);
  }
  if (static_cast<uint64_t>(width * height) > capacity) {
    capacity = static_cast<uint64_t>(width * height);
    storage = allocate_large(capacity * 4);
  }
  TilePlane plane;
  plane.rect = dwt::Rect{0, 0, width, height};
  plane.wavelet = irreversible_ ? dwt::Wavelet::k97 : dwt::Wavelet::k53;
  plane.storage = storage;
  batch.planes.push_back(std::move(plane));
  return end;
}

Status TileEncoder::code_kept_planes(std::span<const std::vector<int8_t>> rounds) {
  std::vector<size_t> wanted;
  for (size_t slot = 0; slot < kept_indices_.size(); ++slot) {
    for (const std::vector<int8_t>& r : rounds) {
      if (r[slot] < 0) continue;
      wanted.push_back(slot);
      break;
    }
  }
  // One plane for every batch, reused.
  std::shared_ptr<std::byte[]> storage;
  uint64_t capacity = 0;
  for (size_t first = 0; first < wanted.size();) {
    // The batch's blocks one below the other in a plane of their widest.
    EncodeTile batch;
    batch.distortions = setup_.distortions;
    batch.hybrid_coder = setup_.hybrid_coder;
    MALLAT_ASSIGN_OR_RETURN(const size_t end, stack_kept_blocks(wanted, first, batch, storage, capacity));
    // Each block's indices are unpacked on the thread that codes it, just
    // before its first coding, so the coder reads them from that core's
    // cache rather than from a plane written in a pass of its own; its
    // rounds' candidates are added there too, each block's own, and its
    // points listed after its last round (encode_block_rounds).
    const std::span<const size_t> slots = std::span<const size_t>(wanted).subspan(first, end - first);
    std::vector<Status> unpacked(end - first);
    BlockRounds work;
    work.before = [&](size_t i) {
      const PlaneView<int32_t> at = batch.blocks[i].place.in(batch.planes[0].ints());
      unpacked[i] = setup_.kept_store->read(kept_indices_[slots[i]], at);
      if (finer_taken_) {
        const FinerStep& finer = finer_[slots[i]].step;
        quant::finer_indices(at, finer.factor, finer.magnitude_bits, at);
      }
    };
    work.after = [&](size_t i, size_t r, entropy::EncodedCodeBlock& coded) {
      add_ht_candidate(slots[i], rounds[r][slots[i]], coded);
      if (r + 1 == rounds.size()) list_ht_points_of(slots[i], rounds);
    };
    std::vector<std::vector<int8_t>> batch_rounds(rounds.size());
    for (size_t r = 0; r < rounds.size(); ++r) {
      for (const size_t slot : slots) batch_rounds[r].push_back(rounds[r][slot]);
    }
    ++points_listed_;
    const Status coded = encode_block_rounds(batch, batch_rounds, pool_, work);
    // A block that did not unpack was coded from what the plane held: its
    // error first.
    for (const Status& u : unpacked) MALLAT_RETURN_IF_ERROR(u);
    MALLAT_RETURN_IF_ERROR(coded);
    first = end;
  }
  return Status::Ok();
}

}  // namespace mallat::codec
