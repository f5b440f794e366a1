// StreamedTile: per plane a LineInverse whose band rows come from per-band
// buffers of one code-block row, decoded when the transform reaches them.
#include "codec/stages/streamed_tile.h"

#include <algorithm>
#include <cstring>
#include <variant>

#include "codec/stages/block_coding.h"
#include "dwt/line_inverse.h"

namespace mallat::codec {
namespace {

// One subband's code-blocks in rows, and the coefficients of the row held.
struct BandRows {
  int plane = 0, resolution = 0;
  dwt::Band band = dwt::Band::kLL;
  dwt::Rect rect;            // the subband, in its own coordinates (B-15)
  std::vector<size_t> order;  // its blocks (indices into the input's), by row then column
  size_t next = 0;            // the first block of the next row to decode
  int64_t y0 = 0, y1 = 0;     // the subband rows held, [y0, y1)
  TilePlane held;             // those rows' coefficients, the subband's width
  size_t capacity = 0;        // samples `held` can take without a new allocation
};

// A buffer reused while it is large enough: rows are written whole before
// they are read, so it is never cleared.
void fit(TilePlane& plane, size_t& capacity, const dwt::Rect& rect) {
  std::unique_ptr<std::byte[]> keep = std::move(plane.storage);
  plane.rect = rect;
  if (plane.count() > capacity) {
    plane.allocate();
    capacity = plane.count();
  } else {
    plane.storage = std::move(keep);
  }
}

// The subband of decomposition level nb (1 = finest) of `plane`, as r of the
// plane's resolutions: the LL band is resolution 0, level nb's others are
// resolution levels - nb + 1 (B.5).
int resolution_of(const TilePlane& plane, int nb, dwt::Band band) {
  return band == dwt::Band::kLL ? 0 : plane.levels - nb + 1;
}

dwt::Rect band_rect(const TilePlane& plane, int resolution, dwt::Band band) {
  if (plane.levels == 0) return plane.rect;
  const int nb = resolution == 0 ? plane.levels : plane.levels - resolution + 1;
  return dwt::subband_rect(plane.rect, nb, band);
}

}  // namespace

class StreamedTile::Impl {
 public:
  Impl(StreamedTileInput in, ThreadPool& pool) : in_(std::move(in)), pool_(pool) {
    const size_t n = in_.planes.size();
    band_index_.resize(n);
    for (size_t p = 0; p < n; ++p) band_index_[p].assign(static_cast<size_t>(4 * (in_.planes[p].levels + 1)), -1);
    for (size_t i = 0; i < in_.blocks.size(); ++i) {
      const StreamBlock& b = in_.blocks[i];
      int& k = band_index_[static_cast<size_t>(b.plane)][static_cast<size_t>(4 * b.resolution + static_cast<int>(b.band))];
      if (k < 0) {
        k = static_cast<int>(bands_.size());
        BandRows rows;
        rows.plane = b.plane;
        rows.resolution = b.resolution;
        rows.band = b.band;
        rows.rect = band_rect(in_.planes[static_cast<size_t>(b.plane)], b.resolution, b.band);
        rows.y0 = rows.y1 = rows.rect.y0;
        rows.held.wavelet = in_.planes[static_cast<size_t>(b.plane)].wavelet;
        bands_.push_back(std::move(rows));
      }
      bands_[static_cast<size_t>(k)].order.push_back(i);
    }
    for (BandRows& b : bands_) {
      std::sort(b.order.begin(), b.order.end(), [&](size_t a, size_t c) {
        const dwt::Rect &ra = in_.blocks[a].rect, &rc = in_.blocks[c].rect;
        return ra.y0 != rc.y0 ? ra.y0 < rc.y0 : ra.x0 < rc.x0;
      });
    }
    strips_.resize(n);
    strip_capacity_.assign(n, 0);
    for (size_t p = 0; p < n; ++p) {
      const TilePlane& plane = in_.planes[p];
      if (plane.wavelet == dwt::Wavelet::k53) {
        inverse_.emplace_back(std::make_unique<dwt::LineInverse<int32_t>>(plane.rect, plane.levels, source<int32_t>(p)));
      } else {
        inverse_.emplace_back(std::make_unique<dwt::LineInverse<float>>(plane.rect, plane.levels, source<float>(p)));
      }
    }
  }

  int64_t rows_left() const { return in_.planes.empty() ? 0 : in_.planes[0].height() - done_; }

  Result<std::vector<DecodedTileComponent>> next_strip(int64_t rows) {
    const int64_t n = std::min(rows, rows_left());
    std::vector<DecodedTileComponent> out;
    for (size_t p = 0; p < in_.planes.size(); ++p) {
      const TilePlane& plane = in_.planes[p];
      TilePlane& strip = strips_[p];
      strip.wavelet = plane.wavelet;
      fit(strip, strip_capacity_[p], {plane.rect.x0, plane.rect.y0 + done_, plane.rect.x1, plane.rect.y0 + done_ + n});
      const auto w = static_cast<size_t>(plane.width());
      for (int64_t y = 0; y < n; ++y) {
        std::byte* dst = strip.storage.get() + static_cast<size_t>(y) * w * 4;
        if (auto* i53 = std::get_if<Inverse53>(&inverse_[p])) std::memcpy(dst, (*i53)->next_row(), w * 4);
        else std::memcpy(dst, std::get<Inverse97>(inverse_[p])->next_row(), w * 4);
      }
      if (!error_.ok()) return error_;
      DecodedTileComponent c;
      c.rect = strip.rect;
      if (plane.wavelet == dwt::Wavelet::k53) c.samples53 = strip.ints();
      else c.samples97 = strip.floats();
      out.push_back(c);
    }
    done_ += n;
    return out;
  }

  size_t bytes_held() const {
    size_t bytes = 0;
    for (const BandRows& b : bands_) bytes += b.capacity * 4;
    for (size_t c : strip_capacity_) bytes += c * 4;
    return bytes;
  }

 private:
  using Inverse53 = std::unique_ptr<dwt::LineInverse<int32_t>>;
  using Inverse97 = std::unique_ptr<dwt::LineInverse<float>>;

  template <typename T>
  dwt::BandRowSource<T> source(size_t p) {
    return [this, p](int nb, dwt::Band band, int64_t row, T* dst) {
      const TilePlane& plane = in_.planes[p];
      const int k = band_index_[p][static_cast<size_t>(4 * resolution_of(plane, nb, band) + static_cast<int>(band))];
      if (k < 0) {  // no code-block covers it: Annex B's partition always does
        if (error_.ok()) error_ = internal_error("a subband of a streamed tile has no code-blocks");
        std::fill_n(dst, band_rect(plane, resolution_of(plane, nb, band), band).width(), T{});
        return;
      }
      BandRows& b = bands_[static_cast<size_t>(k)];
      const int64_t y = b.rect.y0 + row;
      while (y >= b.y1 && b.next < b.order.size()) decode_next_row(b);
      if (y < b.y0 || y >= b.y1) {
        if (error_.ok()) error_ = internal_error("a subband row of a streamed tile is not covered by its code-blocks");
        std::fill_n(dst, b.rect.width(), T{});
        return;
      }
      const auto w = static_cast<size_t>(b.rect.width());
      std::memcpy(dst, b.held.storage.get() + static_cast<size_t>(y - b.y0) * w * 4, w * sizeof(T));
    };
  }

  // The next row of b's code-blocks, block-decoded and dequantised on the
  // pool into b.held (a region decode's band buffer: tile_buffers.h).
  void decode_next_row(BandRows& b) {
    const dwt::Rect& first = in_.blocks[b.order[b.next]].rect;
    DecodeTile tile;
    tile.windows.assign(1, dwt::Rect{0, 0, 1, 1});  // the blocks go to `bands`
    RegionBand band;
    band.plane = b.plane;
    band.resolution = b.resolution;
    band.band = b.band;
    band.coefficients = std::move(b.held);
    fit(band.coefficients, b.capacity, {b.rect.x0, first.y0, b.rect.x1, first.y1});
    tile.bands.push_back(std::move(band));
    std::vector<size_t> ids;
    for (; b.next < b.order.size() && in_.blocks[b.order[b.next]].rect.y0 == first.y0; ++b.next) {
      const StreamBlock& sb = in_.blocks[b.order[b.next]];
      DecodeBlock block = in_.make_block(sb.id);
      block.place = {0, sb.rect.x0 - b.rect.x0, sb.rect.y0 - first.y0, sb.rect.width(), sb.rect.height()};
      tile.blocks.push_back(std::move(block));
      ids.push_back(sb.id);
    }
    if (in_.describe_block) tile.describe_block = [&](size_t i) { return in_.describe_block(ids[i]); };
    const Status s = decode_blocks(tile, pool_, /*dequantise=*/true);
    b.held = std::move(tile.bands[0].coefficients);
    b.y0 = first.y0;
    b.y1 = first.y1;
    if (!s.ok() && error_.ok()) error_ = s;
  }

  StreamedTileInput in_;
  ThreadPool& pool_;
  std::vector<std::vector<int>> band_index_;  // per plane, per 4 r + band: index into bands_, or -1
  std::vector<BandRows> bands_;
  std::vector<std::variant<Inverse53, Inverse97>> inverse_;
  std::vector<TilePlane> strips_;
  std::vector<size_t> strip_capacity_;
  int64_t done_ = 0;
  Status error_;
};

StreamedTile::StreamedTile(StreamedTileInput input, ThreadPool& pool)
    : impl_(std::make_unique<Impl>(std::move(input), pool)) {}
StreamedTile::~StreamedTile() = default;
int64_t StreamedTile::rows_left() const { return impl_->rows_left(); }
Result<std::vector<DecodedTileComponent>> StreamedTile::next_strip(int64_t rows) { return impl_->next_strip(rows); }
size_t StreamedTile::bytes_held() const { return impl_->bytes_held(); }

uint64_t streamed_tile_bytes(const std::vector<TilePlane>& planes, int64_t strip_rows, int64_t block_height) {
  uint64_t bytes = 0;
  for (const TilePlane& p : planes) {
    // The strip; per level a ring of at most 9 rows and one scratch row of
    // a resolution at most as wide as the plane, halving level by level
    // (under 2 widths over all levels); per level three subbands of about
    // half its width, one code-block row each (under 3 widths of rows over
    // all levels), and the LL band.
    const auto w = static_cast<uint64_t>(std::max<int64_t>(0, p.width()) + 2 * (p.levels + 1));
    bytes += 4 * w * (static_cast<uint64_t>(strip_rows) + 2 * 10 + 4 * static_cast<uint64_t>(block_height));
  }
  return bytes;
}

}  // namespace mallat::codec
