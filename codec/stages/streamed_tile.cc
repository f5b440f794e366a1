// StreamedTile: per plane a LineInverse whose band rows come from per-band
// buffers of one code-block row, decoded when the transform reaches them.
#include "codec/stages/streamed_tile.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <variant>

#include "codec/stages/block_coding.h"
#include "common/job_thread.h"
#include "common/large_buffer.h"
#include "common/timeline.h"
#include "dwt/line_inverse.h"

namespace mallat::codec {
namespace {

// The pool's threads from which the blocks are decoded ahead on a thread
// of their own (decode_ahead_in_job): that thread and the inverse DWT's are
// one more than the pool's, which fewer cores do not make up for.
constexpr int kAheadJobThreads = 4;

// One code-block row of a subband's coefficients, in a buffer kept for the
// next row.
struct RowBuffer {
  TilePlane rows;        // the subband's width by the block row's height
  size_t capacity = 0;   // samples `rows` can take without a new allocation
  int64_t y0 = 0, y1 = 0;  // the subband rows it holds, [y0, y1)
  bool full = false;
};

// One subband's code-blocks in rows, the row being read and the next one
// when it was decoded ahead (beside another subband's, in one batch).
struct BandRows {
  int plane = 0, resolution = 0;
  dwt::Band band = dwt::Band::kLL;
  dwt::Rect rect;            // the subband, in its own coordinates (B-15)
  std::vector<size_t> order;  // its blocks (indices into the input's), by row then column
  size_t next = 0;            // the first block of the next row to decode
  RowBuffer now, ahead;
  bool in_job = false;        // `next` and `ahead` are the job's until it is waited for
};

// A buffer reused while it is large enough: rows are written whole before
// they are read, so it is never cleared.
void fit(TilePlane& plane, size_t& capacity, const dwt::Rect& rect) {
  std::shared_ptr<std::byte[]> keep = std::move(plane.storage);
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

// The band buffers a thread's last streamed tile left, for its next tile
// whose buffers have the same sizes: a batch's lane decodes file after file
// on one thread, mostly of one shape, and buffers made anew for each file
// are fresh pages, each a fault and the kernel's zero-fill on first touch.
// Kept up to kKeptBandBytes a thread.
struct SpareBandBuffers {
  std::vector<size_t> bytes;
  std::vector<std::shared_ptr<std::byte[]>> pieces;
};
constexpr size_t kKeptBandBytes = size_t{64} << 20;
SpareBandBuffers& spare_band_buffers() {
  thread_local SpareBandBuffers spare;
  return spare;
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
        rows.now.y0 = rows.now.y1 = rows.rect.y0;
        rows.now.rows.wavelet = rows.ahead.rows.wavelet = in_.planes[static_cast<size_t>(b.plane)].wavelet;
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
    make_band_buffers();
    for (int set = 0; set < 2; ++set) {
      strips_[set].resize(n);
      strip_capacity_[set].assign(n, 0);
    }
    for (size_t p = 0; p < n; ++p) {
      const TilePlane& plane = in_.planes[p];
      if (plane.wavelet == dwt::Wavelet::k53) {
        inverse_.emplace_back(std::make_unique<dwt::LineInverse<int32_t>>(plane.rect, plane.levels, source<int32_t>(p)));
      } else {
        inverse_.emplace_back(std::make_unique<dwt::LineInverse<float>>(plane.rect, plane.levels, source<float>(p)));
      }
    }
  }

  // The band buffers to the thread's spare (spare_band_buffers), once no
  // job uses them.
  ~Impl() {
    if (ahead_job_) (void)ahead_job_->wait();
    size_t total = 0;
    for (size_t b : band_bytes_) total += b;
    if (band_bytes_.empty() || total > kKeptBandBytes) return;
    std::vector<std::shared_ptr<std::byte[]>> pieces;
    for_band_buffers([&](RowBuffer& b, size_t bytes) {
      // A buffer grown past its piece (fit) is not the piece any more.
      if (b.rows.storage && b.capacity * 4 == bytes) pieces.push_back(std::move(b.rows.storage));
    });
    if (pieces.size() != band_bytes_.size()) return;
    spare_band_buffers() = {std::move(band_bytes_), std::move(pieces)};
  }

  int64_t rows_left() const { return in_.planes.empty() ? 0 : in_.planes[0].height() - done_; }

  void use_threads() {
    if (pool_.size() < kAheadJobThreads || ahead_job_ || done_ > 0) return;
    ahead_job_ = std::make_unique<JobThread>();
    for (size_t p = 1; p < in_.planes.size(); ++p) plane_jobs_.push_back(std::make_unique<JobThread>());
  }

  // A job a resolution and plane, in that order (the order of the packets
  // in LRCP, RLCP and RPCL), so that a plane's blocks need not wait for the
  // next plane's packets.
  void decode_first_rows_ahead() {
    if (!ahead_job_ || done_ > 0) return;
    int resolutions = 0;
    for (const BandRows& b : bands_) resolutions = std::max(resolutions, b.resolution + 1);
    const std::lock_guard<std::mutex> lock(bands_mutex_);
    for (int r = 0; r < resolutions; ++r)
      for (size_t p = 0; p < in_.planes.size(); ++p) decode_ahead_in_job(r, static_cast<int>(p));
  }

  Result<std::vector<DecodedTileComponent>> next_strip(int64_t rows) {
    const int64_t n = std::min(rows, rows_left());
    fill_strips(n);
    if (!error_.ok()) return error_;
    return strip_rows();
  }

  bool keeps_two_strips() const { return !plane_jobs_.empty(); }

  bool reversible() const {
    return std::all_of(in_.planes.begin(), in_.planes.end(),
                       [](const TilePlane& p) { return p.wavelet == dwt::Wavelet::k53; });
  }

  Status next_rows(int64_t rows, const std::function<void(std::span<const DecodedTileComponent>)>& each) {
    if (!reversible()) return internal_error("next_rows hands over 5/3 rows only");
    const int64_t n = std::min(rows, rows_left());
    if (!plane_jobs_.empty()) {  // the planes at once, into the strips
      fill_strips(n);
      if (!error_.ok()) return error_;
      each(strip_rows());
      return error_;
    }
    std::vector<DecodedTileComponent> row(in_.planes.size());
    for (int64_t y = 0; y < n; ++y, ++done_) {
      for (size_t p = 0; p < in_.planes.size(); ++p) {
        const TilePlane& plane = in_.planes[p];
        const int64_t w = plane.width();
        row[p].rect = {plane.rect.x0, plane.rect.y0 + done_, plane.rect.x1, plane.rect.y0 + done_ + 1};
        row[p].samples53 = {static_cast<int32_t*>(next_row(p)), w, 1, w};
      }
      each(row);
    }
    if (rows_left() == 0) settle();
    return error_;
  }

 private:
  using Target = std::pair<BandRows*, RowBuffer*>;  // a subband and the buffer its next row goes to
  using Inverse53 = std::unique_ptr<dwt::LineInverse<int32_t>>;
  using Inverse97 = std::unique_ptr<dwt::LineInverse<float>>;

  // The next n rows of every plane into strips_ (settled at the tile's
  // end). With plane jobs, each plane's inverse DWT runs on a thread of its
  // own (plane 0 on the caller's): the planes share nothing but the band
  // bookkeeping, which source() takes under bands_mutex_.
  void fill_strips(int64_t n) {
    // With plane jobs the two sets of strips take turns, so that the
    // caller may read one strip while the next is made (keeps_two_strips).
    if (!plane_jobs_.empty()) strip_set_ ^= 1;
    std::vector<TilePlane>& strips = strips_[strip_set_];
    for (size_t p = 0; p < in_.planes.size(); ++p) {
      const TilePlane& plane = in_.planes[p];
      strips[p].wavelet = plane.wavelet;
      fit(strips[p], strip_capacity_[strip_set_][p],
          {plane.rect.x0, plane.rect.y0 + done_, plane.rect.x1, plane.rect.y0 + done_ + n});
    }
    // Row y of plane p, from its inverse DWT into its strip.
    auto copy_row = [this, &strips](size_t p, int64_t y) {
      const auto w = static_cast<size_t>(in_.planes[p].width());
      std::memcpy(strips[p].storage.get() + static_cast<size_t>(y) * w * 4, next_row(p), w * 4);
    };
    auto fill = [copy_row, n](size_t p) {
      for (int64_t y = 0; y < n; ++y) copy_row(p, y);
    };
    if (plane_jobs_.empty()) {
      // Row by row, so that the planes' subbands reach each block row
      // together (decode_next_rows batches them).
      for (int64_t y = 0; y < n; ++y)
        for (size_t p = 0; p < in_.planes.size(); ++p) copy_row(p, y);
    } else {
      for (size_t p = 1; p < in_.planes.size(); ++p) plane_jobs_[p - 1]->start([fill, p] {
          fill(p);
          return Status::Ok();  // errors are error_'s
        });
      fill(0);
      for (auto& job : plane_jobs_) (void)job->wait();
    }
    if (rows_left() == n) settle();
  }

  // The strips as the tile's components; the rows they hold are done.
  std::vector<DecodedTileComponent> strip_rows() {
    std::vector<DecodedTileComponent> out;
    int64_t n = 0;
    std::vector<TilePlane>& strips = strips_[strip_set_];
    for (size_t p = 0; p < in_.planes.size(); ++p) {
      DecodedTileComponent c;
      c.rect = strips[p].rect;
      n = c.rect.height();
      if (in_.planes[p].wavelet == dwt::Wavelet::k53) c.samples53 = strips[p].ints();
      else c.samples97 = strips[p].floats();
      out.push_back(c);
    }
    done_ += n;
    return out;
  }

  // Plane p's next row from its inverse DWT. Callers take the planes row by
  // row together, so that their subbands reach each block row together
  // (decode_next_rows batches them).
  void* next_row(size_t p) {
    if (auto* i53 = std::get_if<Inverse53>(&inverse_[p])) return const_cast<int32_t*>((*i53)->next_row());
    return const_cast<float*>(std::get<Inverse97>(inverse_[p])->next_row());
  }

  // The band rows the transform asks for, where the band buffers hold them
  // (it lifts them in place: each row is asked for once).
  template <typename T>
  dwt::BandRowSource<T> source(size_t p) {
    return [this, p](int nb, dwt::Band band, int64_t row) -> T* {
      const TilePlane& plane = in_.planes[p];
      const int k = band_index_[p][static_cast<size_t>(4 * resolution_of(plane, nb, band) + static_cast<int>(band))];
      if (k >= 0) {  // in the rows in hand: only this plane's thread changes them
        const BandRows& b = bands_[static_cast<size_t>(k)];
        const int64_t y = b.rect.y0 + row;
        if (y >= b.now.y0 && y < b.now.y1)
          return reinterpret_cast<T*>(b.now.rows.storage.get() +
                                      static_cast<size_t>(y - b.now.y0) * static_cast<size_t>(b.rect.width()) * 4);
      }
      const std::lock_guard<std::mutex> lock(bands_mutex_);
      if (k < 0) {  // no code-block covers it: Annex B's partition always does
        if (error_.ok()) error_ = internal_error("a subband of a streamed tile has no code-blocks");
        return zero_row<T>(band_rect(plane, resolution_of(plane, nb, band), band).width());
      }
      BandRows& b = bands_[static_cast<size_t>(k)];
      const int64_t y = b.rect.y0 + row;
      // With MALLAT_TIMELINE: the time the inverse DWT waits for blocks.
      std::optional<timeline::Span> waiting;
      while (y >= b.now.y1) {
        if (!waiting) waiting.emplace("blocks_wait");
        if (b.in_job) settle();
        if (b.ahead.full) {
          std::swap(b.now, b.ahead);
          b.ahead.full = false;
        } else if (b.next < b.order.size()) {
          settle();  // the batch may take other subbands' rows
          decode_next_rows(b);
        } else {
          break;
        }
        decode_ahead_in_job(b.resolution);
      }
      if (y < b.now.y0 || y >= b.now.y1) {
        if (error_.ok()) error_ = internal_error("a subband row of a streamed tile is not covered by its code-blocks");
        return zero_row<T>(b.rect.width());
      }
      const auto w = static_cast<size_t>(b.rect.width());
      return reinterpret_cast<T*>(b.now.rows.storage.get() + static_cast<size_t>(y - b.now.y0) * w * 4);
    };
  }

  // Whether decode_next_rows batches the other subbands' next rows with the
  // one asked for: that keeps a pool's threads busy, and holds two
  // code-block rows a subband. One thread gains nothing by it: it decodes
  // each row when its subband asks, into the buffer of the row before (its
  // rows were lifted, each asked for once), so a subband holds one row of
  // code-blocks and the transform reads it while it is still in cache.
  bool decode_ahead() const { return pool_.size() > 1; }

  // Every band's row buffers (now, and ahead where decode_ahead) as pieces
  // of one allocation, each of the band's width by its tallest code-block
  // row: in buffers of their own, under 2 MiB each, they lie in 4 KiB pages,
  // one page fault per page on first touch; one allocation lies mostly in
  // transparent huge pages (large_buffer.h), so far fewer faults.
  // The thread's spare buffers (spare_band_buffers) where their sizes are
  // these.
  void make_band_buffers() {
    const int buffers = decode_ahead() ? 2 : 1;
    std::vector<size_t> bytes;
    for (const BandRows& band : bands_) {
      int64_t rows = 0;
      for (size_t i : band.order) rows = std::max(rows, in_.blocks[i].rect.height());
      bytes.insert(bytes.end(), static_cast<size_t>(buffers),
                   static_cast<size_t>(std::max<int64_t>(0, band.rect.width() * rows)) * 4);
    }
    SpareBandBuffers& spare = spare_band_buffers();
    std::vector<std::shared_ptr<std::byte[]>> pieces =
        spare.bytes == bytes ? std::move(spare.pieces) : allocate_large_pieces(bytes);
    spare = {};
    if (pieces.size() != bytes.size()) return;
    band_bytes_ = std::move(bytes);
    size_t i = 0;
    for_band_buffers([&](RowBuffer& b, size_t size) {
      b.rows.storage = std::move(pieces[i++]);
      b.capacity = size / 4;
    });
  }

  // Each band's buffers in the order of band_bytes_ (now, then ahead where
  // decode_ahead), with its piece's size.
  template <typename Each>
  void for_band_buffers(Each each) {
    const bool ahead = band_bytes_.size() == 2 * bands_.size();
    for (size_t k = 0, i = 0; k < bands_.size(); ++k) {
      each(bands_[k].now, band_bytes_[i++]);
      if (ahead) each(bands_[k].ahead, band_bytes_[i++]);
    }
  }

  // A row of w zeros (for a band the stream does not cover; an error).
  template <typename T>
  T* zero_row(int64_t w) {
    zeros_.assign(static_cast<size_t>(std::max<int64_t>(w, 0)), 0);
    return reinterpret_cast<T*>(zeros_.data());
  }

  // The next row of b's code-blocks into b.now, and in the same batch the
  // row at the same place of every other subband of its resolution (the
  // other orientations, the other planes) that has it next and nothing
  // ahead yet, into their `ahead`: the transform reaches those rows within
  // a few lines, and one large batch keeps the pool's threads busy where
  // one subband's row would leave them waiting at its end. Block decoding
  // and dequantisation are decode_blocks' (block_coding.h), into band
  // buffers as a region decode's (tile_buffers.h).
  void decode_next_rows(BandRows& b) {
    const int64_t y0 = in_.blocks[b.order[b.next]].rect.y0;
    std::vector<Target> targets = {{&b, &b.now}};
    for (BandRows& o : bands_) {
      if (!decode_ahead()) break;
      if (&o == &b || o.resolution != b.resolution || o.ahead.full || o.next >= o.order.size()) continue;
      if (in_.blocks[o.order[o.next]].rect.y0 == y0) targets.push_back({&o, &o.ahead});
    }
    const Status s = decode_rows(targets);
    if (!s.ok() && error_.ok()) error_ = s;
  }

  // With a pool of several threads, once every subband of resolution r has
  // taken its row decoded ahead, the next row of all of them is decoded
  // ahead on the job's thread (on the pool), while the inverse DWT goes on
  // through the rows in hand: the transform then seldom waits for blocks.
  // The jobs run one at a time, in order; the subbands a job writes are its
  // own until settle(). `plane` >= 0: that plane's subbands of r alone.
  void decode_ahead_in_job(int r, int plane = -1) {
    if (!ahead_job_) return;
    std::vector<Target> targets;
    int64_t y0 = -1;
    for (BandRows& o : bands_) {
      if (o.resolution != r || (plane >= 0 && o.plane != plane)) continue;
      if (o.in_job) return;  // its `next` and `ahead` are the job's
      if (o.next >= o.order.size()) continue;
      if (o.ahead.full) return;
      const int64_t oy = in_.blocks[o.order[o.next]].rect.y0;
      if (y0 < 0) y0 = oy;
      if (oy == y0) targets.push_back({&o, &o.ahead});
    }
    if (targets.empty()) return;
    for (const Target& t : targets) t.first->in_job = true;
    jobs_started_ = true;
    ahead_job_->start([this, targets]() { return decode_rows(targets); });
  }

  // Waits for the jobs decoding ahead, if any; their error becomes the
  // tile's.
  void settle() {
    if (!jobs_started_) return;
    const Status s = ahead_job_->wait();
    jobs_started_ = false;
    for (BandRows& o : bands_) o.in_job = false;
    if (!s.ok() && error_.ok()) error_ = s;
  }

  // The next row of each target's code-blocks into its buffer, in one
  // batch.
  Status decode_rows(const std::vector<Target>& targets) {
    DecodeTile tile;
    tile.windows.assign(1, dwt::Rect{0, 0, 1, 1});  // the blocks go to `bands`
    std::vector<size_t> ids;
    for (auto [band, buffer] : targets) {
      const dwt::Rect& first = in_.blocks[band->order[band->next]].rect;
      RegionBand region;
      region.plane = band->plane;
      region.resolution = band->resolution;
      region.band = band->band;
      region.coefficients = std::move(buffer->rows);
      fit(region.coefficients, buffer->capacity, {band->rect.x0, first.y0, band->rect.x1, first.y1});
      const int index = static_cast<int>(tile.bands.size());
      tile.bands.push_back(std::move(region));
      for (; band->next < band->order.size() && in_.blocks[band->order[band->next]].rect.y0 == first.y0; ++band->next) {
        const StreamBlock& sb = in_.blocks[band->order[band->next]];
        DecodeBlock block = in_.make_block(sb.id);
        block.place = {index, sb.rect.x0 - band->rect.x0, sb.rect.y0 - first.y0, sb.rect.width(), sb.rect.height()};
        tile.blocks.push_back(std::move(block));
        ids.push_back(sb.id);
      }
      buffer->y0 = first.y0;
      buffer->y1 = first.y1;
    }
    if (in_.describe_block) tile.describe_block = [&](size_t i) { return in_.describe_block(ids[i]); };
    tile.hybrid_decoder = in_.hybrid_decoder;
    Status s;
    {
      // With MALLAT_TIMELINE: a batch of blocks, on the job's thread or
      // with the inverse DWT waiting for it.
      const timeline::Span span("row_blocks");
      s = decode_blocks(tile, pool_, /*dequantise=*/true);
    }
    for (size_t t = 0; t < targets.size(); ++t) {
      targets[t].second->rows = std::move(tile.bands[t].coefficients);
      targets[t].second->full = true;
    }
    return s;
  }

  StreamedTileInput in_;
  ThreadPool& pool_;
  std::vector<std::vector<int>> band_index_;  // per plane, per 4 r + band: index into bands_, or -1
  std::vector<BandRows> bands_;
  std::vector<std::variant<Inverse53, Inverse97>> inverse_;
  std::vector<TilePlane> strips_[2];        // the strips made, and the one before (keeps_two_strips)
  std::vector<size_t> strip_capacity_[2];
  int strip_set_ = 0;                       // the set of strips_ made last
  std::vector<size_t> band_bytes_;  // the band buffers' pieces (make_band_buffers)
  int64_t done_ = 0;
  std::vector<int32_t> zeros_;  // zero_row's
  Status error_;
  bool jobs_started_ = false;  // since the last settle()
  std::mutex bands_mutex_;  // the bands' bookkeeping and the jobs, for source() on the planes' threads
  // Last: they end their jobs before the members the jobs use go.
  std::unique_ptr<JobThread> ahead_job_;
  std::vector<std::unique_ptr<JobThread>> plane_jobs_;  // planes 1.. (fill_strips)
};

StreamedTile::StreamedTile(StreamedTileInput input, ThreadPool& pool)
    : impl_(std::make_unique<Impl>(std::move(input), pool)) {}
StreamedTile::~StreamedTile() = default;
int64_t StreamedTile::rows_left() const { return impl_->rows_left(); }
void StreamedTile::use_threads() { impl_->use_threads(); }
void StreamedTile::decode_first_rows_ahead() { impl_->decode_first_rows_ahead(); }
Result<std::vector<DecodedTileComponent>> StreamedTile::next_strip(int64_t rows) { return impl_->next_strip(rows); }
bool StreamedTile::reversible() const { return impl_->reversible(); }
bool StreamedTile::keeps_two_strips() const { return impl_->keeps_two_strips(); }
Status StreamedTile::next_rows(int64_t rows, const std::function<void(std::span<const DecodedTileComponent>)>& each) {
  return impl_->next_rows(rows, each);
}

}  // namespace mallat::codec
