// What `mallat decode` does after decoding: opj_decompress's output options
// (-p, -upsample, -force-rgb, -split-pnm), the restricted ICC profile, and
// writing one file or one file per component, all of them or none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "codec/jp2/output_conversions.h"
#include "common/image.h"
#include "common/status.h"
#include "io/image_io.h"

namespace mallat::tools {

struct DecodeOutputOptions {
  std::vector<codec::PrecisionRequest> precision;  // -p
  bool upsample = false;    // -upsample
  bool force_rgb = false;   // -force-rgb
  bool split_pnm = false;   // -split-pnm
  bool icc_to_srgb = false; // --icc-to-srgb: apply the ICC profile for every format
  bool keep_samples = false;  // --keep-samples: never apply it by default (output_policy.h)
  int threads = 0;          // -threads: for the conversion to the file's format (0: all cores)
  bool whole_image = false;  // --whole-image: decode the whole image, then write it (never strip by strip)
  bool streamed = false;     // --streamed: strip by strip whatever the image's size, where the stream allows
  io::PngCompression png;    // --png-level, --png-filter
};

// Applies the options in opj_decompress's order (ICC, precision, upsampling,
// RGB) to `image`, decoded at `reduce`, then fits it to the output format
// (output_policy.h); notes for the user go to `notes`. A restricted ICC
// profile is applied for formats that cannot hold it unless keep_samples.
Status prepare_output(Image& image, int reduce, const std::filesystem::path& out,
                      const DecodeOutputOptions& options, std::vector<std::string>* notes);

// The files `image` is written to: `out`, or `<stem>_<c>.pgx` per component
// for PGX with several components, or `<stem>_<c>.pgm` with -split-pnm.
std::vector<std::filesystem::path> output_paths(const Image& image, const std::filesystem::path& out,
                                                const DecodeOutputOptions& options);

// What decode prints after writing raw planes to `out`: the -F text that
// reads them back (mallat encode, opj_compress), or a note saying why there
// is none. `image` may be a header without samples.
std::string raw_read_back_message(const Image& image, const std::filesystem::path& out);

// Writes every file of output_paths to a temporary name first and renames
// them only when all were written; on failure none is left.
Status write_outputs(const Image& image, const std::filesystem::path& out, const DecodeOutputOptions& options);

// Whether prepare_output left the decoded samples as they are: `written`
// (prepare_output's image) has `decoded`'s components, each of the same
// size, precision and signedness (-p at the same precision clamps to the
// range the samples are in already). Either may be a header without
// samples.
bool output_keeps_samples(const Image& decoded, const Image& written);

// A decode whose samples came as a byte raster (codec::decode's raster
// overload; `image` describes them, without samples): written as that
// raster where the output is one PNM file and prepare_output changes no
// sample (no ICC profile to apply, no upsampling: output_keeps_samples),
// with prepare_output's notes; then `image` is the header as written.
// Otherwise false, nothing written: unpack_raster, then prepare_output
// and write_outputs as for any image.
Result<bool> write_raster_output(Image& image, std::span<const uint8_t> raster, int reduce,
                                 const std::filesystem::path& out, const DecodeOutputOptions& options,
                                 std::vector<std::string>* notes);

// The raster's samples into `image`'s components (its layout is
// raster[(y * width + x) * components + c]).
void unpack_raster(std::span<const uint8_t> raster, Image& image);

}  // namespace mallat::tools
