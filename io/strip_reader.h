// Image files read in strips: the rows of each component top to bottom, a
// few at a time, never the whole image (the streamed encoder's input,
// codec/api/encode_streamed.h). The checks and messages are the
// whole-image readers' (image_io.h, raw.h), through the same header parsing
// and sample conversion; a problem found in a later strip (a sample above
// maxval) is an error of the read that meets it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/image.h"
#include "common/status.h"
#include "io/raw.h"

namespace mallat::io {

class StripReader {
 public:
  virtual ~StripReader() = default;
  // The image as read_image would give it, its samples empty: components'
  // sizes, precision, signedness, sub-sampling; colour space; x1, y1.
  const Image& layout() const { return layout_; }
  // The next `rows` rows of component c (rows x its width samples) into
  // `out`. Each component is read top to bottom on its own; components
  // read together stay a strip apart at most, or the reader buffers more.
  virtual Status read_rows(int c, int64_t rows, int32_t* out) = 0;

  // Rows [y0, y1) of what one read_together call read (0: its first row),
  // every component c's into out[c].
  using Conversion = std::function<Status(int64_t y0, int64_t y1, int32_t* const* out)>;
  // Whether read_together is there: a reader whose components are of one
  // size and whose rows' conversion can run apart from their reading.
  virtual bool reads_together() const { return false; }
  // The next `rows` rows of every component in two steps: this call reads
  // what must be read in order (PNM and PAM: nothing, their rows lie at
  // known offsets); the conversion it returns reads its rows' bytes and
  // turns them into samples (and checks them), on several threads at once
  // for rows that do not overlap, and stays valid through the next call
  // (until the one after it). A reader read so is not read by read_rows as
  // well.
  virtual Result<Conversion> read_together(int64_t rows);

  // Rows [y0, y1) of what one read_together_stored call read, every
  // component c's samples at their stored width (Component::stored:
  // stored_bytes(precision) bytes each, in the host's order) into out[c].
  using StoredConversion = std::function<Status(int64_t y0, int64_t y1, uint8_t* const* out)>;
  // Whether read_together_stored is there (PNM and PAM).
  virtual bool reads_stored() const { return false; }
  // read_together with the rows kept at their stored width, for an encode
  // that sends them to a device as they are (a quarter of the bytes of
  // 8-bit samples widened); the same checks. A reader read so is not read
  // otherwise as well.
  virtual Result<StoredConversion> read_together_stored(int64_t rows);

 protected:
  Image layout_;
};

// Whether `path` (by its extension and magic) is a format read in strips:
// binary PNM (P5, P6), PAM (P7), PGX, TIFF (in builds with libtiff) and raw
// planes. Others (PNG, BMP, ASCII PNM) are read whole.
bool reads_in_strips(const std::filesystem::path& path);

// Opens an image file of a format read in strips by its magic (binary PNM,
// PAM, PGX, TIFF); null for other formats. Errors name the file, as read_image's.
Result<std::unique_ptr<StripReader>> open_strips(const std::filesystem::path& path);

// Opens a binary PNM (P5, P6) or PAM (P7) file. Errors name the file, as read_image's.
Result<std::unique_ptr<StripReader>> open_pnm_strips(const std::filesystem::path& path);
// Opens a PGX file (one component).
Result<std::unique_ptr<StripReader>> open_pgx_strips(const std::filesystem::path& path);
// Opens a TIFF file (tiff_read.cc; only in builds with libtiff): strips or
// tiles, contiguous or planar, classic or BigTIFF, as read_image reads them;
// a strip, or a row of tiles, of every plane held at a time.
Result<std::unique_ptr<StripReader>> open_tiff_strips(const std::filesystem::path& path);

// Opens raw planes of this geometry (raw.h); big_endian for .raw / .yuv.
// The file's size is checked first, as read_raw does.
Result<std::unique_ptr<StripReader>> open_raw_strips(const std::filesystem::path& path, const RawGeometry& geometry,
                                                     bool big_endian);

namespace detail {

// A reader whose file gives every component's rows together, a band of rows
// at a time (interleaved PNM; TIFF's strips or rows of tiles): components of
// one size, layout_.x1 wide; a band's rows are held until every component
// has taken them.
class BandedStrips : public StripReader {
 public:
  Status read_rows(int c, int64_t rows, int32_t* out) final;

 protected:
  // Once layout_ is set; `name` names the file in messages.
  void start(std::string name);
  // The end of the rows read from `from` when rows up to `until` are
  // needed (past `from`; the image's height at most).
  virtual int64_t band_end(int64_t from, int64_t until) const = 0;
  // Rows [from, to) of every component into planes[c], layout_.x1 apart.
  virtual Status read_band(int64_t from, int64_t to, int32_t* const* planes) = 0;

  std::string name_;

 private:
  Status fill(int64_t until);

  std::vector<std::vector<int32_t>> planes_;  // rows [first_, first_ + held_) of each component
  std::vector<int64_t> next_;                 // each component's next row
  int64_t first_ = 0, held_ = 0;
};

}  // namespace detail

}  // namespace mallat::io
